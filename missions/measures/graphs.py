"""Reachability and named targets: the inspection side of the measures, on bit masks (the
hot searches are in missions/measures/steiner.py; the board as networkx graphs, which only
the tests need, is tests/graphs_support.py).
"""

from __future__ import annotations

from nochmal.bitsets import bit_list, neighbours_of
from nochmal.board import COLOUR_NAMES, COLOURS, COLUMN_LETTERS, Board
from nochmal.errors import OptionError
from nochmal.sheet import Sheet


# --- reachability ------------------------------------------------------------------------
def crosses_per_cell(sheet: Sheet) -> dict[int, int]:
    """Per open cell (bit): the fewest crosses that end with that cell crossed.

    Every open cell weighs one cross, so this is a breadth-first search from the anchored
    open cells (one cross) through open cells, a ring of neighbours (bit masks) at a time;
    crossed cells are not in the map. (tests/missions/test_graph_crosses.py checks it against
    networkx's multi-source Dijkstra on tests/graphs_support.py cell_graph.)
    """
    board = sheet.board
    open_cells = board.full_mask & ~sheet.crossed
    ring = sheet.anchored & open_cells
    seen = ring
    out: dict[int, int] = {}
    d = 1
    while ring:
        for bit in bit_list(ring):
            out[bit] = d
        ring = neighbours_of(ring, board.neighbour_mask) & open_cells & ~seen
        seen |= ring
        d += 1
    return out


def reachable(sheet: Sheet, budget: int | None = None) -> int:
    """Mask of open cells that can be crossed within ``budget`` further crosses (None: ever)."""
    out = 0
    for bit, d in crosses_per_cell(sheet).items():
        if budget is None or d <= budget:
            out |= 1 << bit
    return out


# --- named targets -----------------------------------------------------------------------
def column_target(board: Board, columns) -> int:
    """Mask of the given column letters (or indices)."""
    mask = 0
    for c in columns:
        idx = COLUMN_LETTERS.index(c.upper()) if isinstance(c, str) else int(c)
        mask |= board.column_mask[idx]
    return mask


def colour_target(board: Board, colours) -> int:
    mask = 0
    for c in colours:
        if c not in COLOURS:
            raise OptionError(f"{c!r} is not a colour ({', '.join(COLOUR_NAMES)})")
        mask |= board.colour_mask[c]
    return mask

