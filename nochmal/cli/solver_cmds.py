"""Planner commands: solve (the clairvoyant best plan for known dice) and analyse (which
rolls of a played solo game cost the most points)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from nochmal.cli.common import board_arg, console, emit_json, err_console, guarded, read_sheet_file
from nochmal.modes import Mode
from nochmal.record import GameRecord
from nochmal.rules import RuleSettings
from nochmal.solver.instance import Instance
from nochmal.solver.plan import OPTIMAL, Plan


def register(app: typer.Typer) -> None:
    app.command("solve")(solve)
    app.command("analyse")(analyse)


class _Reporter:
    """Best score and bound as they improve, on stderr (rich status line)."""

    def __init__(self, label: str):
        self.label = label
        self.best: int | None = None
        self.bound: int | None = None
        self.status = err_console.status(f"{label}: searching…")

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
                           "(Ctrl-C returns the best plan so far)")


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
        table.add_row(str(plan.first_roll + step.roll + 1), step.dice, step.choice_text(),
                      " ".join(step.cells), f"{step.points:+d}" if step.points else "")
    return table


@guarded
def solve(
    seed: Optional[int] = typer.Option(None, "--seed", "-s", help="Plan the seeded solo rolls of this seed."),
    record: Optional[Path] = typer.Option(None, "--record", help="Plan the rolls of a solo game record."),
    rolls: Optional[Path] = typer.Option(None, "--rolls", help='JSON list of rolls [{"colours": ["y","x"], "numbers": ["3","?"]}, ...].'),
    board: str = typer.Option("classic", "--board", "-b", help="Built-in board name or a board file (seed/rolls)."),
    rolls_count: Optional[int] = typer.Option(None, "--rolls-count", "-k", min=1, help="Use only the first K rolls (with --seed at most the game length, 30)."),
    after_turn: int = typer.Option(0, "--after-turn", min=0, help="With --record: plan from the sheet reached after this turn."),
    sheet: Optional[Path] = typer.Option(None, "--sheet", help="With --rolls: start from this typed sheet (mid-game)."),
    time_limit: float = typer.Option(60.0, "--time-limit", "-t", min=0.1, help="Seconds before the best plan so far is returned."),
    workers: int = typer.Option(2, "--workers", min=1, help="CP-SAT worker threads."),
    as_json: bool = typer.Option(False, "--json", help="Print the plan as JSON."),
    mission: Optional[str] = typer.Option(None, "--mission", "-m", help="Team planning: a co-op mission id or file (needs --players and --seed)."),
    players: Optional[int] = typer.Option(None, "--players", "-n", min=1, max=4, help="With --mission: the number of players (1-4)."),
    difficulty: str = typer.Option("normal", "--difficulty", "-d", help="With --mission: easy, normal or hard (sets the roll budget)."),
):
    """Find the best plan for known dice (CP-SAT) and say whether it is proven optimal.

    With --mission: the fewest rolls in which the team wins the co-op mission on the seeded
    dice with perfect coordination, or "budget not enough (proven)".

    Example: nochmal solve --seed 7 --rolls-count 12 --time-limit 30

    Example: nochmal solve --mission lockstep --players 2 --seed 1 --difficulty hard
    """
    if mission is not None:
        if seed is None or players is None:
            raise typer.BadParameter("--mission needs --players and --seed")
        if record is not None or rolls is not None or sheet is not None or rolls_count is not None or after_turn:
            raise typer.BadParameter("--mission takes only --players, --seed, --difficulty, --time-limit, --workers, --json")
        _solve_mission(mission, players, seed, difficulty, time_limit, workers, as_json)
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
        from nochmal.stepper import game_factory

        rec.verify(str(record), game_factory(rec))
        inst = Instance.from_record(rec, after_turn, str(record), rolls_count)
    else:
        inst = Instance.from_rolls_file(rolls, board_arg(board), count=rolls_count)
        if sheet is not None:
            inst.start = read_sheet_file(sheet, inst.board)
    from nochmal.solver.cpsat import solve as run_solve  # OR-Tools: loaded only to plan

    with _Reporter(f"solving {len(inst.rolls)} roll(s)") as reporter:
        plan = run_solve(inst, time_limit=time_limit, workers=workers, progress=reporter)
    if as_json:
        data = plan.to_json()
        data["instance"] = inst.to_json()
        emit_json(data)
        return
    console.print(plan_table(plan))
    bd = plan.breakdown
    console.print(f"score {plan.total} (columns {bd['columns']}, colours {bd['colours']}, "
                  f"jokers {bd['jokers']}, stars {bd['stars']})")
    console.print(status_text(plan))


@guarded
def analyse(
    record: Path = typer.Argument(..., help="A finished solo or competitive game record (JSON)."),
    time_limit: float = typer.Option(10.0, "--time-limit", "-t", min=0.1, help="Seconds per solve (one solve per roll)."),
    workers: int = typer.Option(2, "--workers", min=1, help="CP-SAT worker threads."),
    top: int = typer.Option(0, "--top", min=0, help="Show only the N costliest rolls (0 = all)."),
    as_json: bool = typer.Option(False, "--json", help="Print the analysis as JSON."),
    seat: Optional[int] = typer.Option(None, "--seat", min=1, help="Competitive record: analyse this seat (1 = the first to roll); default every seat."),
    best_only: bool = typer.Option(False, "--best-only", help="Competitive record: only each seat's best score, no per-roll losses."),
):
    """Per roll, the points the move actually made lost against the best play with the same dice.

    A competitive record is analysed per seat, with the other players' moves as they were.

    Example: nochmal solo --seed 7 --save g.json && nochmal analyse g.json --time-limit 5

    Example: nochmal play --seat greedy --seat heuristic --seed 3 --save t.json && nochmal analyse t.json --seat 2
    """
    from nochmal.solver.analyse import analyse as run_analysis  # OR-Tools: loaded only to plan

    rec = GameRecord.load(record)
    if rec.mode is Mode.COMPETITIVE:  # per seat: nochmal/cli/race_cmds.py
        from nochmal.cli.race_cmds import analyse_competitive

        analyse_competitive(rec, record, seat, time_limit, workers, top, as_json, best_only, _Reporter)
        return
    if seat is not None or best_only:
        raise typer.BadParameter("--seat and --best-only need a competitive record")
    with _Reporter("analysing") as reporter:
        def on_solve(roll: int, plan: Plan) -> None:
            reporter.label = f"analysing (roll {roll} done: best {plan.total}, {plan.status})"

        result = run_analysis(rec, time_limit=time_limit, workers=workers, source=str(record),
                              on_solve=on_solve, progress=reporter)
    if as_json:
        emit_json(result.to_json())
        return
    rows = result.worst(top or None)
    table = Table(title=f"points lost per roll ({record})")
    for col in ("roll", "dice", "played", "best", "lost", "proven"):
        table.add_column(col)
    for r in rows:
        lost = str(r.loss) if r.proven else f"{r.loss} (in {r.loss_low}..{r.loss_high})"
        table.add_row(str(r.roll), r.dice, r.actual, r.best, lost, "yes" if r.proven else "bound")
    console.print(table)
    opt = (f"{result.optimum} (proven)" if result.optimum_proven
           else f"at least {result.optimum}, at most {result.optimum_bound} (not proven)")
    console.print(f"actual score {result.actual_score}; best possible with these dice {opt}")


def _solve_mission(mission_ref: str, players: int, seed: int, difficulty: str, time_limit: float, workers: int,
                   as_json: bool) -> None:
    """``nochmal solve --mission``: team planning (nochmal.solver.team)."""
    from nochmal.missions.loader import load_mission
    from nochmal.solver.team import describe_status, plan_team

    mission = load_mission(mission_ref)
    hint = "(Ctrl-C returns the best plan so far)"
    with err_console.status(f"team planning {mission.id} for {players} player(s)… {hint}") as status:
        def on_solve(rolls: int, result: str) -> None:
            status.update(f"team planning {mission.id}: {rolls} roll(s) {result} {hint}")

        plan = plan_team(mission, players, seed=seed, difficulty=difficulty, time_limit=time_limit,
                         workers=workers, progress=on_solve)
    if as_json:
        emit_json(plan.to_json())
        return
    if plan.moves:
        # the heading on its own line: a table title would wrap to the table's width
        console.print(f"team plan: {mission.id}, {players} player(s), seed {seed}, {difficulty}", soft_wrap=True)
        table = Table()
        table.add_column("roll", justify="right")
        table.add_column("dice")
        table.add_column("active", justify="right")
        for p in range(players):
            table.add_column(f"player {p + 1}")
        for t, row in enumerate(plan.moves):
            table.add_row(str(t + 1), plan.rolls[t].text(), str(t % players + 1), *(str(m) for m in row))
        console.print(table)
    console.print(describe_status(plan))  # one headline; "fewest" only when proven
