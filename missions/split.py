"""Who should do what: the split of a mission's missing work across the team's sheets.

``mission status`` says how many further crosses ONE sheet would need to finish an objective
alone. A team wants more: which sheet takes which missing star, column, colour or cell so
that the whole mission is done in the fewest rolls. A sheet crosses at most 5 cells a roll
(one connected group of up to five in ONE block; dice are ignored, as in missions/measures/),
all sheets cross in the same roll, so the slowest sheet decides: a split needs the max over
sheets of the rolls that sheet's crosses take. A sheet's rolls (:func:`sheet_figures`) are at
least ``ceil(crosses / 5)`` and the block slots of its target (missions.model.block_slots), and
at most the fewest rolls of its crossing path (nochmal.impossible.rolls_needed: its pieces of
one block); where those differ, the piece search (nochmal.missions.measures.rolls.fewest_rolls: a Steiner
tree over the open parts of blocks) raises the one and offers a path of fewer pieces for the
other; exact when the two meet.

The instance is plain data (:class:`SplitInstance`): *units* (a missing item and, per sheet,
the open cells that sheet would have to cross for it, or None where it is not that sheet's
to do) and *demands* (at least ``need`` of some units done; demands of one ``group`` are
alternatives, one of them suffices: the ``any`` scope). Two exact models, both CP-SAT:

- **subsets** (few units per sheet): the fewest crosses of every subset of a sheet's units is
  computed once (missions/measures/crosses.py ``fewest_crosses``, exact or an interval), then a CP-SAT
  model picks one subset per sheet (up to 6 units in all, a programme over the sets of units
  done tries every split instead). Interval figures give two solves: on the lower figures
  (a lower bound on the rolls) and on the upper ones (a split that is really achievable).
- **cells** (many units, e.g. 15 stars): one CP-SAT model with a cross variable per open
  cell and sheet, connected to the crossed region by a single-commodity flow (a legal
  crossing order exists exactly when every new cell hangs off the anchored region), stopped
  by a time limit; then it reports the proven bound and the best split found.

Both minimise the rolls first, then the total crosses. Cheap valid lower bounds (every unit
must be paid by its cheapest sheet) guard both. Before building the cells model (bounds
that meet, fast paths for a room's status after each tap): a split is found by local search
(moves and swaps of units) from the last split of the same units or from a greedy one, and
its rolls are proven when they meet a lower bound: the cheap one, :func:`rolls_feasible`
(every subset of units that fits a roll count, listed, and one per sheet picked by a cover
search or CP-SAT; where a sheet's rolls figures straddle the count, the exact one-sheet
check nochmal.missions.measures.fits.fits_rolls decides) or, where that cannot decide,
:func:`separator_lower_bound` (the cells a sheet crosses between its units); only otherwise
does CP-SAT run on the cells. A room's statuses reuse what did not change: the listings per
sheet state (filtered for fewer rolls or units), the separators, a tapped sheet's paths of
its state before the tap, the last split of the same (or of more) units as the seed. A split proven this way
has the local search's total crosses, not a solver's minimum (the rolls are what is proven).
:func:`check_split` validates a split without any solver. The crossing path of each sheet is a real order (each cell anchored when
placed) from ``fewest_crosses`` on the sheet's chosen target.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from itertools import combinations

from nochmal.bitsets import bit_list, component_of
from nochmal.board import COLOURS, Board
from nochmal.impossible import block_pieces, rolls_needed
from nochmal.missions.anchored_cells import add_anchored_cells
from nochmal.missions.measures.crosses import CrossesEstimate, fewest_crosses
from nochmal.missions.measures.fits import entry_rolls_bound, fits_rolls
from nochmal.missions.measures.graphs import cross_distances
from nochmal.missions.measures.pair_bounds import pair_rolls_bounds
from nochmal.missions.measures.rolls import RollsEstimate, fewest_rolls, trimmed_rolls
from nochmal.missions.measures.steiner import crossing_order
from nochmal.missions.model import IN_PROGRESS, LOST, Mission, block_slots
from nochmal.missions.objectives import items_needed, objective_items, team_score
from nochmal.sheet import Sheet

CROSSES_PER_ROLL = 5  # docs/rules.md: a roll's placement is at most 5 cells (a number die shows 1-5 or '?')
SUBSET_LIMIT = 64  # subsets of one sheet's units up to which the subsets model runs (2^6)
SPLIT_SECONDS = 3.0  # CP-SAT time limit of one split
_FIGURE_EXACT_LIMIT = 8  # Dreyfus-Wagner terminals for the per-subset figures (3^8 work, milliseconds)


def rolls_for(crosses: int) -> int:
    """Rolls a sheet needs for ``crosses`` further crosses at 5 a roll."""
    return -(-crosses // CROSSES_PER_ROLL)


# --- the instance -------------------------------------------------------------------------
@dataclass(frozen=True)
class Unit:
    """One missing item: ``masks[p]`` are the cells sheet p would still cross for it (None:
    not sheet p's to do, e.g. another sheet's own column in an ``each`` objective)."""

    name: str
    objective: int
    masks: tuple[int | None, ...]


@dataclass(frozen=True)
class Demand:
    """At least ``need`` of ``units`` must be done; demands sharing a ``group`` are
    alternatives (one of them suffices)."""

    units: tuple[int, ...]
    need: int
    group: int | None = None


@dataclass(frozen=True)
class SplitInstance:
    sheets: tuple[Sheet, ...]
    units: tuple[Unit, ...]
    demands: tuple[Demand, ...]
    has_cells: bool = True  # False: the mission has no cell objectives (only score or jokers targets)


def split_instance(mission: Mission, sheets) -> SplitInstance:
    """Units and demands for every set objective (columns, colours, stars, cells) not yet met.

    team: each item no sheet has done is a unit any sheet may take (``need`` more of them);
    each: a sheet's own open items are units only it may take; any: per sheet one
    alternative demand over that sheet's open items. Score and jokers objectives have no
    cells to split (see :func:`score_bounds` and :func:`lost_early`).
    """
    sheets = tuple(sheets)
    n = len(sheets)
    units: list[Unit] = []
    demands: list[Demand] = []
    group = 0
    for k, obj in enumerate(mission.objectives):
        if obj.kind in ("score", "jokers_left"):
            continue
        items = objective_items(obj, sheets[0].board)
        need = items_needed(obj, items)
        done = [[m & ~s.crossed == 0 for _, m in items] for s in sheets]
        label = _item_label(obj.kind)
        if obj.scope == "team":
            pooled = [any(d[i] for d in done) for i in range(len(items))]
            more = need - sum(pooled)
            if more <= 0:
                continue
            ids = []
            for i, (name, mask) in enumerate(items):
                if not pooled[i]:
                    ids.append(len(units))
                    units.append(Unit(f"{label} {name}", k, tuple(mask & ~s.crossed for s in sheets)))
            demands.append(Demand(tuple(ids), more))
            continue
        per_sheet = []
        for p in range(n):
            more = need - sum(done[p])
            ids = []
            for i, (name, mask) in enumerate(items):
                if not done[p][i] and more > 0:
                    ids.append(len(units))
                    masks = tuple(mask & ~sheets[p].crossed if q == p else None for q in range(n))
                    units.append(Unit(f"{label} {name}", k, masks))
            per_sheet.append((tuple(ids), more))
        if obj.scope == "each":
            demands.extend(Demand(ids, more) for ids, more in per_sheet if more > 0)
        elif all(more > 0 for _, more in per_sheet):  # any: nobody has it yet
            demands.extend(Demand(ids, more, group) for ids, more in per_sheet)
            group += 1
    return SplitInstance(sheets, tuple(units), tuple(demands), has_cells=has_cell_objectives(mission))


def has_cell_objectives(mission: Mission) -> bool:
    """Whether the mission has anything to split (a score or jokers target has not)."""
    return any(obj.kind not in ("score", "jokers_left") for obj in mission.objectives)


def _item_label(kind: str) -> str:
    return {"columns": "column", "colours": "colour", "stars": "star", "cells": "cell"}[kind]


# --- the answer -----------------------------------------------------------------------------
@dataclass(frozen=True)
class SheetPlan:
    """What one sheet should do: its units, the crosses (exact or an interval) and a path."""

    units: tuple[int, ...]
    crosses: CrossesEstimate
    rolls_lower: int = 0  # the fewest rolls for these units: at least this (sheet_figures) ...
    rolls_upper: int = 0  # ... and the crossing path takes this many (one block per roll)

    @property
    def rolls(self) -> int:
        return self.rolls_upper

    def rolls_text(self) -> str:
        return str(self.rolls_upper) if self.rolls_lower == self.rolls_upper else \
            f"{self.rolls_lower}..{self.rolls_upper}"


@dataclass(frozen=True)
class Split:
    """The fewest rolls that finish the set objectives: ``rolls_lower`` .. ``rolls_upper``
    (equal when proven), and the plan per sheet that achieves ``rolls_upper``."""

    instance: SplitInstance
    rolls_lower: int
    rolls_upper: int
    plans: tuple[SheetPlan, ...]
    method: str

    @property
    def exact(self) -> bool:
        return self.rolls_lower == self.rolls_upper

    def to_dict(self) -> dict:
        inst = self.instance
        return {
            "has_cells": inst.has_cells,
            "rolls": self.rolls_upper if self.exact else None, "exact": self.exact,
            "rolls_lower": self.rolls_lower, "rolls_upper": self.rolls_upper, "method": self.method,
            "sheets": [{"sheet": p + 1, "items": [inst.units[u].name for u in plan.units],
                        "crosses": plan.crosses.to_dict(), "rolls": plan.rolls,
                        "rolls_lower": plan.rolls_lower}
                       for p, plan in enumerate(self.plans)],
        }

    def lines(self) -> list[str]:
        """Human-readable lines: the total, then one line per sheet with work to do."""
        inst = self.instance
        if not inst.has_cells:
            return ["nothing to split: the mission has no cell objectives (columns, colours, stars, cells)"]
        if not inst.demands:
            return ["nothing left to split: every cell objective is met"]
        total = str(self.rolls_upper) if self.exact else f"{self.rolls_lower}..{self.rolls_upper} (bounds)"
        out = [f"fewest rolls for the cell objectives: {total} (slowest sheet; at most "
               f"{CROSSES_PER_ROLL} crosses a roll, all in one block; {self.method})"]
        for p, plan in enumerate(self.plans):
            if not plan.units:
                out.append(f"  sheet {p + 1}: nothing needed")
                continue
            longer = len(plan.crosses.cells) > plan.crosses.upper  # the path trades crosses for rolls
            out.append(f"  sheet {p + 1}: {', '.join(inst.units[u].name for u in plan.units)} — "
                       f"{plan.crosses.text()} crosses" + (f" (the path: {len(plan.crosses.cells)}, in fewer rolls)"
                                                           if longer else "") + f", {plan.rolls_text()} roll(s)")
        return out


def check_split(inst: SplitInstance, assignment: list[tuple[int, ...]]) -> list[str]:
    """Solver-free check that an assignment of units to sheets meets every demand (empty: ok)."""
    problems = []
    done = set()
    for p, units in enumerate(assignment):
        for u in units:
            if inst.units[u].masks[p] is None:
                problems.append(f"{inst.units[u].name} is not sheet {p + 1}'s to do")
            done.add(u)
    groups: dict[int, bool] = {}
    for d in inst.demands:
        ok = sum(1 for u in d.units if u in done) >= d.need
        if d.group is None:
            if not ok:
                problems.append(f"only {sum(1 for u in d.units if u in done)} of {d.need} needed units done")
        else:
            groups[d.group] = groups.get(d.group, False) or ok
    problems.extend(f"no sheet meets alternative group {g}" for g, ok in groups.items() if not ok)
    return problems


# --- per-sheet figures (cached per sheet state) ------------------------------------------------
_FIGURES: OrderedDict = OrderedDict()
_FIGURES_LOCK = threading.Lock()
_FIGURES_MAX = 200_000


def _state_key(board: Board, crossed: int, *rest) -> tuple:
    """The key of this module's per-sheet-state caches: the board's layout (two boards may
    share a name; a freed board's id may come back), the crossed cells, then what the entry
    depends on besides."""
    return (board.layout_id, crossed, *rest)


def sheet_figures(sheet: Sheet, target: int, time_limit: float = 0.0) -> tuple[CrossesEstimate, int, int, tuple]:
    """``fewest_crosses`` and the rolls it takes, cached per (board, crossed cells, target, time
    limit): a room asks the same figures again after every tap on another sheet.

    The rolls are (lower, upper): every roll crosses at most 5 cells, all in one block, so at
    least ``ceil(lower crosses / 5)`` and the target's block slots; the witness path takes its
    fewest pieces of one block (rolls_needed of its cells, bridging off: always legal). When
    they differ, fewest_rolls' bounds (pieces of blocks) tighten both, and the last entry is
    the path that takes the upper rolls (the fewest-crosses path unless one of fewer pieces)."""
    key = _state_key(sheet.board, sheet.crossed, target, time_limit)
    with _FIGURES_LOCK:
        hit = _FIGURES.get(key)
        if hit is not None:
            _FIGURES.move_to_end(key)
            return hit
    est = fewest_crosses(sheet, target, _FIGURE_EXACT_LIMIT if time_limit == 0 else 12, time_limit)
    board = sheet.board
    lower = max(rolls_for(est.lower), block_slots(board, target & ~sheet.crossed))
    upper = rolls_needed(board, board.mask_of(est.cells)).upper
    path = est.cells
    if upper > lower:  # the fewest crosses take more pieces than the bound sees: search on pieces
        pieces = sheet_pieces(sheet, target)
        lower = max(lower, pieces.lower)
        if pieces.upper < upper:  # that path, trimmed of crosses the rolls do not need
            trimmed = trimmed_rolls(sheet, target, pieces)
            upper, path = trimmed.upper, crossing_order(sheet, trimmed.cells)
    figures = (est, lower, max(lower, upper), path)
    with _FIGURES_LOCK:
        _FIGURES[key] = figures
        if len(_FIGURES) > _FIGURES_MAX:
            _FIGURES.popitem(last=False)
    return figures


_NO_FIGURES = (CrossesEstimate(0, 0), 0, 0, ())  # sheet_figures of nothing to do
_PIECES: OrderedDict = OrderedDict()


def sheet_pieces(sheet: Sheet, target: int) -> RollsEstimate:
    """fewest_rolls (bounds on the rolls by pieces of one block), cached as :func:`sheet_figures`;
    a few milliseconds where the crosses take tens: :func:`_subsets_within` prunes by it first.
    Where its bounds differ, the lower one is lifted by measures.fits.entry_rolls_bound (what
    entering a target's block costs): a tapped sheet's listing then drops or settles most of
    the subsets that would otherwise take the crosses' programme (column relay's first taps)."""
    key = _state_key(sheet.board, sheet.crossed, target)
    with _FIGURES_LOCK:
        hit = _PIECES.get(key)
        if hit is not None:
            _PIECES.move_to_end(key)
            return hit
    pieces = fewest_rolls(sheet, target, trim=False)
    if pieces.lower < pieces.upper:
        lower = entry_rolls_bound(sheet, target)
        if lower > pieces.lower:
            assert lower <= pieces.upper, (lower, pieces)  # (a bound above a real path's rolls would be a bug)
            pieces = RollsEstimate(lower, pieces.upper, pieces.cells)
    with _FIGURES_LOCK:
        _PIECES[key] = pieces
        if len(_PIECES) > _FIGURES_MAX:
            _PIECES.popitem(last=False)
    return pieces


def sheet_crosses(sheet: Sheet, target: int, time_limit: float = 0.0) -> CrossesEstimate:
    """The cached ``fewest_crosses`` of :func:`sheet_figures`."""
    return sheet_figures(sheet, target, time_limit)[0]


def _target(inst: SplitInstance, p: int, units) -> int:
    mask = 0
    for u in units:
        mask |= inst.units[u].masks[p]
    return mask


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
            best = max(best, _lower_figure(inst.sheets[p], _target(inst, p, units)))
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


def _reach_without(sheet: Sheet, removed: int) -> int:
    """Open cells a crossing sequence can reach from the anchored region without crossing any
    cell of ``removed``."""
    board = sheet.board
    allowed = board.full_mask & ~sheet.crossed & ~removed
    return component_of(sheet.anchored & allowed, allowed, board.neighbour_mask)


_SEPARATORS: OrderedDict = OrderedDict()  # _separators by (board, crossed cells, the units' cells)
_SEPARATORS_MAX = 512


def _separators(sheet: Sheet, masks: tuple[int, ...]) -> tuple[tuple[int, ...], ...] | None:
    """Per unit (by position in ``masks``, its open cells on ``sheet``) the units that separate
    it (:func:`separator_lower_bound`), or None where two units share cells; remembered per
    sheet state and units' cells, which is all it depends on (a room's unchanged sheets)."""
    key = _state_key(sheet.board, sheet.crossed, masks)
    with _FIGURES_LOCK:
        if key in _SEPARATORS:
            _SEPARATORS.move_to_end(key)
            return _SEPARATORS[key]
    union = 0
    found: tuple | None = None
    for mask in masks:
        if union & mask:
            break
        union |= mask
    else:
        by_u: list[list[int]] = [[] for _ in masks]
        for j, cut in enumerate(masks):
            reach = _reach_without(sheet, cut)
            for u, mask in enumerate(masks):
                if u != j and mask & ~reach:
                    by_u[u].append(j)
        found = tuple(tuple(js) for js in by_u)
    with _FIGURES_LOCK:
        _SEPARATORS[key] = found
        if len(_SEPARATORS) > _SEPARATORS_MAX:
            _SEPARATORS.popitem(last=False)
    return found


def separator_lower_bound(inst: SplitInstance, lower: int, upper: int, time_limit: float = 1.0) -> int:
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
    some sheet's units share cells (the count would not be valid)."""
    import time

    from ortools.sat.python import cp_model

    n = len(inst.sheets)
    units = inst.units
    seps: list[dict[int, list[int]]] = []
    for q, sheet in enumerate(inst.sheets):
        mine = [u for u in range(len(units)) if units[u].masks[q] is not None and units[u].masks[q]]
        found = _separators(sheet, tuple(units[u].masks[q] for u in mine))
        if found is None:
            return lower
        seps.append({mine[i]: [mine[j] for j in js] for i, js in enumerate(found)})
    deadline = time.monotonic() + time_limit
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
        if _until(deadline).Solve(m) != cp_model.INFEASIBLE:
            break
        lower += 1
    return lower


def _rolls_figures(sheet: Sheet, target: int) -> tuple[int, int]:
    """The (lower, upper) rolls of :func:`sheet_figures`, from the piece search alone where its
    bounds meet (then they are the rolls, and sheet_figures' too: its lower figure takes the
    piece search's lower bound wherever its own bounds differ): no crosses programme."""
    pieces = sheet_pieces(sheet, target)
    if pieces.lower == pieces.upper:
        return pieces.lower, pieces.upper
    return sheet_figures(sheet, target)[1:3]


def _lower_figure(sheet: Sheet, target: int) -> int:
    """The lower rolls figure of :func:`sheet_figures`: its remembered entry, else by
    :func:`_rolls_figures` (the piece search alone where that decides it)."""
    with _FIGURES_LOCK:
        hit = _FIGURES.get(_state_key(sheet.board, sheet.crossed, target, 0.0))
    return hit[1] if hit is not None else _rolls_figures(sheet, target)[0]


_MOVED: OrderedDict = OrderedDict()  # a moved path (legal new cells holding the target) by (board, crossed, target)
_STATES: OrderedDict = OrderedDict()  # the sheet states listed lately, per board: where moved paths come from
_STATE_BOARDS = 64  # layouts _STATES keeps (a server sees one per user board)
_MOVE_CELLS = 4  # new crosses up to which an earlier state's paths are moved (2^4 targets looked up per subset)


def _earlier_state(sheet: Sheet) -> tuple[int, list[int]] | None:
    """The latest listed state of this board whose crosses the sheet holds, with at most
    _MOVE_CELLS more (the same seat before its last tap, usually): (its crossed cells, every
    subset of the new crosses), or None. Remembers the sheet's own state for the next tap."""
    with _FIGURES_LOCK:
        states = _STATES.setdefault(sheet.board.layout_id, OrderedDict())
        _STATES.move_to_end(sheet.board.layout_id)
        while len(_STATES) > _STATE_BOARDS:
            _STATES.popitem(last=False)
        states[sheet.crossed] = True
        states.move_to_end(sheet.crossed)
        while len(states) > 64:
            states.popitem(last=False)
        earlier = [c for c in states if c != sheet.crossed and c & ~sheet.crossed == 0 and
                   (sheet.crossed & ~c).bit_count() <= _MOVE_CELLS]
    if not earlier:
        return None
    crossed = earlier[-1]
    new = bit_list(sheet.crossed & ~crossed)
    return crossed, [sum(1 << b for i, b in enumerate(new) if pick >> i & 1) for pick in range(1 << len(new))]


def _moved_rolls(sheet: Sheet, target: int, earlier: tuple[int, list[int]]) -> int | None:
    """Rolls within which the sheet surely crosses ``target``, from a path of an earlier state
    of it (:func:`_earlier_state`, its path for the target plus any of the new crosses): that
    path less the cells crossed since. Such a set stays legal (a part of a path's piece cut
    off by a new cross touches that cross: anchored), which is checked, and takes its fewest
    pieces of one block (nochmal/impossible.py); remembered for the next tap. None: no
    earlier path known."""
    board = sheet.board
    crossed, extras = earlier
    with _FIGURES_LOCK:
        for extra in extras:
            old_key = _state_key(board, crossed, target | extra)
            hit = _PIECES.get(old_key)
            cells = hit.cells if hit is not None else _MOVED.get(old_key)
            if cells is not None:
                break
        else:
            return None
    cells &= ~sheet.crossed
    if target & ~sheet.crossed & ~cells or component_of(cells & sheet.anchored, cells, board.neighbour_mask) != cells:
        return None
    with _FIGURES_LOCK:
        _MOVED[_state_key(board, sheet.crossed, target)] = cells
        if len(_MOVED) > _FIGURES_MAX:
            _MOVED.popitem(last=False)
    return block_pieces(board, cells)[1]


def _tighten_upper(sheet: Sheet, target: int, cells: int) -> None:
    """Tell :func:`sheet_figures` of a legal set of new cells holding ``target`` (an exact
    check's or a moved path) where it takes fewer rolls than its own path."""
    est, lower, upper, path = sheet_figures(sheet, target)
    took = rolls_needed(sheet.board, cells).upper
    if took < upper:
        with _FIGURES_LOCK:
            _FIGURES[_state_key(sheet.board, sheet.crossed, target, 0.0)] = \
                (est, lower, max(lower, took), crossing_order(sheet, cells))


_LISTINGS: OrderedDict = OrderedDict()  # complete listings of _subsets_within, by sheet state, units and rolls
_LISTINGS_MAX = 512  # (a listing holds up to a few hundred rows: tens of kB; a room asks ~12 per status)


def _subsets_within(inst: SplitInstance, p: int, rolls: int, budget: list[int], deadline: float) -> list | None:
    """Every subset of sheet p's units that may fit ``rolls`` rolls (lower rolls figure of
    :func:`sheet_figures` <= rolls), with its rolls figures (lower, upper); grown size by size
    from the subsets listed one size smaller, and only where each of those that it holds is
    listed (a superset never needs fewer rolls: one that holds a subset that cannot fit cannot
    either, so every subset that really fits is listed). None when ``budget`` (figures
    left to compute, shared by the sheets) runs out or at ``deadline`` (time.monotonic).

    A complete listing is remembered per (board, crossed cells, the units' cells on this sheet
    in order, rolls): everything it depends on, so a room asks it again after a tap on another
    sheet and gets it without a figure (a remembered listing spends no budget), or filtered
    from one of the same sheet state for more rolls or more units (:func:`_filtered_listing`:
    a column another sheet finished since leaves this sheet's listing valid)."""
    import time

    sheet = inst.sheets[p]
    units = [u for u in range(len(inst.units)) if inst.units[u].masks[p] is not None and inst.units[u].masks[p]]
    masks = tuple(inst.units[u].masks[p] for u in units)
    key = _state_key(sheet.board, sheet.crossed, masks, rolls)
    with _FIGURES_LOCK:
        hit = _LISTINGS.get(key)
        if hit is not None:
            _LISTINGS.move_to_end(key)
    if hit is None:
        hit = _filtered_listing(key, sheet)
        if hit is not None:
            with _FIGURES_LOCK:
                _LISTINGS[key] = hit
                if len(_LISTINGS) > _LISTINGS_MAX:
                    _LISTINGS.popitem(last=False)
    if hit is not None:
        return [(tuple(units[i] for i in subset), figures) for subset, figures in hit]
    found = [((), (0, 0))]
    level = {(): 0}  # the listed subsets of the last size, with their cells
    board = sheet.board
    earlier = _earlier_state(sheet)
    pairs = None  # measures.pair_bounds.pair_rolls_bounds of the units, worked out when first wanted
    while level:
        listed = set(level)
        grown_level = {}
        for subset, target in level.items():
            for i in range(subset[-1] + 1 if subset else 0, len(units)):
                grown = subset + (i,)
                # a subset whose every smaller subset fits may fit; one that holds a subset that cannot
                # fit (its rolls only grow with more units) cannot, and is not computed
                if any(grown[:k] + grown[k + 1:] not in listed for k in range(len(subset))):
                    continue
                if budget[0] <= 0 or time.monotonic() > deadline:
                    return None
                budget[0] -= 1
                grown_target = target | masks[i]
                slots = block_slots(board, grown_target & ~sheet.crossed)
                if slots > rolls:
                    continue
                if pairs is None:
                    pairs = pair_rolls_bounds(sheet, masks)
                if pairs.lower(grown) > rolls:  # (the part graph alone rules out most of the subsets that
                    continue  # cannot fit, without a piece search: ones that search would rule out too)
                moved = _moved_rolls(sheet, grown_target, earlier) if earlier is not None else None
                if moved is not None and moved <= rolls:  # surely fits: (a lower bound, the moved path's rolls)
                    found.append((grown, (slots, moved)))
                    grown_level[grown] = grown_target
                    continue
                if sheet_pieces(sheet, grown_target).lower > rolls:
                    continue  # (cheap lower bounds first: the crosses' programme is the slow part)
                figures = _rolls_figures(sheet, grown_target)
                if figures[0] <= rolls:
                    found.append((grown, figures))
                    grown_level[grown] = grown_target
        level = grown_level
    with _FIGURES_LOCK:
        _LISTINGS[key] = found
        if len(_LISTINGS) > _LISTINGS_MAX:
            _LISTINGS.popitem(last=False)
    return [(tuple(units[i] for i in subset), figures) for subset, figures in found]


def _filtered_listing(key: tuple, sheet: Sheet) -> list | None:
    """A listing for ``key`` (as :func:`_subsets_within` keys them) filtered from a remembered
    one of the same sheet state for at least these rolls and at least these units (a unit
    done since by another sheet, or the count one roll lower): its rows on these units that
    fit the rolls and whose every subset one unit smaller is kept. The same subsets as a
    fresh listing: a figure depends on the sheet and the units' cells only, a row that fits
    fewer rolls fitted the more, and the cheap bounds a fresh listing tries first (block
    slots, the pieces' lower bound) never exceed the lower figure. A row whose path does not
    fit the fewer rolls is decided by the fresh listing's figures (a moved path's row holds
    block slots as its lower figure, :func:`_moved_rolls`). None: no such listing remembered."""
    *state, masks, rolls = key
    best = None
    with _FIGURES_LOCK:
        remembered = list(_LISTINGS.items())
    for (*other, src, more), rows in remembered:
        if other != state or more < rolls or len(src) < len(masks) or (best is not None and more >= best[0]):
            continue
        where, j = [], 0  # masks as an ordered sub-sequence of src (units keep their order)
        for mask in masks:
            while j < len(src) and src[j] != mask:
                j += 1
            if j == len(src):
                break
            where.append(j)
            j += 1
        else:
            best = more, where, rows, src
    if best is None:
        return None
    _, where, rows, src = best
    index = {j: i for i, j in enumerate(where)}
    kept = {()}
    out = []
    for subset, figures in rows:  # (sizes ascending: a row's smaller subsets are decided before it)
        if subset and (any(j not in index for j in subset) or
                       any(subset[:k] + subset[k + 1:] not in kept for k in range(len(subset)))):
            continue
        if subset and figures[1] > rolls:
            target = 0
            for j in subset:
                target |= src[j]
            if sheet_pieces(sheet, target).lower > rolls:
                continue
            figures = _rolls_figures(sheet, target)
        if figures[0] > rolls:
            continue
        kept.add(subset)
        out.append((tuple(index[j] for j in subset), figures))
    return out


def rolls_feasible(inst: SplitInstance, rolls: int, budget: int = 40_000,
                   time_limit: float = 1.0) -> tuple[bool | None, list[tuple[int, ...]] | None]:
    """Whether some split finishes within ``rolls`` rolls, decided exactly where few subsets of
    units may fit the rolls (a late game, or stars from nearby): every such subset of
    every sheet is listed (:func:`_subsets_within`) and one per sheet that meets the demands
    is picked (:func:`_pick_one_each`: a cover search, or CP-SAT); a picked subset whose
    rolls figures straddle ``rolls`` is decided exactly (:func:`_fits_exactly`) and the pick repeated. (False, None): no split can (a
    proven lower bound of rolls + 1); (True, assignment): this split does, every sheet's
    upper rolls figure within the rolls; (None, None): undecided (too many subsets, or the
    time limit)."""
    import time

    deadline = time.monotonic() + time_limit
    left = [budget]
    options = []
    for p in range(len(inst.sheets)):
        rows = _subsets_within(inst, p, rolls, left, deadline)
        if rows is None:
            return None, None
        options.append(rows)
    # The demands only ask for units done, so a sheet may as well take a largest subset that
    # fits: the picks run over the maximal ones (by inclusion), first those that may fit (lower
    # figures: none meets the demands -> no split can), then those whose path fits (upper).
    status, chosen = _pick_one_each(inst, [_maximal(rows) for rows in options], deadline, rolls)
    if status is False or status is None:
        return status, None
    if any(figures[1] > rolls for _, figures in chosen):
        sure, picked = _pick_one_each(inst, [_maximal([r for r in rows if r[1][1] <= rolls]) for rows in options],
                                      deadline, rolls)
        if sure:
            chosen = picked
    while any(figures[1] > rolls for _, figures in chosen):  # picks whose figures straddle the rolls: decide them
        for p, (subset, figures) in enumerate(chosen):
            if figures[1] <= rolls:
                continue
            fits = _fits_exactly(inst, p, subset, rolls, deadline)
            if fits is None:
                return None, None
            target = _target(inst, p, subset)
            for q in range(len(inst.sheets)):  # (the same verdict for every sheet in the same state: twins stay twins)
                if q != p and (inst.sheets[q].crossed != inst.sheets[p].crossed or inst.sheets[q].board is not
                               inst.sheets[p].board or any(inst.units[u].masks[q] is None for u in subset) or
                               _target(inst, q, subset) != target):
                    continue
                if fits:  # its path now takes at most the rolls (sheet_figures knows it)
                    options[q] = [(s, (f[0], rolls) if s == subset else f) for s, f in options[q]]
                else:  # it cannot, nor can any subset that holds it
                    options[q] = [(s, f) for s, f in options[q] if not set(subset) <= set(s)]
        status, chosen = _pick_one_each(inst, [_maximal(rows) for rows in options], deadline, rolls)
        if status is False or status is None:
            return status, None
    for p, (subset, figures) in enumerate(chosen):  # a moved path within the rolls: the plans take it
        if subset and figures[1] <= rolls:
            sheet = inst.sheets[p]
            with _FIGURES_LOCK:
                cells = _MOVED.get(_state_key(sheet.board, sheet.crossed, _target(inst, p, subset)))
            if cells is not None:
                _tighten_upper(sheet, _target(inst, p, subset), cells)
    return True, _without_repeats(inst, [subset for subset, _ in chosen], rolls)


_FITS: OrderedDict = OrderedDict()  # fits_rolls verdicts by (board, crossed cells, target, rolls)


def _fits_exactly(inst: SplitInstance, p: int, subset, rolls: int, deadline: float) -> bool | None:
    """Whether sheet p can do ``subset`` within ``rolls`` rolls, exactly (measures.fits.fits_rolls),
    remembered; the answer tightens :func:`sheet_figures` (a path within the rolls, or a lower
    figure above them), so that the plans and later bounds use it."""
    sheet = inst.sheets[p]
    target = _target(inst, p, subset)
    key = _state_key(sheet.board, sheet.crossed, target, rolls)
    with _FIGURES_LOCK:
        known = _FITS.get(key)
    if known is not None:
        return known
    fits, cells = fits_rolls(sheet, target, rolls, max(0.01, deadline - time.monotonic()))
    if fits is None:
        return None
    if fits:
        _tighten_upper(sheet, target, cells)
    else:
        est, lower, upper, path = sheet_figures(sheet, target)
        lower = max(lower, rolls + 1)
        with _FIGURES_LOCK:
            _FIGURES[_state_key(sheet.board, sheet.crossed, target, 0.0)] = \
                (est, lower, max(upper, lower), path)
    with _FIGURES_LOCK:
        _FITS[key] = fits
        if len(_FITS) > _FIGURES_MAX:
            _FITS.popitem(last=False)
    return fits


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


_COVER_NODES = 20_000  # nodes of _pick_cover's search before CP-SAT takes over


def _pick_cover(inst: SplitInstance, options: list[list], rolls: int, deadline: float,
                max_nodes: int = _COVER_NODES) -> tuple[bool, list | None] | None:
    """:func:`_pick_one_each` by a search where every demand needs all its units (column relay,
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
        if nodes > max_nodes or (nodes & 63 == 0 and time.monotonic() > deadline):
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


def _pick_one_each(inst: SplitInstance, options: list[list], deadline: float,
                   rolls: int | None = None) -> tuple[bool | None, list | None]:
    """One row per sheet so that the demands are met: :func:`_pick_cover` where it applies
    (``rolls`` given), else CP-SAT. (True, the rows), (False, None) when none can, (None,
    None) at ``deadline``."""
    if rolls is not None:
        found = _pick_cover(inst, options, rolls, deadline)
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
    solver = _until(deadline)
    status = solver.Solve(m)
    if status == cp_model.INFEASIBLE:
        return False, None
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None, None
    return True, [rows[next(i for i, z in enumerate(zs) if solver.Value(z))] for rows, zs in zip(options, picks)]


def _without_repeats(inst: SplitInstance, assignment: list[tuple[int, ...]], rolls: int) -> list[tuple[int, ...]]:
    """A unit that largest subsets give to several sheets stays with one: dropped from the
    others where their path then still takes at most ``rolls`` (upper figure)."""
    out = [list(units) for units in assignment]
    for u in range(len(inst.units)):
        holders = [p for p, units in enumerate(out) if u in units]
        for p in holders[1:]:
            rest = [v for v in out[p] if v != u]
            if _upper_cost(inst, p, rest)[0] <= rolls:
                out[p] = rest
    return [tuple(units) for units in out]


# --- solving ----------------------------------------------------------------------------------
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


def _plans(inst: SplitInstance, assignment: list[tuple[int, ...]], time_limit: float) -> tuple[SheetPlan, ...]:
    """Per sheet: its units with a real crossing path that takes its upper rolls (fewest_crosses
    on the union, or fewest_rolls' path where that takes fewer pieces) and its rolls."""
    plans = []
    for p, units in enumerate(assignment):
        est, low, high, cells = sheet_figures(inst.sheets[p], _target(inst, p, units), time_limit) if units else \
            _NO_FIGURES
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
            raise ValueError("the path's cells are not connected to the crossed region")
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
    if len(inst.units) <= _DP_UNITS:
        return _solve_subsets_lazily(inst, allowed)
    figures: list[list[tuple[tuple[int, ...], tuple[CrossesEstimate, int, int]]]] = []
    for p, units in enumerate(allowed):
        rows = []
        for size in range(len(units) + 1):
            for subset in combinations(units, size):
                target = _target(inst, p, subset)
                rows.append((subset, sheet_figures(inst.sheets[p], target) if subset else _NO_FIGURES))
        figures.append(rows)
    exact_figures = all(low == high for rows in figures for _, (_, low, high, _) in rows)
    high_r, assignment, high_status = _pick_subsets(inst, figures, "upper", time_limit)
    if exact_figures:
        low_r, low_status = high_r, high_status
    else:
        low_r, _, low_status = _pick_subsets(inst, figures, "lower", time_limit)
    plans = _plans(inst, assignment, 0.0)
    upper = max(plan.rolls for plan in plans)
    lower = max(low_r, unit_lower_bound(inst))
    lower = min(lower, upper)
    method = ("every split tried over the fewest crosses of every subset" if len(inst.units) <= _DP_UNITS else
              "cp-sat over the fewest crosses of every subset")
    if lower < upper:
        method += " (bounds: some rolls figures are intervals)" if not exact_figures else " (bounds: time limit)"
    return Split(inst, lower, upper, plans, method)


_DP_UNITS = 6  # units up to which _pick_subsets runs a programme over the units done (2^6 states) instead of CP-SAT


def _solve_subsets_lazily(inst: SplitInstance, allowed: list[list[int]]) -> Split:
    """The subsets model for few units with :func:`_pick_subsets_dp`'s programme, computing a
    subset's figures only once the roll count reaches its block slots (a lower figure never
    below them): the roll counts start at :func:`unit_lower_bound` (the optimum is never
    below it), so the subsets too large to fit the answer are never searched. The same
    answer as computing every figure first (the rows that can fit a roll count are the same)."""
    start = unit_lower_bound(inst)
    rows: list[list[list]] = []  # per sheet: [subset, block slots, figures or None]
    for p, units in enumerate(allowed):
        sheet = inst.sheets[p]
        rows.append([[subset, block_slots(sheet.board, _target(inst, p, subset) & ~sheet.crossed) if subset else 0,
                      None if subset else _NO_FIGURES]
                     for size in range(len(units) + 1) for subset in combinations(units, size)])

    def figures_within(rolls: int) -> list:
        for p, sheet_rows in enumerate(rows):
            for row in sheet_rows:
                if row[2] is None and row[1] <= rolls:
                    row[2] = sheet_figures(inst.sheets[p], _target(inst, p, row[0]))
        return [[(subset, figures) for subset, _, figures in sheet_rows if figures is not None] for sheet_rows in rows]

    def solve(side: str, rolls: int):
        while True:
            known = figures_within(rolls)
            try:
                return _pick_subsets_dp(inst, known, side, rolls, rolls)  # (only R = rolls: more rows fit above)
            except ValueError:
                pass
            later = [figures[1 if side == "lower" else 2] for sheet_rows in known for _, figures in sheet_rows] + \
                [slots for sheet_rows in rows for _, slots, figures in sheet_rows if figures is None]
            later = [r for r in later if r > rolls]
            if not later:
                raise ValueError("no split meets the demands (a unit no sheet may take)")
            rolls = min(later)

    high_r, assignment, _ = solve("upper", start)
    exact_figures = all(f[1] == f[2] for sheet_rows in rows for _, _, f in sheet_rows if f is not None)
    low_r = high_r if exact_figures else solve("lower", start)[0]
    plans = _plans(inst, assignment, 0.0)
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


def _pick_subsets_dp(inst, figures, side: str, least: int = 0, most: int | None = None):
    """The optimum of :func:`_pick_subsets` exactly, without a solver, for few units: for each
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
    raise ValueError("no split meets the demands (a unit no sheet may take)")


def _pick_subsets(inst, figures, side: str, time_limit: float):
    """CP-SAT: one subset per sheet, demands met, minimise rolls (the lower or upper rolls
    figure of each subset) then crosses (:func:`_pick_subsets_dp` where few units)."""
    if len(inst.units) <= _DP_UNITS:
        return _pick_subsets_dp(inst, figures, side)
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
    solver = _solver(time_limit)
    status = solver.Solve(m)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise ValueError("no split meets the demands (a unit no sheet may take)")
    assignment = [next(subset for z, subset, _ in zs if solver.Value(z)) for zs in chosen]
    bound = int(solver.BestObjectiveBound()) // 10_000
    return (solver.Value(rolls) if status == cp_model.OPTIMAL else bound, assignment,
            "optimal" if status == cp_model.OPTIMAL else "feasible")


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


def greedy_split(inst: SplitInstance, allowed: list[list[int]], seconds: float = 1.0,
                 enough: int = 0, lift=None) -> list[tuple[int, ...]]:
    """A good split fast (an upper bound and the CP-SAT hint): units go, hardest first, to the
    sheet where the slowest sheet grows least; then :func:`local_search` moves and swaps
    units while that lowers (rolls, crosses). Demands that need only some units take their cheapest ones;
    of alternative demands, the cheapest alternative. The search stops as soon as the split
    needs at most ``enough`` rolls (a proven lower bound: nothing can be faster);
    ``lift(assignment)``, called when a short first search misses that bound, may return a
    better one (so that the search does not hunt long for a split that cannot exist)."""
    import time

    n = len(inst.sheets)
    deadline = time.monotonic() + seconds

    def cost(p: int, units) -> tuple[int, int]:
        return _upper_cost(inst, p, units)

    def single(u: int) -> tuple[int, int]:
        return min(cost(p, (u,)) for p in range(n) if inst.units[u].masks[p] is not None)

    wanted: list[int] = []
    groups: dict[int, list[Demand]] = {}
    for d in inst.demands:
        if d.group is None:
            wanted.extend(sorted(d.units, key=single)[: d.need])
        else:
            groups.setdefault(d.group, []).append(d)
    for alternatives in groups.values():
        best = min(alternatives, key=lambda d: sum(c for _, c in sorted(single(u) for u in d.units)[: d.need]))
        wanted.extend(sorted(best.units, key=single)[: best.need])
    assignment: list[list[int]] = [[] for _ in range(n)]
    for u in sorted(set(wanted), key=single, reverse=True):
        options = []
        for p in range(n):
            if inst.units[u].masks[p] is None:
                continue
            trial = cost(p, assignment[p] + [u])
            slowest = max([trial[0]] + [cost(q, assignment[q])[0] for q in range(n) if q != p])
            options.append((slowest, trial[1] - cost(p, assignment[p])[1], p))
        assignment[min(options)[2]].append(u)
    if lift is not None:  # a short search first; if it misses the bound, try to lift the bound before searching on
        assignment = local_search(inst, assignment, cost, min(deadline, time.monotonic() + seconds * 0.4), enough)
        if _split_key([cost(p, assignment[p]) for p in range(n)])[0] > enough:
            enough = max(enough, lift(assignment))
            deadline = max(deadline, time.monotonic() + seconds / 2)  # (lifting may have taken a while)
    return [tuple(a) for a in local_search(inst, assignment, cost, deadline, enough)]


# The last splits found, by their units (objective and name; not the sheets, which change with
# every tap): the seed of the next search for the same units. Only a starting point: whatever
# it holds, the split is checked and the bounds proven as for any other.
_LAST_SPLITS: OrderedDict = OrderedDict()
_LAST_SPLITS_MAX = 256


def _units_key(inst: SplitInstance) -> tuple:
    return len(inst.sheets), tuple((u.objective, u.name) for u in inst.units), inst.demands


def _remember_split(inst: SplitInstance, assignment) -> None:
    with _FIGURES_LOCK:
        _LAST_SPLITS[_units_key(inst)] = tuple(tuple(a) for a in assignment)
        _LAST_SPLITS.move_to_end(_units_key(inst))
        while len(_LAST_SPLITS) > _LAST_SPLITS_MAX:
            _LAST_SPLITS.popitem(last=False)


def _remembered_split(inst: SplitInstance) -> list[list[int]] | None:
    """The last split of the same units; else the latest of more units (a room where an item
    got done since: star hunt crosses a star) restricted to these, when it holds them all."""
    key = _units_key(inst)
    with _FIGURES_LOCK:
        seed = _LAST_SPLITS.get(key)
        recent = list(_LAST_SPLITS.items()) if seed is None else []
    if seed is None:
        index = {(u.objective, u.name): i for i, u in enumerate(inst.units)}
        for (n, names, _), old in reversed(recent):
            if n != key[0] or not index.keys() <= set(names):
                continue
            seed = tuple(tuple(index[names[u]] for u in units if names[u] in index) for units in old)
            break
    if seed is None or any(inst.units[u].masks[p] is None for p, units in enumerate(seed) for u in units):
        return None
    return [list(units) for units in seed]


def _upper_cost(inst: SplitInstance, p: int, units) -> tuple[int, int]:
    """The (rolls, crosses) sheet p needs for ``units`` (the upper figures: achievable)."""
    if not units:
        return 0, 0
    est, _, rolls, _ = sheet_figures(inst.sheets[p], _target(inst, p, units))
    return rolls, est.upper


def _raise_lower(inst: SplitInstance, lower: int, upper: int, time_limit: float):
    """Lift a lower bound on the rolls towards a split's ``upper``: :func:`rolls_feasible` per
    roll count while it decides, and where it cannot (too many subsets, the time) the
    separator bound, then rolls_feasible on from there. Returns (the bound, a split that needs
    only the bound's rolls when rolls_feasible found one else None, its name). (The separator
    bound used to run first; in the rooms of bench_rooms it never lifted what rolls_feasible
    proves anyway, at 3-17 ms a status.)"""
    import time

    deadline = time.monotonic() + time_limit
    bound = "lower bound"
    separated = False  # the separator bound ran
    while lower < upper and time.monotonic() < deadline:
        left = deadline - time.monotonic()  # (half the time kept for the separator bound until it ran)
        feasible, assignment = rolls_feasible(inst, lower, time_limit=max(0.01, left if separated else
                                                                          min(left, time_limit / 2)))
        if feasible:
            return lower, assignment, "lower bound (every split within it listed)"
        if feasible is False:
            lower += 1
            bound = "lower bound (no split within one roll fewer)"
            continue
        if separated:
            break
        separated = True
        raised = separator_lower_bound(inst, lower, upper, time_limit / 2)
        if raised == lower:
            break
        lower, bound = raised, "separator lower bound"
    if lower < upper and not separated:  # (the time ran out before rolls_feasible decided)
        raised = separator_lower_bound(inst, lower, upper, time_limit / 2)
        if raised > lower:
            lower, bound = raised, "separator lower bound"
    return lower, None, bound


def _split_key(costs: list[tuple[int, int]]) -> tuple[int, int, int]:
    """How good a split is, smoothly, from each sheet's (rolls, crosses): its rolls, then per
    sheet that needs those rolls one plus its crosses beyond the roll before (what must go to
    make it one roll faster), then the total crosses. Lexicographically lower is better; the
    first and last entries are the split's (rolls, crosses) that CP-SAT minimises."""
    rolls = max((r for r, _ in costs), default=0)
    floor = CROSSES_PER_ROLL * (rolls - 1)
    return rolls, sum(1 + max(0, c - floor) for r, c in costs if r == rolls), sum(c for _, c in costs)


def local_search(inst: SplitInstance, assignment, cost, deadline: float, enough: int = 0) -> list[list[int]]:
    """Improve a split by moving one unit off a sheet that needs the most rolls, or swapping
    it with a unit of another sheet, while that lowers :func:`_split_key` (the set of units
    done stays the same, so every demand stays met). Stops at a local optimum, at
    ``deadline`` (time.monotonic), or once the split needs at most ``enough`` rolls."""
    import time

    n = len(inst.sheets)
    assignment = [list(a) for a in assignment]
    costs = [cost(p, assignment[p]) for p in range(n)]
    current = _split_key(costs)
    while current[0] > enough and time.monotonic() < deadline:
        rolls = current[0]
        slow = [p for p in range(n) if costs[p][0] == rolls]
        best = None
        for p in slow:
            for u in assignment[p]:
                rest_p = [v for v in assignment[p] if v != u]
                for q in range(n):
                    if q == p or inst.units[u].masks[q] is None or cost(q, [u])[0] > rolls:
                        continue  # (u alone already needs more rolls on q: no move or swap of it helps)
                    trial = list(costs)
                    trial[p] = cost(p, rest_p)
                    trial[q] = cost(q, assignment[q] + [u])
                    key = _split_key(trial)
                    if key < current and (best is None or key < best[0]):
                        best = (key, p, u, q, None, trial)
                    for v in assignment[q]:  # swap u and v
                        if inst.units[v].masks[p] is None:
                            continue
                        trial = list(costs)
                        trial[p] = cost(p, rest_p + [v])
                        trial[q] = cost(q, [w for w in assignment[q] if w != v] + [u])
                        key = _split_key(trial)
                        if key < current and (best is None or key < best[0]):
                            best = (key, p, u, q, v, trial)
            if time.monotonic() > deadline:
                break
        if best is None:
            break
        current, p, u, q, v, costs = best
        assignment[p].remove(u)
        assignment[q].append(u)
        if v is not None:
            assignment[q].remove(v)
            assignment[p].append(v)
    return assignment


def _solve_cells(inst: SplitInstance, allowed: list[list[int]], time_limit: float, shortcut: bool = True) -> Split:
    """One cross variable per (sheet, open cell); a flow from the crossed region keeps every
    sheet's new cells connected to it (so they can be crossed one by one, anchored)."""
    import time

    lower_cheap = unit_lower_bound(inst)
    bound = "lower bound"
    raised = False  # _raise_lower ran: its bound is final
    greedy = None
    seed = _remembered_split(inst) if shortcut else None
    if seed is not None:  # the last split of the same units (a room after a tap): usually still good, or nearly
        cost = lambda p, units: _upper_cost(inst, p, units)  # noqa: E731
        seed_rolls = max(cost(p, units)[0] for p, units in enumerate(seed))
        if seed_rolls > lower_cheap:  # lift the bound first: a search for a split below it hunts in vain
            lower_cheap, found, bound = _raise_lower(inst, lower_cheap, seed_rolls, min(1.0, time_limit / 3))
            raised = True
            seed = found or seed
        seed = local_search(inst, seed, cost, time.monotonic() + (min(0.3, time_limit / 10) if raised else
                                                                  min(0.08, time_limit / 30)), lower_cheap)
        greedy = seed  # (searched from a split of the same units: a fresh greedy one did worse in the bench rooms)
    found = None
    if greedy is None:
        def raise_first(assignment) -> int:  # lift the bound towards the greedy split's rolls
            nonlocal lower_cheap, found, bound, raised
            rolls = max(_upper_cost(inst, p, units)[0] for p, units in enumerate(assignment))
            if shortcut and rolls > lower_cheap and not raised:
                lower_cheap, found, bound = _raise_lower(inst, lower_cheap, rolls, min(1.0, time_limit / 3))
                raised = True
            return lower_cheap if found is None else 10**9  # (a split within the bound is known: no search)
        greedy = greedy_split(inst, allowed, time_limit / 3, enough=lower_cheap, lift=raise_first)
    greedy_plans = _plans(inst, found if found is not None else greedy, 0.0)
    greedy_rolls = max(plan.rolls for plan in greedy_plans)
    if shortcut and greedy_rolls > lower_cheap and not raised:
        lower_cheap, found, bound = _raise_lower(inst, lower_cheap, greedy_rolls, min(1.0, time_limit / 3))
        if found is not None:
            greedy_plans = _plans(inst, found, 0.0)
            greedy_rolls = max(plan.rolls for plan in greedy_plans)
    if shortcut:
        _remember_split(inst, [plan.units for plan in greedy_plans])
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
    solver = _solver(time_limit * 2 / 3)
    status = solver.Solve(m)
    plans = greedy_plans
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        assignment = [tuple(u for u, t in takes.items() if solver.Value(t)) for takes in take_vars]
        found = _plans(inst, assignment, 0.0)
        if (max(p.rolls for p in found), sum(p.crosses.upper for p in found)) < \
                (max(p.rolls for p in plans), sum(p.crosses.upper for p in plans)):
            plans = found
    upper = max(plan.rolls for plan in plans)
    if status == cp_model.UNKNOWN or status == cp_model.FEASIBLE:
        lower = max(lower_cheap, math.ceil((solver.BestObjectiveBound() - (big - 1)) / big))
    elif status == cp_model.OPTIMAL:
        lower = solver.Value(rolls)
    else:
        raise ValueError("no split meets the demands (a unit no sheet may take)")
    lower = min(lower, upper)
    method = "cp-sat over the cells of every sheet" + ("" if lower == upper else f" (bounds: {time_limit:g} s limit)")
    return Split(inst, lower, upper, plans, method)


# --- early loss and score bounds ---------------------------------------------------------
def best_score_bound(sheet: Sheet, rolls_left: int) -> int:
    """An upper bound on the sheet's team-rules score after ``rolls_left`` more rolls: every
    column and colour its fewest crosses alone could still finish, every star it could still
    reach, and the jokers it has left (jokers never come back). Items are counted
    independently, so the bound is valid but not always reachable."""
    board = sheet.board
    budget = CROSSES_PER_ROLL * rolls_left
    score = team_score(sheet)
    for c in range(board.cols):
        mask = board.column_mask[c]
        if mask & ~sheet.crossed and sheet_crosses(sheet, mask).lower <= budget:
            score += board.column_points_first[c]
    for colour in COLOURS:
        mask = board.colour_mask[colour]
        if mask & ~sheet.crossed and sheet_crosses(sheet, mask).lower <= budget:
            score += board.colour_bonus_first
    dist = cross_distances(sheet)
    for b in bit_list(board.star_mask & ~sheet.crossed):
        if dist.get(b, budget + 1) <= budget:
            score += board.star_penalty
    return score


@dataclass
class TeamPlan:
    """Everything beyond one-sheet figures: the split, the early loss, score bounds."""

    split: Split
    rolls_left: int
    lost_early: list[str] = field(default_factory=list)
    score_bounds: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"split": self.split.to_dict(), "lost_early": bool(self.lost_early),
                "lost_reasons": self.lost_early, "score_bounds": self.score_bounds}

    def lines(self) -> list[str]:
        out = ["who should do what:"] + ["  " + line for line in self.split.lines()]
        if not self.split.instance.has_cells and self.score_bounds:
            out[-1] += "; what counts is the best score still reachable:"
        for b in self.score_bounds:
            out.append(f"  {b['description']}: best still reachable at most {b['best_reachable']} "
                       f"(needs {b['target']})")
        return out  # the reasons of an early loss are printed with the state (status_document)


def team_plan(mission: Mission, sheets, rolls_left: int, time_limit: float = SPLIT_SECONDS) -> TeamPlan:
    """The split, the score bounds, and the reasons the split or a score bound show that the
    mission can no longer be won (coop.lost_reasons gives the others: budget, jokers, a
    sheet alone)."""
    sheets = list(sheets)
    n = len(sheets)
    split = solve_split(split_instance(mission, sheets), time_limit)
    lost = []
    if split.rolls_lower > rolls_left:
        lost.append(f"the best split of the missing cell objectives needs at least {split.rolls_lower} roll(s), "
                    f"only {rolls_left} left")
    bounds = []
    for obj in mission.objectives:
        if obj.kind == "score":  # (a missed jokers_left target is coop.lost_reasons' to report)
            target = obj.threshold(n)
            values = [best_score_bound(s, rolls_left) for s in sheets]
            best = sum(values) if obj.scope == "team" else (min(values) if obj.scope == "each" else max(values))
            bounds.append({"description": obj.describe(n), "target": target, "best_reachable": best,
                           "per_sheet": values})
            if best < target:
                lost.append(f"{obj.describe(n)}: at most {best} point(s) still reachable in {rolls_left} roll(s)")
    return TeamPlan(split, rolls_left, lost, bounds)


def status_document(st, labels: list[str], plan: TeamPlan | None) -> dict:
    """The ``nochmal mission status --json`` document (rooms send the same): the status of
    coop.mission_status, the sheets' labels, the impossible sheets and the team plan. The
    state is ``st.state`` (one vocabulary, missions/model.py), except that a mission still
    "in progress" whose split cannot finish in the rolls left is "lost" with the plan's
    reasons added to ``lost_reasons``."""
    data = st.to_dict()
    bad = [(p, reasons) for p, reasons in enumerate(st.impossible) if reasons]
    state, reasons = st.state, list(st.lost_reasons)
    if state == IN_PROGRESS and plan is not None and plan.lost_early:
        state = LOST
        reasons += [r for r in plan.lost_early if r not in reasons]
    out = {**{k: v for k, v in data.items() if k != "objectives"}, "state": state, "lost_reasons": reasons,
           "sheets": list(labels),
           "impossible": [{"sheet": p + 1, "file": labels[p], "reasons": r} for p, r in bad],
           "objectives": data["objectives"], "team": plan.to_dict() if plan is not None and not bad else None}
    if bad:
        out["all_met"] = None
    return out


__all__ = ["status_document", "CROSSES_PER_ROLL", "Demand", "SheetPlan", "Split", "SplitInstance", "TeamPlan", "Unit",
           "best_score_bound", "check_split", "rolls_for", "sheet_crosses", "solve_split", "split_instance",
           "rolls_feasible", "separator_lower_bound", "team_plan", "unit_lower_bound"]
