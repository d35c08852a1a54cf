"""The CP-SAT solver set-up, written once for every model of the package: the missions'
measures (nochmal.missions.measures), the split (nochmal.missions.split) and the planner
(nochmal.solver). It lives in the lowest layer that may load OR-Tools (tests/test_layers.py),
so that all of them can use it.

Why one place: runs are comparable only when workers, seed and limits are set alike; a
wall-clock limit ends a run where the machine's speed says, a deterministic limit
(``max_deterministic_time``, with one worker and a fixed seed) where the work done says, so a
proof asserted by a test does not depend on the machine. OR-Tools loads on the first solver,
so a module importing this one starts fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ortools.sat.python import cp_model

MIN_TIME = 0.01  # seconds: the shortest wall-clock limit handed to CP-SAT


def cp_solver(time_limit: float | None = None, workers: int = 1, seed: int = 0, *,
              min_time: float | None = MIN_TIME, deterministic_time: float | None = None,
              log: bool = False, catch_sigint: bool = True, **parameters) -> "cp_model.CpSolver":
    """A CP-SAT solver: ``workers`` (at least one), ``seed``, a wall-clock ``time_limit`` in
    seconds (None: none) raised to ``min_time`` (None: taken as given), a
    ``deterministic_time`` limit (None: none), search logging, whether CP-SAT handles Ctrl-C
    itself (``catch_sigint``; solver/interrupt.py turns it off to handle it), and any further
    CP-SAT parameters by name (e.g. ``linearization_level=2``)."""
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = time_limit if min_time is None else max(min_time, time_limit)
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
