"""Post-game analysis of a solo record: which rolls cost the most points.

With the whole dice sequence known, let V(t) be the best final score reachable from the
sheet the player actually had before roll t (V after the last roll = the actual score).
The points lost on roll t are V(t) - V(t+1): the best reachable after the best move minus
the best reachable after the move actually made. They add up to optimum - actual score.

The solves run backwards (short ones first); each is hinted with the actual move followed
by the next solve's best plan, so V(t) >= V(t+1) holds for the plans found even when a
time limit stops a solve before proving it. Unproven values carry their bound, and a loss
is then an interval.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Callable

from nochmal.errors import NochmalError
from nochmal.game import Mode
from nochmal.record import GameRecord

from nochmal.solver.cpsat import DEFAULT_FEATURES, Progress, solve
from nochmal.solver.instance import Instance, InstanceError
from nochmal.solver.plan import OPTIMAL, Plan


@dataclass
class RollLoss:
    roll: int  # 1-based roll number in the game
    dice: str
    actual: str  # the move made
    best: str  # the first move of the best plan from the position before this roll
    loss: int  # V(t) - V(t+1) from the plans found
    loss_low: int  # proven interval for the true loss
    loss_high: int
    proven: bool  # both values proven optimal: loss is exact


@dataclass
class Analysis:
    actual_score: int
    optimum: int  # best plan found for the whole game
    optimum_bound: int | None
    optimum_proven: bool
    losses: list[RollLoss]  # in roll order
    plan: Plan  # the best plan for the whole game (validated)
    wall_time: float = 0.0
    solves: list[dict] = field(default_factory=list)

    def worst(self, n: int | None = None) -> list[RollLoss]:
        """Rolls sorted by points lost, worst first (ties in roll order)."""
        ranked = sorted(self.losses, key=lambda r: (-r.loss, r.roll))
        return ranked if n is None else ranked[:n]

    def to_json(self) -> dict:
        return {
            "actual_score": self.actual_score,
            "optimum": self.optimum,
            "optimum_bound": self.optimum_bound,
            "optimum_proven": self.optimum_proven,
            "losses": [asdict(r) for r in self.losses],
            "worst": [r.roll for r in self.worst()],
            "plan": self.plan.to_json(),
            "wall_time": round(self.wall_time, 3),
        }


def analyse(record: GameRecord, time_limit: float = 10.0, workers: int = 2, source: str = "record",
            features: frozenset = DEFAULT_FEATURES,
            on_solve: Callable[[int, Plan], None] | None = None,
            progress: Callable[[Progress], None] | None = None) -> Analysis:
    """Analyse a finished solo record; ``time_limit`` is per solve (one per roll)."""
    if record.mode != Mode.SOLO:
        raise InstanceError(f"{source}: analysis needs a solo record, this one is {str(record.mode)!r}")
    game = record.verify(source)
    if not game.is_terminal():
        raise InstanceError(f"{source}: the game is not finished")
    states = [game.sheets[0].__class__.empty(record.board)]
    moves = []
    for turn, g in record.replay(source):
        states.append(g.sheets[0])
        moves.append(record.rolls[turn - 1][1][0][1])
    rolls = [r for r, _ in record.rolls]
    T = len(rolls)
    actual = states[-1].score()
    value: list[int] = [0] * (T + 1)
    bound: list[int] = [0] * (T + 1)
    proven: list[bool] = [True] * (T + 1)
    plans: list[Plan | None] = [None] * (T + 1)
    value[T] = bound[T] = actual
    t0 = time.monotonic()
    solves = []
    board = record.board
    for t in range(T - 1, -1, -1):
        inst = Instance(board, rolls[t:], record.rules, states[t] if t else None, True, t + 1, source, record.seed)
        first = None if moves[t].is_pass else board.mask_of(moves[t].cells)
        rest = [None] * (T - t - 1)
        if plans[t + 1] is not None:
            rest = [None if s.is_pass else board.mask_of(s.cells) for s in plans[t + 1].steps]
        plan = solve(inst, time_limit=time_limit, workers=workers, progress=progress,
                     features=features, hint=[first] + rest)
        if plan.total < value[t + 1]:
            raise NochmalError(f"roll {t + 1}: the solver's plan ({plan.total}) is worse than the actual "
                               f"move's continuation ({value[t + 1]}) it was hinted with")
        plans[t] = plan
        value[t] = plan.total
        bound[t] = plan.bound if plan.bound is not None else 10 ** 6
        proven[t] = plan.status == OPTIMAL
        solves.append({"roll": t + 1, "best": plan.total, "bound": plan.bound, "status": plan.status,
                       "time": plan.wall_time})
        if on_solve:
            on_solve(t + 1, plan)
    losses = []
    for t in range(T):
        best_move = plans[t].steps[0].move()
        losses.append(RollLoss(
            t + 1, rolls[t].text(), str(moves[t]), str(best_move), value[t] - value[t + 1],
            max(0, value[t] - bound[t + 1]), bound[t] - value[t + 1], proven[t] and proven[t + 1]))
    return Analysis(actual, value[0], plans[0].bound, proven[0], losses, plans[0],
                    time.monotonic() - t0, solves[::-1])
