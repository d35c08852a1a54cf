"""The sheet as graphs (networkx), reachability, and the fewest further crosses to a target.

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

Dice are ignored on purpose: the figure counts crosses, not rolls.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations

import networkx as nx
import numpy as np

from nochmal.bitsets import bit_list, components
from nochmal.board import COLOUR_NAMES, COLOURS, COLUMN_LETTERS, Board
from nochmal.feasibility import impossible_reasons
from nochmal.sheet import Sheet

EXACT_LIMIT = 12  # terminals up to which the Dreyfus-Wagner search runs (3^k work, ~1 s at 12)
CPSAT_SECONDS = 5.0  # CP-SAT time limit when the exact DP is out of reach
_INF = 10**9


# --- the graphs --------------------------------------------------------------------------
@lru_cache(maxsize=32)
def cell_graph(board: Board) -> nx.Graph:
    """Cells as nodes (named ``H4``), orthogonal adjacency as edges.

    Node attributes: bit (engine bit), row (1-based), column (letter), colour (y g b r o),
    star (bool), block (index into ``board.blocks``), start (in the start column).
    Edge attribute ``same_block``: both ends in one block.
    """
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


def _mask_components(board: Board, mask: int) -> list[int]:
    """Orthogonally connected pieces of ``mask`` (as masks)."""
    return list(components(mask, board.neighbour_mask))


def crossed_components(sheet: Sheet) -> list[int]:
    """The connected pieces of the crossed cells, as masks."""
    return _mask_components(sheet.board, sheet.crossed)


# --- reachability ------------------------------------------------------------------------
def cross_distances(sheet: Sheet) -> dict[int, int]:
    """Per open cell (bit): the fewest crosses that end with that cell crossed.

    A multi-source node-weighted shortest path from the anchored open cells (distance 1)
    through open cells; crossed cells are not in the map. networkx does the search.
    """
    board = sheet.board
    g = cell_graph(board)
    open_cells = [n for n, bit in g.nodes(data="bit") if not sheet.crossed >> bit & 1]
    sub = g.subgraph(open_cells)
    sources = [board.cell_name(b) for b in bit_list(sheet.anchored & ~sheet.crossed)]
    if not sources:
        return {}
    dist = nx.multi_source_dijkstra_path_length(sub, sources, weight=lambda u, v, d: 1)
    return {g.nodes[name]["bit"]: d + 1 for name, d in dist.items()}


def reachable(sheet: Sheet, budget: int | None = None) -> int:
    """Mask of open cells that can be crossed within ``budget`` further crosses (None: ever)."""
    out = 0
    for bit, d in cross_distances(sheet).items():
        if budget is None or d <= budget:
            out |= 1 << bit
    return out


# --- why a sheet cannot come from a game -------------------------------------------------
# the impossible-sheet check is exact and lives in the rules core (nochmal/feasibility.py)
impossible_sheet_reasons = impossible_reasons


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


@dataclass
class _Reduced:
    """The contracted instance: node 0 is the root; others are open cells or target pieces."""

    weight: list[int]
    adj: list[list[int]]
    members: list[int]  # mask of board bits per node (root: 0)
    terminals: list[int]
    base: int  # crosses already forced (target pieces merged into the root)
    base_mask: int
    target_nodes: set[int] = field(default_factory=set)


def _reduce(sheet: Sheet, target: int) -> _Reduced:
    board = sheet.board
    crossed = sheet.crossed
    need = target & ~crossed
    open_mask = board.full_mask & ~crossed
    anchored_open = sheet.anchored & open_mask
    pieces = _mask_components(board, need)
    base_mask = 0
    terms = []
    for p in pieces:
        if p & anchored_open:
            base_mask |= p
        else:
            terms.append(p)
    members = [0]
    node_of: dict[int, int] = {}
    weight = [0]
    for p in terms:
        idx = len(members)
        members.append(p)
        weight.append(p.bit_count())
        for b in bit_list(p):
            node_of[b] = idx
    for b in bit_list(open_mask & ~need):
        node_of[b] = len(members)
        members.append(1 << b)
        weight.append(1)
    root_region = crossed | base_mask
    adj_sets: list[set[int]] = [set() for _ in members]
    nb = board.neighbour_mask
    for b in bit_list(anchored_open | (open_mask & _neighbours(board, base_mask))):
        if b in node_of:
            adj_sets[0].add(node_of[b])
            adj_sets[node_of[b]].add(0)
    for b, u in node_of.items():
        for c in bit_list(nb[b] & open_mask & ~root_region):
            v = node_of[c]
            if v != u:
                adj_sets[u].add(v)
    adj = [sorted(s) for s in adj_sets]
    return _Reduced(weight, adj, members, list(range(1, len(terms) + 1)), base_mask.bit_count(), base_mask,
                    set(range(1, len(terms) + 1)))


def _neighbours(board: Board, mask: int) -> int:
    out = 0
    for b in bit_list(mask):
        out |= board.neighbour_mask[b]
    return out


def _dijkstra(adj: list[list[int]], weight: list[int], init: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Node-weighted relaxation: label[v] = min(init[v], label[u] + weight[v]); returns labels, preds."""
    label = init.copy()
    pred = np.full(len(adj), -1, dtype=np.int64)
    heap = [(int(d), v) for v, d in enumerate(label) if d < _INF]
    heapq.heapify(heap)
    done = np.zeros(len(adj), dtype=bool)
    while heap:
        d, u = heapq.heappop(heap)
        if done[u] or d > label[u]:
            continue
        done[u] = True
        for v in adj[u]:
            nd = d + weight[v]
            if nd < label[v]:
                label[v] = nd
                pred[v] = u
                heapq.heappush(heap, (nd, v))
    return label, pred


def _dreyfus_wagner(red: _Reduced, terminals: list[int], weight: list[int]) -> tuple[np.ndarray, callable]:
    """dp[S][v]: cheapest connected node set holding terminals S and node v (weights counted).

    Returns dp and a function rebuilding the node set of (S, v).
    """
    n = len(red.adj)
    k = len(terminals)
    w = np.array(weight, dtype=np.int64)
    dp = np.full((1 << k, n), _INF, dtype=np.int64)
    split = np.zeros((1 << k, n), dtype=np.int64)
    pred = np.full((1 << k, n), -1, dtype=np.int64)
    for i, t in enumerate(terminals):
        init = np.full(n, _INF, dtype=np.int64)
        init[t] = weight[t]
        dp[1 << i], pred[1 << i] = _dijkstra(red.adj, weight, init)
    for s in range(1, 1 << k):
        if s & (s - 1) == 0:
            continue
        low = s & -s
        best = np.full(n, _INF, dtype=np.int64)
        arg = np.zeros(n, dtype=np.int64)
        rest = s ^ low
        sub = rest
        while True:  # S1 = low | sub over proper subsets ``sub`` of rest
            s1 = low | sub
            if s1 != s:
                cand = dp[s1] + dp[s ^ s1] - w
                better = cand < best
                best[better] = cand[better]
                arg[better] = s1
            if sub == 0:
                break
            sub = (sub - 1) & rest
        label, pr = _dijkstra(red.adj, weight, best)
        dp[s] = label
        split[s] = np.where(pr < 0, arg, 0)
        pred[s] = pr

    def rebuild(s: int, v: int) -> set[int]:
        out: set[int] = set()
        stack = [(s, v)]
        while stack:
            s, v = stack.pop()
            out.add(v)
            p = pred[s][v]
            if p >= 0:
                stack.append((s, int(p)))
            elif s & (s - 1):
                s1 = int(split[s][v])
                stack.append((s1, v))
                stack.append((s ^ s1, v))
        return out

    return dp, rebuild


def _order_cells(sheet: Sheet, cells: int) -> tuple[str, ...]:
    """The cells of a valid new-cross set in an order where each is anchored when placed."""
    board = sheet.board
    anchored = sheet.anchored
    left = cells
    order = []
    while left:
        ready = left & anchored
        if not ready:
            raise AssertionError("witness cells are not connected to the anchored region")
        b = (ready & -ready).bit_length() - 1
        order.append(b)
        left &= ~(1 << b)
        anchored |= board.neighbour_mask[b]
    return tuple(board.cell_name(b) for b in order)


def _prune(red: _Reduced, nodes: set[int]) -> set[int]:
    """Drop non-terminal leaves repeatedly (they only add weight)."""
    nodes = set(nodes)
    changed = True
    while changed:
        changed = False
        for v in list(nodes):
            if v == 0 or v in red.target_nodes:
                continue
            deg = sum(1 for u in red.adj[v] if u in nodes)
            if deg <= 1:
                nodes.discard(v)
                changed = True
    return nodes


def _nodes_cost(red: _Reduced, nodes: set[int]) -> int:
    return sum(red.weight[v] for v in nodes)


def _nodes_mask(red: _Reduced, nodes: set[int]) -> int:
    m = 0
    for v in nodes:
        m |= red.members[v]
    return m


def _connected_to_root(red: _Reduced, nodes: set[int]) -> bool:
    return nodes <= _root_component(red, nodes)


def fewest_crosses(sheet: Sheet, target: int, exact_limit: int = EXACT_LIMIT,
                   time_limit: float = CPSAT_SECONDS) -> CrossesEstimate:
    """Fewest further crosses after which every cell of ``target`` (a mask) is crossed.

    Up to ``exact_limit`` terminal pieces: Dreyfus-Wagner, exact. Beyond: bounds from
    Dreyfus-Wagner on a spread subset, then (``time_limit`` > 0) a CP-SAT model that either
    proves the optimum or tightens the interval within the time limit.
    """
    red = _reduce(sheet, target)
    terms = red.terminals
    if not terms:
        return CrossesEstimate(red.base, red.base, _order_cells(sheet, red.base_mask), "exact")
    if len(terms) <= exact_limit:
        dp, rebuild = _dreyfus_wagner(red, terms, red.weight)
        full = (1 << len(terms)) - 1
        cost = int(dp[full][0])
        nodes = rebuild(full, 0)
        if cost >= _INF:
            raise ValueError("target cells cannot be reached from the start column")
        mask = _nodes_mask(red, nodes) | red.base_mask
        assert mask.bit_count() == cost + red.base
        return CrossesEstimate(cost + red.base, cost + red.base, _order_cells(sheet, mask), "dreyfus-wagner")
    return _approximate(sheet, red, exact_limit, time_limit)


def _approximate(sheet: Sheet, red: _Reduced, exact_limit: int, time_limit: float) -> CrossesEstimate:
    """Too many terminals: DW on the farthest-spread subset gives both bounds.

    Lower bound: the optimum for the subset Q when the other terminals weigh 0, plus their
    weight (any full solution is such a set for Q, its cost minus theirs). Upper bound: that
    tree with the other terminals joined along shortest paths, then pruned.
    """
    terms = red.terminals
    n = len(red.adj)
    root_init = np.full(n, _INF, dtype=np.int64)
    root_init[0] = 0
    dist_root, _ = _dijkstra(red.adj, red.weight, root_init)
    chosen = [max(terms, key=lambda t: int(dist_root[t]))]
    near = None
    subset = min(exact_limit, 8) if time_limit > 0 else exact_limit  # CP-SAT does the rest
    while len(chosen) < subset:
        init = np.full(n, _INF, dtype=np.int64)
        init[chosen[-1]] = 0
        d, _ = _dijkstra(red.adj, red.weight, init)
        near = np.minimum(near, d) if near is not None else np.minimum(dist_root, d)
        rest = [t for t in terms if t not in chosen]
        chosen.append(max(rest, key=lambda t: int(near[t])))
    others = [t for t in terms if t not in chosen]
    weight = list(red.weight)
    for t in others:
        weight[t] = 0
    dp, rebuild = _dreyfus_wagner(red, chosen, weight)
    full = (1 << len(chosen)) - 1
    lower = int(dp[full][0]) + sum(red.weight[t] for t in others) + red.base
    nodes = rebuild(full, 0)
    missing = [t for t in others if t not in nodes]
    while missing:  # join the nearest missing terminal to the tree
        init = np.full(n, _INF, dtype=np.int64)
        for v in nodes:
            init[v] = 0
        label, pred = _dijkstra(red.adj, red.weight, init)
        t = min(missing, key=lambda x: int(label[x]))
        v = t
        while v >= 0 and v not in nodes:
            nodes.add(v)
            v = int(pred[v])
        missing = [x for x in missing if x not in nodes]
    nodes = _prune(red, nodes)
    assert _connected_to_root(red, nodes)
    upper = _nodes_cost(red, nodes) + red.base
    method = (f"dreyfus-wagner on {len(chosen)} of {len(terms)} terminals, bounds met" if lower == upper
              else f"bounds (dreyfus-wagner on {len(chosen)} of {len(terms)} terminals)")
    if time_limit > 0 and lower < upper:
        cp_lower, cp_upper, cp_nodes = _cpsat_steiner(red, nodes, lower - red.base, time_limit)
        if cp_upper + red.base < upper:
            nodes, upper = cp_nodes, cp_upper + red.base
        lower = max(lower, cp_lower + red.base)
        method = "cp-sat" if lower == upper else f"bounds (cp-sat, {time_limit:g} s)"
    mask = _nodes_mask(red, nodes) | red.base_mask
    assert lower <= upper, (lower, upper)
    return CrossesEstimate(lower, upper, _order_cells(sheet, mask), method)


def _cpsat_steiner(red: _Reduced, start: set[int], lower: int, time_limit: float,
                   optional: tuple[int, ...] = (), need: int = 0) -> tuple[int, int, set[int]]:
    """Node-weighted Steiner arborescence from the root as a CP-SAT model (multi-commodity flow).

    Every chosen node but the root has one chosen parent arc; each terminal receives one unit
    of its own flow from the root along chosen arcs, and every chosen arc carries some flow,
    so the chosen set hangs together from the root. ``optional`` nodes: at least ``need`` of
    them must be chosen (each gets its own flow when chosen). Returns (proven lower bound,
    cost of the best set found, that set).
    """
    from ortools.sat.python import cp_model

    n = len(red.adj)
    m = cp_model.CpModel()
    x = [m.NewBoolVar(f"x{v}") for v in range(n)]
    m.Add(x[0] == 1)
    for t in red.terminals:
        m.Add(x[t] == 1)
    arcs = [(u, v) for u in range(n) for v in red.adj[u] if v != 0]
    a = {e: m.NewBoolVar(f"a{e}") for e in arcs}
    into: list[list] = [[] for _ in range(n)]
    out: list[list] = [[] for _ in range(n)]
    for (u, v) in arcs:
        m.AddImplication(a[(u, v)], x[u])
        m.AddImplication(a[(u, v)], x[v])
        into[v].append((u, v))
        out[u].append((u, v))
    for v in range(1, n):
        m.Add(sum(a[e] for e in into[v]) == x[v])
        if v not in red.target_nodes and v not in optional:  # no open leaf: a chosen helper has a child
            m.Add(sum(a[e] for e in out[v]) >= x[v])
    carried: dict[tuple[int, int], list] = {e: [] for e in arcs}
    if optional:
        m.Add(sum(x[t] for t in optional) >= need)
    demands = [(t, 1) for t in red.terminals] + [(t, x[t]) for t in optional]
    for t, value in demands:  # one unit of flow root -> t on chosen arcs (the strong cut relaxation)
        g = {e: m.NewBoolVar(f"g{t}_{e}") for e in arcs}
        for e, var in g.items():
            m.Add(var <= a[e])
            carried[e].append(var)
        for v in range(1, n):
            inflow = sum(g[e] for e in into[v])
            outflow = sum(g[e] for e in out[v])
            m.Add(inflow - outflow == (value if v == t else 0))
    for e in arcs:  # a chosen arc carries some terminal's flow, so every chosen node hangs off the root
        m.Add(a[e] <= sum(carried[e]))
    cost = sum(red.weight[v] * x[v] for v in range(n))
    m.Add(cost >= lower)
    m.Minimize(cost)
    for v in range(n):
        m.AddHint(x[v], v in start)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.num_workers = 1
    solver.parameters.linearization_level = 2
    solver.parameters.random_seed = 0
    status = solver.Solve(m)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return lower, _nodes_cost(red, start), start
    chosen = _root_component(red, {v for v in range(n) if solver.Value(x[v])})
    # a solution may carry a useless cycle cut off from the root (flows can circulate in it);
    # the part hanging from the root still holds every chosen terminal's flow path
    demanded = set(red.terminals) | {t for t in optional if t in chosen}
    assert demanded <= chosen and sum(1 for t in optional if t in chosen) >= need
    return int(round(solver.BestObjectiveBound())), _nodes_cost(red, chosen), chosen


def _root_component(red: _Reduced, nodes: set[int]) -> set[int]:
    """The root (node 0) and the nodes of ``nodes`` connected to it."""
    seen = {0}
    stack = [0]
    while stack:
        u = stack.pop()
        for v in red.adj[u]:
            if v in nodes and v not in seen:
                seen.add(v)
                stack.append(v)
    return seen


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
        red = _reduce_optional(sheet, todo)
        if red is not None:  # every open group is one connected piece: CP-SAT chooses them
            witness = sheet.board.mask_of(est.cells)
            start = {v for v in range(1, len(red.members)) if red.members[v] & ~witness == 0} | {0}
            optional = tuple(range(1, len(todo) + 1))
            cp_lower, cp_upper, nodes = _cpsat_steiner(red, start, lower, time_limit, optional, more)
            lower = max(lower, cp_lower)
            if cp_upper < est.upper:
                mask = _nodes_mask(red, nodes)
                est = CrossesEstimate(cp_upper, cp_upper, _order_cells(sheet, mask), "cp-sat")
            if lower >= est.upper:
                return CrossesEstimate(est.upper, est.upper, est.cells, "cp-sat")
            return CrossesEstimate(lower, est.upper, est.cells, f"bounds (cp-sat, {time_limit:g} s)")
    return CrossesEstimate(lower, est.upper, est.cells,
                           "exact" if lower >= est.upper else "bounds (greedy choice of groups)")


def _reduce_optional(sheet: Sheet, groups: list[int]) -> _Reduced | None:
    """The open cells as a graph where each group's open part (if one connected piece) is one
    node 1..len(groups); None when a group's open cells are not connected."""
    board = sheet.board
    open_mask = board.full_mask & ~sheet.crossed
    members, weight, node_of = [0], [0], {}
    for g in groups:
        part = g & open_mask
        if len(_mask_components(board, part)) != 1:
            return None
        for b in bit_list(part):
            node_of[b] = len(members)
        members.append(part)
        weight.append(part.bit_count())
    union = sum(members)
    for b in bit_list(open_mask & ~union):
        node_of[b] = len(members)
        members.append(1 << b)
        weight.append(1)
    adj_sets: list[set[int]] = [set() for _ in members]
    for b in bit_list(sheet.anchored & open_mask):
        adj_sets[0].add(node_of[b])
        adj_sets[node_of[b]].add(0)
    for b, u in node_of.items():
        for c in bit_list(board.neighbour_mask[b] & open_mask):
            v = node_of[c]
            if v != u:
                adj_sets[u].add(v)
    return _Reduced(weight, [sorted(x) for x in adj_sets], members, [], 0, 0, set())


def _n_choose(n: int, k: int) -> int:
    from math import comb

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


def fewest_crosses_to_cell(sheet: Sheet, cell: str) -> int:
    """Fewest crosses until ``cell`` is crossed (0 if it is)."""
    return fewest_crosses(sheet, 1 << sheet.board.bit(cell)).lower
