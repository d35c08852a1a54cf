"""One game at a table, without input or output: what the terminal and the web both drive.

A ``TableSession`` holds the game (``nochmal.game.Game``), the seats, the seed and so its
rolls, the mission of a co-op game and the record it saves. It prints nothing and reads
nothing: the terminal (nochmal/terminal/session.py) prints and reads around it, the web app
(nochmal/web/games.py) answers JSON from it.

``undo`` takes back the last human choice and what followed with ``Game.pop`` (a stack of
saved states, no replay); the bots then choose again exactly as before, because the dice
depend only on (seed, roll number) and every bot decision only on (bot, seed, roll number,
seat, position). A saved game continues through the engine's replay of its record
(``GameRecord.replay``), which checks every roll and move as ``nochmal replay`` does.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from nochmal.board import Board
from nochmal.dice import seeded_roll
from nochmal.errors import BotError, NochmalError, RecordError
from nochmal.game import CHANCE, Game, rating
from nochmal.modes import Mode
from nochmal.move import Move
from nochmal.record import GameRecord
from nochmal.rules import DEFAULT_RULES, RuleSettings
from nochmal.seats import is_human, seat_name
from nochmal.table.setup import bot_seed, parse_seats


class TakenBack(NamedTuple):
    """What ``undo`` took back: seat ``player``'s ``move``, in the current roll or the one before."""

    player: int
    move: Move
    roll_before: bool


class TableSession:
    """One game from the first roll (or a saved record) to the end; see the module doc."""

    def __init__(self, board: Board, seats: list[str], seed: int, rules: RuleSettings = DEFAULT_RULES,
                 mission=None, difficulty: str | None = None, extra: dict | None = None,
                 open_rolls: bool = False):
        self.board = board
        self.seats = list(seats)
        self.seed = seed
        self.rules = rules
        self.mission = mission
        self.difficulty = difficulty
        self.extra = dict(extra or {})
        self.open_rolls = open_rolls
        self.game = self.new_game()

    # --- building and rebuilding ------------------------------------------------------------
    def new_game(self) -> Game:
        n = len(self.seats)
        if self.mission is not None:
            from nochmal.missions.coop import coop_game  # loads the graph measures: only for missions

            return coop_game(self.mission, self.difficulty, n, self.rules)
        return Game(self.board, n, self.rules, Mode.SOLO if n == 1 else Mode.COMPETITIVE)

    def rebuild(self, record: GameRecord, source: str = "record") -> None:
        """Replace the game by a fresh one of this table with the record's rolls and moves
        replayed by the engine (``GameRecord.replay``); its states are then on the undo stack
        like a game played here."""
        game = None
        for _, game in record.replay(source, lambda _record: self.new_game()):
            pass
        self.game = game if game is not None else self.new_game()

    @classmethod
    def from_record(cls, record: GameRecord, source: str, missions=None) -> "TableSession":
        """Continue a saved game exactly where it stopped; a co-op record's mission is found by
        ``missions`` (nochmal.missions.coop record_mission; default: a shipped id or a file)."""
        if record.seed is None:
            raise RecordError(f"{source}: the record has no seed, so its next rolls are unknown")
        if record.result is not None:
            raise RecordError(f"{source}: the game is already over (scores {record.result.get('scores')}); "
                              f"see nochmal replay {source}")
        seats = parse_seats(record.players)
        mission, difficulty = None, None
        if "mission" in record.extra:
            from nochmal.missions.coop import load_mission, record_mission  # the graph measures: only for missions

            mission = record_mission(record, missions or load_mission)
            difficulty = record.extra.get("difficulty")
        session = cls(record.board, seats, record.seed, record.rules, mission=mission,
                      difficulty=difficulty, extra=record.extra, open_rolls=bool(record.extra.get("open")))
        if session.game.mode != record.mode:
            raise RecordError(f"{source}: a {record.mode} record cannot continue as a {session.game.mode} game")
        session.rebuild(record, source)
        return session

    def record(self) -> GameRecord:
        return GameRecord.from_game(self.game, self.seats, self.seed, self.extra)

    def save(self, path: str) -> None:
        self.record().save(path)

    def signature(self) -> str:
        """The rolls and moves so far as text: equal signatures, equal games (what was saved)."""
        return repr([(r, list(ms)) for r, ms in self.game.history])

    # --- playing ----------------------------------------------------------------------------
    def human_to_move(self) -> int | None:
        """The seat whose human must decide now, else None (the dice or a bot, or the end)."""
        p = self.game.current_player()
        return p if p >= 0 and is_human(self.seats[p]) else None

    def bot_turn(self, p: int) -> Move:
        """Bot seat ``p`` decides; its seed depends only on (seed, roll, seat)."""
        g = self.game
        from nochmal.bots.registry import make_agent  # the bots load numpy: imported on use
        agent = make_agent(self.seats[p], bot_seed(self.seed, g.rolls_done, p))
        if self.mission is not None:  # a co-op bot serves the mission; its own bot breaks ties
            from nochmal.missions.tactics import MissionAgent

            agent = MissionAgent(self.mission, agent)
        move = agent.choose(g.clone())
        try:
            g.apply_move(move)
        except NochmalError as exc:
            raise BotError(f"bot {self.seats[p]} chose an illegal move '{move}': {exc}") from None
        return move

    def advance(self, on_bot_move: Callable[[int, Move], None] | None = None) -> None:
        """Roll the seed's dice and let the bots decide until a human must choose or the game
        ends; ``on_bot_move(seat, move)`` hears each bot's choice (the terminal prints it)."""
        g = self.game
        while not g.is_terminal():
            p = g.current_player()
            if p == CHANCE:
                g.apply_roll(seeded_roll(self.seed, g.rolls_done, g.dice_per_kind))
                continue
            if is_human(self.seats[p]):
                return
            move = self.bot_turn(p)
            if on_bot_move is not None:
                on_bot_move(p, move)

    def undo(self) -> TakenBack | None:
        """Take back the last human choice of the current roll (or, when no human has chosen in
        it yet, of the roll before) and everything after it, with ``Game.pop``: the bots
        then choose again exactly as before (their seeds depend only on seed, roll, seat).
        None when there is nothing to take back."""
        g = self.game
        for back in (1, 2):
            if len(g.history) < back:
                break
            _, moves = g.history[-back]
            humans = [i for i, (q, _) in enumerate(moves) if is_human(self.seats[q])]
            if not humans:
                continue
            i = humans[-1]
            who, move = moves[i]
            # the moves after it in that roll, the choice itself, and (one roll back) the
            # current roll's moves and the roll itself
            steps = len(moves) - i + (len(g.history[-1][1]) + 1 if back == 2 else 0)
            if g.undo_depth < steps:
                break
            for _ in range(steps):
                g.pop()
            return TakenBack(who, move, back == 2)
        return None

    # --- the outcome ------------------------------------------------------------------------
    def mission_outcome(self):
        if self.mission is None:
            return None
        from nochmal.missions.coop import mission_result  # loads the graph measures: only for missions

        return mission_result(self.mission, self.game)

    def result(self) -> dict:
        """The outcome as data (the keys of `nochmal play --json` but ``saved``)."""
        g = self.game
        data = {"mode": g.mode, "board": self.board.name, "seed": self.seed, "players": self.seats,
                "names": [seat_name(self.seats, p) for p in range(g.n_players)],
                "over": g.is_terminal(), "rolls": g.rolls_done, "scores": g.scores(),
                "winners": g.winners() if g.is_terminal() and g.mode is Mode.COMPETITIVE else None,
                "sheets": [s.text() for s in g.sheets]}
        if g.mode is Mode.SOLO:
            data["rating"] = rating(g.sheets[0].score())
        return data
