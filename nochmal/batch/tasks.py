"""The task functions the workers run: ``fn(settings, threads) -> result``, plain data in
and out (JSON-ready dicts), so a task pickles small and its row stores as it is.

``settings`` is the campaign's shared settings plus the task's own (its seed); ``threads``
is the number of CP-SAT threads the task may use (the runner sets it so that tasks running
at once times threads matches the cores).
"""

from __future__ import annotations

from typing import Callable


def solve_task(settings: dict, threads: int) -> dict:
    """The planner on one seed's first ``rolls_count`` solo rolls: best, bound, proven, the plan.

    With ``settings["prior"]`` (a stored result, ``batch solve --retry-unproven``) the solve is
    hinted with the prior plan and the result keeps the better plan and the lower bound of
    the two runs (both proven facts: a validated plan, a proven bound), so a retry never
    loses a proof or a point; ``runs`` counts the solves behind the row."""
    from dataclasses import replace

    from nochmal.errors import NochmalError
    from nochmal.rules import RuleSettings
    from nochmal.solver.cpsat import solve
    from nochmal.solver.instance import Instance
    from nochmal.solver.plan import FEASIBLE, OPTIMAL, UNKNOWN, Plan, PlanError
    from nochmal.solver.validate import validate

    count = settings["rolls_count"]
    instance = Instance.from_seed(settings["seed"], settings["board"], RuleSettings(solo_rolls=count), count)
    prior = settings.get("prior")
    hint = before = None
    if prior is not None:
        where = f"seed={settings['seed']}: the stored plan"
        try:
            before = validate(instance, Plan.from_json(prior["plan"], where))
        except NochmalError as exc:  # a store edited by hand, or another seed's row: refused, never merged
            raise PlanError(f"{where}: {exc}") from None
        hint = [None if step.is_pass else instance.board.mask_of(step.cells) for step in before.steps]
    plan = solve(instance, time_limit=settings["time_limit"], workers=threads, hint=hint)
    runs = 1
    if before is not None:
        bounds = [b for b in (prior.get("bound"), plan.bound) if b is not None]
        bound = min(bounds) if bounds else None
        best = plan if plan.total >= before.total else before
        status = OPTIMAL if bound == best.total else FEASIBLE if bound is not None else UNKNOWN
        plan = validate(instance, replace(best, bound=bound, status=status, wall_time=plan.wall_time))
        runs = prior.get("runs", 1) + 1
    return {"best": plan.total, "bound": plan.bound, "proven": plan.proven, "status": plan.status,
            "solve_seconds": plan.wall_time, "plan": plan.to_json(), "runs": runs}


def bots_task(settings: dict, threads: int) -> dict:  # noqa: ARG001 (the bots use no CP-SAT)
    """The paired bot benchmark on one seed (nochmal/bots/harness.py's run_bench on the
    range seed..seed): per bot the seed's score (and win share at a table) and the decision
    tally that the report adds up over seeds."""
    from nochmal.board import load_board, parse_board_text
    from nochmal.bots.harness import BenchMode, run_bench

    seed = settings["seed"]
    game = settings.get("game", "nochmal")  # stores written before Clever 4ever have no game
    board = (parse_board_text(settings["board_toml"], settings["board"]) if "board_toml" in settings
             else None if game == "clever" else load_board(settings["board"]))
    bench = run_bench(board, settings["bots"], BenchMode(settings["mode"]), (seed, seed),
                      settings["players"], game=game)
    per_bot = {}
    for fig in bench.bots:
        per_bot[fig.bot] = {
            "score": bench.per_seed["score"][fig.bot][0],
            "win": bench.per_seed["win"][fig.bot][0] if "win" in bench.per_seed else None,
            "games": fig.games, "decisions": fig.decisions,
            "seconds": fig.seconds_per_decision * fig.decisions if fig.decisions else 0.0,
            "cpu_seconds": fig.cpu_seconds_per_decision * fig.decisions if fig.decisions else 0.0,
        }
    return {"bots": per_bot}


def calibrate_task(settings: dict, threads: int) -> dict:
    """One co-op game of the mission calibration (nochmal/batch/calibrate.py)."""
    from nochmal.batch.calibrate import game_task

    return game_task(settings, threads)


TASK_FUNCTIONS: dict[str, Callable[[dict, int], dict]] = {"solve": solve_task, "bots": bots_task,
                                                          "calibrate": calibrate_task}
