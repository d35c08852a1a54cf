"""Stepping through a game record turn by turn at the terminal (``nochmal replay F --step``).

Every state is rebuilt by the engine from the record (``GameRecord.replay``), so what is
shown is what the rules make of the record, not what the record claims.
"""

from __future__ import annotations

from typing import Callable

from rich.console import Console

from nochmal.errors import OptionError
from nochmal.game import Game
from nochmal.terminal.reader import default_reader
from nochmal.record import GameFactory, GameRecord
from nochmal.seats import seat_name
from nochmal.sheetview import render_sheet
from nochmal.fileio import is_decimal


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


def show_turn(console: Console, record: GameRecord, states: list[Game], t: int) -> None:
    game = states[t]
    total = len(record.rolls)
    if t == 0:
        console.print(f"turn 0 of {total}: before the first roll", style="bold", highlight=False)
        moved: dict[int, int] = {}
    else:
        roll, moves = record.rolls[t - 1]
        console.print(f"turn {t} of {total}: dice {' '.join(roll.colours)} / {' '.join(roll.numbers)}",
                      style="bold", highlight=False)
        moved = {}
        for p, m in moves:
            console.print(f"  {seat_name(record.players, p)}: {m}", highlight=False, markup=False)
            moved[p] = game.board.mask_of(m.cells) if not m.is_pass else 0
    claims = game.race_claims
    for p, sheet in enumerate(game.sheets):
        console.print(render_sheet(sheet, f"{seat_name(record.players, p)}: {sheet.score()} points",
                                   highlight=moved.get(p, 0),
                                   claimed_columns=claims.columns, claimed_colours=claims.colours))
    if game.is_terminal():
        console.print("game over: scores " + ", ".join(map(str, game.scores())), style="bold", highlight=False)


def run_replay(record: GameRecord, source: str, to: int | None, step: bool, as_json: bool,
               console: Console, reader: Callable[[str], str | None] | None = None) -> None:
    """Show the state after turn ``to`` (default: the last); with ``step`` walk on from there:
    enter = next turn, b = back, a number = that turn, q = quit."""
    states = replay_states(record, source)
    total = len(record.rolls)
    if to is not None and not 0 <= to <= total:
        raise OptionError(f"--to {to}: {source} has turns 0-{total}")
    if as_json:
        if step:
            raise OptionError("--step is interactive; with --json use --to N")
        emit = turn_data(record, states, total if to is None else to)
        emit["file"] = source
        from nochmal.cli.common import emit_json

        emit_json(emit)
        return
    t = (0 if step else total) if to is None else to
    show_turn(console, record, states, t)
    if not step:
        return
    read = reader or default_reader(console)
    while True:
        line = read("enter = next, b = back, N = turn N, q = quit > ")
        if line is None:
            return
        cmd = line.strip().lower()
        if cmd in ("q", "quit"):
            return
        if cmd in ("", "n", "next"):
            if t == total:
                console.print("that was the last turn (b = back, q = quit)", highlight=False)
                continue
            t += 1
        elif cmd in ("b", "back"):
            if t == 0:
                console.print("this is the start (enter = next, q = quit)", highlight=False)
                continue
            t -= 1
        elif is_decimal(cmd):
            if int(cmd) > total:
                console.print(f"no turn {cmd}: turns are 0-{total}", highlight=False)
                continue
            t = int(cmd)
        else:
            console.print(f"unknown key {cmd!r}: enter = next, b = back, N = turn N, q = quit", highlight=False)
            continue
        show_turn(console, record, states, t)
