"""Ctrl-C during a long solve: stop the search and keep what was found, never a traceback.

While a ``SigintStop`` is active (main thread only; elsewhere it does nothing), SIGINT sets
``requested`` and stops the CP-SAT solver being watched instead of raising
KeyboardInterrupt, so the caller can return its best plan so far marked as not proven.
CP-SAT may also catch SIGINT itself and just return early; ``stopped_early`` recognises that.
"""

from __future__ import annotations

import signal
import threading

from ortools.sat.python import cp_model


class SigintStop:
    """Context manager turning Ctrl-C into a request to stop (see the module docstring)."""

    def __init__(self) -> None:
        self.requested = threading.Event()
        self._solver: cp_model.CpSolver | None = None
        self._old = None
        self._installed = False

    def watch(self, solver: cp_model.CpSolver | None) -> None:
        """The solver to stop on Ctrl-C (None when no solve is running)."""
        self._solver = solver
        if solver is not None and self.requested.is_set():
            solver.stop_search()

    def _on_sigint(self, signum, frame) -> None:  # noqa: ARG002
        self.requested.set()
        if self._solver is not None:
            self._solver.stop_search()

    def __enter__(self) -> "SigintStop":
        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGINT, self._on_sigint)
            self._installed = True
        return self

    def __exit__(self, *exc) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._old)
            self._installed = False

    def note_result(self, solver: cp_model.CpSolver, status: int) -> bool:
        """Whether this solve was interrupted; records it in ``requested``.

        A stop well before the time limit without a proof or an infeasibility can only be a
        stop request (CP-SAT returns early when it caught SIGINT itself).
        """
        limit = solver.parameters.max_time_in_seconds
        if status in (cp_model.FEASIBLE, cp_model.UNKNOWN) and solver.WallTime() < 0.98 * limit - 0.05:
            self.requested.set()
        return self.requested.is_set()
