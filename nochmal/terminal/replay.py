"""Stepping through a game record turn by turn at the terminal (``nochmal replay F --step``).

The states come from nochmal/table/stepper.py (rebuilt by the engine from the record); this
module only draws them and reads the keys.
"""

from __future__ import annotations

from typing import Callable

from rich.console import Console

from nochmal.errors import OptionError
from nochmal.fileio import is_decimal
from nochmal.game import Game
from nochmal.record import GameRecord
from nochmal.seats import seat_name
from nochmal.sheetview import render_sheet
from nochmal.table.stepper import replay_states, turn_data
from nochmal.terminal.reader import default_reader


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


def run_replay(record: GameRecord, source: str, to: int | None, step: bool, console: Console,
               reader: Callable[[str], str | None] | None = None,
               emit: Callable[[dict], None] | None = None) -> None:
    """Show the state after turn ``to`` (default: the last); with ``step`` walk on from there:
    enter = next turn, b = back, a number = that turn, q = quit. With ``emit`` (the front
    end's JSON writer, e.g. the CLI's emit_json) hand it that state as data instead."""
    states = replay_states(record, source)
    total = len(record.rolls)
    if to is not None and not 0 <= to <= total:
        raise OptionError(f"--to {to}: {source} has turns 0-{total}")
    if emit is not None:
        if step:
            raise OptionError("--step is interactive; with --json use --to N")
        data = turn_data(record, states, total if to is None else to)
        data["file"] = source
        emit(data)
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
