"""The proof search over colour cases (nochmal.solver.experiments: colour_case_search, feature
"colour_cases") against the exhaustive oracle of tests/planner/test_planner_core.py: a target
closed as infeasible really has no better plan, a plan found above the target is the
optimum when proven, and solve's plan with the feature validates, with a bound never below
the optimum."""

from __future__ import annotations

import dataclasses
import os
import signal
import time

import pytest

from nochmal.agents import GreedyAgent
from nochmal.sheet import Sheet
from nochmal.solver import cpsat, experiments
from nochmal.solver.cpsat import DEFAULT_FEATURES
from nochmal.solver.experiments import colour_case_search, solve
from nochmal.solver.instance import Instance
from nochmal.solver.plan import OPTIMAL
from nochmal.solver.validate import validate

from planner_support import SMALL, exhaustive_best, small_instance

# the proofs asserted here come from CP-SAT's deterministic limits (tests/conftest.py cpsat_by_work)
pytestmark = pytest.mark.usefixtures("cpsat_by_work")

CASES = DEFAULT_FEATURES | {"colour_cases"}


def engine_total(inst: Instance, pm, chosen) -> int:
    return cpsat.engine_score(inst, cpsat.plan_from_choice(inst, pm, chosen))


@pytest.mark.parametrize("seed", range(10))
def test_the_cut_search_against_brute_force(seed):
    """Target = optimum: infeasible (brute force knows no better plan). Below it: a plan
    above the target, scored by the engine as the model says, proven the optimum."""
    inst = small_instance(seed, 5 + seed % 2)
    best = exhaustive_best(inst)
    t0 = time.monotonic()
    _, run = colour_case_search(inst, DEFAULT_FEATURES, best, 20, 1, None, t0)
    assert run.infeasible and run.objective is None
    for target in (best - 1, best - 3):
        pm, run = colour_case_search(inst, DEFAULT_FEATURES, target, 20, 1, None, t0)
        assert not run.infeasible and run.objective is not None and run.objective > target
        assert engine_total(inst, pm, run.chosen) == run.objective
        assert run.optimal and run.objective == best


def test_the_cut_search_from_a_started_sheet_and_on_the_classic_board():
    """Colours the start sheet already scored have no literal: the strategy covers the rest."""
    for cells in (["C3"], ["C1", "C2", "D1"], ["C4", "B4", "A4"]):
        inst = small_instance(len(cells), 4, Sheet.from_cells(SMALL, cells))
        best = exhaustive_best(inst)
        assert colour_case_search(inst, DEFAULT_FEATURES, best, 20, 1, None, time.monotonic())[1].infeasible
    for seed in (2, 8):
        inst = Instance.from_seed(seed, count=4)
        best = exhaustive_best(inst)
        _, run = colour_case_search(inst, DEFAULT_FEATURES, best - 1, 20, 1, None, time.monotonic())
        assert run.optimal and run.objective == best


@pytest.mark.parametrize("workers", [1, 2])
def test_solve_with_colour_cases_keeps_the_exhaustive_optimum(workers):
    for seed in range(20, 26):
        inst = small_instance(seed, 5)
        plan = solve(inst, time_limit=30, workers=workers, features=CASES)
        validate(inst, plan)
        assert plan.status == OPTIMAL and plan.total == plan.bound == exhaustive_best(inst), seed


def _first_run_without_proof(monkeypatch, keep_plan: bool = True):
    """Patch the plain CP-SAT run (the one without ``configure``) to end as if cut short:
    no bound, not optimal, and (``keep_plan`` False) no plan either."""
    real = experiments.run_model

    def patched(pm, *args, **kwargs):
        run = real(pm, *args, **kwargs)
        if kwargs.get("configure") is not None:
            return run
        if keep_plan:
            return dataclasses.replace(run, bound=None, optimal=False)
        return cpsat.Run([None] * len(pm.x), None, None, False, False, "nothing found")

    monkeypatch.setattr(experiments, "run_model", patched)


@pytest.mark.parametrize("seed", [3, 21, 27])
def test_the_cases_prove_what_the_first_run_left_open(monkeypatch, seed):
    _first_run_without_proof(monkeypatch)
    inst = small_instance(seed)
    best = exhaustive_best(inst)
    assert solve(inst, time_limit=20, workers=1).status != OPTIMAL  # the patch takes the proof away
    plan = solve(inst, time_limit=20, workers=1, features=CASES)
    validate(inst, plan)
    assert plan.total == plan.bound == best and plan.status == OPTIMAL
    assert "colour cases: no plan above" in plan.note


def test_the_cases_find_the_better_plan_when_the_first_run_found_none(monkeypatch):
    """The first run returns nothing: the greedy hint is the target, and the cut search finds
    and proves the optimum above it."""
    _first_run_without_proof(monkeypatch, keep_plan=False)
    for seed in range(6):
        inst = small_instance(seed)
        best = exhaustive_best(inst)
        greedy = cpsat.bot_steps(inst, GreedyAgent())[1]
        plan = solve(inst, time_limit=20, workers=1, features=CASES)
        validate(inst, plan)
        assert plan.total == plan.bound == best and plan.status == OPTIMAL, seed
        assert ("a better plan" in plan.note) == (best > greedy), seed


def test_an_open_case_search_leaves_a_bound_at_least_the_plan(monkeypatch):
    """Out of time in the cut search: the bound is CP-SAT's bound of the cut model, never
    below the plan, and never below the optimum."""
    _first_run_without_proof(monkeypatch)
    real_search = experiments.colour_case_search

    def no_time(instance, features, target, time_limit, *args, **kwargs):
        return real_search(instance, features, target, 0.0, *args, **kwargs)

    monkeypatch.setattr(experiments, "colour_case_search", no_time)
    for seed in range(6):
        inst = small_instance(seed)
        best = exhaustive_best(inst)
        plan = solve(inst, time_limit=20, workers=1, features=CASES)
        validate(inst, plan)
        assert plan.bound is None or plan.bound >= best >= plan.total
        assert plan.status != OPTIMAL or plan.total == best


@pytest.mark.parametrize("features, phase", [(CASES, "colour cases"),
                                             (DEFAULT_FEATURES | {"bound_probes"}, "bound probes")])
def test_sigint_during_the_case_search_returns_the_best_plan(monkeypatch, features, phase):
    """A real SIGINT as the cut search (colour cases, or a bound probe) starts on a 30-roll
    instance, after a first run that proves nothing: the solve stops, marked interrupted, in
    that phase (its note), with a validated plan and a bound not below it. The press comes
    when the phase begins, not after a guessed number of seconds."""
    monkeypatch.setattr(experiments, "CASES_SHARE", 0.01)  # the first run: 3 of the 300 (by work)
    inst = Instance.from_seed(29, count=30)
    real_search, pressed = experiments.colour_case_search, []

    def press_then_search(*args, **kwargs):
        if not pressed:
            pressed.append(True)
            os.kill(os.getpid(), signal.SIGINT)  # (handled by the phase's SigintStop, already in place)
        return real_search(*args, **kwargs)

    monkeypatch.setattr(experiments, "colour_case_search", press_then_search)
    plan = solve(inst, time_limit=300, workers=1, features=features)
    assert pressed and plan.interrupted and phase in plan.note, plan.note
    validate(inst, plan)
    assert plan.status != OPTIMAL and (plan.bound is None or plan.bound >= plan.total)


def test_a_solution_that_undercounts_its_completions_is_scored_by_the_engine(monkeypatch):
    """A solution short of the optimum may leave a completion literal false with its cells
    crossed (cpsat.all_crossed only implies them): its model objective is then below the
    engine's score. solve keeps the plan at the engine's score (it raised SolverError when
    a probe's time-limited run returned such a solution under load)."""
    inst = small_instance(3)
    masks = cpsat.greedy_steps(inst)

    def undercounting(pm, *args, **kwargs):
        chosen = cpsat.add_hint(pm, masks)
        assert chosen is not None
        return cpsat.Run(chosen, engine_total(inst, pm, chosen) - 1, None, False, False, "patched")

    monkeypatch.setattr(experiments, "run_model", undercounting)
    plan = solve(inst, time_limit=5, workers=1, features=frozenset({"max_lp"}))  # no hint to fall back on
    validate(inst, plan)
    assert plan.total == cpsat.engine_score(inst, plan.steps) and plan.status != OPTIMAL
