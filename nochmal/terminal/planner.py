"""The planner's verdict on a seeded solo game, for the end of a puzzle.

The planner (``nochmal.solver``, OR-Tools CP-SAT) is imported only when asked: loading
OR-Tools takes longer than the rest of the command line together.
"""

from __future__ import annotations

from nochmal.board import Board
from nochmal.errors import NochmalError
from nochmal.rules import RuleSettings


def planner_best(board: Board, seed: int, rules: RuleSettings, seconds: float) -> dict | None:
    """What the planner finds for a seeded solo game within ``seconds``: its best score, the
    proven upper bound, whether the score is proven optimal, whether Ctrl-C stopped it
    (``interrupted``) and how long it ran (``elapsed``, seconds). None when ``seconds`` is 0
    or the planner cannot handle this game."""
    if seconds <= 0:
        return None
    from nochmal.solver.cpsat import solve
    from nochmal.solver.instance import Instance

    try:
        plan = solve(Instance.from_seed(seed, board, rules), time_limit=seconds)
    except NochmalError:
        return None
    return {"score": plan.total, "bound": plan.bound, "proven": bool(plan.proven), "seconds": seconds,
            "interrupted": plan.interrupted, "elapsed": round(plan.wall_time, 1)}
