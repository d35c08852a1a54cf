"""Picking one listed subset of units per sheet so that every demand is met: a cover search
first, CP-SAT when it runs out of nodes, then repeated units taken off.
"""

from __future__ import annotations

from nochmal.bitsets import bit_list
from nochmal.missions.cpsolver import Deadline
from nochmal.missions.split.cpsat import _add_demands
from nochmal.missions.split.figures import upper_cost
from nochmal.missions.split.instance import SplitInstance


def _maximal(rows: list) -> list:
    """The rows whose subset no other row's subset contains."""
    kept: list = []
    masks: list[int] = []
    for row in sorted(rows, key=lambda r: -len(r[0])):
        mask = 0
        for u in row[0]:
            mask |= 1 << u
        if all(mask & ~other for other in masks):
            kept.append(row)
            masks.append(mask)
    return kept


_COVER_NODES = 20_000  # nodes of pick_cover's search before CP-SAT takes over


def pick_cover(inst: SplitInstance, options: list[list], rolls: int, deadline: Deadline,
                max_nodes: int = _COVER_NODES) -> tuple[bool, list | None] | None:
    """:func:`pick_one_each` by a search where every demand needs all its units (column relay,
    star hunt: the rows must cover a set of units): the uncovered unit that the fewest rows of
    the sheets not yet picked hold is covered by one of them, each tried (of sheets with the
    same rows only the first, which is no loss: they are interchangeable); a node whose free
    sheets' best rows cannot hold the missing units, or that failed before, is cut. Rows
    whose path fits ``rolls`` (upper figure) first, and a sheet left free takes such a row
    where it has one, so that fewer picks need the exact check. Complete, so its False is a
    proof; None where it does not apply or gives up (``max_nodes``, ``deadline``): CP-SAT."""
    need = 0
    for d in inst.demands:
        if d.group is not None or d.need < len(d.units):
            return None
        for u in d.units:
            need |= 1 << u
    n = len(options)
    if any(not rows for rows in options):
        return False, None
    masks = []
    for rows in options:
        row_masks = []
        for subset, _ in rows:
            mask = 0
            for u in subset:
                mask |= 1 << u
            row_masks.append(mask & need)
        masks.append(row_masks)
    order = [sorted(range(len(rows)), key=lambda i, rows=rows, p=p: (rows[i][1][1] > rolls, -masks[p][i].bit_count()))
             for p, rows in enumerate(options)]
    holding = [{u: [i for i in order[p] if masks[p][i] >> u & 1] for u in bit_list(need)} for p in range(n)]
    first_twin = [next(q for q in range(p + 1) if options[q] == options[p]) for p in range(n)]
    failed: set[tuple[int, int]] = set()
    picked: list[int | None] = [None] * n
    nodes = 0

    def search(free: int, covered: int) -> bool | None:
        nonlocal nodes
        missing = need & ~covered
        if not missing:
            return True
        if not free or (free, covered) in failed:
            return False
        nodes += 1
        if nodes > max_nodes or (nodes & 63 == 0 and deadline.passed()):
            return None
        sheets = [p for p in range(n) if free >> p & 1]
        if sum(max((m & missing).bit_count() for m in masks[p]) for p in sheets) < missing.bit_count():
            failed.add((free, covered))
            return False
        tried = [p for p in sheets if not any(first_twin[q] == first_twin[p] for q in sheets if q < p)]
        unit = min(bit_list(missing), key=lambda u: sum(len(holding[p][u]) for p in tried))
        for p in tried:
            for i in holding[p][unit]:
                picked[p] = i
                found = search(free & ~(1 << p), covered | masks[p][i])
                if found is not False:
                    return found
                picked[p] = None
        failed.add((free, covered))
        return False

    found = search((1 << n) - 1, 0)
    if found is None:
        return None
    if not found:
        return False, None
    return True, [rows[order[p][0] if picked[p] is None else picked[p]] for p, rows in enumerate(options)]


def pick_one_each(inst: SplitInstance, options: list[list], deadline: Deadline,
                   rolls: int | None = None) -> tuple[bool | None, list | None]:
    """One row per sheet so that the demands are met: :func:`pick_cover` where it applies
    (``rolls`` given), else CP-SAT. (True, the rows), (False, None) when none can, (None,
    None) at ``deadline``."""
    if rolls is not None:
        found = pick_cover(inst, options, rolls, deadline)
        if found is not None:
            return found
    from ortools.sat.python import cp_model

    m = cp_model.CpModel()
    covered: dict[int, list] = {u: [] for u in range(len(inst.units))}
    picks = []
    for p, rows in enumerate(options):
        zs = [m.NewBoolVar(f"z{p}_{i}") for i in range(len(rows))]
        m.AddExactlyOne(zs)
        for z, (subset, _) in zip(zs, rows):
            for u in subset:
                covered[u].append(z)
        picks.append(zs)
    _add_demands(m, inst, covered)
    for p in range(len(options)):  # sheets with the same rows are interchangeable: their picks in row order
        twin = next((q for q in reversed(range(p)) if options[q] == options[p]), None)
        if twin is not None and len(options[p]) > 1:
            m.Add(sum(i * z for i, z in enumerate(picks[twin])) <= sum(i * z for i, z in enumerate(picks[p])))
    for d in inst.demands:  # implied: the units a demand needs are counted in the rows (CP-SAT proves "no" fast)
        if d.group is None:
            wanted = set(d.units)
            m.Add(sum(len(wanted.intersection(subset)) * z for rows, zs in zip(options, picks)
                      for (subset, _), z in zip(rows, zs) if wanted.intersection(subset)) >= d.need)
    solver, status = deadline.solve(m)
    if status == cp_model.INFEASIBLE:
        return False, None
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None, None
    return True, [rows[next(i for i, z in enumerate(zs) if solver.Value(z))] for rows, zs in zip(options, picks)]


def _without_repeats(inst: SplitInstance, split: list[tuple[int, ...]], rolls: int) -> list[tuple[int, ...]]:
    """A unit that largest subsets give to several sheets stays with one: dropped from the
    others where their path then still takes at most ``rolls`` (upper figure)."""
    out = [list(units) for units in split]
    for u in range(len(inst.units)):
        holders = [p for p, units in enumerate(out) if u in units]
        for p in holders[1:]:
            rest = [v for v in out[p] if v != u]
            if upper_cost(inst, p, rest)[0] <= rolls:
                out[p] = rest
    return [tuple(units) for units in out]
