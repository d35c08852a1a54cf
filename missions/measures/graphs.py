"""The board as graphs, reachability and named targets: the inspection side of the
measures (networkx builds the graphs; the hot searches are in missions/measures/steiner.py).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from nochmal.bitsets import bit_list, neighbours_of
from nochmal.board import COLOUR_NAMES, COLOURS, COLUMN_LETTERS, Board
from nochmal.errors import OptionError
from nochmal.sheet import Sheet

if TYPE_CHECKING:
    import networkx as nx


# --- the board as graphs (networkx: inspection, not the hot search) -----------------------
@lru_cache(maxsize=32)
def cell_graph(board: Board) -> nx.Graph:
    """Cells as nodes (named ``H4``), orthogonal adjacency as edges.

    Node attributes: bit (engine bit), row (1-based), column (letter), colour (y g b r o),
    star (bool), block (index into ``board.blocks``), start (in the start column).
    Edge attribute ``same_block``: both ends in one block.
    """
    import networkx as nx  # loaded on use: only these inspection graphs need it

    g = nx.Graph(board=board.name)
    for i in range(board.n_cells):
        bit = board.bit_of[i]
        r, c = divmod(i, board.cols)
        g.add_node(board.cell_name(bit), bit=bit, row=r + 1, column=COLUMN_LETTERS[c],
                   colour=board.colour_at[i], star=board.is_star(bit),
                   block=board.block_of_bit[bit], start=c == board.start_column)
    for i in range(board.n_cells):
        for j in board.grid_neighbours(i):
            if i < j:
                bi, bj = board.bit_of[i], board.bit_of[j]
                g.add_edge(board.cell_name(bi), board.cell_name(bj),
                           same_block=board.block_of_bit[bi] == board.block_of_bit[bj])
    return g


@lru_cache(maxsize=32)
def block_graph(board: Board) -> nx.Graph:
    """Blocks as nodes (their index), an edge where two blocks touch orthogonally.

    Node attributes: colour, size, cells (names), stars (count), start (touches the start
    column). Edge attribute ``contacts``: how many cell pairs touch.
    """
    import networkx as nx

    g = nx.Graph(board=board.name)
    for blk in board.blocks:
        g.add_node(blk.index, colour=blk.colour, size=blk.size, cells=tuple(board.cells_of(blk.mask)),
                   stars=(blk.mask & board.star_mask).bit_count(),
                   start=bool(blk.mask & board.start_mask))
    for u, v, same in cell_graph(board).edges(data="same_block"):
        if same:
            continue
        a = board.block_of_bit[board.bit(u)]
        b = board.block_of_bit[board.bit(v)]
        if g.has_edge(a, b):
            g[a][b]["contacts"] += 1
        else:
            g.add_edge(a, b, contacts=1)
    return g


# --- reachability ------------------------------------------------------------------------
def cross_distances(sheet: Sheet) -> dict[int, int]:
    """Per open cell (bit): the fewest crosses that end with that cell crossed.

    Every open cell weighs one cross, so this is a breadth-first search from the anchored
    open cells (distance 1) through open cells, a ring of neighbours (bit masks) at a time;
    crossed cells are not in the map. (tests/missions/test_graph_crosses.py checks it against
    networkx's multi-source Dijkstra on cell_graph.)
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
    for bit, d in cross_distances(sheet).items():
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

