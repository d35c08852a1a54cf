"""Solving a split: the subsets model (the figures of every subset of a sheet's units, then one
subset per sheet picked by a programme over the units done or by CP-SAT) and the cells model
(a cross variable per open cell and sheet, anchored by a flow), each turned into per-sheet
plans with readable crossing paths.
"""

from __future__ import annotations

import math
from itertools import combinations

from nochmal.bitsets import bit_list
from nochmal.errors import InfeasibleError
from nochmal.missions.anchored_cells import add_anchored_cells
from nochmal.missions.cpsolver import Deadline, cp_solver
from nochmal.missions.measures.crosses import CrossesEstimate
from nochmal.missions.model import block_slots
from nochmal.missions.split.bounds import unit_lower_bound
from nochmal.missions.split.cpsat import _add_demands
from nochmal.missions.split.figures import NO_FIGURES, upper_cost, sheet_figures
from nochmal.missions.split.instance import (CROSSES_PER_ROLL, SPLIT_SECONDS, SheetPlan, Split, SplitInstance,
                                             units_target, rolls_for)
from nochmal.missions.split.search import raise_lower, remember_split, remembered_split, greedy_split, local_search
from nochmal.sheet import Sheet


SUBSET_LIMIT = 64  # subsets of one sheet's units up to which the subsets model runs (2^6)


def solve_split(inst: SplitInstance, time_limit: float = SPLIT_SECONDS, model: str | None = None,
                shortcut: bool = True) -> Split:
    """The split with the fewest rolls (then fewest crosses); ``model`` forces "subsets" or "cells";
    ``shortcut=False`` always runs the cells model's solver (tests compare the two)."""
    n = len(inst.sheets)
    if not inst.demands:
        return Split(inst, 0, 0, tuple(SheetPlan((), CrossesEstimate(0, 0)) for _ in range(n)), "nothing to do")
    allowed = [[u for u in range(len(inst.units)) if inst.units[u].masks[p] is not None] for p in range(n)]
    if model is None:
        model = "subsets" if all(2 ** len(a) <= SUBSET_LIMIT for a in allowed) else "cells"
    if model == "subsets":
        return _solve_subsets(inst, allowed, time_limit)
    return _solve_cells(inst, allowed, time_limit, shortcut)


def _plans(inst: SplitInstance, split: list[tuple[int, ...]], time_limit: float) -> tuple[SheetPlan, ...]:
    """Per sheet: its units with a real crossing path that takes its upper rolls (fewest_crosses
    on the union, or fewest_rolls' path where that takes fewer pieces) and its rolls."""
    plans = []
    for p, units in enumerate(split):
        est, low, high, cells = sheet_figures(inst.sheets[p], units_target(inst, p, units), time_limit) if units else \
            NO_FIGURES
        path = readable_path(inst.sheets[p], cells)
        plans.append(SheetPlan(tuple(sorted(units)), CrossesEstimate(est.lower, est.upper, path, est.method), low, high))
    return tuple(plans)


def readable_path(sheet: Sheet, cells) -> tuple[str, ...]:
    """The same cells in an order a person can follow: each cell anchored when crossed,
    continuing next to the previous cross (same colour first) where possible, else the
    first anchored cell in reading order."""
    board = sheet.board
    left = board.mask_of(cells)
    anchored = sheet.anchored
    order: list[int] = []
    while left:
        ready = left & anchored
        if not ready:
            raise InfeasibleError("the path's cells are not connected to the crossed region")
        pool = ready
        if order:
            near = ready & board.neighbour_mask[order[-1]]
            same = [b for b in bit_list(near) if board.colour_of_bit(b) == board.colour_of_bit(order[-1])]
            pool = (1 << min(same, key=lambda b: board.index_of_bit[b])) if same else (near or ready)
        bit = min(bit_list(pool), key=lambda b: board.index_of_bit[b])
        order.append(bit)
        left &= ~(1 << bit)
        anchored |= board.neighbour_mask[bit]
    return tuple(board.cell_name(b) for b in order)


def _solve_subsets(inst: SplitInstance, allowed: list[list[int]], time_limit: float) -> Split:
    if len(inst.units) <= DP_UNITS:
        return _solve_subsets_lazily(inst, allowed)
    figures: list[list[tuple[tuple[int, ...], tuple[CrossesEstimate, int, int]]]] = []
    for p, units in enumerate(allowed):
        rows = []
        for size in range(len(units) + 1):
            for subset in combinations(units, size):
                target = units_target(inst, p, subset)
                rows.append((subset, sheet_figures(inst.sheets[p], target) if subset else NO_FIGURES))
        figures.append(rows)
    exact_figures = all(low == high for rows in figures for _, (_, low, high, _) in rows)
    high_r, split, high_status = pick_subsets(inst, figures, "upper", time_limit)
    if exact_figures:
        low_r, low_status = high_r, high_status
    else:
        low_r, _, low_status = pick_subsets(inst, figures, "lower", time_limit)
    plans = _plans(inst, split, 0.0)
    upper = max(plan.rolls for plan in plans)
    lower = max(low_r, unit_lower_bound(inst))
    lower = min(lower, upper)
    method = ("every split tried over the fewest crosses of every subset" if len(inst.units) <= DP_UNITS else
              "cp-sat over the fewest crosses of every subset")
    if lower < upper:
        method += " (bounds: some rolls figures are intervals)" if not exact_figures else " (bounds: time limit)"
    return Split(inst, lower, upper, plans, method)


DP_UNITS = 6  # units up to which pick_subsets runs a programme over the units done (2^6 states) instead of CP-SAT


def _solve_subsets_lazily(inst: SplitInstance, allowed: list[list[int]]) -> Split:
    """The subsets model for few units with :func:`pick_subsets_dp`'s programme, computing a
    subset's figures only once the roll count reaches its block slots (a lower figure never
    below them): the roll counts start at :func:`unit_lower_bound` (the optimum is never
    below it), so the subsets too large to fit the answer are never searched. The same
    answer as computing every figure first (the rows that can fit a roll count are the same)."""
    start = unit_lower_bound(inst)
    rows: list[list[list]] = []  # per sheet: [subset, block slots, figures or None]
    for p, units in enumerate(allowed):
        sheet = inst.sheets[p]
        rows.append([[subset, block_slots(sheet.board, units_target(inst, p, subset) & ~sheet.crossed) if subset else 0,
                      None if subset else NO_FIGURES]
                     for size in range(len(units) + 1) for subset in combinations(units, size)])

    def figures_within(rolls: int) -> list:
        for p, sheet_rows in enumerate(rows):
            for row in sheet_rows:
                if row[2] is None and row[1] <= rolls:
                    row[2] = sheet_figures(inst.sheets[p], units_target(inst, p, row[0]))
        return [[(subset, figures) for subset, _, figures in sheet_rows if figures is not None] for sheet_rows in rows]

    def solve(side: str, rolls: int):
        while True:
            known = figures_within(rolls)
            try:
                return pick_subsets_dp(inst, known, side, rolls, rolls)  # (only R = rolls: more rows fit above)
            except ValueError:
                pass
            later = [figures[1 if side == "lower" else 2] for sheet_rows in known for _, figures in sheet_rows] + \
                [slots for sheet_rows in rows for _, slots, figures in sheet_rows if figures is None]
            later = [r for r in later if r > rolls]
            if not later:
                raise InfeasibleError("no split meets the demands (a unit no sheet may take)")
            rolls = min(later)

    high_r, split, _ = solve("upper", start)
    exact_figures = all(f[1] == f[2] for sheet_rows in rows for _, _, f in sheet_rows if f is not None)
    low_r = high_r if exact_figures else solve("lower", start)[0]
    plans = _plans(inst, split, 0.0)
    upper = max(plan.rolls for plan in plans)
    lower = min(max(low_r, start), upper)
    method = "every split tried over the fewest crosses of every subset"
    if lower < upper:
        method += " (bounds: some rolls figures are intervals)"
    return Split(inst, lower, upper, plans, method)


def _meets(inst: SplitInstance, done: int) -> bool:
    """Whether the units of the bit mask ``done`` meet every demand (one of each group)."""
    groups: dict[int, bool] = {}
    for d in inst.demands:
        ok = sum(1 for u in d.units if done >> u & 1) >= d.need
        if d.group is None:
            if not ok:
                return False
        else:
            groups[d.group] = groups.get(d.group, False) or ok
    return all(groups.values())


def pick_subsets_dp(inst, figures, side: str, least: int = 0, most: int | None = None):
    """The optimum of :func:`pick_subsets` exactly, without a solver, for few units: for each
    roll count R (ascending, from ``least``), the fewest total crosses per set of units done,
    sheet by sheet, over the subsets whose rolls fit R; the first R where a set that meets the
    demands is reached is the fewest rolls (or ``least``), and that set's crosses the fewest at R;
    ValueError when none up to ``most``."""
    candidates = sorted({max(least, low if side == "lower" else high)
                         for rows in figures for _, (_, low, high, _) in rows})
    for rolls in candidates:
        if most is not None and rolls > most:
            break
        best: dict[int, tuple[int, tuple]] = {0: (0, ())}
        for rows in figures:
            grown: dict[int, tuple[int, tuple]] = {}
            fits = []
            for subset, (est, low, high, _) in rows:
                if (low if side == "lower" else high) <= rolls:
                    mask = 0
                    for u in subset:
                        mask |= 1 << u
                    fits.append((mask, est.lower if side == "lower" else est.upper, subset))
            for done, (crosses, picks) in best.items():
                for mask, more, subset in fits:
                    key = done | mask
                    if key not in grown or crosses + more < grown[key][0]:
                        grown[key] = (crosses + more, picks + (subset,))
            best = grown
        met = [(crosses, picks) for done, (crosses, picks) in best.items() if _meets(inst, done)]
        if met:
            return rolls, list(min(met, key=lambda item: item[0])[1]), "optimal"
    raise InfeasibleError("no split meets the demands (a unit no sheet may take)")


def pick_subsets(inst, figures, side: str, time_limit: float):
    """CP-SAT: one subset per sheet, demands met, minimise rolls (the lower or upper rolls
    figure of each subset) then crosses (:func:`pick_subsets_dp` where few units)."""
    if len(inst.units) <= DP_UNITS:
        return pick_subsets_dp(inst, figures, side)
    from ortools.sat.python import cp_model

    m = cp_model.CpModel()
    n = len(inst.sheets)
    rolls = m.NewIntVar(0, 10_000, "rolls")
    chosen = []
    covered: dict[int, list] = {u: [] for u in range(len(inst.units))}
    total_crosses = []
    for p in range(n):
        zs = []
        for s, (subset, (est, low, high, _)) in enumerate(figures[p]):
            z = m.NewBoolVar(f"z{p}_{s}")
            zs.append((z, subset, est))
            crosses = est.lower if side == "lower" else est.upper
            m.Add(rolls >= (low if side == "lower" else high)).OnlyEnforceIf(z)
            total_crosses.append(crosses * z)
            for u in subset:
                covered[u].append(z)
        m.AddExactlyOne(z for z, _, _ in zs)
        chosen.append(zs)
    _add_demands(m, inst, covered)
    m.Minimize(rolls * 10_000 + sum(total_crosses))
    solver = cp_solver(time_limit, 2, min_time=0.05)
    status = solver.Solve(m)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise InfeasibleError("no split meets the demands (a unit no sheet may take)")
    split = [next(subset for z, subset, _ in zs if solver.Value(z)) for zs in chosen]
    bound = int(solver.BestObjectiveBound()) // 10_000
    return (solver.Value(rolls) if status == cp_model.OPTIMAL else bound, split,
            "optimal" if status == cp_model.OPTIMAL else "feasible")


def _solve_cells(inst: SplitInstance, allowed: list[list[int]], time_limit: float, shortcut: bool = True) -> Split:
    """One cross variable per (sheet, open cell); a flow from the crossed region keeps every
    sheet's new cells connected to it (so they can be crossed one by one, anchored)."""
    lower_cheap = unit_lower_bound(inst)
    bound = "lower bound"
    raised = False  # raise_lower ran: its bound is final
    greedy = None
    seed = remembered_split(inst) if shortcut else None
    if seed is not None:  # the last split of the same units (a room after a tap): usually still good, or nearly
        cost = lambda p, units: upper_cost(inst, p, units)  # noqa: E731
        seed_rolls = max(cost(p, units)[0] for p, units in enumerate(seed))
        if seed_rolls > lower_cheap:  # lift the bound first: a search for a split below it hunts in vain
            lower_cheap, found, bound = raise_lower(inst, lower_cheap, seed_rolls, min(1.0, time_limit / 3))
            raised = True
            seed = found or seed
        seed = local_search(inst, seed, cost, Deadline(min(0.3, time_limit / 10) if raised else
                                                       min(0.08, time_limit / 30)), lower_cheap)
        greedy = seed  # (searched from a split of the same units: a fresh greedy one did worse in the bench rooms)
    found = None
    if greedy is None:
        def raise_first(split) -> int:  # lift the bound towards the greedy split's rolls
            nonlocal lower_cheap, found, bound, raised
            rolls = max(upper_cost(inst, p, units)[0] for p, units in enumerate(split))
            if shortcut and rolls > lower_cheap and not raised:
                lower_cheap, found, bound = raise_lower(inst, lower_cheap, rolls, min(1.0, time_limit / 3))
                raised = True
            return lower_cheap if found is None else 10**9  # (a split within the bound is known: no search)
        greedy = greedy_split(inst, allowed, time_limit / 3, enough=lower_cheap, lift=raise_first)
    greedy_plans = _plans(inst, found if found is not None else greedy, 0.0)
    greedy_rolls = max(plan.rolls for plan in greedy_plans)
    if shortcut and greedy_rolls > lower_cheap and not raised:
        lower_cheap, found, bound = raise_lower(inst, lower_cheap, greedy_rolls, min(1.0, time_limit / 3))
        if found is not None:
            greedy_plans = _plans(inst, found, 0.0)
            greedy_rolls = max(plan.rolls for plan in greedy_plans)
    if shortcut:
        remember_split(inst, [plan.units for plan in greedy_plans])
    if shortcut and greedy_rolls <= lower_cheap:  # bounds that meet: the split is proven, no solver needed
        return Split(inst, greedy_rolls, greedy_rolls, greedy_plans, f"greedy split meets the {bound}")
    from ortools.sat.python import cp_model

    m = cp_model.CpModel()
    n = len(inst.sheets)
    rolls = m.NewIntVar(0, 10_000, "rolls")
    covered: dict[int, list] = {u: [] for u in range(len(inst.units))}
    cross_vars = []
    take_vars = []
    all_crosses = []
    for p, sheet in enumerate(inst.sheets):
        board = sheet.board
        y = add_anchored_cells(m, sheet, str(p))  # the sheet's new cells, each anchored through the others
        crosses = sum(y.values())
        m.Add(CROSSES_PER_ROLL * rolls >= crosses)
        slots = []  # one block per roll: at least ceil(new cells of a block / 5) rolls per block
        for i, block in enumerate(board.blocks):
            in_block = [y[b] for b in bit_list(block.mask & ~sheet.crossed)]
            if in_block:
                slot = m.NewIntVar(0, rolls_for(len(in_block)), f"s{p}_{i}")
                m.Add(CROSSES_PER_ROLL * slot >= sum(in_block))
                slots.append(slot)
        m.Add(rolls >= sum(slots))
        all_crosses.append(crosses)
        takes = {}
        for u in allowed[p]:
            t = m.NewBoolVar(f"t{p}_{u}")
            for b in bit_list(inst.units[u].masks[p]):
                m.AddImplication(t, y[b])
            covered[u].append(t)
            takes[u] = t
        cross_vars.append(y)
        take_vars.append(takes)
    _add_demands(m, inst, covered)
    big = 1 + sum(len(y) for y in cross_vars)
    m.Minimize(rolls * big + sum(all_crosses))
    m.Add(rolls >= lower_cheap)
    for p, plan in enumerate(greedy_plans):  # the greedy split as the solver's first solution
        path = inst.sheets[p].board.mask_of(plan.crosses.cells)
        for b, var in cross_vars[p].items():
            m.AddHint(var, bool(path >> b & 1))
        for u, t in take_vars[p].items():
            m.AddHint(t, u in plan.units)
    solver = cp_solver(time_limit * 2 / 3, 2, min_time=0.05)
    status = solver.Solve(m)
    plans = greedy_plans
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        split = [tuple(u for u, t in takes.items() if solver.Value(t)) for takes in take_vars]
        found = _plans(inst, split, 0.0)
        if (max(p.rolls for p in found), sum(p.crosses.upper for p in found)) < \
                (max(p.rolls for p in plans), sum(p.crosses.upper for p in plans)):
            plans = found
    upper = max(plan.rolls for plan in plans)
    if status == cp_model.UNKNOWN or status == cp_model.FEASIBLE:
        lower = max(lower_cheap, math.ceil((solver.BestObjectiveBound() - (big - 1)) / big))
    elif status == cp_model.OPTIMAL:
        lower = solver.Value(rolls)
    else:
        raise InfeasibleError("no split meets the demands (a unit no sheet may take)")
    lower = min(lower, upper)
    method = "cp-sat over the cells of every sheet" + ("" if lower == upper else f" (bounds: {time_limit:g} s limit)")
    return Split(inst, lower, upper, plans, method)
