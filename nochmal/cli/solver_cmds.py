"""Planner commands: solve (the clairvoyant best plan for known dice) and analyse (which
rolls of a played solo game cost the most points)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from nochmal.cli.common import (MAX_TIME_LIMIT, MIN_TIME_LIMIT, board_arg, check_seed, check_time_limit, console,
                                emit_json, err_console, guarded, read_sheet_file, refuse_impossible)
from nochmal.errors import NoPlanError
from nochmal.fileio import check_writable
from nochmal.modes import Mode
from nochmal.record import GameRecord
from nochmal.rules import RuleSettings
from nochmal.solver.instance import Instance
from nochmal.solver.plan import OPTIMAL, Plan


def register(app: typer.Typer) -> None:
    app.command("solve")(solve)
    app.command("analyse")(analyse)


class ProgressLine:
    """Best score and bound as they improve, on stderr (rich status line): the progress of
    ``solve`` and ``analyse``, and of the race analysis (nochmal/cli/race_cmds.py), which gets
    the class passed in."""

    def __init__(self, label: str, hint: str = "Ctrl-C returns the best plan so far"):
        self.label = label
        self.hint = hint
        self.best: int | None = None
        self.bound: int | None = None
        self.status = err_console.status(f"{label}: searching…")

    def reset(self, label: str) -> None:
        """A new solve (another instance): its figures must not mix with the last one's. Not
        on a terminal (a log, a pipe) the status line is not drawn: one plain line instead."""
        self.label, self.best, self.bound = label, None, None
        self.status.update(f"{label}: searching…")
        if not err_console.is_terminal:
            err_console.print(label, markup=False, soft_wrap=True)

    def __enter__(self):
        self.status.__enter__()
        return self

    def __exit__(self, *exc):
        return self.status.__exit__(*exc)

    def __call__(self, event) -> None:
        """``event``: a ``nochmal.solver.cpsat.Progress``."""
        if event.objective is not None:
            self.best = event.objective if self.best is None else max(self.best, event.objective)
        if event.bound is not None:
            self.bound = event.bound if self.bound is None else min(self.bound, event.bound)
        self.status.update(f"{self.label}: best {self.best if self.best is not None else '-'}, "
                           f"bound {self.bound if self.bound is not None else '-'}, {event.elapsed:.1f}s "
                           f"({self.hint})")


def status_text(plan: Plan) -> str:
    if plan.status == OPTIMAL:
        text = f"optimal: {plan.total} points, proven"
    elif plan.bound is not None:
        text = f"feasible: {plan.total} points, proven bound {plan.bound} (gap {plan.gap}), not proven optimal"
    else:
        text = f"unknown: {plan.total} points, no bound proven"
    if plan.interrupted:
        text += "; interrupted"
    return text + f"; {plan.wall_time:.1f}s"


def plan_table(plan: Plan) -> Table:
    table = Table(title=f"plan for {len(plan.steps)} roll(s) on the {plan.board} board")
    for col, just in (("roll", "right"), ("dice", "left"), ("choice", "left"), ("cells", "left"),
                      ("points", "right")):
        table.add_column(col, justify=just)
    for step in plan.steps:
        table.add_row(str(step.roll), step.dice, step.choice_text(),
                      " ".join(step.cells), f"{step.points:+d}" if step.points else "")
    return table


def _check_solver_options(time_limit: float, workers: int) -> None:
    """--time-limit and --workers of solve and analyse, in the ranges every command shares."""
    from nochmal.batch.runner import check_workers

    check_time_limit(time_limit)
    check_workers(workers)


@guarded
def solve(
    seed: Optional[int] = typer.Option(None, "--seed", "-s", help="Plan the seeded solo rolls of this seed."),
    record: Optional[Path] = typer.Option(None, "--record", help="Plan the rolls of a solo game record."),
    rolls: Optional[Path] = typer.Option(None, "--rolls", help='JSON list of rolls [{"colours": ["y","x"], "numbers": ["3","?"]}, ...].'),
    board: str = typer.Option("classic", "--board", "-b", help="Built-in board name or a board file (seed/rolls)."),
    rolls_count: Optional[int] = typer.Option(None, "--rolls-count", "-k", min=1, help="Use only the first K rolls (with --seed at most the game length, 30)."),
    after_turn: int = typer.Option(0, "--after-turn", min=0, help="With --record: plan from the sheet reached after this turn."),
    sheet: Optional[Path] = typer.Option(None, "--sheet", help="With --rolls: start from this typed sheet (mid-game)."),
    time_limit: float = typer.Option(60.0, "--time-limit", "-t", help=f"Seconds before the best plan so far is returned ({MIN_TIME_LIMIT:g}..{MAX_TIME_LIMIT:g})."),
    workers: int = typer.Option(2, "--workers", help="CP-SAT worker threads."),
    as_json: bool = typer.Option(False, "--json", help="Print the plan as JSON."),
    mission: Optional[str] = typer.Option(None, "--mission", "-m", help="Team planning: a co-op mission id or file (needs --players and --seed)."),
    players: Optional[int] = typer.Option(None, "--players", "-n", min=1, max=4, help="With --mission: the number of players (1-4)."),
    difficulty: str = typer.Option("normal", "--difficulty", "-d", help="With --mission: easy, normal or hard (sets the roll budget)."),
    save: Optional[Path] = typer.Option(None, "--save", help="Write the plan as a game record (nochmal replay --verify reads it); a plan from roll 1 on an empty sheet."),
    allow_impossible: bool = typer.Option(False, "--allow-impossible", help="With --sheet: plan from a sheet no legal game can produce (warn instead of exit 1)."),
):
    """Find the best plan for known dice (CP-SAT) and say whether it is proven optimal.

    With --mission: the fewest rolls in which the team wins the co-op mission on the seeded
    dice with perfect coordination, or "budget not enough (proven)".

    Example: nochmal solve --seed 7 --rolls-count 12 --time-limit 30

    Example: nochmal solve --mission lockstep --players 2 --seed 1 --difficulty hard --save plan.json
    """
    _check_solver_options(time_limit, workers)
    check_seed(seed)
    if save is not None:
        if after_turn or sheet is not None:
            raise typer.BadParameter("--save writes a whole game: not with --after-turn or --sheet")
        check_writable(save)  # before a long solve, not after it
    if mission is not None:
        if seed is None or players is None:
            raise typer.BadParameter("--mission needs --players and --seed")
        if record is not None or rolls is not None or sheet is not None or rolls_count is not None or after_turn:
            raise typer.BadParameter("--mission takes only --players, --seed, --difficulty, --time-limit, --workers, "
                                     "--json, --save")
        _solve_mission(mission, players, seed, difficulty, time_limit, workers, as_json, save)
        return
    if players is not None:
        raise typer.BadParameter("--players needs --mission")
    sources = [x for x in (seed, record, rolls) if x is not None]
    if len(sources) != 1:
        raise typer.BadParameter("give exactly one of --seed, --record, --rolls")
    if after_turn and record is None:
        raise typer.BadParameter("--after-turn needs --record")
    if sheet is not None and rolls is None:
        raise typer.BadParameter("--sheet needs --rolls")
    game_length = RuleSettings().solo_rolls
    if seed is not None and rolls_count is not None and rolls_count > game_length:
        raise typer.BadParameter(f"a solo game has {game_length} rolls; --rolls-count {rolls_count} is more",
                                 param_hint="'--rolls-count'")
    if seed is not None:
        count = rolls_count or game_length
        inst = Instance.from_seed(seed, board_arg(board), RuleSettings(solo_rolls=count), count)
    elif record is not None:
        rec = GameRecord.load(record)
        from nochmal.table.stepper import game_factory

        rec.verify(str(record), game_factory(rec))
        inst = Instance.from_record(rec, after_turn, str(record), rolls_count)
    else:
        inst = Instance.from_rolls_file(rolls, board_arg(board), count=rolls_count)
        if sheet is not None:
            inst.start = read_sheet_file(sheet, inst.board)
            refuse_impossible(inst.start, str(sheet), allow_impossible)
    from nochmal.solver.interrupt import SigintStop  # OR-Tools: loaded only to plan

    # one Ctrl-C watch over the whole run, model building and hint included: an early press
    # gives the greedy hint as the plan (marked interrupted), not a bare exit 130
    label = f"solving {len(inst.rolls)} roll(s)"
    with SigintStop(), ProgressLine(label) as reporter:
        reporter.reset(label)  # not on a terminal: this first line says the watch is on
        from nochmal.solver.cpsat import solve as run_solve

        plan = run_solve(inst, time_limit=time_limit, workers=workers, progress=reporter)
    if save is not None:
        from nochmal.solver.validate import plan_record

        plan_record(inst, plan).save(save)
    if as_json:
        data = plan.to_json()
        data["instance"] = inst.to_json()
        if save is not None:
            data["saved"] = str(save)
        emit_json(data)
        return
    console.print(plan_table(plan))
    bd = plan.breakdown
    console.print(f"score {plan.total} (columns {bd['columns']}, colours {bd['colours']}, "
                  f"jokers {bd['jokers']}, stars {bd['stars']})")
    console.print(status_text(plan), soft_wrap=True)  # one line, never wrapped at 80 when piped
    if save is not None:
        console.print(f"plan written to {save} as a game record", soft_wrap=True)


@guarded
def analyse(
    record: Path = typer.Argument(..., help="A finished solo, competitive or co-op mission game record (JSON)."),
    time_limit: float = typer.Option(10.0, "--time-limit", "-t", help=f"Seconds per solve (one solve per roll; {MIN_TIME_LIMIT:g}..{MAX_TIME_LIMIT:g})."),
    workers: int = typer.Option(2, "--workers", help="CP-SAT worker threads."),
    top: int = typer.Option(0, "--top", min=0, help="Show only the N costliest rolls (0 = all)."),
    as_json: bool = typer.Option(False, "--json", help="Print the analysis as JSON."),
    seat: Optional[int] = typer.Option(None, "--seat", min=1, help="Competitive record: analyse this seat (1 = the first to roll); default every seat."),
    best_only: bool = typer.Option(False, "--best-only", help="Competitive record: only each seat's best score, no per-roll losses."),
):
    """Per roll, the points the move actually made lost against the best play with the same dice.

    A competitive record is analysed per seat, with the other players' moves as they were.

    A co-op mission record: per roll, the fewest rolls in which the team could still have won
    from the position before it (the team planner), and the rolls its moves cost.

    Ctrl-C stops the analysis and prints the rolls analysed so far (the last ones), marked
    interrupted, with exit code 130.

    Example: nochmal solo --seed 7 --save g.json && nochmal analyse g.json --time-limit 5

    Example: nochmal play --seat greedy --seat heuristic --seed 3 --save t.json && nochmal analyse t.json --seat 2
    """
    from nochmal.solver.analyse import analyse as run_analysis  # OR-Tools: loaded only to plan

    _check_solver_options(time_limit, workers)
    rec = GameRecord.load(record)
    if rec.mode is Mode.COMPETITIVE:  # per seat: nochmal/cli/race_cmds.py
        from nochmal.cli.race_cmds import analyse_competitive

        analyse_competitive(rec, record, seat, time_limit, workers, top, as_json, best_only, ProgressLine)
        return
    if seat is not None or best_only:
        raise typer.BadParameter("--seat and --best-only need a competitive record")
    if rec.needs_mission:
        _analyse_coop(rec, str(record), time_limit, workers, top, as_json)
        return
    total = len(rec.rolls)
    with ProgressLine(f"analysing roll {total} of {total}", "Ctrl-C stops and shows the rolls analysed") as reporter:
        def on_solve(roll: int, plan: Plan) -> None:
            # the next solve is another position: its best and bound start afresh
            reporter.reset(f"{_next_roll(roll, total)} (roll {roll}: best {plan.total}, {plan.status})")

        result = run_analysis(rec, time_limit=time_limit, workers=workers, source=str(record),
                              on_solve=on_solve, progress=reporter)
    if as_json:
        emit_json(result.to_json())
    else:
        print_analysis(result, str(record), top)
    if result.interrupted:
        err_console.print("interrupted", markup=False)
        raise typer.Exit(130)


def _next_roll(done: int, total: int) -> str:
    """The progress line after roll ``done`` is solved: the analysis runs from the last roll
    back to roll 1, so roll 1 done means every roll is (not "analysing roll 0")."""
    return f"analysing roll {done - 1} of {total}" if done > 1 else f"all {total} rolls analysed"


def print_analysis(result, source: str, top: int = 0) -> None:
    """The table of points lost (``result``: a nochmal.solver.analyse.Analysis) and its summary."""
    rows = result.worst(top or None)
    title = f"points lost per roll ({source})"
    if result.interrupted:
        title += f": interrupted, rolls {result.first_roll}-{result.rolls} of {result.rolls} analysed"
    table = Table(title=title)
    for col in ("roll", "dice", "played", "best", "lost", "proven"):
        table.add_column(col)
    for r in rows:
        lost = str(r.loss) if r.proven else f"{r.loss} (in {r.loss_low}..{r.loss_high})"
        table.add_row(str(r.roll), r.dice, r.actual, r.best, lost, "yes" if r.proven else "bound")
    console.print(table)
    if result.plan is None:
        console.print(f"actual score {result.actual_score}; interrupted before any roll was analysed")
        return
    opt = (f"{result.optimum} (proven)" if result.optimum_proven
           else f"at least {result.optimum}, at most {result.optimum_bound} (not proven)")
    where = "with these dice" if result.first_roll == 1 else f"from roll {result.first_roll} on"
    console.print(f"actual score {result.actual_score}; best possible {where} {opt}", soft_wrap=True)
    if result.interrupted:
        console.print("interrupted (Ctrl-C): not every roll was analysed" if result.first_roll > 1
                      else "interrupted (Ctrl-C): the last solve was cut short", soft_wrap=True)


def _analyse_coop(rec: GameRecord, source: str, time_limit: float, workers: int, top: int, as_json: bool) -> None:
    """``nochmal analyse`` of a co-op mission record (nochmal.solver.analyse.analyse_coop)."""
    from nochmal.solver.analyse import analyse_coop

    total = len(rec.rolls)
    hint = "(Ctrl-C stops and shows the rolls analysed)"
    with err_console.status(f"analysing roll {total} of {total} {hint}") as status:
        def on_solve(roll: int, plan) -> None:
            line = f"{_next_roll(roll, total)} (roll {roll}: {plan.status})"
            status.update(f"{line} {hint}")
            if not err_console.is_terminal:  # a log or a pipe: the status line is not drawn
                err_console.print(line, markup=False, soft_wrap=True)

        result = analyse_coop(rec, time_limit=time_limit, workers=workers, source=source, on_solve=on_solve)
    if as_json:
        emit_json(result.to_json())
    else:
        print_coop_analysis(result, source, top)
    if result.interrupted:
        err_console.print("interrupted", markup=False)
        raise typer.Exit(130)


def print_coop_analysis(result, source: str, top: int = 0) -> None:
    """The table of a co-op analysis (``result``: a nochmal.solver.analyse.CoopAnalysis)."""
    never = result.budget + 1

    def fewest(hi: int, lo: int) -> str:
        if hi == lo:
            return "no win" if hi == never else str(hi)
        found = "none found" if hi == never else str(hi)
        return f"{found} (at least {lo})"

    rows = sorted(result.rolls, key=lambda r: (-r.lost, r.roll))[:top] if top else result.rolls
    title = f"rolls lost per roll ({source}: {result.mission}, {result.difficulty}, {result.players} player(s))"
    if result.interrupted:
        title += f": interrupted, rolls {result.first_roll}-{len(result.rolls) + result.first_roll - 1} analysed"
    console.print(title, soft_wrap=True)
    table = Table()
    for col in ("roll", "dice", "active", "played", "best", "fewest from here", "lost"):
        table.add_column(col)
    for r in rows:
        lost = str(r.lost) if r.proven else f"{r.lost} (in {r.lost_low}..{r.lost_high})"
        table.add_row(str(r.roll), r.dice, str(r.active), " / ".join(r.played), " / ".join(r.best) or "-",
                      fewest(r.fewest, r.fewest_low), lost)
    console.print(table)
    actual = f"won on roll {result.won_on}" if result.won_on else f"lost (budget {result.budget})"
    where = "with these dice" if result.first_roll == 1 else f"from roll {result.first_roll} on"
    console.print(f"actual: {actual}; fewest possible {where}: {fewest(result.fewest, result.fewest_low)}"
                  + (" (proven)" if result.proven else ""), soft_wrap=True)


def _solve_mission(mission_ref: str, players: int, seed: int, difficulty: str, time_limit: float, workers: int,
                   as_json: bool, save: Path | None = None) -> None:
    """``nochmal solve --mission``: team planning (nochmal.solver.team)."""
    from nochmal.missions.loader import load_mission
    from nochmal.solver.interrupt import SigintStop
    from nochmal.solver.team import plan_team, team_record

    mission = load_mission(mission_ref)
    hint = "(Ctrl-C returns the best plan so far)"
    label = f"team planning {mission.id} for {players} player(s)"
    # one Ctrl-C watch over the whole run (see solve)
    with SigintStop(), err_console.status(f"{label}… {hint}") as status:
        if not err_console.is_terminal:  # the status line is not drawn: one plain first line
            err_console.print(label, markup=False, soft_wrap=True)

        def on_solve(rolls: int, result: str) -> None:
            status.update(f"team planning {mission.id}: {rolls} roll(s) {result} {hint}")

        plan = plan_team(mission, players, seed=seed, difficulty=difficulty, time_limit=time_limit,
                         workers=workers, progress=on_solve)
    saved = None
    if save is not None and plan.moves:
        team_record(mission, plan).save(save)
        saved = str(save)
    if as_json:
        emit_json({**plan.to_json(), **({"saved": saved} if save is not None else {})})
    else:
        _print_team_plan(plan, mission.id, seed, difficulty)
        if saved:
            console.print(f"plan written to {saved} as a game record", soft_wrap=True)
    if save is not None and saved is None:
        raise NoPlanError(f"{save}: no winning plan was found, nothing written")


def _print_team_plan(plan, mission_id: str, seed: int, difficulty: str) -> None:
    """The team plan as a table (``plan``: a nochmal.solver.team.TeamPlan) and its headline."""
    from nochmal.solver.team import describe_status

    players = plan.players
    if plan.moves:
        # the heading on its own line: a table title would wrap to the table's width
        console.print(f"team plan: {mission_id}, {players} player(s), seed {seed}, {difficulty}", soft_wrap=True)
        table = Table()
        table.add_column("roll", justify="right")
        table.add_column("dice")
        table.add_column("active", justify="right")
        for p in range(players):
            table.add_column(f"seat {p + 1}")
        for t, row in enumerate(plan.moves):
            table.add_row(str(t + 1), plan.rolls[t].text(), str(t % players + 1), *(str(m) for m in row))
        console.print(table)
    console.print(describe_status(plan), soft_wrap=True)  # one headline, one line; "fewest" only when proven
