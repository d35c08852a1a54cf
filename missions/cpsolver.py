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
wall-clock limit is a wall-clock limit.
"""

from __future__ import annotations

import os
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
