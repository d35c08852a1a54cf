"""Which subsets of a sheet's units fit a roll count (listed per sheet state, reused and
filtered between a room's taps), and whether one subset per sheet meets the demands within
it (:func:`rolls_feasible`): the proof that a split's rolls are the fewest.
"""

from __future__ import annotations

from nochmal.bitsets import bit_list, component_of
from nochmal.cache import Cache
from nochmal.impossible import block_pieces
from nochmal.missions.cpsolver import Deadline
from nochmal.missions.measures.fits import fits_rolls
from nochmal.missions.measures.pair_bounds import pair_rolls_bounds
from nochmal.missions.model import block_slots
from nochmal.missions.split.figures import (FIGURES, FIGURES_MAX, PIECES, _rolls_figures, state_key, tighten_upper,
                                            sheet_figures, sheet_pieces)
from nochmal.missions.split.instance import SplitInstance, units_target
from nochmal.missions.split.pick import _maximal, pick_one_each, _without_repeats
from nochmal.sheet import Sheet


# a moved path (legal new cells holding the target) by (board, crossed, target)
MOVED = Cache("missions.split.moved", FIGURES_MAX)
# the sheet states (crossed cells) listed lately, oldest first, per board layout: where moved
# paths come from; the latest 64 layouts (a server sees one per user board)
STATES = Cache("missions.split.states", 64)
_STATES_PER_BOARD = 64
_MOVE_CELLS = 4  # new crosses up to which an earlier state's paths are moved (2^4 targets looked up per subset)


def earlier_state(sheet: Sheet) -> tuple[int, list[int]] | None:
    """The latest listed state of this board whose crosses the sheet holds, with at most
    _MOVE_CELLS more (the same seat before its last tap, usually): (its crossed cells, every
    subset of the new crosses), or None. Remembers the sheet's own state for the next tap."""
    now = sheet.crossed
    states = STATES.change(sheet.board.layout_id,
                           lambda known: (*(c for c in known or () if c != now), now)[-_STATES_PER_BOARD:])
    earlier = [c for c in states if c != now and c & ~now == 0 and (now & ~c).bit_count() <= _MOVE_CELLS]
    if not earlier:
        return None
    crossed = earlier[-1]
    new = bit_list(sheet.crossed & ~crossed)
    return crossed, [sum(1 << b for i, b in enumerate(new) if pick >> i & 1) for pick in range(1 << len(new))]


def _moved_rolls(sheet: Sheet, target: int, earlier: tuple[int, list[int]]) -> int | None:
    """Rolls within which the sheet surely crosses ``target``, from a path of an earlier state
    of it (:func:`earlier_state`, its path for the target plus any of the new crosses): that
    path less the cells crossed since. Such a set stays legal (a part of a path's piece cut
    off by a new cross touches that cross: anchored), which is checked, and takes its fewest
    pieces of one block (nochmal/impossible.py); remembered for the next tap. None: no
    earlier path known."""
    board = sheet.board
    crossed, extras = earlier
    for extra in extras:
        old_key = state_key(board, crossed, target | extra)
        hit = PIECES.peek(old_key)
        cells = hit.cells if hit is not None else MOVED.peek(old_key)
        if cells is not None:
            break
    else:
        return None
    cells &= ~sheet.crossed
    if target & ~sheet.crossed & ~cells or component_of(cells & sheet.anchored, cells, board.neighbour_mask) != cells:
        return None
    MOVED.put(state_key(board, sheet.crossed, target), cells)
    return block_pieces(board, cells)[1]


# complete listings of subsets_within, by sheet state, units and rolls (a listing holds up to
# a few hundred rows: tens of kB; a room asks ~12 per status)
LISTINGS = Cache("missions.split.listings", 512)


def subsets_within(inst: SplitInstance, p: int, rolls: int, budget: list[int], deadline: Deadline) -> list | None:
    """Every subset of sheet p's units that may fit ``rolls`` rolls (lower rolls figure of
    :func:`sheet_figures` <= rolls), with its rolls figures (lower, upper); grown size by size
    from the subsets listed one size smaller, and only where each of those that it holds is
    listed (a superset never needs fewer rolls: one that holds a subset that cannot fit cannot
    either, so every subset that really fits is listed). None when ``budget`` (figures
    left to compute, shared by the sheets) runs out or at ``deadline``.

    A complete listing is remembered per (board, crossed cells, the units' cells on this sheet
    in order, rolls): everything it depends on, so a room asks it again after a tap on another
    sheet and gets it without a figure (a remembered listing spends no budget), or filtered
    from one of the same sheet state for more rolls or more units (:func:`filtered_listing`:
    a column another sheet finished since leaves this sheet's listing valid)."""
    sheet = inst.sheets[p]
    units = [u for u in range(len(inst.units)) if inst.units[u].masks[p] is not None and inst.units[u].masks[p]]
    masks = tuple(inst.units[u].masks[p] for u in units)
    key = state_key(sheet.board, sheet.crossed, masks, rolls)
    hit = LISTINGS.get(key)
    if hit is None:
        hit = filtered_listing(key, sheet)
        if hit is not None:
            LISTINGS.put(key, hit)
    if hit is not None:
        return [(tuple(units[i] for i in subset), figures) for subset, figures in hit]
    found = [((), (0, 0))]
    level = {(): 0}  # the listed subsets of the last size, with their cells
    board = sheet.board
    earlier = earlier_state(sheet)
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
                if budget[0] <= 0 or deadline.passed():
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
    LISTINGS.put(key, found)
    return [(tuple(units[i] for i in subset), figures) for subset, figures in found]


def filtered_listing(key: tuple, sheet: Sheet) -> list | None:
    """A listing for ``key`` (as :func:`subsets_within` keys them) filtered from a remembered
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
    remembered = LISTINGS.items()
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
                   time_limit: float | Deadline = 1.0) -> tuple[bool | None, list[tuple[int, ...]] | None]:
    """Whether some split finishes within ``rolls`` rolls, decided exactly where few subsets of
    units may fit the rolls (a late game, or stars from nearby): every such subset of
    every sheet is listed (:func:`subsets_within`) and one per sheet that meets the demands
    is picked (:func:`pick_one_each`: a cover search, or CP-SAT); a picked subset whose
    rolls figures straddle ``rolls`` is decided exactly (:func:`_fits_exactly`) and the pick repeated. (False, None): no split can (a
    proven lower bound of rolls + 1); (True, split): this split does, every sheet's
    upper rolls figure within the rolls; (None, None): undecided (too many subsets, or the
    time limit: seconds, or a run's :class:`Deadline`)."""
    deadline = time_limit if isinstance(time_limit, Deadline) else Deadline(time_limit)
    left = [budget]
    options = []
    for p in range(len(inst.sheets)):
        rows = subsets_within(inst, p, rolls, left, deadline)
        if rows is None:
            return None, None
        options.append(rows)
    # The demands only ask for units done, so a sheet may as well take a largest subset that
    # fits: the picks run over the maximal ones (by inclusion), first those that may fit (lower
    # figures: none meets the demands -> no split can), then those whose path fits (upper).
    status, chosen = pick_one_each(inst, [_maximal(rows) for rows in options], deadline, rolls)
    if status is False or status is None:
        return status, None
    if any(figures[1] > rolls for _, figures in chosen):
        sure, picked = pick_one_each(inst, [_maximal([r for r in rows if r[1][1] <= rolls]) for rows in options],
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
            target = units_target(inst, p, subset)
            for q in range(len(inst.sheets)):  # (the same verdict for every sheet in the same state: twins stay twins)
                if q != p and (inst.sheets[q].crossed != inst.sheets[p].crossed or inst.sheets[q].board is not
                               inst.sheets[p].board or any(inst.units[u].masks[q] is None for u in subset) or
                               units_target(inst, q, subset) != target):
                    continue
                if fits:  # its path now takes at most the rolls (sheet_figures knows it)
                    options[q] = [(s, (f[0], rolls) if s == subset else f) for s, f in options[q]]
                else:  # it cannot, nor can any subset that holds it
                    options[q] = [(s, f) for s, f in options[q] if not set(subset) <= set(s)]
        status, chosen = pick_one_each(inst, [_maximal(rows) for rows in options], deadline, rolls)
        if status is False or status is None:
            return status, None
    for p, (subset, figures) in enumerate(chosen):  # a moved path within the rolls: the plans take it
        if subset and figures[1] <= rolls:
            sheet = inst.sheets[p]
            cells = MOVED.peek(state_key(sheet.board, sheet.crossed, units_target(inst, p, subset)))
            if cells is not None:
                tighten_upper(sheet, units_target(inst, p, subset), cells)
    return True, _without_repeats(inst, [subset for subset, _ in chosen], rolls)


FITS = Cache("missions.split.fits", FIGURES_MAX)  # fits_rolls verdicts by (board, crossed cells, target, rolls)


def _fits_exactly(inst: SplitInstance, p: int, subset, rolls: int, deadline: Deadline) -> bool | None:
    """Whether sheet p can do ``subset`` within ``rolls`` rolls, exactly (measures.fits.fits_rolls),
    remembered; the answer tightens :func:`sheet_figures` (a path within the rolls, or a lower
    figure above them), so that the plans and later bounds use it."""
    sheet = inst.sheets[p]
    target = units_target(inst, p, subset)
    key = state_key(sheet.board, sheet.crossed, target, rolls)
    known = FITS.peek(key)
    if known is not None:
        return known
    fits, cells = fits_rolls(sheet, target, rolls, deadline)
    if fits is None:
        return None
    if fits:
        tighten_upper(sheet, target, cells)
    else:
        est, lower, upper, path = sheet_figures(sheet, target)
        lower = max(lower, rolls + 1)
        FIGURES.put(state_key(sheet.board, sheet.crossed, target, 0.0), (est, lower, max(upper, lower), path))
    FITS.put(key, fits)
    return fits
