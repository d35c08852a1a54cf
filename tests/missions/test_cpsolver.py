"""The CP-SAT set-up written once (nochmal.missions.cpsolver): the parameters every model of
the package gets, and a deterministic limit that ends a search by work done, not by the clock."""

from __future__ import annotations

import random

from ortools.sat.python import cp_model

from nochmal.missions.cpsolver import MIN_TIME, cp_solver


def test_the_parameters_are_set_as_asked():
    solver = cp_solver(30.0, 2, 7, log=True, catch_sigint=False, linearization_level=2)
    p = solver.parameters
    assert (p.max_time_in_seconds, p.num_workers, p.random_seed) == (30.0, 2, 7)
    assert p.log_search_progress and not p.catch_sigint_signal and p.linearization_level == 2


def test_limits_floor_and_defaults():
    assert cp_solver(-1.0).parameters.max_time_in_seconds == MIN_TIME
    assert cp_solver(0.0, min_time=0.05).parameters.max_time_in_seconds == 0.05
    assert cp_solver(0.001, min_time=None).parameters.max_time_in_seconds == 0.001
    default = cp_model.CpSolver().parameters
    plain = cp_solver().parameters  # no limit given: CP-SAT's own defaults, one worker, seed 0
    assert plain.max_time_in_seconds == default.max_time_in_seconds
    assert plain.max_deterministic_time == default.max_deterministic_time
    assert (plain.num_workers, plain.random_seed) == (1, 0) and plain.catch_sigint_signal


def test_a_deterministic_limit_ends_a_search_by_work_done():
    """A search that cannot finish within its deterministic limit (a random multi-knapsack):
    stopped by work done, with the same plan and bound in every run, whatever the load."""
    rng = random.Random(1)
    m = cp_model.CpModel()
    xs = [m.NewBoolVar(f"x{i}") for i in range(300)]
    for _ in range(60):
        m.Add(sum(rng.randint(1, 30) * x for x in rng.sample(xs, 40)) <= 200)
    m.Maximize(sum(rng.randint(1, 40) * x for x in xs))

    def run() -> tuple[str, float, float]:
        solver = cp_solver(None, 1, 0, deterministic_time=0.05)
        status = solver.Solve(m)
        assert solver.deterministic_time >= 0.05  # the limit, not the proof, ended it
        return solver.StatusName(status), solver.ObjectiveValue(), solver.BestObjectiveBound()

    first = run()
    assert first[0] != "OPTIMAL"
    assert run() == first


def test_by_work_turns_the_clock_limit_into_work_and_one_worker(monkeypatch):
    """Under NOCHMAL_CPSAT_BY_WORK=1 (tests/conftest.py ``cpsat_by_work``) no wall-clock limit
    reaches CP-SAT: its seconds become deterministic units, floored as before, the smaller of
    two limits wins, and one worker searches."""
    from nochmal.missions.cpsolver import BY_WORK, by_work

    monkeypatch.setenv(BY_WORK, "1")
    assert by_work()
    default = cp_model.CpSolver().parameters
    p = cp_solver(30.0, 4, 7).parameters
    assert p.max_time_in_seconds == default.max_time_in_seconds
    assert (p.max_deterministic_time, p.num_workers, p.random_seed) == (30.0, 1, 7)
    assert cp_solver(-1.0).parameters.max_deterministic_time == MIN_TIME
    assert cp_solver(-1.0, min_time=None).parameters.max_deterministic_time == 0.0
    assert cp_solver(5.0, deterministic_time=2.0).parameters.max_deterministic_time == 2.0
    monkeypatch.setenv(BY_WORK, "0")
    assert not by_work() and cp_solver(30.0, 4).parameters.max_time_in_seconds == 30.0

