"""A game record's states turn by turn, as the front ends show them (``nochmal replay``, the
web's replay page; the terminal's stepping is nochmal/terminal/replay.py).

Every state is rebuilt by the engine from the record (``GameRecord.replay``), so what is
shown is what the rules make of the record, not what the record claims. A co-op mission
record replays through the mission layer's game, imported only for such a record so that
the commands that never meet one start fast.
"""

from __future__ import annotations

import threading
from functools import partial
from typing import TYPE_CHECKING

from nochmal.errors import OptionError
from nochmal.game import Game
from nochmal.record import GameFactory, GameRecord
from nochmal.seats import seat_name

if TYPE_CHECKING:
    from nochmal.missions.coop import MissionResolver


def game_factory(record: GameRecord, missions: "MissionResolver | None" = None) -> GameFactory | None:
    """What a front end passes to ``record.replay``/``verify``/``new_game``: the mission
    layer's game for a co-op mission record (it stops on the winning roll; imported only
    then, it loads the graph measures), else None (a plain game of the record's mode).
    ``missions`` finds the record's mission (default: an id or a file, as the CLI reads it;
    the web app gives its shipped-only one)."""
    if not record.needs_mission:
        return None
    from nochmal.missions.coop import record_game

    return record_game if missions is None else partial(record_game, missions=missions)


def replayed(record: GameRecord, source: str = "record", turns: int | None = None,
             missions: "MissionResolver | None" = None) -> Game:
    """The game after ``turns`` turns of the record (default: all), replayed and checked."""
    factory = game_factory(record, missions)
    game = record.new_game(factory)
    for t, game in record.replay(source, factory):
        if turns is not None and t >= turns:
            break
    return game


def replay_states(record: GameRecord, source: str, missions: "MissionResolver | None" = None) -> list[Game]:
    """states[t] is the game after turn t (states[0]: before the first roll)."""
    factory = game_factory(record, missions)
    states = [record.new_game(factory)]
    for _, game in record.replay(source, factory):
        states.append(game.clone())
    return states


def turn_data(record: GameRecord, states: list[Game], t: int) -> dict:
    return state_data(record, states[t], t)


def state_data(record: GameRecord, game: Game, t: int) -> dict:
    """The state after turn t as `nochmal replay --to T --json` gives it (``game``: that state)."""
    roll, moves = record.rolls[t - 1] if t else (None, [])
    return {"turn": t, "turns": len(record.rolls),
            "dice": roll.to_json() if roll else None,
            "moves": [{"seat": p + 1, "name": seat_name(record.players, p), "move": str(m)} for p, m in moves],
            "names": [seat_name(record.players, p) for p in range(len(record.players))],
            "scores": game.scores(), "over": game.is_terminal(),
            "sheets": [s.text() for s in game.sheets]}


class ReplayCursor:
    """One game that walks a verified record to any turn: forward by pushing the record's
    rolls and moves, back by popping them (the engine's undo, Game.push/pop). A record so
    costs one game, not one per turn (replay_states), and a step costs one turn's work.

    The record must have been verified (GameRecord.verify) with the factory that built
    ``game``: pushing checks each move's legality, not the seed's rolls or the order of seats.
    """

    def __init__(self, record: GameRecord, game: Game, turn: int = 0):
        self.record = record
        self.game = game  # the game after ``turn`` turns
        self.turn = turn
        self.lock = threading.Lock()

    @property
    def turns(self) -> int:
        return len(self.record.rolls)

    def state(self, t: int) -> Game:
        """A copy of the game after turn t (0..turns)."""
        if not 0 <= t <= self.turns:
            raise OptionError(f"turn {t} is not in the record (0-{self.turns})")
        with self.lock:
            while self.turn > t:
                _, moves = self.record.rolls[self.turn - 1]
                for _ in range(len(moves) + 1):  # the turn's moves, then its roll
                    self.game.pop()
                self.turn -= 1
            while self.turn < t:
                roll, moves = self.record.rolls[self.turn]
                self.game.push(roll)
                for _, move in moves:
                    self.game.push(move)
                self.turn += 1
            return self.game.clone()
