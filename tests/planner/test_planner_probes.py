"""Bound probes (nochmal.solver.experiments, feature "bound_probes": colour_case_search at targets
between the first run's plan and bound) against the exhaustive oracle of
tests/planner/test_planner_core.py: a proven plan is the brute-force optimum, the bound is never below
it, and every plan validates (a SIGINT during a probe: tests/planner/test_planner_cases.py, with the
colour cases' own)."""

from __future__ import annotations

import pytest

from nochmal.agents import GreedyAgent
from nochmal.solver import cpsat, experiments
from nochmal.solver.cpsat import DEFAULT_FEATURES
from nochmal.solver.experiments import solve
from nochmal.solver.plan import OPTIMAL
from nochmal.solver.validate import validate

from planner_support import exhaustive_best, small_instance

# the proofs asserted here come from CP-SAT's deterministic limits (tests/conftest.py cpsat_by_work)
pytestmark = pytest.mark.usefixtures("cpsat_by_work")

PROBES = DEFAULT_FEATURES | {"bound_probes"}


def _first_run(monkeypatch, bound_above: int | None):
    """Patch the plain CP-SAT run (the one without ``configure``) to find no plan (so the
    greedy hint is the plan) and to report the bound optimum + ``bound_above`` (a true but
    loose bound; None: no bound)."""
    real = experiments.run_model
    best = {}

    def patched(pm, *args, **kwargs):
        if kwargs.get("configure") is not None:
            return real(pm, *args, **kwargs)
        bound = None if bound_above is None else best["value"] + bound_above
        return cpsat.Run([None] * len(pm.x), None, bound, False, False, "nothing found")

    monkeypatch.setattr(experiments, "run_model", patched)
    return best


def _recorded_probes(monkeypatch):
    """Record each probe's (target, plan known, bound known) and run it."""
    real = experiments.colour_case_search
    calls = []

    def recording(instance, features, target, time_limit, workers, progress, t0, random_seed=0, log=False,
                  known_bound=None, plan_score=None):
        calls.append((target, plan_score, known_bound))
        return real(instance, features, target, time_limit, workers, progress, t0, random_seed, log,
                    known_bound, plan_score)

    monkeypatch.setattr(experiments, "colour_case_search", recording)
    return calls


@pytest.mark.parametrize("bound_above", [None, 0, 1, 4, 9])
def test_the_probes_prove_the_brute_force_optimum(monkeypatch, bound_above):
    """From the greedy plan and a loose bound: the probes close the gap at the optimum, and
    every probe's target lies between the plan and the bound known when it started."""
    best = _first_run(monkeypatch, bound_above)
    calls = _recorded_probes(monkeypatch)
    for seed in range(6):
        inst = small_instance(seed)
        best["value"] = exhaustive_best(inst)
        calls.clear()
        plan = solve(inst, time_limit=30, workers=1, features=PROBES)
        validate(inst, plan)
        assert plan.total == plan.bound == best["value"] and plan.status == OPTIMAL, (seed, plan.note)
        for target, known, bound in calls:  # "a plan worth more than target?"
            assert known <= target and (bound is None or target < bound), (seed, calls)
        if cpsat.bot_steps(inst, GreedyAgent())[1] < best["value"]:  # the plan came from a probe
            assert calls and "bound probes" in plan.note, seed


def test_a_probe_above_the_optimum_lowers_the_bound(monkeypatch):
    """The bound 9 above the optimum: the first probe lies above the optimum, comes back
    infeasible and proves the bound target - 1 (the note lists it as "none")."""
    best = _first_run(monkeypatch, 9)
    for seed in range(6):
        inst = small_instance(seed)
        best["value"] = exhaustive_best(inst)
        plan = solve(inst, time_limit=30, workers=1, features=PROBES)
        assert ": none" in plan.note and plan.total == plan.bound == best["value"], (seed, plan.note)


def test_probes_out_of_time_leave_a_true_bound(monkeypatch):
    """Every probe without time: the bounds read from the cut models never fall below the
    optimum, the plan validates and is called optimal only when it is."""
    best = _first_run(monkeypatch, 4)
    real = experiments.colour_case_search

    def no_time(instance, features, target, time_limit, *args, **kwargs):
        return real(instance, features, target, 0.0, *args, **kwargs)

    monkeypatch.setattr(experiments, "colour_case_search", no_time)
    monkeypatch.setattr(experiments, "PROBE_MIN_TIME", 0.0)
    for seed in range(6):
        inst = small_instance(seed)
        best["value"] = exhaustive_best(inst)
        plan = solve(inst, time_limit=2, workers=1, features=PROBES)
        validate(inst, plan)
        assert plan.bound is None or plan.bound >= best["value"] >= plan.total, seed
        assert plan.status != OPTIMAL or plan.total == best["value"], seed


@pytest.mark.parametrize("bias", [0.0, 1.0])
def test_the_probes_from_either_end(monkeypatch, bias):
    """Targets next to the plan (0.0) or at the bound (1.0): the same optimum."""
    best = _first_run(monkeypatch, 4)
    monkeypatch.setattr(experiments, "PROBES_BIAS", bias)
    for seed in range(6, 10):
        inst = small_instance(seed)
        best["value"] = exhaustive_best(inst)
        plan = solve(inst, time_limit=30, workers=1, features=PROBES)
        validate(inst, plan)
        assert plan.total == plan.bound == best["value"] and plan.status == OPTIMAL, (seed, plan.note)


@pytest.mark.parametrize("features", [PROBES, DEFAULT_FEATURES | {"colour_cases"}])
def test_a_cut_run_stopped_before_presolve_proves_nothing(monkeypatch, features):
    """CP-SAT stopped before presolve reports the bound 0 (below the cut): read as no bound,
    so the greedy plan below the optimum is never called optimal, nor the bound put below it (colour_cases read it as
    the bound max(plan, 0) = plan before _cut_bound)."""
    best = _first_run(monkeypatch, None)
    real = experiments.colour_case_search

    def no_time(instance, features, target, time_limit, *args, **kwargs):
        return real(instance, features, target, 0.0, *args, **kwargs)

    monkeypatch.setattr(experiments, "colour_case_search", no_time)
    checked = 0
    for seed in range(10):
        inst = small_instance(seed)
        best["value"] = exhaustive_best(inst)
        if cpsat.bot_steps(inst, GreedyAgent())[1] == best["value"]:
            continue
        checked += 1
        plan = solve(inst, time_limit=2, workers=1, features=features)
        validate(inst, plan)
        assert plan.bound is None or plan.bound >= best["value"] >= plan.total, (seed, plan.note)
        assert plan.status != OPTIMAL or plan.total == best["value"], (seed, plan.note)
    assert checked >= 3


def test_the_before_presolve_bound_0_is_never_read_as_a_bound_even_above_a_negative_target():
    """CP-SAT stopped before presolve says 0; for a plan worth -1 (target -1) that is at
    least target + 1 and was once taken as the bound, below the optimum (seed 4 above)."""
    def cut(search_bound):
        return cpsat.Run([], None, None, False, False, "", search_bound=search_bound)

    assert experiments.cut_bound(cut(0.0), -1) is None and experiments.cut_bound(cut(0.0), -5) is None
    assert experiments.cut_bound(cut(3.0), -1) == 3 and experiments.cut_bound(cut(-0.5), -1) is None
    assert experiments.cut_bound(cut(7.2), 5) == 7 and experiments.cut_bound(cut(5.0), 5) is None
