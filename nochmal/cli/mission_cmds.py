"""Co-op mission commands: ``nochmal mission list | show ID | status ID ...``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from nochmal.board import COLUMN_LETTERS, Board
from nochmal.cli.common import board_arg, console, emit_json, err_console, guarded, read_sheet_file
from nochmal.errors import InvalidMoveError, OptionError, SheetError
from nochmal.move import parse_cell
from nochmal.sheet import Sheet
from nochmal.fileio import read_text_file

# nochmal.missions is imported inside the commands: it loads the graph measures
# (numpy), which no other command needs at start-up.
mission_app = typer.Typer(
    name="mission", no_args_is_help=True, add_completion=False,
    help="Co-op missions: list them, show one, check a team's progress from typed sheets.")

def register(app: typer.Typer) -> None:
    app.add_typer(mission_app, name="mission")


@mission_app.command("list")
@guarded
def list_(as_json: bool = typer.Option(False, "--json", help="Print the missions as JSON (fields as in 'show --json').")):
    """List the shipped missions (the project's own design, not the printed Deluxe wording).

    Example: nochmal mission list
    """
    from nochmal.missions.loader import builtin_missions
    from nochmal.missions.model import PLAYER_COUNTS

    missions = builtin_missions()
    if as_json:
        emit_json([m.to_dict() for m in missions])
        return
    table = Table("id", "name", "source", "objectives", "normal budget 1/2/3/4 players")
    for m in missions:
        table.add_row(m.id, m.name, m.source, "; ".join(o.describe() for o in m.objectives),
                      " / ".join(str(m.budget(p, "normal")) for p in PLAYER_COUNTS))
    console.print(table)
    console.print("source 'project': designed by this project, not the official mission text.")


@mission_app.command("show")
@guarded
def show(
    mission_id: str = typer.Argument(..., metavar="ID", help="Mission id (see 'nochmal mission list') or a mission .toml file."),
    as_json: bool = typer.Option(False, "--json", help="JSON fields: id, name, source, description, board, objectives (kind, scope and their parameters), budgets (per player count: easy/normal/hard rolls), path."),
):
    """Show a mission: description, objectives and roll budgets.

    Example: nochmal mission show star-hunt
    """
    from nochmal.missions.loader import load_mission
    from nochmal.missions.model import DIFFICULTIES

    m = load_mission(mission_id)
    if as_json:
        emit_json(m.to_dict())
        return
    console.print(f"[bold]{m.name}[/bold] ({m.id}) — source: {m.source}, board: {m.board}")
    if m.source == "project":
        console.print("[dim]This project's own design, not the printed wording of an official mission.[/dim]")
    console.print(m.description)
    console.print("Objectives:")
    for o in m.objectives:
        console.print(f"  - {o.describe()}")
    table = Table("players", *DIFFICULTIES, title="roll budget (rolls for the whole team)")
    for p, row in m.budget_table().items():
        table.add_row(str(p), *(str(row[d]) for d in DIFFICULTIES))
    console.print(table)


def _is_cell_name(token: str) -> bool:
    try:
        parse_cell(token)
    except InvalidMoveError:
        return False
    return True


def read_sheet_any(path: Path, board: Board) -> Sheet:
    """A typed sheet (rows of x / letters / .) or a plain list of crossed cells (``H4 H5 G4``)."""
    text = read_text_file(path, lambda reason: SheetError(f"{path}: {reason}"))
    tokens = []
    keys = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if ":" in line:
            keys.append((lineno, line))
            continue
        for tok in re.split(r"[\s,]+", line):
            if tok:
                tokens.append((lineno, tok))
    if tokens and all(_is_cell_name(t) for _, t in tokens) and not any(len(t) == board.cols for _, t in tokens):
        crossed = 0
        for lineno, tok in tokens:
            try:
                crossed |= 1 << board.bit(tok)
            except KeyError:
                raise SheetError(f"{path}, line {lineno}: cell {tok!r} is not on the {board.name} board "
                                 f"(A1..{COLUMN_LETTERS[board.cols - 1]}{board.rows})") from None
        # the key lines at their own line numbers (blank lines between), the rows after them:
        # an error in a key names the line of this file, not of the converted sheet
        lines = [""] * (keys[-1][0] if keys else 0)
        for lineno, line in keys:
            lines[lineno - 1] = line
        for r in range(board.rows):
            lines.append("".join("x" if crossed & board.cell_bits[r * board.cols + c] else "."
                                 for c in range(board.cols)))
        from nochmal.sheet import parse_typed_sheet

        return parse_typed_sheet("\n".join(lines) + "\n", board, str(path))
    return read_sheet_file(path, board)


@mission_app.command("status")
@guarded
def status(
    mission_id: str = typer.Argument(..., metavar="ID", help="Mission id or a mission .toml file."),
    sheets: List[Path] = typer.Argument(..., metavar="SHEET...", help="One file per player: a typed sheet (7 lines of 15, x = crossed; optional 'jokers_used: N') or a list of crossed cells."),
    difficulty: str = typer.Option(..., "--difficulty", "-d", help="easy, normal or hard."),
    rolls_used: int = typer.Option(..., "--rolls-used", "-k", help="Rolls the team has played so far."),
    board: Optional[str] = typer.Option(None, "--board", "-b", help="Board of the sheets (default: the mission's board)."),
    as_json: bool = typer.Option(False, "--json", help="Print the status as JSON (fields: see below)."),
):
    """Progress of a team at the table, from the players' sheets.

    Per objective: done or not, progress k of n, the contributing sheets,
    what is missing, and the fewest further crosses per sheet (exact, or
    lower..upper marked approximate); and the rolls left. Then who should
    do what: the split of the missing columns, colours, stars and cells
    across the sheets that needs the fewest rolls (a roll crosses at most
    5 cells of one block per sheet; exact CP-SAT, or bounds), the best
    score still reachable for score targets, and "lost" with the reason as
    soon as no split can finish in time (or jokers ran short). A sheet
    no legal game can produce is reported with the reasons (exit 1).

    Example: nochmal mission status star-hunt -d normal -k 12 anna.txt ben.txt

    JSON fields:
    mission, name, source, difficulty, players, budget, rolls_used,
    rolls_left; state: "won", "lost" or "in progress" (null if a sheet is
    impossible); lost_reasons: why it can no longer be won; all_met; sheets: the files, numbered from 1 in order;
    impossible: per impossible sheet {sheet, file, reasons} (then exit 1
    and no objectives); objectives: per objective {kind, scope,
    description, met, progress, total, contributing (sheet numbers),
    missing (texts), fewest_crosses}; fewest_crosses: per sheet null
    (score, jokers) or {exact, value (null unless exact), lower, upper,
    method, cells (a crossing order that achieves upper)}; team (null if a
    sheet is impossible): {split: {has_cells (false: no cell objectives,
    nothing to split), rolls (null unless exact), exact, rolls_lower,
    rolls_upper, method, sheets: per sheet {sheet, items, crosses, rolls,
    rolls_lower}}, lost_early, lost_reasons, score_bounds}. state is
    "lost" (with the split's reasons in lost_reasons) as soon as no split
    can finish in the rolls left.
    """
    from nochmal.missions.coop import mission_status
    from nochmal.missions.loader import load_mission
    from nochmal.missions.model import DIFFICULTIES

    m = load_mission(mission_id)
    if difficulty not in DIFFICULTIES:
        raise OptionError(f"--difficulty {difficulty!r}: use one of {', '.join(DIFFICULTIES)}")
    if rolls_used < 0:
        raise OptionError(f"--rolls-used {rolls_used}: must be 0 or more")
    b = board_arg(board or m.board)
    state_sheets = [read_sheet_any(p, b) for p in sheets]
    with err_console.status("searching the fewest further crosses per sheet (CP-SAT up to 5 s per figure)"):
        st = mission_status(m, difficulty, state_sheets, rolls_used)
    plan = None
    if not any(st.impossible):
        from nochmal.missions.split import team_plan

        with err_console.status("splitting the missing work across the sheets (CP-SAT up to 3 s)"):
            plan = team_plan(m, state_sheets, st.rolls_left)
    from nochmal.missions.split import status_document

    data = status_document(st, [str(p) for p in sheets], plan)
    state = data["state"]
    bad = [(p, reasons) for p, reasons in enumerate(st.impossible) if reasons]
    if as_json:
        emit_json(data)
        if bad:
            raise typer.Exit(1)
        return
    if bad:
        for p, reasons in bad:
            for r in reasons:
                err_console.print(f"error: {sheets[p]}: impossible sheet: {r}", markup=False, soft_wrap=True)
        raise typer.Exit(1)
    console.print(f"[bold]{m.name}[/bold] ({m.id}, {difficulty}, {st.players} player(s)): "
                  f"{rolls_used} of {st.budget} rolls used, {st.rolls_left} left — {state}", soft_wrap=True)
    for reason in data["lost_reasons"]:
        console.print(f"{state}: {reason}", markup=False, soft_wrap=True)
    for o in st.objectives:
        mark = "[green]done[/green]" if o.met else "[red]not yet[/red]"
        console.print(f"{mark}  {o.objective.describe(st.players)}: {o.progress} of {o.total}"
                      + (f", from sheet(s) {' '.join(str(p + 1) for p in o.contributing)}" if o.contributing else ""),
                      soft_wrap=True)
        if o.missing:
            console.print("      missing: " + ("; " if any(":" in t for t in o.missing) else ", ").join(o.missing),
                          markup=False, soft_wrap=True)
        for p, est in enumerate(o.crosses):
            if est is None:
                continue
            console.print(f"      sheet {p + 1} ({sheets[p]}): fewest further crosses {est.text()}", markup=False,
                          soft_wrap=True)
    for line in plan.lines():
        console.print(line, markup=False, soft_wrap=True)


