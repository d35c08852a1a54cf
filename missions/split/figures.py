"""Per-sheet figures of a target (missions/split/__init__.py: a sheet's rolls lie between
``ceil(crosses / 5)`` and the pieces of one block of its path, the piece search between them),
remembered per sheet state: a room asks the same sheet's subsets again after every tap.
"""

from __future__ import annotations

from nochmal.board import Board
from nochmal.cache import Cache
from nochmal.impossible import rolls_needed
from nochmal.missions.measures.crosses import CrossesEstimate, fewest_crosses
from nochmal.missions.measures.fits import entry_rolls_bound
from nochmal.missions.measures.rolls import RollsEstimate, fewest_rolls, trimmed_rolls
from nochmal.missions.measures.steiner import crossing_order
from nochmal.missions.model import block_slots
from nochmal.missions.split.instance import SplitInstance, units_target, rolls_for
from nochmal.sheet import Sheet


_FIGURE_EXACT_LIMIT = 8  # Dreyfus-Wagner terminals for the per-subset figures (3^8 work, milliseconds)
FIGURES_MAX = 200_000  # entries of each per-sheet-state cache of the split (tens of bytes each)
FIGURES = Cache("missions.split.figures", FIGURES_MAX)  # sheet_figures by state_key(board, crossed, target, limit)


def state_key(board: Board, crossed: int, *rest) -> tuple:
    """The key of the split's per-sheet-state caches: the board's layout (two boards may
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
    key = state_key(sheet.board, sheet.crossed, target, time_limit)
    hit = FIGURES.get(key)
    if hit is not None:
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
    FIGURES.put(key, figures)
    return figures


NO_FIGURES = (CrossesEstimate(0, 0), 0, 0, ())  # sheet_figures of nothing to do
PIECES = Cache("missions.split.pieces", FIGURES_MAX)  # sheet_pieces by state_key(board, crossed, target)


def sheet_pieces(sheet: Sheet, target: int) -> RollsEstimate:
    """fewest_rolls (bounds on the rolls by pieces of one block), cached as :func:`sheet_figures`;
    a few milliseconds where the crosses take tens: :func:`subsets_within` prunes by it first.
    Where its bounds differ, the lower one is lifted by measures.fits.entry_rolls_bound (what
    entering a target's block costs): a tapped sheet's listing then drops or settles most of
    the subsets that would otherwise take the crosses' programme (column relay's first taps)."""
    key = state_key(sheet.board, sheet.crossed, target)
    hit = PIECES.get(key)
    if hit is not None:
        return hit
    pieces = fewest_rolls(sheet, target, trim=False)
    if pieces.lower < pieces.upper:
        lower = entry_rolls_bound(sheet, target)
        if lower > pieces.lower:
            assert lower <= pieces.upper, (lower, pieces)  # (a bound above a real path's rolls would be a bug)
            pieces = RollsEstimate(lower, pieces.upper, pieces.cells)
    PIECES.put(key, pieces)
    return pieces


def sheet_crosses(sheet: Sheet, target: int, time_limit: float = 0.0) -> CrossesEstimate:
    """The cached ``fewest_crosses`` of :func:`sheet_figures`."""
    return sheet_figures(sheet, target, time_limit)[0]


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
    hit = FIGURES.peek(state_key(sheet.board, sheet.crossed, target, 0.0))
    return hit[1] if hit is not None else _rolls_figures(sheet, target)[0]


def tighten_upper(sheet: Sheet, target: int, cells: int) -> None:
    """Tell :func:`sheet_figures` of a legal set of new cells holding ``target`` (an exact
    check's or a moved path) where it takes fewer rolls than its own path."""
    est, lower, upper, path = sheet_figures(sheet, target)
    took = rolls_needed(sheet.board, cells).upper
    if took < upper:
        FIGURES.put(state_key(sheet.board, sheet.crossed, target, 0.0),
                    (est, lower, max(lower, took), crossing_order(sheet, cells)))


def upper_cost(inst: SplitInstance, p: int, units) -> tuple[int, int]:
    """The (rolls, crosses) sheet p needs for ``units`` (the upper figures: achievable)."""
    if not units:
        return 0, 0
    est, _, rolls, _ = sheet_figures(inst.sheets[p], units_target(inst, p, units))
    return rolls, est.upper
