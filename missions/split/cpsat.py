"""The demands as CP-SAT constraints over the sheets' choices of units, shared by the split's
models (the solvers themselves come from nochmal.missions.cpsolver).
"""

from __future__ import annotations

from nochmal.missions.split.instance import SplitInstance


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
