"""solver.analyse.settle and roll_losses: the one rule set of the solo and the per-seat
analyses (solver/analyse.py's docstring), on figures made by hand. The plans are plain data
and the "engine" that scores a restated plan is a table, so every figure below is worked
out from the rules alone: a bound for roll t bounds roll t+1, a best plan that starts with
the recorded move lifts the next roll's plan to its worth, a plan whose bound came down to
it is proven, and a plan above a bound is an error."""

from __future__ import annotations

import pytest

from nochmal.move import Move
from nochmal.solver.analyse import roll_losses, settle
from nochmal.solver.cpsat import SolverError
from nochmal.solver.plan import FEASIBLE, OPTIMAL, Plan, Step

A = Move.of("yellow", 1, ["H1"])
B = Move.of("green", 1, ["H2"])
C = Move.of("blue", 1, ["H3"])
X, Y, Z = Move.of("red", 1, ["H4"]), Move.of("orange", 1, ["H5"]), Move.of("yellow", 1, ["G1"])


def step(roll: int, move: Move) -> Step:
    if move.is_pass:
        return Step(roll, "yx/3?")
    return Step(roll, "yx/3?", "y", "1", move.colour, move.count, 0, list(move.cells))


def plan(first_roll: int, moves: list[Move], total: int, bound: int) -> Plan:
    status = OPTIMAL if total == bound else FEASIBLE
    return Plan([step(first_roll + i, m) for i, m in enumerate(moves)], total, {}, status, bound,
                first_roll=first_roll)


D = Move.of("green", 1, ["G2"])
ENGINE = {(X,): 7, (D, Y, Z): 9}  # the plans a settle restates here: a lifted tail, a proven plan


def restate(t: int, steps: list[Step], bound: int, like: Plan) -> Plan:
    """Score by the table; the status from the bound (as the real ones do)."""
    total = ENGINE[tuple(s.move() for s in steps)]
    return Plan(steps, total, {}, OPTIMAL if total == bound else FEASIBLE, bound, like.wall_time,
                first_roll=t + 1)


def test_bounds_flow_forward_plans_lift_and_losses_follow():
    recorded = [A, B, C]
    plans = [plan(1, [D, Y, Z], 9, 10), plan(2, [B, X], 7, 8), plan(3, [C], 5, 9), None]
    value = [9, 7, 5, 5]  # value[3]: the actual score
    bound = [9, 8, 9, 5]  # roll 1's own solve proved 9 (its plan says 10: the settle proves it)
    settle(recorded, plans, value, bound, 0, restate)
    assert bound == [9, 8, 8, 5]  # roll 2's bound 8 bounds roll 3 (its own solve said 9)
    assert value == [9, 7, 7, 5]  # roll 2's plan starts with the recorded B: roll 3 gets [X] worth 7
    assert [s.move() for s in plans[2].steps] == [X] and plans[2].first_roll == 3
    assert plans[0].status == OPTIMAL and plans[0].bound == 9  # proven by its bound
    assert plans[1].status == FEASIBLE and plans[2].status == FEASIBLE
    losses = roll_losses(["d1", "d2", "d3"], recorded, plans, value, bound, 0)
    got = [(r.roll, r.actual == str(r.best), r.loss, r.loss_low, r.loss_high, r.proven) for r in losses]
    assert got == [(1, False, 2, 1, 2, False),  # 9 - 7; at least 9 - 8; at most 9 - 7
                   (2, True, 0, 0, 1, False),  # the best move was played: 0, at most 8 - 7
                   (3, False, 2, 2, 3, False)]  # 7 - 5; at least 7 - 5; at most 8 - 5
    assert sum(r.loss for r in losses) == value[0] - value[3]


def test_a_lifted_plan_above_the_next_bound_is_an_error():
    recorded = [A, B, C]
    plans = [plan(1, [D, Y, Z], 9, 9), plan(2, [B, X], 7, 7), plan(3, [C], 5, 6), None]
    value, bound = [9, 7, 5, 5], [9, 7, 6, 5]  # roll 2's plan lifts roll 3 to 7, but roll 3 is at most 6
    with pytest.raises(SolverError, match="roll 3: a plan worth 7 beats the proven bound 6"):
        settle(recorded, plans, value, bound, 0, restate)


def test_only_the_rolls_from_first_are_settled():
    recorded = [A, B, C]
    plans = [None, plan(2, [B, X], 7, 8), plan(3, [C], 5, 9), None]
    value, bound = [0, 7, 5, 5], [60, 8, 9, 5]
    settle(recorded, plans, value, bound, 1, restate)
    assert bound == [60, 8, 8, 5] and value == [0, 7, 7, 5] and plans[0] is None
    assert [r.roll for r in roll_losses(["d1", "d2", "d3"], recorded, plans, value, bound, 1)] == [2, 3]
