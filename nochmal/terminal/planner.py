"""The planner's verdict on a seeded solo game, for the end of a puzzle.

The planner (``nochmal.solver``, OR-Tools CP-SAT) is imported only when asked: loading
OR-Tools takes longer than the rest of the command line together.
"""

from __future__ import annotations

from nochmal.board import Board
from nochmal.errors import NochmalError
from nochmal.puzzles import known_optimum
from nochmal.rules import RuleSettings


def planner_best(board: Board, seed: int, rules: RuleSettings, seconds: float) -> dict | None:
    """What the planner finds for a seeded solo game within ``seconds``: its best score, the
    proven upper bound, whether the score is proven optimal, whether Ctrl-C stopped it
    (``interrupted``), how long it ran (``elapsed``, seconds) and where the figure comes from
    (``source``: "table" for the shipped puzzle optima, nochmal/puzzles.py, else "planner").
    A seed the table proves is answered at once; an unproven entry still narrows what the
    planner finds. None when ``seconds`` is 0 or the planner cannot handle this game."""
    if seconds <= 0:
        return None
    known = known_optimum(board, seed, rules)
    if known is not None and known.proven:
        return {"score": known.best, "bound": known.bound, "proven": True, "seconds": 0, "interrupted": False,
                "elapsed": 0, "source": "table"}
    from nochmal.solver.interrupt import SigintStop

    # one Ctrl-C watch from the import on: an early press gives the greedy hint, interrupted
    with SigintStop():
        from nochmal.solver.cpsat import solve
        from nochmal.solver.instance import Instance

        try:
            plan = solve(Instance.from_seed(seed, board, rules), time_limit=seconds)
        except NochmalError:
            return None
    score, bound = plan.total, plan.bound
    if known is not None:
        score = max(score, known.best)
        bound = known.bound if bound is None else min(bound, known.bound)
    return {"score": score, "bound": bound, "proven": bool(plan.proven) or score == bound, "seconds": seconds,
            "interrupted": plan.interrupted, "elapsed": round(plan.wall_time, 1), "source": "planner"}
