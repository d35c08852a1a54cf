"""Shared CLI plumbing: one error path, JSON output, coloured sheets."""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Callable

import typer
from rich.console import Console
from rich.text import Text

from nochmal.board import COLUMN_LETTERS, Board, load_board
from nochmal.errors import NochmalError, SheetError
from nochmal.sheet import Sheet, parse_typed_sheet
from nochmal.fileio import read_text_file

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)

STYLE = {"y": "black on yellow", "g": "black on green", "b": "white on blue",
         "r": "white on magenta", "o": "black on dark_orange"}


def guarded(fn: Callable) -> Callable:
    """Turn NochmalError (and a missing file) into a one-line message and exit code 1."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except NochmalError as exc:
            err_console.print(f"error: {exc}", markup=False, soft_wrap=True)  # one line, never wrapped
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            err_console.print("interrupted", markup=False)
            raise typer.Exit(130) from None

    return wrapper


def emit_json(data) -> None:
    sys.stdout.write(json.dumps(data, indent=1) + "\n")


def board_arg(name: str) -> Board:
    return load_board(name)


def read_sheet_file(path: Path, board: Board) -> Sheet:
    text = read_text_file(path, lambda reason: SheetError(f"{path}: {reason}"))
    return parse_typed_sheet(text, board, str(path))


def refuse_impossible(sheet: Sheet, source: str, allow: bool) -> None:
    """A sheet no legal game can produce (nochmal/feasibility.py): exit 1 with the reasons,
    or with ``allow`` (--allow-impossible) warn and go on."""
    from nochmal.feasibility import impossible_reasons

    reasons = impossible_reasons(sheet)
    for reason in reasons:
        err_console.print(f"{'warning' if allow else 'error'}: {source}: impossible sheet: {reason}",
                          markup=False, soft_wrap=True)
    if reasons and not allow:
        raise typer.Exit(1)


def sheet_renderable(sheet: Sheet, highlight: int = 0) -> Text:
    """The sheet drawn in colour: crossed cells as X, stars as *, columns' points below."""
    b = sheet.board
    out = Text()
    out.append("    " + " ".join(COLUMN_LETTERS[: b.cols]) + "\n")
    for r in range(b.rows):
        out.append(f" {r + 1:>2} ")
        for c in range(b.cols):
            i = r * b.cols + c
            bit = b.bit_of[i]
            colour = b.grid[r][c]
            crossed = sheet.crossed >> bit & 1
            ch = "X" if crossed else ("*" if b.is_star(bit) else "·")
            style = STYLE[colour] + (" bold" if crossed else "")
            if highlight >> bit & 1:
                style += " reverse"
            out.append(ch, style=style)
            if c < b.cols - 1:
                out.append(" ", style=STYLE[colour] if c + 1 < b.cols and b.grid[r][c + 1] == colour else "")
        out.append("\n")
    for label, pts, scored in (("1st", b.column_points_first, sheet.cols_upper),
                               ("2nd", b.column_points_later, sheet.cols_lower)):
        out.append(f"{label} ")
        for c in range(b.cols):
            out.append(str(pts[c]) if pts[c] < 10 else "+", style="bold reverse" if scored >> c & 1 else "dim")
            out.append(" ")
        out.append("\n")
    bd = sheet.score_breakdown()
    out.append(f"jokers left {'!' * sheet.jokers_left}{'.' * sheet.jokers_used}   "
               f"score {bd.total} (columns {bd.columns}, colours {bd.colours}, jokers {bd.jokers}, stars {bd.stars})")
    return out
