"""Sheet tools: board show / list / check, and render (SVG pictures of sheets and games)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from nochmal.board import board_data, BUILTIN_BOARDS, COLOUR_NAMES, COLOURS, load_board, read_board_file
from nochmal.cli.common import (board_arg, console, emit_json, err_console, guarded, read_sheet_file,
                                refuse_impossible)
from nochmal.errors import BoardError, NochmalError, OptionError
from nochmal.fileio import atomic_write_text, read_text_file
from nochmal.record import GameRecord
from nochmal.sheet import Sheet
from nochmal.sheetview import render_sheet

board_app = typer.Typer(help="Sheet layouts: draw one, list the built-in ones, check a custom one.",
                        no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(board_app, name="board")
    app.command("render")(render)


@board_app.command("show")
@guarded
def show(
    name: str = typer.Argument(..., help="Built-in board name (classic, red, ...) or a board file (.toml)."),
    as_json: bool = typer.Option(False, "--json", help="Print the layout data as JSON."),
):
    """Draw a sheet layout: colours, stars, column points, colour bonuses, jokers.

    Example: nochmal board show purple
    """
    b = board_arg(name)
    if as_json:
        emit_json(board_data(b))
        return
    console.print(f"{b.title} ({b.name}); start column {b.column_name(b.start_column)}", highlight=False)
    console.print(render_sheet(Sheet.empty(b)))


@board_app.command("list")
@guarded
def list_boards(
    as_json: bool = typer.Option(False, "--json", help="Print the list as JSON."),
):
    """List the built-in sheet layouts.

    Example: nochmal board list --json
    """
    boards = [load_board(n) for n in BUILTIN_BOARDS]
    if as_json:
        emit_json({"boards": [{"name": b.name, "title": b.title, "rows": b.rows, "cols": b.cols,
                               "start_column": b.column_name(b.start_column)} for b in boards]})
        return
    for b in boards:
        console.print(f"{b.name:<8} {b.title}", highlight=False)


@board_app.command("check")
@guarded
def check(
    file: Path = typer.Argument(..., help="A board file (TOML) with the keys of boards/classic.toml."),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict and every problem as JSON."),
):
    """Check a custom sheet against every invariant of the rules; list each broken one.

    Exit 0 when the sheet is valid, 1 when it has problems.

    Example: nochmal board check my_sheet.toml
    """
    try:
        b = read_board_file(file)
        problems: list[str] = []
    except BoardError as exc:
        b, problems = None, exc.problems
    if as_json:
        emit_json({"file": str(file), "valid": not problems, "name": b.name if b else None,
                   "problems": problems})
    elif problems:
        for p in problems:
            console.print(f"{file}: {p}", markup=False, highlight=False, soft_wrap=True)
    else:
        console.print(f"{file}: valid sheet {b.name!r} ({b.title})", markup=False, highlight=False, soft_wrap=True)
    if problems:
        if not as_json:
            err_console.print(f"error: {file}: {len(problems)} problem(s)", markup=False)
        raise typer.Exit(1)


def _load_pictures(file: Path, board: Optional[str], allow_impossible: bool = False) -> tuple[list, list[str]]:
    """The sheets to draw (``nochmal.svg.SheetPicture``) and the heading, from a typed sheet
    or a game record."""
    from nochmal.svg import SheetPicture, record_heading, record_pictures  # see render

    text = read_text_file(file, lambda reason: NochmalError(f"{file}: {reason}"))
    if text.lstrip().startswith("{"):
        if board is not None:
            raise OptionError(f"--board {board}: {file} is a game record, drawn on its own board; leave out --board")
        record = GameRecord.loads(text, str(file))
        from nochmal.table.stepper import replayed  # a co-op mission record replays through its mission

        game = replayed(record, str(file))
        from nochmal.missions.coop import mission_outcome_line  # the mission layer, only here

        return record_pictures(record, game), record_heading(record, game, outcome=mission_outcome_line(record, game))
    b = board_arg(board or "classic")
    sheet = read_sheet_file(file, b)
    refuse_impossible(sheet, str(file), allow_impossible)
    return [SheetPicture(f"{file.name}: {sheet.score()} points", sheet)], [f"{file.name} · {b.title} board"]


@guarded
def render(
    file: Path = typer.Argument(..., help="A typed sheet (7 lines of 15, x = crossed) or a game record (JSON)."),
    svg: Path = typer.Option(..., "--svg", help="Write the picture here (SVG)."),
    board: Optional[str] = typer.Option(None, "--board", "-b", help="Board of a typed sheet (default classic; a record names its own)."),
    as_json: bool = typer.Option(False, "--json", help="Print what was drawn as JSON."),
    allow_impossible: bool = typer.Option(False, "--allow-impossible", help="Draw a typed sheet no legal game can produce (warn instead of exit 1)."),
):
    """Draw a typed sheet, or the final sheets of a game record, as an SVG picture.

    Example: nochmal render game.json --svg game.svg
    """
    from nochmal.svg import pictures_svg  # xml.sax.saxutils loads urllib, http and ssl: only to draw

    items, heading = _load_pictures(file, board, allow_impossible)
    atomic_write_text(svg, pictures_svg(items, heading))
    if as_json:
        emit_json({"file": str(file), "svg": str(svg),
                   "heading": heading,
                   "sheets": [{"title": p.title, "score": p.sheet.score(), "crossed": p.sheet.crossed.bit_count(),
                               "jokers_used": p.sheet.jokers_used, "unfinished": p.unfinished,
                               "complete_colours": [COLOUR_NAMES[c] for i, c in enumerate(COLOURS)
                                                    if p.sheet.complete_colours() >> i & 1]}
                              for p in items]})
        return
    console.print(f"wrote {svg} ({len(items)} sheet(s))", markup=False, highlight=False, soft_wrap=True)
