"""Versioned JSON game records: save, load, replay step by step, verify.

A record holds the rule settings, the board (by name, or the whole layout for a custom
sheet), the seed, every roll and every decision with its cells, and the result. ``verify``
replays it through the engine: a roll that is not the seed's, an illegal move, a move by the
wrong player or a result that does not match is rejected with the turn and the reason.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from nochmal.board import BUILTIN_BOARDS, Board, load_board
from nochmal.dice import Roll, seeded_roll
from nochmal.errors import NochmalError, RecordError, quoted
from nochmal.fileio import atomic_write_text, load_json_text, read_text_file
from nochmal.game import MAX_PLAYERS, MODES, Game, Mode
from nochmal.i18n import Message, say, say_n
from nochmal.move import Move
from nochmal.rules import MAX_GAME_ROLLS, MAX_SEED, RuleSettings

FORMAT = "nochmal-record"
VERSION = 1


GameFactory = Callable[["GameRecord"], Game]  # builds the fresh game a record replays into


def _int_in(value, low: int, high: int) -> bool:
    """An integer (not a bool) within low..high: every number a record holds is capped."""
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


@dataclass
class GameRecord:
    """A game as data (see the module doc). A co-op mission record replays only with the
    mission layer's game factory: ``replay(source, nochmal.missions.coop.record_game)``."""

    board: Board
    mode: Mode
    players: list[str]
    rules: RuleSettings
    seed: int | None
    rolls: list[tuple[Roll, list[tuple[int, Move]]]]
    roll_limit: int | None = None
    result: dict | None = None
    extra: dict = field(default_factory=dict)  # e.g. the mission of a co-op game

    def __post_init__(self) -> None:
        self.mode = Mode(self.mode)  # a Mode even when given as text: compared with `is`

    # --- building --------------------------------------------------------------------------
    @classmethod
    def from_game(cls, game: Game, players: list[str], seed: int | None, extra: dict | None = None) -> "GameRecord":
        result = None
        if game.is_terminal():
            result = {"scores": game.scores(), "winners": game.winners(),
                      "sheets": [s.text() for s in game.sheets]}
        roll_limit = None if game.mode is Mode.SOLO else game.roll_limit
        return cls(game.board, game.mode, list(players), game.rules, seed,
                   [(r, list(ms)) for r, ms in game.history], roll_limit, result, dict(extra or {}))

    @property
    def needs_mission(self) -> bool:
        """Whether this is a co-op mission record: its game stops on the roll that wins the
        mission, a condition only the mission layer can rebuild (``game_factory`` below)."""
        return self.mode is Mode.COOP and bool(self.extra.get("mission"))

    def new_game(self, game_factory: GameFactory | None = None) -> Game:
        """The fresh game the record replays into: ``game_factory(record)`` when given (the
        mission layer's ``nochmal.missions.coop.record_game`` for a co-op mission record;
        the core does not import the mission layer), else a plain game of the record's mode."""
        if game_factory is not None:
            return game_factory(self)
        if self.needs_mission:
            raise RecordError("a co-op mission record replays through its mission: pass "
                              "game_factory=nochmal.missions.coop.record_game")
        return self._plain_game()

    def _plain_game(self) -> Game:
        return Game(self.board, len(self.players), self.rules, self.mode, self.roll_limit)

    # --- JSON ------------------------------------------------------------------------------
    def to_json(self) -> dict:
        board = self.board.name if self.board.name in BUILTIN_BOARDS and self.board.same_layout(
            load_board(self.board.name)) else self.board.to_dict()
        data = {
            "format": FORMAT, "version": VERSION, "mode": self.mode, "players": self.players,
            "rules": self.rules.to_dict(), "board": board, "seed": self.seed,
            "roll_limit": self.roll_limit,
            "rolls": [{"dice": roll.to_json(),
                       "moves": [{"player": p, "move": str(m)} for p, m in moves]}
                      for roll, moves in self.rolls],
            "result": self.result,
        }
        if self.extra:
            data["extra"] = self.extra
        return data

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1) + "\n"

    def save(self, path: str | Path) -> None:
        atomic_write_text(path, self.dumps())

    @classmethod
    def loads(cls, text: str, source: str = "<record>") -> "GameRecord":
        data = load_json_text(text, lambda reason: RecordError(say("%(where)s: %(why)s", where=source, why=reason)))
        return cls.from_json(data, source)

    @classmethod
    def load(cls, path: str | Path) -> "GameRecord":
        text = read_text_file(path, lambda reason: RecordError(f"{path}: {reason}"))
        return cls.loads(text, str(path))

    @classmethod
    def from_json(cls, data, source: str = "<record>") -> "GameRecord":
        def need(key, typ):
            if key not in data:
                raise RecordError(say("%(source)s: key %(key)s is missing", source=source, key=repr(key)))
            if not isinstance(data[key], typ) or isinstance(data[key], bool) and typ is not bool:
                raise RecordError(say("%(source)s: key %(key)s has the wrong type", source=source, key=repr(key)))
            return data[key]

        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise RecordError(say("%(source)s: not a nochmal game record (format must be %(format)s)", source=source,
                                  format=repr(FORMAT)))
        if data.get("version") != VERSION:
            raise RecordError(say("%(source)s: record version %(version)s is not supported (expected %(expected)s)",
                                  source=source, version=repr(data.get("version")), expected=VERSION))
        try:
            rules = RuleSettings.from_dict(need("rules", dict))
            bdata = data.get("board")
            if isinstance(bdata, str):
                board = load_board(bdata) if bdata in BUILTIN_BOARDS else None
                if board is None:
                    raise RecordError(say("%(source)s: unknown board %(board)s", source=source, board=repr(bdata)))
            elif isinstance(bdata, dict):
                board = Board.from_dict(bdata, f"{source}: board", strict=False)
            else:
                raise RecordError(say("%(source)s: key 'board' must be a board name or a layout", source=source))
        except RecordError:
            raise
        except NochmalError as exc:
            raise RecordError(say("%(where)s: %(why)s", where=source, why=exc.message)) from None
        seed = data.get("seed")
        if seed is not None and not _int_in(seed, 0, MAX_SEED):
            raise RecordError(say("%(source)s: key 'seed' must be an integer 0..%(most)s or null, got %(got)s",
                                  source=source, most=MAX_SEED, got=quoted(seed)))
        roll_limit = data.get("roll_limit")
        if roll_limit is not None and not _int_in(roll_limit, 1, MAX_GAME_ROLLS):
            raise RecordError(say("%(source)s: key 'roll_limit' must be an integer 1..%(most)s or null, got %(got)s",
                                  source=source, most=MAX_GAME_ROLLS, got=quoted(roll_limit)))
        players = need("players", list)
        if not all(isinstance(p, str) for p in players):
            raise RecordError(say("%(source)s: key 'players' must list player names", source=source))
        if len(need("rolls", list)) > MAX_GAME_ROLLS:
            raise RecordError(say("%(source)s: key 'rolls' holds %(n)s rolls, a record holds at most %(most)s",
                                  source=source, n=len(data["rolls"]), most=MAX_GAME_ROLLS))
        rolls = []
        for t, entry in enumerate(need("rolls", list), 1):
            where = say("%(source)s: turn %(turn)s", source=source, turn=t)
            if not isinstance(entry, dict) or "dice" not in entry or not isinstance(entry.get("moves"), list):
                raise RecordError(say("%(where)s: expected {'dice': ..., 'moves': [...]}", where=where))
            try:
                roll = Roll.from_json(entry["dice"])
                moves = []
                for m in entry["moves"]:
                    if not isinstance(m, dict) or not _int_in(m.get("player"), 0, MAX_PLAYERS - 1) \
                            or not isinstance(m.get("move"), str):
                        raise RecordError(say("%(where)s: each move needs an integer 'player' and a 'move' text",
                                              where=where))
                    moves.append((m["player"], Move.parse(m["move"])))
            except RecordError:
                raise
            except NochmalError as exc:
                raise RecordError(say("%(where)s: %(why)s", where=where, why=exc.message)) from None
            rolls.append((roll, moves))
        result = data.get("result")
        if result is not None and not isinstance(result, dict):
            raise RecordError(say("%(source)s: key 'result' must be an object or null", source=source))
        extra = data.get("extra", {})
        if not isinstance(extra, dict):
            raise RecordError(say("%(source)s: key 'extra' must be an object", source=source))
        try:
            mode = Mode(need("mode", str))
        except ValueError:
            raise RecordError(say("%(source)s: key 'mode': unknown mode %(mode)s; modes are %(modes)s", source=source,
                                  mode=repr(data["mode"]), modes=tuple(MODES))) from None
        record = cls(board, mode, players, rules, seed, rolls, roll_limit, result, extra)
        try:
            record._plain_game()  # players, mode and limit fit; a mission is checked when replayed
        except NochmalError as exc:
            raise RecordError(say("%(where)s: %(why)s", where=source, why=exc.message)) from None
        return record

    # --- replay ----------------------------------------------------------------------------
    def replay(self, source: str = "record",
               game_factory: GameFactory | None = None) -> Iterator[tuple[int, Game]]:
        """Yield (turn, game after that turn) for every recorded roll, checking as it goes
        (``game_factory``: see new_game)."""
        try:
            game = self.new_game(game_factory)
        except RecordError:
            raise
        except NochmalError as exc:
            raise RecordError(say("%(where)s: %(why)s", where=source, why=exc.message)) from None
        dice = game.dice_per_kind
        for t, (roll, moves) in enumerate(self.rolls, 1):
            where = say("%(source)s: turn %(turn)s", source=source, turn=t)  # (a verification's words: a page says them)
            if game.is_terminal():
                raise RecordError(say("%(where)s: the game was already over", where=where))
            if self.seed is not None:
                want = seeded_roll(self.seed, t - 1, dice)
                if roll != want:
                    raise RecordError(say("%(where)s: roll %(roll)s is not roll %(turn)s of seed %(seed)s (%(want)s)",
                                          where=where, roll=roll.text(), turn=t, seed=self.seed, want=want.text()))
            try:
                game.apply_roll(roll)
            except NochmalError as exc:
                raise RecordError(Message("%(where)s: %(reason)s", {"where": where, "reason": exc.message})) from None
            for player, move in moves:
                if game.current_player() != player:
                    now = game.current_player()  # people see seats from 1 (docs/glossary.md)
                    to_decide = say("seat %(n)s", n=now + 1) if now >= 0 else say("no seat")
                    raise RecordError(say("%(where)s: seat %(seat)s moved but %(who)s was to decide",
                                          where=where, seat=player + 1, who=to_decide))
                try:
                    game.apply_move(move)
                except NochmalError as exc:
                    raise RecordError(say("%(where)s, seat %(seat)s: illegal move '%(move)s': %(reason)s", where=where,
                                          seat=player + 1, move=str(move), reason=exc.message)) from None
            if game.roll is not None and t == len(self.rolls) and self.result is None:
                yield t, game  # an unfinished game may stop inside its last roll
                return
            if game.roll is not None:
                raise RecordError(say_n("%(where)s: %(n)s decision recorded, the roll needs %(need)s",
                                        "%(where)s: %(n)s decisions recorded, the roll needs %(need)s", len(moves),
                                        where=where, need=game.n_players))
            yield t, game

    def verify(self, source: str = "record", game_factory: GameFactory | None = None) -> Game:
        """Replay everything and check the stored result; return the final game
        (``game_factory``: see new_game)."""
        game = None
        for _, game in self.replay(source, game_factory):
            pass
        if game is None:  # no rolls: replay built the game without error
            game = self.new_game(game_factory)
        if self.result is not None:
            if not game.is_terminal():
                raise RecordError(say_n("%(source)s: the record has a result but the game is not over after %(n)s turn",
                                        "%(source)s: the record has a result but the game is not over after %(n)s turns",
                                        len(self.rolls), source=source))
            actual = {"scores": game.scores(), "winners": game.winners(), "sheets": [s.text() for s in game.sheets]}
            if self.mode is Mode.COOP and self.result.get("winners") == game.top_scorers() != actual["winners"]:
                # older co-op records stored the top scorers as winners: the
                # replay decides, and the stored result reads as it does today
                self.result = dict(self.result, winners=actual["winners"])
            for key, value in actual.items():
                if self.result.get(key) != value:
                    raise RecordError(say("%(source)s: recorded %(key)s %(recorded)s but the replay gives %(value)s",
                                          source=source, key=key, recorded=str(self.result.get(key)), value=str(value)))
        return game
