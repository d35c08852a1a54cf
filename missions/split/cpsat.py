"""The CP-SAT set-up the split's models share: a deterministic one-worker solver stopped at a
deadline, a two-worker one with a time limit, and the demands as constraints over the sheets'
choices of units.
"""

from __future__ import annotations

import time

from nochmal.missions.split.instance import SplitInstance


def _until(deadline: float) -> "cp_model.CpSolver":
    """A deterministic one-worker CP-SAT solver with the time left until ``deadline``."""
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.01, deadline - time.monotonic())
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    return solver


def _add_demands(m, inst: SplitInstance, covered: dict[int, list]) -> None:
    """done[u] only if some sheet takes u; each demand (or one of its group) has ``need`` done."""
    done = {}
    for u, takers in covered.items():
        v = m.NewBoolVar(f"done{u}")
        m.Add(v <= sum(takers)) if takers else m.Add(v == 0)
        done[u] = v
    groups: dict[int, list] = {}
    for k, d in enumerate(inst.demands):
        if d.group is None:
            m.Add(sum(done[u] for u in d.units) >= d.need)
        else:
            met = m.NewBoolVar(f"met{k}")
            m.Add(sum(done[u] for u in d.units) >= d.need).OnlyEnforceIf(met)
            groups.setdefault(d.group, []).append(met)
    for mets in groups.values():
        m.AddBoolOr(mets)


def _solver(time_limit: float):
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.05, time_limit)
    solver.parameters.num_workers = 2
    solver.parameters.random_seed = 0
    return solver
