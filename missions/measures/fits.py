"""Whether a target fits a number of further rolls (one block a roll, bridging off): a
lower bound that sees where a path enters a part holding target cells, then an exact CP-SAT
model. The split (missions/split/listings.py) asks it where missions/measures/rolls.py's bounds
straddle the roll count.
"""

from __future__ import annotations

from nochmal.bitsets import bit_list, neighbours_of
from nochmal.board import Board
from nochmal.cache import memo
from nochmal.missions.anchored_cells import add_anchored_cells
from nochmal.missions.cpsolver import Deadline
from nochmal.missions.measures.rolls import reduce_pieces
from nochmal.missions.measures.steiner import INF, dreyfus_wagner, node_dijkstra
from nochmal.sheet import Sheet

FITS_BLOCK_CELLS = 10  # open cells of a block up to which fits_rolls tabulates its pieces (2^10 rows)


ENTRY_EXACT_LIMIT = 6  # terminal groups up to which entry_rolls_bound's programme takes all of them (3^6 steps)


@memo("missions.measures.fits.least_pieces", 1 << 16)
def _least_pieces(board: Board, within: int, required: int) -> int:
    """The fewest pieces of one block (impossible.block_pieces) of any set of cells between
    ``required`` and ``within`` (cells of one block), by trying every such set; past
    FITS_BLOCK_CELLS free cells only ``ceil(|required| / 5)`` (still a lower bound).
    Remembered: a room asks the same blocks' figures for every subset of its units."""
    from nochmal.impossible import block_pieces

    free = within & ~required
    if free.bit_count() > FITS_BLOCK_CELLS:
        return -(-required.bit_count() // 5)
    best = block_pieces(board, required)[1]
    sub = free
    while sub and best > 1:
        best = min(best, block_pieces(board, required | sub)[1])
        sub = (sub - 1) & free
    return best


def entry_rolls_bound(sheet: Sheet, target: int, exact_limit: int = ENTRY_EXACT_LIMIT) -> int:
    """A lower bound on the further rolls that cross ``target`` (one block a roll, bridging
    off), at least :func:`fewest_rolls`' lower bound on the same instance, that sees what a
    path costs where it enters a part holding target cells.

    Why it holds: over the nodes of :func:`reduce_pieces` that a legal set X of new cells
    touches, X's adjacency connects them to the root (each piece of X is anchored), so they
    have a tree directed from the root in which every node touches its parent. A node off
    the target costs at least a roll; a group of target parts costs, per block, the fewest
    pieces of any superset of its target cells within it (:func:`_least_pieces`), and where
    its parent is not the root one of those supersets must also hold a cell next to the
    parent: the least *extra* pieces that takes is charged on that arc, once per node (its
    one parent), so a node entered from two sides is not overcharged. The cheapest such
    directed tree, by a Dreyfus-Wagner programme over the terminal groups with those arc
    costs, is therefore at most X's rolls. Column relay on an empty classic sheet, columns A-C:
    the entry next to column H costs block 27 (B5..F4, six cells) a second piece: 11, where
    the undirected tree says 10 (benchmarks/bench_rooms.py's first tap; :func:`fits_rolls`
    asks it before CP-SAT). More than ``exact_limit`` terminals: the farthest ones (as
    :func:`fewest_rolls`), the others free to pass and counted at their weight. The programme
    is missions/measures/steiner.py's, with the entries as arc costs."""
    board = sheet.board
    need = target & ~sheet.crossed
    if not need:
        return 0
    red = reduce_pieces(sheet, target)
    n = len(red.adj)
    terminal = set(red.terminals)
    weight = [1] * n
    weight[0] = 0
    base = 0
    per_block: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]  # (block cells of the node, need, least)
    for v in [0] + red.terminals:
        for block in board.blocks:
            within = red.members[v] & block.mask
            if within:
                least = _least_pieces(board, within, need & within)
                per_block[v].append((within, need & within, least))
        if v:
            weight[v] = sum(least for _, _, least in per_block[v])
        else:
            base = sum(least for _, _, least in per_block[0])

    def entry(u: int, parent: int) -> int:  # the extra pieces of u when it touches ``parent``
        if u not in terminal or parent == 0:
            return 0
        near = neighbours_of(red.members[parent], board.neighbour_mask)
        extra = None
        for within, req, least in per_block[u]:
            for b in bit_list(within & near):
                more = 0 if req >> b & 1 else _least_pieces(board, within, req | 1 << b) - least
                extra = more if extra is None else min(extra, more)
                if extra == 0:
                    return 0
        return extra if extra is not None else INF

    extra = [[entry(u, v) for v in red.adj[u]] for u in range(n)]  # (v becomes u's parent)
    terms = red.terminals
    if len(terms) > max(0, exact_limit):  # the farthest from the root (entered from it): the most telling
        single, _ = node_dijkstra(red.adj, weight, [0] + [INF] * (n - 1), extra)
        terms = sorted(terms, key=lambda t: -int(single[t]))[:max(0, exact_limit)]
    outside = sum(weight[t] for t in red.terminals if t not in terms)
    for t in red.terminals:
        if t not in terms:
            weight[t] = 0  # (free to pass through; its own weight counted in ``outside``)
    if not terms:
        return base + outside
    dp, _ = dreyfus_wagner(red, terms, weight, extra)
    return min(INF, int(dp[-1][0])) + base + outside


def fits_rolls(sheet: Sheet, target: int, rolls: int, time_limit: float | Deadline = 1.0) -> tuple[bool | None, int]:
    """Whether every cell of ``target`` can be crossed within ``rolls`` further rolls (one
    block a roll, bridging off), exactly, by CP-SAT: (True, the new cells), (False, 0), or
    (None, 0) at the time limit or where a block has more than FITS_BLOCK_CELLS open cells.

    The rolls of a set X of new cells whose every connected piece touches the anchored cells
    are exactly its fewest pieces of one block (nochmal/impossible.py: any such set can be
    crossed piece by piece in an anchored order), a sum over blocks of a figure of X's cells
    in that block. So: a boolean per open cell, the target's cells set, a flow from the
    anchored cells that every chosen cell consumes (each connected to them through chosen
    cells), and per block a table from its chosen cells to their pieces (impossible.block_pieces),
    the pieces summed within ``rolls``. :func:`fewest_rolls` gives bounds fast; this decides
    where they straddle the roll count a split asks about (missions/split/listings.py rolls_feasible),
    first by :func:`entry_rolls_bound` (a proof of "no" in milliseconds where it exceeds the
    rolls), then by the model."""
    board = sheet.board
    open_mask = board.full_mask & ~sheet.crossed
    need = target & open_mask
    if not need:
        return True, 0
    if any((block.mask & open_mask).bit_count() > FITS_BLOCK_CELLS for block in board.blocks):
        return None, 0
    if entry_rolls_bound(sheet, target) > rolls:  # proven without the solver (a column relay's first tap)
        return False, 0
    return fits_by_cpsat(sheet, need, rolls, time_limit)


def fits_by_cpsat(sheet: Sheet, need: int, rolls: int, time_limit: float | Deadline) -> tuple[bool | None, int]:
    """:func:`fits_rolls`' CP-SAT model on its own, ``need`` the open target cells: what
    fits_rolls answers without the entry bound in front (the tests' oracle for that bound)."""
    from ortools.sat.python import cp_model

    from nochmal.impossible import block_pieces

    board = sheet.board
    open_mask = board.full_mask & ~sheet.crossed
    open_bits = bit_list(open_mask)
    m = cp_model.CpModel()
    y = add_anchored_cells(m, sheet)
    for b in open_bits:
        if need >> b & 1:
            m.Add(y[b] == 1)
    pieces = []
    for block in board.blocks:
        cells = bit_list(block.mask & open_mask)
        if not cells:
            continue
        rows = []
        for pick in range(1 << len(cells)):
            chosen = sum(1 << c for i, c in enumerate(cells) if pick >> i & 1)
            if need & block.mask & ~chosen == 0:
                rows.append([pick >> i & 1 for i in range(len(cells))] + [block_pieces(board, chosen)[1]])
        k = m.NewIntVar(0, len(cells), f"k{block.index}")
        m.AddAllowedAssignments([y[c] for c in cells] + [k], rows)
        pieces.append(k)
    m.Add(sum(pieces) <= rolls)
    solver, status = (time_limit if isinstance(time_limit, Deadline) else Deadline(time_limit)).solve(m)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return True, sum(1 << b for b in open_bits if solver.Value(y[b]))
    return (False, 0) if status == cp_model.INFEASIBLE else (None, 0)
