"""missions/cpsolver.py ``Deadline``: one limit for a run of several steps (Python searches and
CP-SAT solves). Under the tests' setting (tests/conftest.py ``cpsat_by_work``) it counts work, so
a run ends at the same step however the wall clock goes: here the clock is made to jump an hour
at every reading, which a wall-clock deadline obeys and a by-work one ignores. The split
(missions/split) runs on it, so its answer for a room is the same on a loaded machine.
"""

from __future__ import annotations

import random
import threading
import time
import zlib

import pytest
from ortools.sat.python import cp_model
from sheets_support import random_sheet

from nochmal.board import load_board
from nochmal.cache import clear_caches
from nochmal.missions import cpsolver
from nochmal.missions.cpsolver import WORK_PER_CHECK, Deadline
from nochmal.missions.loader import builtin_missions
from nochmal.missions.split import solve_split, split_instance


def jump_clock(monkeypatch) -> list[int]:
    """time.monotonic an hour later at every reading (a machine that stalls between two checks);
    the count of readings."""
    real = time.monotonic
    readings = [0]
    # threads an earlier test of this process left running (a server's loop) keep the real clock
    # and are not counted: only this test's thread and the threads its run starts are
    elsewhere = {t.ident for t in threading.enumerate()} - {threading.get_ident()}

    def monotonic() -> float:
        if threading.get_ident() in elsewhere:
            return real()
        readings[0] += 1
        return real() + 3600.0 * readings[0]

    monkeypatch.setattr(time, "monotonic", monotonic)
    return readings


@pytest.fixture
def jumping_clock(monkeypatch):
    return jump_clock(monkeypatch)


@pytest.fixture
def fake_clock(monkeypatch):
    """time.monotonic as the test sets it (a one-item list, in seconds)."""
    now = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    return now


def checks_until_passed(deadline: Deadline, most: int = 100_000) -> int:
    for n in range(1, most + 1):
        if deadline.passed():
            return n
    return most + 1


def pigeons(holes: int) -> cp_model.CpModel:
    """holes + 1 pigeons in ``holes`` holes: infeasible."""
    m = cp_model.CpModel()
    x = [[m.NewBoolVar(f"x{p}_{h}") for h in range(holes)] for p in range(holes + 1)]
    for row in x:
        m.AddExactlyOne(row)
    for h in range(holes):
        m.AddAtMostOne(row[h] for row in x)
    return m


def knapsacks(items: int) -> cp_model.CpModel:
    """Random items in three knapsacks, the most value: far more work to prove than a hundredth of a unit."""
    rng = random.Random(5)
    m = cp_model.CpModel()
    take = [[m.NewBoolVar(f"t{i}_{k}") for k in range(3)] for i in range(items)]
    weights = [rng.randint(100, 999) for _ in range(items)]
    for row in take:
        m.AddAtMostOne(row)
    for k in range(3):
        m.Add(sum(w * row[k] for w, row in zip(weights, take)) <= sum(weights) // 7)
    m.Maximize(sum(rng.randint(100, 999) * t for row in take for t in row))
    return m


@pytest.mark.usefixtures("cpsat_by_work")
def test_a_by_work_deadline_ends_at_the_same_check_whatever_the_clock_does(monkeypatch, jumping_clock):
    steady = checks_until_passed(Deadline(0.05))
    assert abs(steady - 0.05 / WORK_PER_CHECK) <= 1  # the first check past the work limit
    assert checks_until_passed(Deadline(0.05)) == steady
    assert jumping_clock[0] == 0  # (a by-work deadline never reads the clock)
    monkeypatch.delenv(cpsolver.BY_WORK)
    assert checks_until_passed(Deadline(0.05)) == 1  # shipped: an hour went by, the limit passed
    assert jumping_clock[0] > 0
    assert checks_until_passed(Deadline()) == 100_001  # a deadline that never passes


def test_a_shipped_deadline_counts_seconds_and_within_is_the_sooner_one(fake_clock):
    run = Deadline(10.0)
    fake_clock[0] += 4.0
    assert run.left() == pytest.approx(6.0) and not run.passed()
    assert run.within(100.0).left() == pytest.approx(6.0)
    step = run.within(1.0)
    assert step.left() == pytest.approx(1.0)
    fake_clock[0] += 2.0
    assert step.passed() and not run.passed()
    assert Deadline(5.0, run).left() == pytest.approx(5.0)  # a step of its own length, not capped
    fake_clock[0] += 5.0
    assert run.passed() and run.left() == 0.0


@pytest.mark.usefixtures("cpsat_by_work")
def test_a_by_work_step_charges_its_run_and_within_is_the_sooner_one(jumping_clock):
    run = Deadline(1.0)
    run.charge(0.6)
    assert run.left() == pytest.approx(0.4)
    assert run.within(5.0).left() == pytest.approx(0.4)
    step = run.within(0.1)
    assert step.left() == pytest.approx(0.1)
    checks = checks_until_passed(step)
    assert abs(checks - 0.1 / WORK_PER_CHECK) <= 1  # (the last check's work takes it past the limit)
    assert run.left() == pytest.approx(0.4 - checks * WORK_PER_CHECK)  # the step's checks were the run's too
    own = Deadline(2.0, run)  # a step of its own length (the split's separator bound) still charges the run
    own.charge(0.5)
    assert own.left() == pytest.approx(1.5) and run.passed()


@pytest.mark.usefixtures("cpsat_by_work")
def test_solve_charges_the_deterministic_time_and_a_solve_stopped_by_the_limit_ends_the_run(jumping_clock):
    run = Deadline(30.0)
    step = run.within(20.0)
    solver, status = step.solve(pigeons(4))
    assert status == cp_model.INFEASIBLE and 0 < solver.deterministic_time < 20
    assert step.left() == pytest.approx(20.0 - solver.deterministic_time)
    assert run.left() == pytest.approx(30.0 - solver.deterministic_time)
    short = Deadline(0.01)
    solver, status = short.solve(knapsacks(200))
    assert status in (cp_model.UNKNOWN, cp_model.FEASIBLE)  # (no proof within 0.01 work units)
    assert short.left() == 0.0 and short.passed()
    assert solver.parameters.max_deterministic_time == pytest.approx(0.01)
    assert solver.parameters.max_time_in_seconds > 1e9  # (no wall-clock limit under by_work)


def room(mission_id: str, seed: int):
    mission = next(m for m in builtin_missions() if m.id == mission_id)
    rng = random.Random(zlib.crc32(mission.id.encode()) + seed)
    board = load_board("classic")
    return split_instance(mission, [random_sheet(board, rng, rng.randint(0, 25)) for _ in range(4)])


def split_answer(inst) -> tuple:
    clear_caches("missions.")  # (the split remembers listings, figures and the last split: each run starts cold)
    found = solve_split(inst)
    return (found.method, found.rolls_lower, found.rolls_upper,
            [(plan.units, plan.rolls, plan.crosses.upper) for plan in found.plans])


@pytest.mark.usefixtures("cpsat_by_work")
@pytest.mark.parametrize("mission_id, seed", [("column-relay", 0), ("star-hunt", 1)])
def test_the_split_of_a_room_is_the_same_when_the_clock_jumps(monkeypatch, mission_id, seed):
    """The split's run (the greedy split, local search, the listings, the bounds' solves) on
    one deadline: under by_work the same method and figures with the clock jumping an hour at
    every reading as with the real one; a shortcut is among them (the bounds meet)."""
    inst = room(mission_id, seed)
    steady = split_answer(inst)
    readings = jump_clock(monkeypatch)
    assert split_answer(inst) == steady
    assert readings[0] == 0  # (nothing in the run read the clock)
    assert "meets the" in steady[0]  # the bounds met without the cell model
