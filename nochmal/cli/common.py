"""Shared CLI plumbing: one error path, JSON output, reading boards and sheets.

Sheets are drawn by ``nochmal.sheetview.render_sheet`` (the one sheet renderer)."""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Callable

import typer
from rich.console import Console

from nochmal.board import Board, load_board
from nochmal.errors import BoardError, NochmalError, OptionError, SheetError
from nochmal.sheet import Sheet, parse_typed_sheet
from nochmal.fileio import read_text_file
from nochmal.rules import MAX_SEED

# Piped output is read by scripts and other programs: never wrapped at the terminal width
# (COLUMNS=40 broke the score line mid-phrase); a terminal still wraps as it always did.
console = Console(highlight=False, soft_wrap=not sys.stdout.isatty())
err_console = Console(stderr=True, highlight=False)

def guarded(fn: Callable) -> Callable:
    """Turn NochmalError into a one-line message: exit code 2 for a bad option value
    (OptionError), 1 for the rest (a file, a rule, a record)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except OptionError as exc:
            err_console.print(f"error: {exc}", markup=False, soft_wrap=True)
            raise typer.Exit(2) from None
        except NochmalError as exc:
            err_console.print(f"error: {exc}", markup=False, soft_wrap=True)  # one line, never wrapped
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            err_console.print("interrupted", markup=False)
            raise typer.Exit(130) from None

    return wrapper


def check_seed(seed: int | None, option: str = "--seed") -> None:
    """Seeds are integers 0..MAX_SEED (nochmal.rules: the range the dice and the record reader
    take), so every game a command plays on a seed is one ``nochmal replay --verify`` reads."""
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise OptionError(f"{option} {seed}: must be a non-negative integer at most {MAX_SEED}")


MIN_TIME_LIMIT = 0.1  # seconds: below it CP-SAT has not built the model of a game
MAX_TIME_LIMIT = 86_400.0  # a day per solve: longer is a typo, and "inf" or "1e309" never ends


def check_number(value: float, option: str, low: float, high: float, *, above_low: bool = False) -> None:
    """A float option's value within low..high (or above ``low``). typer's converter takes
    "nan", "inf" and "1e309" as numbers: nan would reach a solver or a store (JSON has no NaN),
    inf is a limit that never ends; the chained comparison refuses nan too."""
    if not ((low < value) if above_low else (low <= value)) or not value <= high:
        lower = f"more than {low:g}" if above_low else f"at least {low:g}"
        raise OptionError(f"{option} {value:g}: must be a number {lower} and at most {high:g}")


def check_time_limit(seconds: float, option: str = "--time-limit") -> None:
    """A solve's time limit (solve, analyse, batch solve): MIN_TIME_LIMIT..MAX_TIME_LIMIT."""
    check_number(seconds, option, MIN_TIME_LIMIT, MAX_TIME_LIMIT)


def emit_json(data) -> None:
    sys.stdout.write(json.dumps(data, indent=1) + "\n")


def board_arg(name: str, option: str = "--board") -> Board:
    """The board an option names: a built-in name or a board file. An unknown name or a
    missing file is a bad option value (OptionError); a broken board file is a BoardError."""
    try:
        return load_board(name)
    except BoardError as exc:
        if not Path(name).exists():
            raise OptionError(f"{option} {exc}") from None
        raise


def read_sheet_file(path: Path, board: Board) -> Sheet:
    text = read_text_file(path, lambda reason: SheetError(f"{path}: {reason}"))
    return parse_typed_sheet(text, board, str(path))


def refuse_impossible(sheet: Sheet, source: str, allow: bool) -> None:
    """A sheet no legal game can produce (nochmal/impossible.py): exit 1 with the reasons,
    or with ``allow`` (--allow-impossible) warn and go on."""
    from nochmal.impossible import impossible_sheet_reasons

    reasons = impossible_sheet_reasons(sheet)
    if reasons:
        err_console.print(f"{'warning' if allow else 'error'}: {source}: impossible sheet: {'; '.join(reasons)}",
                          markup=False, soft_wrap=True)
    if reasons and not allow:
        raise typer.Exit(1)
