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
from nochmal.errors import NochmalError, SheetError
from nochmal.sheet import Sheet, parse_typed_sheet
from nochmal.fileio import read_text_file

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)

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
