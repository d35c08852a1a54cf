"""The CP-SAT solver set-up, written once for every model of the package: the missions'
measures (nochmal.missions.measures), the split (nochmal.missions.split) and the planner
(nochmal.solver). It lives in the lowest layer that may load OR-Tools (tests/test_layers.py),
so that all of them can use it.

Why one place: runs are comparable only when workers, seed and limits are set alike; a
wall-clock limit ends a run where the machine's speed says, a deterministic limit
(``max_deterministic_time``, with one worker and a fixed seed) where the work done says, so a
proof asserted by a test does not depend on the machine. OR-Tools loads on the first solver,
so a module importing this one starts fast.

Tests ask for the deterministic limit through the environment (``NOCHMAL_CPSAT_BY_WORK=1``,
set by tests/conftest.py ``cpsat_by_work``): unlike a patched function, it reaches the
processes a test starts too (the CLI, a server, the web app's planner jobs, which carry the
setting of the process that submits them: nochmal/web/jobs.py). Unset, as shipped, a
wall-clock limit is a wall-clock limit. A run of several steps (Python searches between
CP-SAT solves: the split, the planner) shares one :class:`Deadline`, which under the same
setting counts work too, so that the run ends at the same step on any machine.
"""

from __future__ import annotations

import math
import os
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ortools.sat.python import cp_model

MIN_TIME = 0.01  # seconds: the shortest wall-clock limit handed to CP-SAT
BY_WORK = "NOCHMAL_CPSAT_BY_WORK"  # the environment variable: "1" stops every solver by work done


def by_work() -> bool:
    """Whether solvers made now stop by work done instead of the clock (:data:`BY_WORK`)."""
    return os.environ.get(BY_WORK) == "1"


def cp_solver(time_limit: float | None = None, workers: int = 1, seed: int = 0, *,
              min_time: float | None = MIN_TIME, deterministic_time: float | None = None,
              log: bool = False, catch_sigint: bool = True, **parameters) -> "cp_model.CpSolver":
    """A CP-SAT solver: ``workers`` (at least one), ``seed``, a wall-clock ``time_limit`` in
    seconds (None: none) raised to ``min_time`` (None: taken as given), a
    ``deterministic_time`` limit (None: none), search logging, whether CP-SAT handles Ctrl-C
    itself (``catch_sigint``; solver/interrupt.py turns it off to handle it), and any further
    CP-SAT parameters by name (e.g. ``linearization_level=2``).

    Under :func:`by_work` the wall-clock limit in seconds becomes the same number of CP-SAT's
    deterministic time units (the smaller one where both are given) and one worker searches,
    so a run ends alike on a fast machine and on a loaded one."""
    from ortools.sat.python import cp_model

    if time_limit is not None and min_time is not None:
        time_limit = max(min_time, time_limit)
    if by_work():
        if time_limit is not None:
            work = max(0.0, time_limit)
            deterministic_time = work if deterministic_time is None else min(work, deterministic_time)
        time_limit, workers = None, 1
    solver = cp_model.CpSolver()
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = time_limit
    if deterministic_time is not None:
        solver.parameters.max_deterministic_time = deterministic_time
    solver.parameters.num_workers = max(1, workers)
    solver.parameters.random_seed = seed
    if log:
        solver.parameters.log_search_progress = True
    if not catch_sigint:
        solver.parameters.catch_sigint_signal = False
    for name, value in parameters.items():
        setattr(solver.parameters, name, value)
    return solver


# Work units (CP-SAT's deterministic time, about seconds) that one check of a Python search's
# loop costs under by_work(), so that a run keeps its shipped pacing roughly: the split's
# subsets_within made 4,000-6,000 checks per wall second in the rooms of the status test
# (tests/missions/test_status_fast_paths.py), idle. A loop whose steps are much longer says so
# at its check (missions/split/search.py local_search: 17-34 checks a second, cold figures).
WORK_PER_CHECK = 0.0002


class Deadline:
    """When a run of several steps (Python searches and CP-SAT solves) must stop. Shipped:
    seconds on the wall clock. Under :func:`by_work` (fixed when it is made): work done, so that
    the run ends at the same step on any machine; each check of a Python loop
    (:meth:`passed`) costs :data:`WORK_PER_CHECK`, each solve made through :meth:`solve` its
    deterministic time.

    A sub-deadline (:meth:`within`, or ``Deadline(seconds, parent)``) charges its work to its
    parents too: on the wall clock a step's time passes for the whole run, and so must its
    work, or a run's later steps would get more under by_work than they get shipped."""

    def __init__(self, seconds: float = math.inf, parent: Deadline | None = None):
        self.by_work = by_work() if parent is None else parent.by_work
        self.parent = parent
        self.limit = seconds  # work units under by_work (below 0: passed already)
        self.spent = 0.0
        self.end = time.monotonic() + seconds if not self.by_work else math.inf  # wall clock, shipped

    def left(self) -> float:
        """Seconds (under by_work: work units) left, at least 0; inf for a deadline that never passes."""
        if self.by_work:
            return max(0.0, self.limit - self.spent)
        return max(0.0, self.end - time.monotonic())

    def passed(self, work: float = WORK_PER_CHECK) -> bool:
        """A loop's check whether to stop; under by_work it counts ``work`` done since the last."""
        if self.by_work:
            self.charge(work)
            return self.spent > self.limit
        return time.monotonic() > self.end

    def charge(self, work: float) -> None:
        """Count ``work`` done (by_work only), here and in the parents."""
        deadline = self
        while deadline is not None:
            deadline.spent += work
            deadline = deadline.parent

    def within(self, seconds: float) -> Deadline:
        """The sooner of this deadline and ``seconds`` from now (its work counted here too)."""
        return Deadline(min(seconds, self.left()), self)

    def solve(self, model: "cp_model.CpModel", using=None, **cp_solver_kwargs) -> tuple["cp_model.CpSolver", int]:
        """(the solver, its status) of ``model`` solved by :func:`cp_solver` within the time left
        (``using(solver, model)`` instead of ``solver.Solve(model)``: the planner's Ctrl-C
        handling, solver/interrupt.py). Under by_work its deterministic time is charged; a
        solve stopped by this limit (no proof: UNKNOWN, FEASIBLE) ends the run, as on the wall clock."""
        from ortools.sat.python import cp_model

        left = self.left()
        solver = cp_solver(left, **cp_solver_kwargs)
        status = solver.Solve(model) if using is None else using(solver, model)
        if self.by_work:
            spent = solver.deterministic_time
            if status in (cp_model.UNKNOWN, cp_model.FEASIBLE):
                spent = max(spent, left)
            self.charge(spent)
        return solver, status
