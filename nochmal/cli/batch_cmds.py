"""``nochmal batch``: campaigns of independent tasks on Dask with a resumable SQLite store
(nochmal/batch): ``solve`` (the planner per seed), ``bots`` (the paired bot benchmark per
seed) and ``report`` (the figures of a store).

Dask, OR-Tools and the bots are imported inside the commands (tests/cli/test_cli_startup.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn,
                           TimeElapsedColumn, TimeRemainingColumn)
from rich.table import Table
from rich.text import Text

from nochmal.cli.common import (MAX_TIME_LIMIT, MIN_TIME_LIMIT, board_arg, check_number, check_time_limit,
                                console, emit_json, err_console, guarded)
from nochmal.errors import OptionError
from nochmal.fileio import atomic_write_text
from nochmal.rules import RuleSettings

batch_app = typer.Typer(help="Campaigns on Dask with a resumable result store: solve, bots, calibrate, report.",
                        no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(batch_app, name="batch")
    batch_app.command("solve")(batch_solve)
    batch_app.command("bots")(batch_bots)
    batch_app.command("calibrate")(batch_calibrate)
    batch_app.command("report")(batch_report)


STORE_HELP = "SQLite file of results: created if missing; the same command again resumes it."
WORKERS_HELP = "Local worker processes (default: one per core)."
MAX_DECISION_MS = 60_000.0  # --max-ms: a bot that thinks a minute per move is no team candidate
SCHEDULER_HELP = ("An existing Dask cluster, e.g. tcp://HOST:8786 (started with `dask scheduler` and "
                  "`dask worker tcp://HOST:8786 --nthreads 1`); default: a local cluster.")


class RateColumn(ProgressColumn):
    """Tasks per minute (rich's own speed column counts bytes)."""

    def render(self, task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("-/min" if speed is None else f"{speed * 60:.1f}/min")


def _run(kind: str, tasks, campaign: dict, store: Path, workers: Optional[int], scheduler: Optional[str],
         threads: Optional[int], retry_failed: bool, as_json: bool, retry_ok=None) -> None:
    """Run a campaign with a progress bar (rate, time left) and a one-line outcome."""
    from nochmal.batch.runner import check_workers, run_tasks
    from nochmal.batch.tasks import TASK_FUNCTIONS

    check_workers(workers)
    check_workers(threads, "--threads")
    with Progress(TextColumn(f"batch {kind}"), BarColumn(), MofNCompleteColumn(), RateColumn(),
                  TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                  console=err_console, transient=True, disable=not err_console.is_terminal) as prog:
        bar = prog.add_task("tasks", total=None)

        def on_start(todo: int, count: int, per_task: int) -> None:
            prog.update(bar, total=todo)
            prog.console.print(f"{todo} task(s) to run on {count} worker(s), {per_task} CP-SAT thread(s) each",
                               markup=False)

        try:
            summary = run_tasks(tasks, TASK_FUNCTIONS[kind], store, kind, campaign, workers=workers,
                                scheduler=scheduler, threads=threads, retry_failed=retry_failed, retry_ok=retry_ok,
                                progress=lambda done, todo: prog.update(bar, completed=done), on_start=on_start)
        except KeyboardInterrupt:
            err_console.print(f"interrupted: the finished tasks are in {store}; run the same command again to resume",
                              markup=False, soft_wrap=True)
            raise typer.Exit(130) from None
    if as_json:
        emit_json({"store": str(store), "tasks": summary.total, "skipped": summary.skipped, "ok": summary.ok,
                   "failed": summary.failed, "seconds": round(summary.seconds, 3), "workers": summary.workers,
                   "threads": summary.threads})
        return
    console.print(f"{summary.ok + summary.failed} task(s) run ({summary.failed} failed), {summary.skipped} already "
                  f"stored, {summary.seconds:.1f}s; see: nochmal batch report {store}", markup=False, soft_wrap=True)


def _seed_tasks(seeds: Optional[str], campaign: dict, daily: Optional[str] = None):
    """One task per seed: the daily puzzles' seeds first (in date order), then the range."""
    from nochmal.batch.runner import SeedTasks
    from nochmal.bots.harness import parse_seed_range
    from nochmal.puzzles import parse_daily_range

    if seeds is None and daily is None:
        raise OptionError("give --seeds A..B, --daily FIRST..LAST (dates), or both")
    lead = parse_daily_range(daily) if daily is not None else []
    span = range(0)
    if seeds is not None:
        first, last = parse_seed_range(seeds)
        span = range(first, last + 1)
    return SeedTasks(campaign, lead, span)


@guarded
def batch_solve(
    seeds: Optional[str] = typer.Option(None, "--seeds", help="Seed range A..B (inclusive) or one seed."),
    daily: Optional[str] = typer.Option(None, "--daily", help="The daily puzzles of the dates FIRST..LAST (inclusive), "
                                        "e.g. 2026-12-01..2027-12-31: seeds YYYYMMDD."),
    store: Path = typer.Option(..., "--store", help=STORE_HELP),
    rolls_count: int = typer.Option(30, "--rolls-count", "-k", help="Plan the first K solo rolls (1..30)."),
    time_limit: float = typer.Option(60.0, "--time-limit", "-t", help=f"Seconds per seed ({MIN_TIME_LIMIT:g}..{MAX_TIME_LIMIT:g})."),
    board: str = typer.Option("classic", "--board", "-b", help="Built-in board name."),
    workers: Optional[int] = typer.Option(None, "--workers", help=WORKERS_HELP),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help=SCHEDULER_HELP),
    threads: Optional[int] = typer.Option(None, "--threads", help="CP-SAT threads per task (default: cores / workers locally, 1 on a cluster)."),
    retry_failed: bool = typer.Option(False, "--retry-failed", help="Run the stored failed tasks again."),
    retry_unproven: bool = typer.Option(False, "--retry-unproven",
                                        help="Solve the stored seeds whose optimum is not proven again, hinted "
                                             "with the stored plan; the row keeps the better plan and the lower "
                                             "bound of the runs (a retry never loses a proof)."),
    as_json: bool = typer.Option(False, "--json", help="Print the run's outcome as JSON."),
):
    """The planner on every seed (best, bound, proven, time, the plan), one stored row per seed.

    Example: nochmal batch solve --seeds 1..100 --rolls-count 30 --time-limit 60 --store puzzles.sqlite

    The daily puzzles' optima: nochmal batch solve --daily 2026-12-01..2027-12-31 --store puzzles.sqlite

    Another try at the seeds left open: the same command with --retry-unproven.
    """
    game_length = RuleSettings().solo_rolls
    if not 1 <= rolls_count <= game_length:
        raise OptionError(f"--rolls-count {rolls_count}: must be 1..{game_length} (the solo game length)")
    check_time_limit(time_limit)
    board_arg(board)
    campaign = {"board": board, "rolls_count": rolls_count, "time_limit": time_limit}
    _run("solve", _seed_tasks(seeds, campaign, daily), campaign, store, workers, scheduler, threads, retry_failed, as_json,
         retry_ok=(lambda result: not result["proven"]) if retry_unproven else None)


@guarded
def batch_bots(
    store: Path = typer.Option(..., "--store", help=STORE_HELP),
    bots: str = typer.Option("greedy,heuristic", "--bots", help="Comma-separated bot names; the first is the baseline."),
    mode: str = typer.Option("solo", "--mode", help="solo, or table (the race, seats rotated)."),
    players: int = typer.Option(2, "--players", help="Table size 2..4 (table mode)."),
    seeds: str = typer.Option("100000..100099", "--seeds", help="Seed range A..B (1..1000 is for tuning; publish held-out seeds)."),
    board: str = typer.Option("classic", "--board", "-b", help="Built-in board name or a board file (sent to the workers as its text)."),
    game: str = typer.Option("nochmal", "--game", help="nochmal, or clever (Clever 4ever: bots random, greedy, rollout; no board)."),
    workers: Optional[int] = typer.Option(None, "--workers", help=WORKERS_HELP),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help=SCHEDULER_HELP),
    retry_failed: bool = typer.Option(False, "--retry-failed", help="Run the stored failed tasks again."),
    as_json: bool = typer.Option(False, "--json", help="Print the run's outcome as JSON."),
):
    """The paired-seed bot benchmark (as `nochmal bench bots`), one stored row per seed.

    Example: nochmal batch bots --bots greedy,heuristic --seeds 100000..100999 --store bots.sqlite
    """
    from nochmal.cli.bot_cmds import bots_campaign

    campaign = bots_campaign(bots, mode, players, board, game)
    _run("bots", _seed_tasks(seeds, campaign), campaign, store, workers, scheduler, 1, retry_failed, as_json)


def _id_list(text: str, option: str, known: list, cast=str) -> list:
    """A comma-separated list of known values (ids, bot names, player counts)."""
    try:
        values = [cast(x.strip()) for x in text.split(",") if x.strip()]
    except ValueError:
        raise OptionError(f"{option} {text!r}: expected a comma-separated list, e.g. {','.join(map(str, known[:2]))}") from None
    bad = [v for v in values if v not in known]
    if bad or not values:
        raise OptionError(f"{option}: {'unknown ' + repr(bad[0]) if bad else 'nothing given'}; "
                          f"known: {', '.join(map(str, known))}")
    return list(dict.fromkeys(values))


@guarded
def batch_calibrate(
    store: Path = typer.Option(..., "--store", help=STORE_HELP),
    missions: Optional[str] = typer.Option(None, "--missions", help="Comma-separated mission ids (default: every shipped mission)."),
    players: str = typer.Option("1,2,3,4", "--players", help="Comma-separated player counts."),
    bots: Optional[str] = typer.Option(None, "--bots", help="Comma-separated team candidates (default: every registered bot "
                                       "deciding within --max-ms, random excepted)."),
    max_ms: float = typer.Option(5.0, "--max-ms", help=f"Speed limit per decision for the default candidates (milliseconds, at most {MAX_DECISION_MS:g})."),
    seeds: int = typer.Option(40, "--seeds", min=1, max=10_000, help="Seeds 1..N to choose budgets on (N+1..2N check them)."),
    probe_seeds: int = typer.Option(8, "--probe-seeds", min=1, max=10_000, help="Team target: seeds 1001.. to pick the team's bot."),
    target_seeds: int = typer.Option(100, "--target-seeds", min=1, max=10_000, help="Team target: seeds 2001.. for the score to reach."),
    cap: int = typer.Option(200, "--cap", min=2, max=1000, help="The largest budget considered."),
    workers: Optional[int] = typer.Option(None, "--workers", help=WORKERS_HELP),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help=SCHEDULER_HELP),
    write: bool = typer.Option(False, "--write", help="Write the budgets (and team targets) into the shipped mission files."),
    as_json: bool = typer.Option(False, "--json", help="Print the calibration as JSON."),
):
    """The missions' roll budgets by simulation, every game a stored task (resumable).

    Per mission and player count: the budgets where the strongest bot team wins about 80 %
    (easy), 50 % (normal) and 20 % (hard), chosen on seeds 1..N and checked on N+1..2N.

    Example: nochmal batch calibrate --seeds 60 --cap 160 --store calibration.sqlite --write
    """
    from nochmal.batch.calibrate import CAMPAIGN, Results, Settings, calibrate, candidate_bots, rewrite_file
    from nochmal.batch.runner import Cluster, check_workers, run_tasks
    from nochmal.batch.store import OK, Store, check_store
    from nochmal.batch.tasks import calibrate_task
    from nochmal.bots.registry import agent_names
    from nochmal.missions.loader import builtin_mission_files, parse_mission_text, read_mission_file
    from nochmal.missions.model import PLAYER_COUNTS

    check_workers(workers)  # before any bot is timed or game played
    check_number(max_ms, "--max-ms", 0, MAX_DECISION_MS, above_low=True)
    files = {read_mission_file(p).id: p for p in builtin_mission_files()}
    chosen = _id_list(missions, "--missions", sorted(files)) if missions else sorted(files)
    counts = _id_list(players, "--players", list(PLAYER_COUNTS), int)
    if write and len(counts) < len(PLAYER_COUNTS):
        raise OptionError("--write rewrites whole [budgets] tables: calibrate every player count (--players 1,2,3,4)")
    if bots:
        team = _id_list(bots, "--bots", agent_names())
    else:
        team, speeds = candidate_bots(max_ms)
        for name, ms in speeds.items():
            err_console.print(f"bot {name}: {ms:.1f} ms per decision"
                              + ("" if ms <= max_ms else " (too slow, left out; name it with --bots)"), markup=False)
        if not team:
            raise OptionError(f"--max-ms {max_ms:g}: no bot is that fast; name the bots with --bots")
    settings = Settings(tuple(team), seeds, probe_seeds, target_seeds, cap)
    mission_objs = [read_mission_file(files[m]) for m in chosen]

    def stored() -> Results:
        if not store.exists():
            return Results()
        st = Store.read(store)
        try:
            return Results({r.key: r.result for r in st.rows() if r.status == OK})
        finally:
            st.close()

    check_store(store, "calibrate", CAMPAIGN)  # a wrong store: refused before any bot is timed
    with Cluster(scheduler, workers) as cluster:
        def play(tasks):
            summary = run_tasks(tasks, calibrate_task, store, "calibrate", CAMPAIGN, cluster=cluster, threads=1)
            if summary.failed:
                raise OptionError(f"{summary.failed} game(s) failed; see: nochmal batch report {store}")
            return stored()

        def on_round(k: int, games: int) -> None:
            err_console.print(f"round {k}: {games} game(s) to play", markup=False)

        try:
            outcomes = calibrate(mission_objs, counts, settings, stored(), play, on_round)
        except KeyboardInterrupt:
            err_console.print(f"interrupted: the games played are in {store}; run the same command again to resume",
                              markup=False, soft_wrap=True)
            raise typer.Exit(130) from None
    if write:
        texts = {}
        for mission in mission_objs:  # every new text is made and must load before any file is written
            mine = [o for o in outcomes if o.mission == mission.id]
            budgets = {o.players: o.budgets for o in mine}
            targets = {o.players: o.target for o in mine} if mine[0].target is not None else None
            path = files[mission.id]
            texts[path] = rewrite_file(path, budgets, targets)
            parse_mission_text(texts[path], str(path))
        for path, text in texts.items():
            atomic_write_text(path, text)
    if as_json:
        emit_json({"store": str(store), "bots": list(team), "seeds": seeds, "cap": cap,
                   "written": write, "missions": [o.to_dict() for o in outcomes]})
        return
    table = Table(title=f"budgets: team of {', '.join(team)}; rate on seeds 1..{seeds} / on {seeds + 1}..{2 * seeds}")
    for column in ("mission", "players", "target", "easy", "normal", "hard"):
        table.add_column(column, justify="left" if column == "mission" else "right")
    for o in outcomes:
        cells = [f"{o.budgets[d]} ({100 * o.rates[d]:.0f}% / {100 * o.check_rates[d]:.0f}%, {o.best_bot[d]})"
                 for d in ("easy", "normal", "hard")]
        table.add_row(o.mission, str(o.players), "-" if o.target is None else str(o.target), *cells)
    console.print(table)
    if write:
        console.print(f"wrote the budgets into {len(mission_objs)} mission file(s)", markup=False)


def _fmt(mean, ci, digits: int = 1, scale: float = 1.0, unit: str = "") -> str:
    if mean is None:
        return "-"
    if ci is None:
        return f"{mean * scale:.{digits}f}{unit}"
    return f"{mean * scale:.{digits}f} ± {ci * scale:.{digits}f}{unit}"


def _write_optima(path: Path, data: dict, rows) -> int:
    """The puzzle optima file (nochmal/puzzles.py) of a solve store's finished rows that have
    a proven bound (a solve stopped before any bound has nothing to ship); how many seeds."""
    from nochmal.puzzles import PuzzleOptimum, optima_document, optima_text, parse_optima

    if data["kind"] != "solve":
        raise OptionError(f"--optima: {data['kind']!r} store; only a 'nochmal batch solve' store has optima")
    settings = data["settings"]
    optima = [PuzzleOptimum(row.settings["seed"], row.result["best"], row.result["bound"], row.result["proven"])
              for row in rows if row.status == "ok" and row.result["bound"] is not None]
    doc = optima_document(optima, settings["board"], settings["rolls_count"], settings["time_limit"])
    parse_optima(doc, str(path))  # the file written must load (nochmal/puzzles.py reads it)
    atomic_write_text(path, optima_text(doc))
    return len(optima)


@guarded
def batch_report(
    store: Path = typer.Argument(..., help="A store written by nochmal batch solve, bots or calibrate."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as JSON."),
    svg: Optional[Path] = typer.Option(None, "--svg", help="Write a histogram of the scores to this SVG file."),
    optima: Optional[Path] = typer.Option(None, "--optima", help="Write seed -> best, bound, proven as a puzzle "
                                          "optima file (a solve store; the package ships nochmal/data/puzzle_optima.json)."),
):
    """The figures of a store: counts, means with 95 % CIs, proof rate, time percentiles.

    Example: nochmal batch report puzzles.sqlite --svg scores.svg
    """
    from nochmal.batch.report import histogram_svg, summary
    from nochmal.batch.store import Store

    st = Store.read(store)
    try:
        data = summary(st)
        rows = st.rows() if optima is not None else []
    finally:
        st.close()
    written = _write_optima(optima, data, rows) if optima is not None else 0
    if svg is not None:
        what = {"solve": "score per seed", "calibrate": "team score per game"}.get(data["kind"],
                                                                                        "score per seed and bot")
        title = f"{data['kind']} campaign, {data['ok']} task(s): {what}"
        atomic_write_text(svg, histogram_svg(data["scores"], title))
    if as_json:
        data.pop("scores")
        emit_json(data)
        return
    shown = {k: v for k, v in data["settings"].items() if k != "board_toml"}  # a board file's text: too long to show
    console.print(f"{store}: {data['kind']} campaign {json.dumps(shown)}"
                  + (" (the board from a file)" if "board_toml" in data["settings"] else ""), markup=False, soft_wrap=True)
    console.print(f"{data['tasks']} task(s): {data['ok']} ok, {data['failed']} failed", markup=False)
    for failure in data["failures"][:5]:
        console.print(f"  failed {failure['key']}: {failure['error']}", markup=False, soft_wrap=True)
    if data["kind"] == "solve":
        table = Table(title="planner per seed")
        table.add_column("figure")
        table.add_column("value", justify="right")
        best, bound, proven = data["best"], data["bound"], data["proven"]
        table.add_row("best score, mean (95% CI)", _fmt(best["mean"], best["ci"], 2))
        table.add_row("best score, min..max", f"{best['min']}..{best['max']}" if best["min"] is not None else "-")
        table.add_row("bound, mean (95% CI)", _fmt(bound["mean"], bound["ci"], 2))
        table.add_row("proven optimal", f"{proven['count']} ({_fmt(proven['rate'], proven['ci'], 1, 100, ' %')})")
        for label, field in (("seeds per best score (score:seeds)", "seeds"), ("proven seeds per score", "proven")):
            table.add_row(label, ", ".join(f"{d['score']}:{d[field]}" for d in data["distribution"] if d[field]) or "-")
        for name, value in data["solve_seconds"].items():
            table.add_row(f"solve seconds {name}", "-" if value is None else f"{value:.2f}")
        console.print(table)
    elif data["kind"] == "calibrate":
        table = Table(title="games played, every budget and bot")
        for column in ("mission", "players", "games", "met"):
            table.add_column(column, justify="left" if column == "mission" else "right")
        for g in data["games"]:
            table.add_row(g["mission"], str(g["players"]), str(g["games"]), str(g["met"]))
        console.print(table)
    else:
        from nochmal.batch.report import bots_bench
        from nochmal.cli.bot_cmds import print_bench

        st = Store.read(store)
        try:
            bench, _ = bots_bench(st)
        finally:
            st.close()
        print_bench(bench, f"board {data['settings']['board']}, {data['ok']} seed(s) stored")
    times = data["task_seconds"]
    console.print("task seconds: " + ", ".join(f"{k} {'-' if v is None else f'{v:.2f}'}" for k, v in times.items()),
                  markup=False)
    if svg is not None:
        console.print(f"histogram written to {svg}", markup=False)
    if optima is not None:
        console.print(f"optima of {written} seed(s) written to {optima}"
                      + (f" ({data['ok'] - written} without a proven bound left out)" if data["ok"] > written else ""),
                      markup=False, soft_wrap=True)
