"""A game record's states turn by turn, as the front ends show them (``nochmal replay``, the
web's replay page; the terminal's stepping is nochmal/terminal/replay.py).

Every state is rebuilt by the engine from the record (``GameRecord.replay``), so what is
shown is what the rules make of the record, not what the record claims.

Layer: missions (tests/test_layers.py), though it sits beside the rules core: a co-op mission
record replays through the mission layer's game, imported only for such a record so that
the commands that never meet one start fast.
"""

from __future__ import annotations

from nochmal.game import Game
from nochmal.record import GameFactory, GameRecord
from nochmal.seats import seat_name


def game_factory(record: GameRecord) -> GameFactory | None:
    """What a front end passes to ``record.replay``/``verify``/``new_game``: the mission
    layer's game for a co-op mission record (it stops on the winning roll; imported only
    then, it loads the graph measures), else None (a plain game of the record's mode)."""
    if not record.needs_mission:
        return None
    from nochmal.missions.coop import record_game

    return record_game


def replayed(record: GameRecord, source: str = "record", turns: int | None = None) -> Game:
    """The game after ``turns`` turns of the record (default: all), replayed and checked."""
    factory = game_factory(record)
    game = record.new_game(factory)
    for t, game in record.replay(source, factory):
        if turns is not None and t >= turns:
            break
    return game


def replay_states(record: GameRecord, source: str) -> list[Game]:
    """states[t] is the game after turn t (states[0]: before the first roll)."""
    factory = game_factory(record)
    states = [record.new_game(factory)]
    for _, game in record.replay(source, factory):
        states.append(game.clone())
    return states


def turn_data(record: GameRecord, states: list[Game], t: int) -> dict:
    game = states[t]
    roll, moves = record.rolls[t - 1] if t else (None, [])
    return {"turn": t, "turns": len(record.rolls),
            "dice": roll.to_json() if roll else None,
            "moves": [{"seat": p + 1, "name": seat_name(record.players, p), "move": str(m)} for p, m in moves],
            "names": [seat_name(record.players, p) for p in range(len(record.players))],
            "scores": game.scores(), "over": game.is_terminal(),
            "sheets": [s.text() for s in game.sheets]}
