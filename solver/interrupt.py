"""Ctrl-C during a long solve: stop the search and keep what was found, never a traceback.

While a ``SigintStop`` is active (main thread only; elsewhere it does nothing), SIGINT sets
``requested`` and stops the CP-SAT solver being watched instead of raising
KeyboardInterrupt, so the caller can return its best plan so far marked as not proven.

Only the signal itself counts as an interruption. CP-SAT would catch SIGINT on its own and
just return early (``catch_sigint_signal``), which looks exactly like a solve that ended
early for any other reason (a busy machine, a solution limit); so ``solve`` switches that
off and runs ``Solve`` in a helper thread while the main thread waits, where Python's own
handler runs at once and calls ``stop_search``.

Stops nest: one entered while another is active (a solve inside a command's watch that
spans model building and hints) shares its ``requested``, so a press that came before the
inner one was entered (while the model was built, say) stops the inner solve at once, and
the outer one learns of a press during the inner solve.
"""

from __future__ import annotations

import signal
import threading

from ortools.sat.python import cp_model

WAIT_STEP = 0.1  # seconds between the main thread's looks at the solving thread
_ACTIVE: list["SigintStop"] = []  # the stops entered in the main thread, innermost last


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
            if self._installed:
                raise RuntimeError("a SigintStop is entered once at a time")
            if _ACTIVE:
                self.requested = _ACTIVE[-1].requested  # one press stops the whole run
            self._old = signal.signal(signal.SIGINT, self._on_sigint)
            self._installed = True
            _ACTIVE.append(self)
        return self

    def __exit__(self, *exc) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._old)
            self._installed = False
            _ACTIVE.remove(self)

    def solve(self, solver: cp_model.CpSolver, model: cp_model.CpModel,
              callback: cp_model.CpSolverSolutionCallback | None = None) -> int:
        """``solver.Solve(model, callback)``, stopped by Ctrl-C; the CP-SAT status.

        Whether Ctrl-C came is ``requested.is_set()`` afterwards.
        """
        self.watch(solver)
        try:
            if not self._installed:  # not the main thread: the process's SIGINT is not ours
                # (CP-SAT's own handler, run in a worker thread, e.g. a `nochmal batch`
                # worker's task, ends the process with std::bad_function_call)
                solver.parameters.catch_sigint_signal = False
                return solver.Solve(model, callback)
            solver.parameters.catch_sigint_signal = False  # the signal is ours (module docstring)
            result: list[int] = []
            errors: list[BaseException] = []

            def run() -> None:
                try:
                    result.append(solver.Solve(model, callback))
                except BaseException as exc:  # handed to the caller's thread below
                    errors.append(exc)

            worker = threading.Thread(target=run, name="cp-sat solve", daemon=True)
            worker.start()
            while worker.is_alive():
                worker.join(WAIT_STEP)  # Python runs the SIGINT handler between waits
                if self.requested.is_set():  # also when it came before the solve had started
                    solver.stop_search()
            if errors:
                raise errors[0]
            return result[0]
        finally:
            self.watch(None)

    @property
    def interrupted(self) -> bool:
        return self.requested.is_set()
