"""The dedicated bound (nochmal.solver.experiments: lp_relaxation, split_bound, feature
"split_bound") against the exhaustive oracle of tests/planner/test_planner_core.py: the LP of the
model scores a fixed plan exactly, and the split never bounds below the true optimum."""

from __future__ import annotations

import dataclasses
import random

import pytest

from nochmal.solver import experiments
from nochmal.solver.cpsat import DEFAULT_FEATURES, build_model
from nochmal.solver.experiments import lp_relaxation, solve, split_bound
from nochmal.solver.instance import Instance
from nochmal.solver.plan import FEASIBLE, OPTIMAL

from planner_support import SMALL, exhaustive_best, random_rolls

# the proofs asserted here come from CP-SAT's deterministic limits (tests/conftest.py cpsat_by_work)
pytestmark = pytest.mark.usefixtures("cpsat_by_work")


def small_instance(seed: int, rolls: int = 6) -> Instance:
    return Instance(SMALL, random_rolls(random.Random(seed), rolls))


@pytest.mark.parametrize("seed", [1, 3, 21, 27])
def test_lp_relaxation_of_a_fixed_plan_is_its_score(seed):
    """With every choice fixed to a plan's, the LP value is the plan's engine score: the
    conversion neither drops a constraint (higher) nor adds one (infeasible or lower)."""
    inst = small_instance(seed)
    plan = solve(inst, time_limit=20)
    pm = build_model(inst)
    lp, v, value = lp_relaxation(pm.model)
    for t, step in enumerate(plan.steps):
        mask = None if step.is_pass else inst.board.mask_of(step.cells)
        for k, c in enumerate(pm.candidates[t]):
            v[pm.x[t][k].Index()].SetBounds(*(1, 1) if c.mask == mask else (0, 0))
    assert lp.Solve() == lp.OPTIMAL
    assert abs(value() - plan.total) < 1e-6


@pytest.mark.parametrize("seed", range(12))
def test_split_bound_never_below_the_optimum(seed):
    inst = small_instance(seed, 5 + seed % 2)
    best = exhaustive_best(inst)
    pm = build_model(inst)
    for target in (best - 1, best - 4):
        bound, stats = split_bound(pm, target, 20)
        assert best <= bound <= max(stats["root"], target)


def test_split_bound_on_classic_few_rolls_never_below_the_optimum():
    for seed in (2, 8):
        inst = Instance.from_seed(seed, count=4)
        best = exhaustive_best(inst)
        assert split_bound(build_model(inst), best - 1, 20)[0] >= best


def test_split_bound_closes_a_gap_the_lp_leaves():
    """Seed 3: the root LP allows 8, the optimum is 5; splitting on the completions proves 5."""
    inst = small_instance(3)
    best = exhaustive_best(inst)
    bound, stats = split_bound(build_model(inst), best, 20)
    assert stats["root"] > best and bound == best and stats["open"] == 0


def test_solve_uses_the_split_when_cp_sat_proves_nothing(monkeypatch):
    """A CP-SAT run that ends without a bound (as when cut short): with "split_bound" the
    plan gets the split's bound, proven optimal when it meets the plan."""
    real = experiments.run_model

    def no_proof(*args, **kwargs):
        return dataclasses.replace(real(*args, **kwargs), bound=None, optimal=False)

    monkeypatch.setattr(experiments, "run_model", no_proof)
    inst = small_instance(3)
    best = exhaustive_best(inst)
    assert solve(inst, time_limit=20).status != OPTIMAL  # the patch takes the proof away
    plan = solve(inst, time_limit=20, features=DEFAULT_FEATURES | {"split_bound"})
    assert plan.total == best and plan.bound == best and plan.status == OPTIMAL
    assert "split bound" in plan.note
    inst = small_instance(21)  # the split leaves a node open here: a bound above the plan
    best = exhaustive_best(inst)
    plan = solve(inst, time_limit=20, features=DEFAULT_FEATURES | {"split_bound"})
    assert plan.total == best and plan.bound > best and plan.status == FEASIBLE


def test_split_bound_out_of_time_keeps_the_open_nodes():
    """No time to split: the bound is the root LP's (rounded down), still above the optimum."""
    inst = small_instance(3)
    best = exhaustive_best(inst)
    bound, stats = split_bound(build_model(inst), best, 0)
    assert bound == stats["root"] > best and stats["open"] == 1
