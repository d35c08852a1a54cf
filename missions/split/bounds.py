"""Lower bounds on a split's rolls without a split: every unit paid by its cheapest sheet, a
team's block slots per demand, and the cells a sheet must cross between its units (the
separators).
"""

from __future__ import annotations

from nochmal.bitsets import component_of
from nochmal.cache import Cache
from nochmal.missions.cpsolver import Deadline
from nochmal.missions.model import block_slots
from nochmal.missions.split.cpsat import _add_demands
from nochmal.missions.split.figures import _lower_figure, state_key
from nochmal.missions.split.instance import CROSSES_PER_ROLL, Demand, SplitInstance, units_target, rolls_for
from nochmal.sheet import Sheet


def unit_lower_bound(inst: SplitInstance) -> int:
    """A valid lower bound on the rolls: a demand's cheapest units' cells shared evenly by the
    sheets that may take them; each unit of a demand that needs all its units paid by its
    cheapest sheet; each sheet paying its own forced units together (rolls as in
    :func:`sheet_figures`: crosses and blocks); the blocks a demand touches shared evenly."""
    best = 0
    n = len(inst.sheets)
    for d in inst.demands:
        if d.group is not None:
            continue
        # the units of one objective are disjoint cells: together they cost at least their sizes,
        # shared by the sheets that may take them
        sizes = sorted(min(inst.units[u].masks[p].bit_count() for p in range(n) if inst.units[u].masks[p] is not None)
                       for u in d.units)
        takers = {p for u in d.units for p in range(n) if inst.units[u].masks[p] is not None}
        best = max(best, rolls_for(-(-sum(sizes[: d.need]) // len(takers))))
        best = max(best, -(-_team_block_rolls(inst, d) // len(takers)))
        if d.need < len(d.units):
            continue
        forced_on: dict[int, list[int]] = {}
        for u in d.units:
            allowed = [p for p in range(n) if inst.units[u].masks[p] is not None]
            if len(allowed) == 1:
                forced_on.setdefault(allowed[0], []).append(u)
            else:
                best = max(best, min(_lower_figure(inst.sheets[p], inst.units[u].masks[p]) for p in allowed))
        for p, units in forced_on.items():
            best = max(best, _lower_figure(inst.sheets[p], units_target(inst, p, units)))
    return best


def _team_block_rolls(inst: SplitInstance, d: Demand) -> int:
    """Rolls all sheets together spend at least on a demand, one block a roll: the cells every
    taker of a unit would cross lie in blocks, and each such block of a done unit costs some
    sheet a roll (block slots, missions.model.block_slots, when every unit is needed; else
    the fewest blocks that can touch ``need`` units)."""
    board = inst.sheets[0].board
    common = []
    for u in d.units:
        cells = -1
        for mask in inst.units[u].masks:
            if mask is not None:
                cells &= mask
        common.append(cells)
    if d.need >= len(d.units):
        union = 0
        for cells in common:
            union |= cells
        return block_slots(board, union)
    left = d.need - sum(1 for cells in common if not cells)
    touched = 0
    for count in sorted((sum(1 for cells in common if cells & block.mask) for block in board.blocks), reverse=True):
        if left <= 0 or count == 0:
            break
        left -= count
        touched += 1
    return touched


def reach_without(sheet: Sheet, removed: int) -> int:
    """Open cells a crossing sequence can reach from the anchored region without crossing any
    cell of ``removed``."""
    board = sheet.board
    allowed = board.full_mask & ~sheet.crossed & ~removed
    return component_of(sheet.anchored & allowed, allowed, board.neighbour_mask)


_UNKNOWN = object()  # (None is a remembered answer)
SEPARATORS = Cache("missions.split.separators", 512)  # separators by (board, crossed cells, the units' cells)


def separators(sheet: Sheet, masks: tuple[int, ...]) -> tuple[tuple[int, ...], ...] | None:
    """Per unit (by position in ``masks``, its open cells on ``sheet``) the units that separate
    it (:func:`separator_lower_bound`), or None where two units share cells; remembered per
    sheet state and units' cells, which is all it depends on (a room's unchanged sheets)."""
    key = state_key(sheet.board, sheet.crossed, masks)
    hit = SEPARATORS.get(key, _UNKNOWN)
    if hit is not _UNKNOWN:
        return hit
    union = 0
    found: tuple | None = None
    for mask in masks:
        if union & mask:
            break
        union |= mask
    else:
        by_u: list[list[int]] = [[] for _ in masks]
        for j, cut in enumerate(masks):
            reach = reach_without(sheet, cut)
            for u, mask in enumerate(masks):
                if u != j and mask & ~reach:
                    by_u[u].append(j)
        found = tuple(tuple(js) for js in by_u)
    SEPARATORS.put(key, found)
    return found


def separator_lower_bound(inst: SplitInstance, lower: int, upper: int, time_limit: float | Deadline = 1.0) -> int:
    """A lower bound on the rolls, at least ``lower`` and at most ``upper``, that sees the
    crosses a sheet spends between its units.

    On sheet q, unit j *separates* unit u when every crossing sequence that finishes u crosses
    a cell of j (u cannot be reached once j's open cells are taken away). A sheet that takes u
    but not j crosses at least one cell of j besides its own units' cells, and these cells are
    distinct for distinct j when the units' cells are disjoint, so

        crosses of q  >=  sum of the sizes of q's units + #{j not q's: j separates one of them}.

    For R = lower, lower + 1, ... below ``upper``: a small CP-SAT model (one boolean per sheet
    and unit, demands met, every sheet within 5 R crosses under that figure) that is
    infeasible proves that R rolls cannot do; the first R it cannot rule out (feasible, or
    undecided within the time limit) is the bound. Column relay is the case it is for: a
    sheet that takes column A but not B..G crosses a cell in each of them. ``lower`` when
    some sheet's units share cells (the count would not be valid). ``time_limit``: seconds, or
    a run's :class:`Deadline`."""
    from ortools.sat.python import cp_model

    n = len(inst.sheets)
    units = inst.units
    seps: list[dict[int, list[int]]] = []
    for q, sheet in enumerate(inst.sheets):
        mine = [u for u in range(len(units)) if units[u].masks[q] is not None and units[u].masks[q]]
        found = separators(sheet, tuple(units[u].masks[q] for u in mine))
        if found is None:
            return lower
        seps.append({mine[i]: [mine[j] for j in js] for i, js in enumerate(found)})
    deadline = time_limit if isinstance(time_limit, Deadline) else Deadline(time_limit)
    while lower < upper:
        m = cp_model.CpModel()
        capacity = CROSSES_PER_ROLL * lower
        covered: dict[int, list] = {u: [] for u in range(len(units))}
        for q in range(n):
            x = {}
            for u in seps[q]:
                if units[u].masks[q].bit_count() + len(seps[q][u]) <= capacity:  # alone it fits
                    x[u] = m.NewBoolVar(f"x{q}_{u}")
                    covered[u].append(x[u])
            load = [units[u].masks[q].bit_count() * var for u, var in x.items()]
            for j in {j for u in x for j in seps[q][u]}:
                z = m.NewBoolVar(f"z{q}_{j}")  # q crosses a cell of j without taking j
                for u in (u for u in x if j in seps[q][u]):
                    m.Add(z >= x[u] - x[j]) if j in x else m.Add(z >= x[u])
                load.append(z)
            m.Add(sum(load) <= capacity)
        for takers in covered.values():  # a unit taken twice only adds crosses (and this makes it fast)
            m.AddAtMostOne(takers)
        _add_demands(m, inst, covered)
        if deadline.solve(m)[1] != cp_model.INFEASIBLE:
            break
        lower += 1
    return lower
