"""Graph measures of a sheet: the board as graphs, reachability, and the fewest further
crosses to a target (a set of cells, or k of some groups of cells).

Why a graph: how far a sheet is from crossing some cells (a column, a colour, the stars, a
mission's cells) depends only on adjacency and anchoring, not on dice. A cross is legal when
it is in the start column or next to a crossed cell, and a one-cell placement is always one
block and connected, so any set ``S`` of new cells can be crossed one by one exactly when
every connected piece of ``S`` touches the start column or a crossed cell. Contract all
crossed cells into one *root* node (weight 0) adjacent to every anchored open cell; then the
fewest crosses that cross a target set ``T`` is a node-weighted Steiner tree connecting the
root and ``T`` through open cells (each of weight 1).

Reductions before the search: target cells that are already crossed drop out; the connected
pieces of the open target cells must be crossed entirely, so each piece becomes ONE terminal
weighted by its size; a piece that already touches the anchored region merges into the root.
What is left is solved exactly by a Dreyfus-Wagner dynamic programme over terminal subsets
(node-weighted) when there are at most ``exact_limit`` terminals. Beyond that: an admissible
lower bound (the exact optimum for a spread subset of terminals with the others free to pass
through, plus their weight) and an upper bound from a real crossing sequence, then a CP-SAT
model (arborescence with one flow per terminal, the strong cut relaxation) that proves the
optimum or tightens the interval within a time limit (all 15 stars from an empty classic
sheet: proven 33 in 2-4 s). An interval is never reported as exact.

Dice are ignored on purpose: the figure counts crosses, not rolls. The searches themselves
live in nochmal/steiner.py, hand-written (its docstring says why networkx's Steiner tree
does not serve); networkx builds the board as graphs for inspection only. numpy and
networkx load on use, so a command that needs neither starts fast. This module sits in the rules core so that missions and the planner both use it
from below.
"""

from __future__ import annotations

import threading
import weakref
from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from math import comb
from typing import TYPE_CHECKING

from nochmal.bitsets import bit_list, component_of, components, connected_within, neighbours_of
from nochmal.board import COLOUR_NAMES, COLOURS, COLUMN_LETTERS, Board
from nochmal.sheet import Sheet
from nochmal.steiner import (INF, Reduced, connected_to_root, cpsat_steiner, crossing_order, dreyfus_wagner,
                             node_dijkstra, nodes_cost, nodes_mask, prune_leaves, reduce_optional, reduce_target)

if TYPE_CHECKING:
    import networkx as nx
    import numpy as np

EXACT_LIMIT = 12  # terminals up to which the Dreyfus-Wagner search runs (3^k work, ~1 s at 12)
CPSAT_SECONDS = 5.0  # CP-SAT time limit when the exact DP is out of reach
LAZY_FROM = 8  # terminals from which Dreyfus-Wagner starts on a subset and adds terminals lazily
_LAZY_STEP = 2  # terminals a lazy round adds (measured: fewer rounds vs. larger programmes)


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
    crossed cells are not in the map. (tests/test_graph_crosses.py checks it against
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


# --- fewest further crosses --------------------------------------------------------------
@dataclass(frozen=True)
class CrossesEstimate:
    """Fewest further crosses to a target: exact (lower == upper) or an interval.

    ``cells``: a witness, cells that can be crossed one by one in this order (each anchored
    when placed) and that achieve ``upper``. ``method``: how the figure was found.
    """

    lower: int
    upper: int
    cells: tuple[str, ...] = ()
    method: str = "exact"

    @property
    def exact(self) -> bool:
        return self.lower == self.upper

    @property
    def value(self) -> int | None:
        """The figure when exact, else None (an interval is never a value)."""
        return self.lower if self.exact else None

    def to_dict(self) -> dict:
        return {"exact": self.exact, "value": self.value, "lower": self.lower, "upper": self.upper,
                "method": self.method, "cells": list(self.cells)}

    def text(self) -> str:
        return str(self.lower) if self.exact else f"{self.lower}..{self.upper} (approximate)"


def fewest_crosses(sheet: Sheet, target: int, exact_limit: int = EXACT_LIMIT,
                   time_limit: float = CPSAT_SECONDS) -> CrossesEstimate:
    """Fewest further crosses after which every cell of ``target`` (a mask) is crossed.

    Up to ``exact_limit`` terminal pieces: Dreyfus-Wagner, exact (from LAZY_FROM terminals on
    a growing subset, see :func:`_approximate`). Beyond: bounds from Dreyfus-Wagner on a
    spread subset, then (``time_limit`` > 0) a CP-SAT model that either proves the optimum
    or tightens the interval within the time limit.
    """
    red = reduce_target(sheet, target)
    terms = red.terminals
    if not terms:
        return CrossesEstimate(red.base, red.base, crossing_order(sheet, red.base_mask), "exact")
    if len(terms) <= min(exact_limit, LAZY_FROM):
        dp, rebuild = dreyfus_wagner(red, terms, red.weight)
        full = (1 << len(terms)) - 1
        cost = int(dp[full][0])
        nodes = rebuild(full, 0)
        if cost >= INF:
            raise ValueError("target cells cannot be reached from the start column")
        mask = nodes_mask(red, nodes) | red.base_mask
        assert mask.bit_count() == cost + red.base
        return CrossesEstimate(cost + red.base, cost + red.base, crossing_order(sheet, mask), "dreyfus-wagner")
    return _approximate(sheet, red, exact_limit, time_limit)


# Recent answers per board: (crossed cells, the target cells still open then, the witness's
# new cells, the figure when exact else None). A sheet that only gained crosses since (a room
# after a tap; another sheet finishing a star shrinks a team target) reuses them as bounds:
# - upper: the old new cells minus the cells crossed meanwhile still finish every target cell
#   they covered and hang off the larger crossed region (checked as a solution, then pruned);
# - lower: an optimal set S for the new state, plus the cells crossed meanwhile, plus a path
#   from each old target piece no longer wanted to the nearest wanted piece or the crossed
#   region, solves the old state, so  new >= old figure - crossed meanwhile - those paths.
# When they meet, the figure is proven without a search; else they let the lazy rounds of
# _approximate stop early. Each answer also keeps the pieces of its last lazy round's subset:
# the same sheet state asked again for a smaller target grows its subset there after the
# first (cheap) round (any subset gives valid bounds; one that sufficed before usually
# suffices again, and the rounds on the way to it are skipped).
_RECENT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # per board object (an id could be reused)
_RECENT_LOCK = threading.Lock()
_RECENT_PER_BOARD = 32


def _remember(sheet: Sheet, red: Reduced, cells: int, exact: bool, subset: tuple[int, ...] = ()) -> None:
    need = red.base_mask
    for v in red.terminals:
        need |= red.members[v]
    value = cells.bit_count() if exact else None
    with _RECENT_LOCK:
        recent = _RECENT.setdefault(sheet.board, deque(maxlen=_RECENT_PER_BOARD))
        recent.append((sheet.crossed, need, cells, value, tuple(red.members[t] for t in subset)))


def _remembered_subset(sheet: Sheet, red: Reduced, size: int, limit: int) -> list[int] | None:
    """The terminals of the latest lazy subset of this very sheet state (its pieces that are
    still terminals, in their order) when more than ``size`` and at most ``limit``; else None."""
    with _RECENT_LOCK:
        recent = list(_RECENT.get(sheet.board, ()))
    node_of = {red.members[t]: t for t in red.terminals}
    for crossed, _, _, _, pieces in reversed(recent):
        if crossed == sheet.crossed and pieces:
            kept = [node_of[p] for p in pieces if p in node_of]
            return kept if size < len(kept) <= limit else None
    return None


def _remembered_bounds(sheet: Sheet, red: Reduced) -> tuple[int, int, set[int] | None]:
    """(lower, upper, nodes of the upper) from the remembered answers; (-1, INF, None) if none apply."""
    import numpy as np  # loaded on use: light commands need no array
    with _RECENT_LOCK:
        recent = list(_RECENT.get(sheet.board, ()))
    need = red.base_mask
    for v in red.terminals:
        need |= red.members[v]
    lower, upper, best = -1, INF, None
    node_of = None
    attach = None
    for crossed, old_need, cells, value, _ in recent:
        if crossed & ~sheet.crossed:
            continue
        if node_of is None:
            node_of = {b: v for v, m in enumerate(red.members) for b in bit_list(m)}
        if not need & ~cells:  # upper: the old witness, less what is crossed now
            nodes = {0} | {node_of[b] for b in bit_list(cells & ~sheet.crossed & ~red.base_mask)}
            if connected_to_root(red, nodes):
                nodes = prune_leaves(red, nodes)
                cost = nodes_cost(red, nodes) + red.base
                if cost < upper:
                    upper, best = cost, nodes
        if value is None:
            continue
        if attach is None:  # per open cell: the fewest crosses joining it to a wanted piece or the crossed region
            init = np.full(len(red.adj), INF, dtype=np.int64)
            init[0] = 0
            for t in red.terminals:
                init[t] = 0
            attach, _ = node_dijkstra(red.adj, red.weight, init)
        dropped = old_need & ~sheet.crossed & ~need
        paths = 0
        for piece in components(dropped, sheet.board.neighbour_mask):
            paths += min(int(attach[node_of[b]]) for b in bit_list(piece)) + piece.bit_count() - 1
        lower = max(lower, value - (sheet.crossed & ~crossed).bit_count() - paths)
    return lower, upper, best


def _approximate(sheet: Sheet, red: Reduced, exact_limit: int, time_limit: float) -> CrossesEstimate:
    """Too many terminals for one programme: Dreyfus-Wagner on a spread subset Q gives both
    bounds, Q grows while they differ, then CP-SAT closes what is left.

    Lower bound: the optimum for Q when the other terminals weigh 0, plus their weight (any
    full solution is such a set for Q, its cost minus theirs). When that optimal set already
    holds every other terminal, its real cost IS that bound: proven (lazy terminals). Else the
    missing terminals (farthest-spread first, ``_LAZY_STEP`` at a time) join Q, up to
    ``exact_limit`` terminals (when CP-SAT follows, Q starts at LAZY_FROM of them; without
    it, at ``exact_limit``, as before the lazy rounds existed). Upper bound: the
    set with the missing terminals joined along shortest paths, then pruned, or the same
    from the cheapest set holding Q and one missing terminal (the best over the rounds and
    over remembered answers, see _remembered_bounds).
    """
    import numpy as np  # loaded on use: a light command (mission status) needs no array

    terms = red.terminals
    n = len(red.adj)
    root_init = np.full(n, INF, dtype=np.int64)
    root_init[0] = 0
    dist_root, _ = node_dijkstra(red.adj, red.weight, root_init)
    start_size = max(1, min(exact_limit, LAZY_FROM) if time_limit > 0 else exact_limit)  # CP-SAT does the rest
    chosen = [max(terms, key=lambda t: int(dist_root[t]))]
    near = None
    order_size = max(start_size, exact_limit)
    while len(chosen) < min(order_size, len(terms)):  # farthest-spread order
        init = np.full(n, INF, dtype=np.int64)
        init[chosen[-1]] = 0
        d, _ = node_dijkstra(red.adj, red.weight, init)
        near = np.minimum(near, d) if near is not None else np.minimum(dist_root, d)
        rest = [t for t in terms if t not in chosen]
        chosen.append(max(rest, key=lambda t: int(near[t])))
    rank = {t: i for i, t in enumerate(chosen)}
    subset = chosen[:start_size]
    remembered = _remembered_subset(sheet, red, start_size, max(1, exact_limit)) or []
    lower, upper, best = _remembered_bounds(sheet, red)
    rounds = 0
    while lower < upper:
        rounds += 1
        others = [t for t in terms if t not in subset]
        weight = list(red.weight)
        for t in others:
            weight[t] = 0
        dp, rebuild = dreyfus_wagner(red, subset, weight)
        full = (1 << len(subset)) - 1
        lower = max(lower, int(dp[full][0]) + sum(red.weight[t] for t in others) + red.base)
        relaxed = rebuild(full, 0)
        missing = [t for t in others if t not in relaxed]
        candidates = [_join_missing(red, relaxed, missing)]
        for t in missing:  # the cheapest set holding Q and t, joined to the root and the rest: often better
            if dp[full][t] < INF:
                around = rebuild(full, t)
                candidates.append(_join_missing(red, around, [0] + [x for x in others if x not in around]))
        for nodes in candidates:
            cost = nodes_cost(red, nodes) + red.base
            if cost < upper:
                upper, best = cost, nodes
        room = max(1, exact_limit) - len(subset)
        if lower >= upper or room <= 0 or not missing:
            break
        missing.sort(key=lambda t: rank.get(t, len(rank)))
        extra = [t for t in remembered if t not in subset]  # after a cheap first round: the subset that sufficed before
        add = extra + [t for t in missing if t not in extra]
        subset = subset + add[: min(room, max(len(extra), _LAZY_STEP))]
    nodes = best
    assert connected_to_root(red, nodes)
    method = (f"dreyfus-wagner on {len(subset)} of {len(terms)} terminals, bounds met" if lower == upper
              else f"bounds (dreyfus-wagner on {len(subset)} of {len(terms)} terminals)")
    if not rounds:
        method = "bounds from an earlier state of the sheet met"
    if time_limit > 0 and lower < upper:
        cp_lower, cp_upper, cp_nodes = cpsat_steiner(red, nodes, lower - red.base, time_limit)
        if cp_upper + red.base < upper:
            nodes, upper = cp_nodes, cp_upper + red.base
        lower = max(lower, cp_lower + red.base)
        method = "cp-sat" if lower == upper else f"bounds (cp-sat, {time_limit:g} s)"
    mask = nodes_mask(red, nodes) | red.base_mask
    assert lower <= upper, (lower, upper)
    _remember(sheet, red, mask, lower == upper, tuple(subset) if rounds else ())
    return CrossesEstimate(lower, upper, crossing_order(sheet, mask), method)


def _join_missing(red: Reduced, nodes: set[int], missing: list[int]) -> set[int]:
    """Join each missing terminal (nearest first) to the set along a shortest path, then prune."""
    import numpy as np  # loaded on use: light commands need no array
    n = len(red.adj)
    nodes = set(nodes)
    missing = [t for t in missing if t not in nodes]
    while missing:  # join the nearest missing terminal to the tree
        init = np.full(n, INF, dtype=np.int64)
        for v in nodes:
            init[v] = 0
        label, pred = node_dijkstra(red.adj, red.weight, init)
        t = min(missing, key=lambda x: int(label[x]))
        v = t
        while v >= 0 and v not in nodes:
            nodes.add(v)
            v = int(pred[v])
        missing = [x for x in missing if x not in nodes]
    return prune_leaves(red, nodes)


def fewest_crosses_choose(sheet: Sheet, groups: list[int], need: int, exact_limit: int = EXACT_LIMIT,
                          max_combinations: int = 500, time_limit: float = CPSAT_SECONDS) -> CrossesEstimate:
    """Fewest further crosses after which at least ``need`` of ``groups`` are wholly crossed.

    Used for "any k stars" or "k colours". Exact by trying every choice of groups when there
    are few; otherwise a greedy choice (upper bound) and a lower bound (each chosen group
    alone and the sizes, which every choice must pay), then, when every group's open cells
    are one connected piece (stars, cells, columns), a CP-SAT model that chooses the groups
    itself and proves the optimum or tightens the interval within ``time_limit``. Searches
    inside the loops skip CP-SAT.
    """
    if need <= 0:
        return CrossesEstimate(0, 0, (), "exact")
    if need > len(groups):
        raise ValueError(f"{need} groups needed but only {len(groups)} exist")
    done = [g for g in groups if not g & ~sheet.crossed]
    if len(done) >= need:
        return CrossesEstimate(0, 0, (), "exact")
    todo = [g for g in groups if g & ~sheet.crossed]
    more = need - len(done)
    if _n_choose(len(todo), more) <= max_combinations:
        options = []
        for combo in combinations(todo, more):
            target = 0
            for g in combo:
                target |= g
            options.append((fewest_crosses(sheet, target, exact_limit, 0), target))
        lower = min(est.lower for est, _ in options)
        best, target = min(options, key=lambda o: (o[0].upper, o[0].lower))
        if not best.exact and time_limit > 0:
            best = fewest_crosses(sheet, target, exact_limit, time_limit)
            lower = min([best.lower] + [est.lower for est, t in options if t != target])
        method = "exact" if lower == best.upper else "bounds (every choice of groups)"
        return CrossesEstimate(lower, best.upper, best.cells, method)
    singles = sorted(fewest_crosses(sheet, g, exact_limit, 0).lower for g in todo)
    sizes = sorted((g & ~sheet.crossed).bit_count() for g in todo)
    lower = max(singles[more - 1], sum(sizes[:more]))
    chosen_mask = 0
    left = list(todo)
    for _ in range(more):  # greedy: the group that adds the fewest crosses
        options = [(fewest_crosses(sheet, chosen_mask | g, exact_limit, 0), g) for g in left]
        _, g = min(options, key=lambda o: (o[0].upper, o[0].lower))
        chosen_mask |= g
        left.remove(g)
    est = fewest_crosses(sheet, chosen_mask, exact_limit, time_limit)
    lower = min(lower, est.upper)
    if lower < est.upper and time_limit > 0:
        red = reduce_optional(sheet, todo)
        if red is not None:  # every open group is one connected piece: CP-SAT chooses them
            witness = sheet.board.mask_of(est.cells)
            start = {v for v in range(1, len(red.members)) if red.members[v] & ~witness == 0} | {0}
            optional = tuple(range(1, len(todo) + 1))
            cp_lower, cp_upper, nodes = cpsat_steiner(red, start, lower, time_limit, optional, more)
            lower = max(lower, cp_lower)
            if cp_upper < est.upper:
                mask = nodes_mask(red, nodes)
                est = CrossesEstimate(cp_upper, cp_upper, crossing_order(sheet, mask), "cp-sat")
            if lower >= est.upper:
                return CrossesEstimate(est.upper, est.upper, est.cells, "cp-sat")
            return CrossesEstimate(lower, est.upper, est.cells, f"bounds (cp-sat, {time_limit:g} s)")
    return CrossesEstimate(lower, est.upper, est.cells,
                           "exact" if lower >= est.upper else "bounds (greedy choice of groups)")


def _n_choose(n: int, k: int) -> int:
    return comb(n, k) if 0 <= k <= n else 0


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
            raise ValueError(f"{c!r} is not a colour ({', '.join(COLOUR_NAMES)})")
        mask |= board.colour_mask[c]
    return mask


# --- fewest further rolls (one block a roll) -------------------------------------------------
ROLLS_EXACT_LIMIT = 8  # terminal parts up to which fewest_rolls runs Dreyfus-Wagner on all of them


@dataclass(frozen=True)
class RollsEstimate:
    """Fewest further rolls to a target with one block a roll: ``lower`` .. ``upper``, and
    ``cells`` (a mask) that cross the target in ``upper`` rolls, each piece anchored in turn."""

    lower: int
    upper: int
    cells: int


@lru_cache(maxsize=256)
def _part_graph(board: Board, crossed: int, anchored: int) -> tuple[list[int], list[frozenset[int]], dict[int, int],
                                                                   list[list[int]]]:
    """The open parts of blocks and their adjacency, the last node (index len(parts)) the
    crossed region, the part of each open cell, and the adjacency as sorted lists: the same
    for every target of one sheet state."""
    open_mask = board.full_mask & ~crossed
    parts = []
    for block in board.blocks:
        local = (open_mask & block.mask) >> block.offset
        parts.extend(part << block.offset for part in components(local, block.local_neighbours))
    node_of = {b: i for i, cells in enumerate(parts) for b in bit_list(cells)}
    root = len(parts)
    adj: list[set[int]] = [set() for _ in range(root + 1)]
    for i, cells in enumerate(parts):
        if cells & anchored:
            adj[i].add(root)
            adj[root].add(i)
        for b in bit_list(neighbours_of(cells, board.neighbour_mask) & open_mask & ~cells):
            adj[i].add(node_of[b])
    return parts, [frozenset(a) for a in adj], node_of, [sorted(a) for a in adj]


@lru_cache(maxsize=256)
def _rooted_parts(board: Board, crossed: int, anchored: int) -> tuple[list[list[int]], list[int]]:
    """:func:`_part_graph` numbered as :func:`reduce_pieces` numbers its nodes: node 0 the
    crossed region, node i + 1 part i; the adjacency lists and each node's cells."""
    parts, _, _, ordered = _part_graph(board, crossed, anchored)
    root = len(parts)
    adj = [sorted(0 if v == root else v + 1 for v in ordered[root])]
    adj.extend(sorted(0 if v == root else v + 1 for v in ordered[i]) for i in range(root))
    return adj, [0] + parts


def _part_distances(adj: list[list[int]], weight: list[int]) -> np.ndarray:
    """D[a][b]: the least weight of a path of parts from node a to node b of
    :func:`_rooted_parts` (both ends counted)."""
    import numpy as np  # loaded on use: light commands need no array

    n = len(adj)
    dist = np.empty((n, n), dtype=np.int64)
    for a in range(n):
        init = [INF] * n
        init[a] = weight[a]
        dist[a] = node_dijkstra(adj, weight, init)[0]
    return dist


def _pair_trees(dist: np.ndarray, weight: list[int], nodes: list[int]) -> np.ndarray:
    """trees[p][q] over ``nodes``: the least weight of a connected set of parts holding the
    crossed region (node 0), p and q: min over v of D[0][v] + D[v][p] + D[v][q] - 2 w[v]."""
    import numpy as np

    to = dist[:, nodes]
    w = np.array(weight, dtype=np.int64)
    return np.minimum((dist[0][:, None, None] + to[:, :, None] + to[:, None, :] - 2 * w[:, None, None]).min(axis=0), INF)


@dataclass(frozen=True)
class PairBounds:
    """Lower bounds on the rolls of a target made of some of a sheet's units, from the part
    graph alone (:func:`pair_rolls_bounds`); ``lower`` of a subset of units."""

    trees: tuple[tuple[int, ...], ...]  # [i][j]: fewest parts on a connected set from the crossed region to units i and j
    free: tuple[tuple[int, ...], ...]  # [i][j]: the same, counting only parts that hold no unit's cells
    parts: tuple[frozenset[int], ...]  # per unit: the open parts holding its cells

    def lower(self, subset) -> int:
        if not subset:
            return 0
        held = frozenset().union(*(self.parts[i] for i in subset))
        return max(max(self.trees[i][j] for i in subset for j in subset),
                   len(held) + max(self.free[i][j] for i in subset for j in subset))


@lru_cache(maxsize=256)
def _pair_bounds(board: Board, crossed: int, anchored: int, masks: tuple[int, ...]) -> PairBounds:
    import numpy as np  # loaded on use: light commands need no array

    adj, _ = _rooted_parts(board, crossed, anchored)
    _, _, node_of, _ = _part_graph(board, crossed, anchored)
    held = [frozenset(node_of[b] + 1 for b in bit_list(m & ~crossed)) for m in masks]
    nodes = sorted(frozenset().union(*held))
    k = len(masks)
    if not nodes:
        return PairBounds(((0,) * k,) * k, ((0,) * k,) * k, tuple(held))
    at = {v: i for i, v in enumerate(nodes)}
    unit = [0] + [1] * (len(adj) - 1)
    free = [0 if v in at else w for v, w in enumerate(unit)]
    tables = []
    for weight in (unit, free):
        trees = _pair_trees(_part_distances(adj, weight), weight, nodes)
        table = [[0] * k for _ in range(k)]
        for i in range(k):
            for j in range(i + 1):
                if held[i] and held[j]:
                    table[i][j] = table[j][i] = int(trees[np.ix_([at[p] for p in held[i]], [at[q] for q in held[j]])].max())
        tables.append(tuple(tuple(row) for row in table))
    return PairBounds(tables[0], tables[1], tuple(held))


def pair_rolls_bounds(sheet: Sheet, masks: tuple[int, ...]) -> PairBounds:
    """Lower bounds on the rolls of any target made of some of ``masks`` (a sheet's units),
    from the part graph alone, no search per target: ``.lower(subset)``.

    Why they hold: every roll crosses cells of one open part of a block, and the new cells
    of a legal set hang together from the crossed region, so they touch a connected set X of
    parts holding the crossed region and every part with target cells (its units' parts).
    For any two units i, j of the subset and parts p of i, q of j, X holds the crossed
    region, p and q: at least ``trees[i][j]`` parts (the least over such p, q of min over v
    of D[0][v] + D[v][p] + D[v][q] - 2, v counted once); and X holds every target part plus
    at least ``free[i][j]`` parts that hold no unit's cells (the same sets with every unit's
    part free). Neither exceeds :func:`fewest_rolls`' exact lower bound (the same sets,
    weighed at least one roll a part there, target parts at their group's weight):
    missions/split.py drops the subsets they rule out before the piece search."""
    return _pair_bounds(sheet.board, sheet.crossed, sheet.anchored, tuple(masks))


def reduce_pieces(sheet: Sheet, target: int) -> Reduced:
    """The sheet contracted for "fewest rolls that cross ``target``": a node per connected open
    part of a block (a roll crosses cells of one part, so a set of new cells takes at least
    one roll per part it touches, and ceil(n / 5) for n target cells of a part); node 0 is
    the crossed region. Forced parts (those holding target cells) next to the root or to each
    other are merged (an exact contraction: every solution holds both ends) into the node of
    the group's first part (the root's group into node 0); the group's other parts stay as
    nodes without arcs. A room's split asks this for thousands of targets a status, so the
    nodes keep the numbers of the sheet state's part graph (:func:`_rooted_parts`) and only
    the arcs next to the forced parts are worked out per target: the rest are shared lists."""
    need = target & ~sheet.crossed
    parts, adj, node_of, _ = _part_graph(sheet.board, sheet.crossed, sheet.anchored)
    rooted_adj, rooted_members = _rooted_parts(sheet.board, sheet.crossed, sheet.anchored)
    root = len(parts)  # (node 0 below; part i is node i + 1)
    held = sorted({node_of[b] for b in bit_list(need)})
    forced = {i for i in held} | {root}  # (built as a set in ascending order: the groups' first parts below depend on it)
    group = {}
    for start in forced:  # connected groups of forced nodes, each labelled by its first part
        if start in group:
            continue
        stack, group[start] = [start], start
        while stack:
            u = stack.pop()
            for v in adj[u]:
                if v in forced and v not in group:
                    group[v] = start
                    stack.append(v)
    root_group = group[root]
    node = {i: 0 if group[i] == root_group else group[i] + 1 for i in forced}  # each forced part's (group's) node
    wts = [1] * (root + 1)
    members = list(rooted_members)
    for i in forced:
        wts[node[i]] = 0
        if i != root:
            members[i + 1] = 0  # (its cells join its group's node below)
            wts[i + 1] = 0
    for i in held:
        members[node[i]] |= parts[i]
        wts[node[i]] += max(1, -(-(parts[i] & need).bit_count() // 5))
    base = wts[0]
    wts[0] = 0
    adj_new = list(rooted_adj)  # (shared lists: nothing changes them)
    near: dict[int, set[int]] = {}
    for u in forced:  # a group's node: its parts' neighbours' nodes, less itself, once each
        if u != root and node[u] != u + 1:
            adj_new[u + 1] = []  # merged into its group's node
        near.setdefault(node[u], set()).update(node[v] if v in forced else v + 1 for v in adj[u])
    for u in {v for i in forced for v in adj[i]} - forced:  # next to a group: arcs to the groups' nodes
        adj_new[u + 1] = sorted({node[v] if v in forced else v + 1 for v in adj[u]})
    for g, arcs in near.items():
        arcs.discard(g)
        adj_new[g] = sorted(arcs)
    terminals = sorted(g for g in near if g)
    return Reduced(wts, adj_new, members, terminals, base, members[0], set(terminals))


def fewest_rolls(sheet: Sheet, target: int, exact_limit: int = ROLLS_EXACT_LIMIT,
                 trim: bool = True) -> RollsEstimate:
    """Fewest further rolls after which every cell of ``target`` is crossed, each roll one
    connected piece of at most 5 cells in one block, anchored (bridging off).

    Lower bound: a node-weighted Steiner tree over :func:`reduce_pieces` (any legal set of new
    cells touches a connected set of parts holding every target part, and takes at least
    the parts' weights in rolls), exact by Dreyfus-Wagner up to ``exact_limit`` terminals,
    else on a subset of them with the others free to pass (plus their weight). Upper bound:
    the cells of the tree's parts (legal: connected to the crossed region), their pieces
    counted by nochmal.impossible.rolls_needed, then cells off the target dropped while the
    set stays legal and saves rolls, and (``trim``: fewer crosses for the same rolls, what a
    path shown to a player wants; bounds alone do not) while its pieces do not grow."""
    import numpy as np  # loaded on use: light commands need no array

    from nochmal.impossible import rolls_needed

    board = sheet.board
    need = target & ~sheet.crossed
    if not need:
        return RollsEstimate(0, 0, 0)
    red = reduce_pieces(sheet, target)
    terms = red.terminals
    if not terms:
        nodes = {0}
        lower = red.base
    else:
        subset = terms
        if len(terms) > max(0, exact_limit):  # the farthest terminals from the root: the most telling subset
            init = np.full(len(red.adj), INF, dtype=np.int64)
            init[0] = 0
            dist, _ = node_dijkstra(red.adj, red.weight, init)
            subset = sorted(terms, key=lambda t: -int(dist[t]))[:exact_limit]
        weight = list(red.weight)
        for t in terms:
            if t not in subset:
                weight[t] = 0
        nodes, tree = {0}, 0
        if subset:
            dp, rebuild = dreyfus_wagner(red, subset, weight)
            full = (1 << len(subset)) - 1
            if int(dp[full][0]) >= INF:
                raise ValueError("target cells cannot be reached from the start column")
            tree, nodes = int(dp[full][0]), rebuild(full, 0)
        lower = tree + red.base + sum(red.weight[t] for t in terms if t not in subset)
        nodes = _join_missing(red, nodes, [t for t in terms if t not in nodes])
    cells = nodes_mask(red, nodes) | red.base_mask
    upper = rolls_needed(board, cells).upper
    if upper > lower or trim:
        cells, upper = _drop_cells(sheet, cells, need, upper, trim)
    assert lower <= upper, (lower, upper)
    return RollsEstimate(lower, upper, cells)


FITS_BLOCK_CELLS = 10  # open cells of a block up to which fits_rolls tabulates its pieces (2^10 rows)


def add_anchored_cells(m, sheet: Sheet, prefix: str = "") -> dict:
    """CP-SAT variables for the cells a sheet crosses next: a boolean per open cell, and a
    single-commodity flow from the anchored cells that every chosen cell consumes, so the
    chosen cells are exactly those each connected to the anchored cells through chosen cells
    (a legal crossing order exists, one cell at a time, bridging off). Used by
    :func:`fits_rolls` and the split's cells model (missions/split.py)."""
    board = sheet.board
    open_mask = board.full_mask & ~sheet.crossed
    open_bits = bit_list(open_mask)
    y = {b: m.NewBoolVar(f"y{prefix}_{b}") for b in open_bits}
    cap = len(open_bits)
    inflow: dict[int, list] = {b: [] for b in open_bits}
    outflow: dict[int, list] = {b: [] for b in open_bits}
    for b in open_bits:
        if sheet.anchored >> b & 1:  # the crossed region (or the start column) feeds it
            f = m.NewIntVar(0, cap, f"r{prefix}_{b}")
            m.Add(f <= cap * y[b])
            inflow[b].append(f)
        for c in bit_list(board.neighbour_mask[b] & open_mask):
            f = m.NewIntVar(0, cap, f"f{prefix}_{b}_{c}")
            m.Add(f <= cap * y[b])
            m.Add(f <= cap * y[c])
            outflow[b].append(f)
            inflow[c].append(f)
    for b in open_bits:
        m.Add(sum(inflow[b]) - sum(outflow[b]) == y[b])
    return y


ENTRY_EXACT_LIMIT = 6  # terminal groups up to which entry_rolls_bound's programme takes all of them (3^6 steps)


@lru_cache(maxsize=1 << 16)
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
    is nochmal/steiner.py's, with the entries as arc costs."""
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


def fits_rolls(sheet: Sheet, target: int, rolls: int, time_limit: float = 1.0) -> tuple[bool | None, int]:
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
    where they straddle the roll count a split asks about (missions/split.py rolls_feasible),
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
    return _fits_by_cpsat(sheet, need, rolls, time_limit)


def _fits_by_cpsat(sheet: Sheet, need: int, rolls: int, time_limit: float) -> tuple[bool | None, int]:
    """:func:`fits_rolls`' CP-SAT model on its own (the tests' oracle for the bound before it)."""
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
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.01, time_limit)
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    status = solver.Solve(m)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return True, sum(1 << b for b in open_bits if solver.Value(y[b]))
    return (False, 0) if status == cp_model.INFEASIBLE else (None, 0)


def trimmed_rolls(sheet: Sheet, target: int, pieces: RollsEstimate) -> RollsEstimate:
    """``fewest_rolls(sheet, target)`` (trim on) from its ``trim=False`` answer ``pieces``: the
    same tree and the same first drops (at their fixed point, or none where the rolls already
    meet the bound), so only the trimming is left to do."""
    need = target & ~sheet.crossed
    if not need:
        return pieces
    cells, upper = _drop_cells(sheet, pieces.cells, need, pieces.upper, True)
    return RollsEstimate(pieces.lower, upper, cells)


def _drop_cells(sheet: Sheet, cells: int, need: int, rolls: int, trim: bool) -> tuple[int, int]:
    """Drop cells off the target from a legal set of new cells while every connected piece of
    it stays anchored: first cells of a block's part of more than 5 chosen cells while that
    saves a roll (a drop that merely splits a part in two would block cutting it to 5), then
    (``trim``) any cell while the rolls stay."""
    from nochmal.impossible import block_pieces

    board = sheet.board
    nb, anchored = board.neighbour_mask, sheet.anchored

    def drop(b: int, strict: bool) -> bool:
        nonlocal cells, rolls
        trial = cells & ~(1 << b)
        if component_of(trial & anchored, trial, nb) != trial:  # some piece of it left unanchored
            return False
        r = block_pieces(board, trial)[1]  # (rolls_needed's pieces; anchoring checked above)
        if r < rolls or (r == rolls and not strict):
            cells, rolls = trial, r
            return True
        return False

    changed = True
    while changed:
        changed = False
        for block in board.blocks:
            if (cells & block.mask).bit_count() <= 5:
                continue  # (no part of more than 5 cells)
            for part in components(cells & block.mask, board.neighbour_mask):
                if part.bit_count() > 5 and any(connected_within(part & ~(1 << b), part & ~(1 << b), board.neighbour_mask) and drop(b, True)
                                                 for b in bit_list(part & ~need)):
                    changed = True  # (only a drop that leaves the part in one piece can save a roll)
    if trim:
        for b in bit_list(cells & ~need):
            drop(b, False)
    return cells, rolls
