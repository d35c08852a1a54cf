"""Bot commands: ``hint`` (best choices for a typed sheet and a roll) and ``bench bots``."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from nochmal.cli.common import (board_arg, console, emit_json, err_console, guarded, read_sheet_file,
                                refuse_impossible)
from nochmal.dice import Roll
from nochmal.errors import NochmalError, OptionError
from nochmal.fileio import load_json_text

bench_app = typer.Typer(help="Benchmarks with paired seeds and confidence intervals.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.command("hint")(hint_cmd)
    app.add_typer(bench_app, name="bench")
    bench_app.command("bots")(bench_bots)


def _parse_roll(text: str) -> Roll:
    data = load_json_text(text, lambda reason: OptionError(
        f'--roll: {reason}; expected {{"colours": [...], "numbers": [...]}}'))
    try:
        return Roll.from_json(data)
    except NochmalError as exc:
        raise OptionError(f"--roll: {exc}") from None


MAX_HINTS = 20  # each hint shown is searched as deep as the others: the cost grows with --top


@guarded
def hint_cmd(
    sheet: Path = typer.Option(..., "--sheet", help="Typed sheet (7 lines of 15, x = crossed; optional jokers_used: N)."),
    roll: str = typer.Option(..., "--roll", help='Dice as JSON: {"colours": ["y","x"], "numbers": ["3","?"]} (x / ? jokers).'),
    board: str = typer.Option("classic", "--board", "-b", help="Built-in board name or a board file."),
    solo: bool = typer.Option(False, "--solo", help="Solo rules (2+2 dice, 30 rolls); default the race with 3+3 dice."),
    rolls_left: int = typer.Option(None, "--rolls-left", help="Rolls still to come after this one (solo default 15; in the race an upper bound on the estimate)."),
    top: int = typer.Option(3, "--top", help="How many choices to show."),
    bridging: bool = typer.Option(False, "--bridging", help="Rule option: new crosses may connect through crossed cells."),
    as_json: bool = typer.Option(False, "--json", help="Print the hints as JSON."),
    allow_impossible: bool = typer.Option(False, "--allow-impossible", help="Hint for a sheet no legal game can produce (warn instead of exit 1)."),
):
    """Show the best few choices for a sheet and a roll, with the estimated final score of each.

    Example: nochmal hint --sheet my.txt --roll '{"colours": ["y","b"], "numbers": ["3","?"]}' --solo --rolls-left 20
    """
    from nochmal.bots.hints import build_hint_game, hint

    if not 1 <= top <= MAX_HINTS:
        raise OptionError(f"--top {top}: must be 1..{MAX_HINTS}")
    b = board_arg(board)
    dice = _parse_roll(roll)
    state = read_sheet_file(sheet, b)
    game = build_hint_game(b, state, dice, solo, rolls_left, bridging)  # (checks the dice against the mode first)
    refuse_impossible(state, str(sheet), allow_impossible)
    results = hint(game, top)
    if as_json:
        emit_json({
            "board": b.name, "sheet": state.text(), "roll": dice.to_json(), "solo": solo,
            "rolls_left": rolls_left if rolls_left is not None else (15 if solo else None),
            "hints": [{"rank": i + 1, "move": str(m), "colour": m.colour or None, "count": m.count,
                       "cells": list(m.cells), "jokers": m.joker_cost, "value": v}
                      for i, (m, v) in enumerate(results)],
        })
        return
    table = Table(title=f"best choices for {dice.text()} (estimated final score)")
    table.add_column("#", justify="right")
    table.add_column("move")
    table.add_column("jokers", justify="right")
    table.add_column("value", justify="right")
    for i, (m, v) in enumerate(results, 1):
        table.add_row(str(i), str(m), str(m.joker_cost), f"{v:.2f}")
    console.print(table)


def _fmt(m: float | None, ci: float | None, pct: bool = False) -> str:
    if m is None:
        return "-"
    k = 100.0 if pct else 1.0
    unit = " %" if pct else ""
    if ci is None or math.isnan(ci):
        return f"{m * k:.1f}{unit}"
    return f"{m * k:.1f} ± {ci * k:.1f}{unit}"


def bots_campaign(bots: str, mode: str, players: int, board: str, game: str = "nochmal") -> dict:
    """The settings of a paired bot benchmark (`batch bots`, `bench bots`), checked. A board
    file travels as its TOML text (the workers may be other machines); the mode is stored
    as its text (BenchMode's value), as in the stores already written. Clever 4ever
    (``game="clever"``) has one sheet: no board."""
    names = [n.strip() for n in bots.split(",") if n.strip()]
    from nochmal.bots.harness import BenchMode, game_bots  # the bots load numpy: imported on use

    known, _ = game_bots(game)
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise OptionError(f"--bots: unknown bot {unknown[0]!r}; known bots: {', '.join(known)}" if unknown
                          else "--bots: no bot given")
    bench_mode = BenchMode.parse(mode)
    if bench_mode is BenchMode.TABLE and not 2 <= players <= 4:
        raise OptionError(f"--players {players}: a table has 2..4 players")
    if bench_mode is BenchMode.TABLE and len(names) > players:
        raise OptionError(f"--bots: {len(names)} bots do not fit a table of {players}")
    if game == "clever":
        return {"game": game, "board": "clever4ever", "bots": names, "mode": bench_mode.value,
                "players": 1 if bench_mode is BenchMode.SOLO else players}
    from nochmal.board import BUILTIN_BOARDS

    b = board_arg(board)
    campaign = {"board": board if board in BUILTIN_BOARDS else b.name, "bots": names, "mode": bench_mode.value,
                "players": 1 if bench_mode is BenchMode.SOLO else players}
    if board not in BUILTIN_BOARDS:
        campaign["board_toml"] = Path(board).read_text(encoding="utf-8")  # board_arg has read and checked it
    return campaign


@guarded
def bench_bots(
    bots: str = typer.Option("greedy,heuristic", "--bots", help="Comma-separated bot names; the first is the baseline."),
    mode: str = typer.Option("solo", "--mode", help="solo, or table (the race, seats rotated)."),
    players: int = typer.Option(2, "--players", help="Table size 2..4 (table mode)."),
    seeds: str = typer.Option("100000..100099", "--seeds", help="Seed range A..B (1..1000 is for tuning; publish held-out seeds)."),
    board: str = typer.Option("classic", "--board", "-b", help="Built-in board name or a board file."),
    workers: Optional[int] = typer.Option(None, "--workers", help="Worker processes (default: one per core)."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as JSON."),
    game: str = typer.Option("nochmal", "--game", help="nochmal, or clever (Clever 4ever: bots random, greedy, rollout; no board)."),
):
    """Play bots on paired seeds (same dice for all) and report means, win rates and 95 % CIs.

    Runs on the batch runner's local cluster (one seed per task); for a stored, resumable
    run or a Dask cluster use `nochmal batch bots --store FILE`.

    Example: nochmal bench bots --bots greedy,heuristic --mode table --players 2 --seeds 100000..100099
    Clever 4ever: nochmal bench bots --game clever --bots random,greedy --seeds 1..20
    """
    import tempfile

    from nochmal.batch.report import bots_bench
    from nochmal.batch.runner import SeedTasks, check_workers, run_tasks
    from nochmal.batch.store import Store
    from nochmal.batch.tasks import bots_task
    from nochmal.bots.harness import parse_seed_range

    campaign = bots_campaign(bots, mode, players, board, game)
    rng = parse_seed_range(seeds)
    check_workers(workers)
    tasks = SeedTasks(campaign, span=range(rng[0], rng[1] + 1))
    with tempfile.TemporaryDirectory(prefix="nochmal-bench-") as tmp, \
            Progress(TextColumn("bench"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                     console=err_console, transient=True,
                     disable=not err_console.is_terminal) as prog:  # no bar in a pipe or a log
        task = prog.add_task("seeds", total=len(tasks))
        path = Path(tmp) / "bench.sqlite"
        summary = run_tasks(tasks, bots_task, path, "bots", campaign, workers=workers, threads=1,
                            progress=lambda done, todo: prog.update(task, completed=done))
        st = Store.read(path)
        try:
            if summary.failed:
                first = next(r for r in st.rows() if r.status != "ok")
                raise OptionError(f"{summary.failed} seed(s) failed, e.g. {first.key}: {first.error}")
            result, _ = bots_bench(st)
        finally:
            st.close()
    if as_json:
        emit_json(result.to_dict())
        return
    board_of = "" if game == "clever" else f"board {campaign['board']}, "
    print_bench(result, f"{board_of}seeds {rng[0]}..{rng[1]} ({rng[1] - rng[0] + 1} seeds)")


def print_bench(result, where: str) -> None:
    """The benchmark's table and paired differences (also ``nochmal batch report`` of a bots store)."""
    from nochmal.bots.harness import BenchMode

    solo = "Clever 4ever solo (6 rounds)" if result.game == "clever" else "solo (2+2 dice, 30 rolls)"
    table_of = "Clever 4ever table" if result.game == "clever" else "table"
    what = solo if result.mode is BenchMode.SOLO else f"{table_of} of {result.players}, seats rotated"
    table = Table(title=f"{what}, {where}")
    for col in ("bot", "games", "mean score (95% CI)", "win rate (95% CI)", "s/decision", "CPU s/decision"):
        table.add_column(col)
    for f in result.bots:
        table.add_row(f.bot, str(f.games), _fmt(f.mean_score, f.score_ci), _fmt(f.win_rate, f.win_ci, pct=True),
                      f"{f.seconds_per_decision:.4f}", f"{f.cpu_seconds_per_decision:.4f}")
    console.print(table)
    for d in result.paired:
        pct = d.metric == "win"
        console.print(f"paired {d.metric}: {d.bot} - {d.baseline} = {_fmt(d.mean, d.ci, pct)} over {d.seeds} seeds")

