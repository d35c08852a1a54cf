"""Node-weighted Steiner trees on a sheet: the exact and bounding searches behind the fewest
further crosses (nochmal/sheetgraph.py states the problem and the reductions).

A sheet is contracted into a small graph (``Reduced``): node 0 is the *root* (every crossed
cell, weight 0), the other nodes are open cells (weight 1) or whole target pieces (weight
their size). ``dreyfus_wagner`` solves the node-weighted Steiner tree exactly over terminal
subsets; ``cpsat_steiner`` is a CP-SAT arborescence model (one flow per terminal, the strong
cut relaxation) for when there are too many terminals for the 3^k programme.

Why hand-written and not networkx: networkx's ``steiner_tree`` is a 2-approximation on
edge weights, while a crosses figure must be exact (or an honest interval) and is node
weighted (measured, benchmarks/bench_steiner.py: all 15 stars from an empty classic sheet,
networkx 35-36 crosses in ~0.02 s, the proven optimum 33); and the Dreyfus-Wagner programme needs per terminal subset one shortest-path
pass seeded with a whole vector of labels, which is a numpy row here. networkx serves where
it is not the hot path (nochmal/sheetgraph.py: the board as graphs, per-cell distances).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from nochmal.bitsets import bit_list, components, neighbours_of
from nochmal.board import Board
from nochmal.sheet import Sheet

if TYPE_CHECKING:
    import numpy as np

INF = 10**9  # "unreachable" in the integer labels
_BATCH_FROM = 4  # subsets of one size from which dreyfus_wagner runs their passes as one scipy call (measured)


def _pieces(board: Board, mask: int) -> list[int]:
    """Orthogonally connected pieces of ``mask`` (as masks)."""
    return list(components(mask, board.neighbour_mask))


@dataclass
class Reduced:
    """The contracted instance: node 0 is the root; others are open cells or target pieces."""

    weight: list[int]
    adj: list[list[int]]
    members: list[int]  # mask of board bits per node (root: 0)
    terminals: list[int]
    base: int  # crosses already forced (target pieces merged into the root)
    base_mask: int
    target_nodes: set[int] = field(default_factory=set)


def reduce_target(sheet: Sheet, target: int) -> Reduced:
    """The sheet contracted for "cross every cell of ``target``": crossed target cells drop
    out, each open target piece is one terminal (a piece touching the anchored region is
    forced and merges into the root)."""
    board = sheet.board
    crossed = sheet.crossed
    need = target & ~crossed
    open_mask = board.full_mask & ~crossed
    anchored_open = sheet.anchored & open_mask
    pieces = _pieces(board, need)
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
    for b in bit_list(anchored_open | (open_mask & neighbours_of(base_mask, board.neighbour_mask))):
        if b in node_of:
            adj_sets[0].add(node_of[b])
            adj_sets[node_of[b]].add(0)
    for b, u in node_of.items():
        for c in bit_list(nb[b] & open_mask & ~root_region):
            v = node_of[c]
            if v != u:
                adj_sets[u].add(v)
    adj = [sorted(s) for s in adj_sets]
    return Reduced(weight, adj, members, list(range(1, len(terms) + 1)), base_mask.bit_count(), base_mask,
                    set(range(1, len(terms) + 1)))


def node_dijkstra(adj: list[list[int]], weight: list[int], init: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Node-weighted relaxation: label[v] = min(init[v], label[u] + weight[v]); returns labels, preds."""
    import numpy as np  # loaded on use (nochmal/sheetgraph.py: light commands need no array)

    label, pred = _relax(adj, weight, init.tolist() if isinstance(init, np.ndarray) else list(init))
    return np.array(label, dtype=np.int64), np.array(pred, dtype=np.int64)


def _relax(adj: list[list[int]], weight: list[int], label: list[int]) -> tuple[list[int], list[int]]:
    """:func:`node_dijkstra` on Python lists, in place on ``label`` (indexing a numpy array one
    element at a time is several times slower; small programmes skip the conversions)."""
    pred = [-1] * len(adj)
    heap = [(d, v) for v, d in enumerate(label) if d < INF]
    heapq.heapify(heap)
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        d, u = pop(heap)
        if d > label[u]:  # stale (a node's entries have distinct labels: pushed on strict gains only)
            continue
        for v in adj[u]:
            nd = d + weight[v]
            if nd < label[v]:
                label[v] = nd
                pred[v] = u
                push(heap, (nd, v))
    return label, pred


def dreyfus_wagner(red: Reduced, terminals: list[int], weight: list[int]) -> tuple[np.ndarray, callable]:
    """dp[S][v]: cheapest connected node set holding terminals S and node v (weights counted).

    Returns dp and a function rebuilding the node set of (S, v). The subsets of one size do
    not depend on each other, so each size is one batch: the merges of all its subsets are
    one gather and one minimum over every (half, other half) pair (:func:`_merge_plan`), and
    the shortest-path passes of all subsets of that size are one call of scipy's Dijkstra (a
    super-source per subset whose arc to v weighs the merged label of v; arc u->v weighs
    weight[v]: node weights as arc weights). Which half achieves a merge is only looked up
    when a node set is rebuilt (a few merges per tree, not one per subset and node).
    """
    import numpy as np

    n = len(red.adj)
    k = len(terminals)
    w = np.array(weight, dtype=np.int64)
    dp = np.full((1 << k, n), INF, dtype=np.int64)
    dp32 = np.full((1 << k, n), INF, dtype=np.int32)  # the merges' copy: half the memory read (INF + INF < 2^31)
    pred = np.full((1 << k, n), -1, dtype=np.int64)
    arcs = None
    for size in range(1, k + 1):
        subsets, s1, s2 = _merge_plan(k, size)
        if size == 1:
            init = [[INF] * n for _ in terminals]
            for row, t in enumerate(terminals):
                init[row][t] = weight[t]
            if k > _BATCH_FROM:
                init = np.array(init, dtype=np.int64)
        else:
            init = np.empty((len(subsets), n), dtype=np.int64)
            rows = max(1, _MERGE_CHUNK // s1.shape[1])
            for a in range(0, len(subsets), rows):  # chunks bound the gathered pairs' memory
                cand = dp32[s1[a:a + rows]]
                cand += dp32[s2[a:a + rows]]
                np.minimum(cand.min(axis=1) - w, INF, out=init[a:a + rows])
        if len(subsets) <= _BATCH_FROM:  # a scipy call costs more than a few Python passes
            done = [_relax(red.adj, weight, row if size == 1 else row.tolist()) for row in init]
            dp[subsets] = [d for d, _ in done]
            pred[subsets] = [p for _, p in done]
        else:
            if arcs is None:
                arcs = _arcs(red.adj, w)
            dp[subsets], pred[subsets] = _batch_dijkstra(n, arcs, init)
        dp32[subsets] = dp[subsets]

    def rebuild(s: int, v: int) -> set[int]:
        out: set[int] = set()
        stack = [(s, v)]
        while stack:
            s, v = stack.pop()
            out.add(v)
            p = pred[s, v]
            if p >= 0:
                stack.append((s, int(p)))
            elif s & (s - 1):
                s1 = _first_best_half(dp, k, s, v)
                stack.append((s1, v))
                stack.append((s ^ s1, v))
        return out

    return dp, rebuild


_MERGE_CHUNK = 8192  # (half, other half) pairs gathered per merge chunk (measured: 1024..32768 alike, 131072 slower)


@lru_cache(maxsize=128)  # (k, size) up to k = 12 (sheetgraph.EXACT_LIMIT): 78 plans, ~6 MB
def _merge_plan(k: int, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The subsets of ``size`` of k terminals (ascending) and, per subset, its halves S1 that
    hold its lowest terminal (all but the subset itself, as submasks in descending order:
    the order the merge scanned them one subset at a time, so the first best half and the
    rebuilt sets stay the same) and their other halves, as (subsets, S1 rows, S2 rows)."""
    import numpy as np

    subsets = np.array([s for s in range(1, 1 << k) if s.bit_count() == size], dtype=np.int64)
    if size == 1:
        return subsets, subsets[:, None], subsets[:, None]
    bits = np.array([[b for b in range(k) if s >> b & 1] for s in subsets.tolist()], dtype=np.int64)
    low, rest = 1 << bits[:, 0], bits[:, 1:]  # rest: the size-1 other terminals' bit positions
    idx = np.arange((1 << (size - 1)) - 2, -1, -1, dtype=np.int64)  # submask numbers, descending (not all of rest)
    picks = (idx[None, :, None] >> np.arange(size - 1)[None, None, :]) & 1
    sub = (picks << rest[:, None, :]).sum(axis=2)  # the submask of rest numbered idx: order kept
    s1 = low[:, None] | sub
    s2 = subsets[:, None] ^ s1
    for a in (subsets, s1, s2):  # shared by every call (cached)
        a.setflags(write=False)
    return subsets, s1, s2


def _first_best_half(dp: np.ndarray, k: int, s: int, v: int) -> int:
    """The first half S1 (in :func:`_merge_plan`'s order) with dp[S1][v] + dp[S - S1][v] least."""
    import numpy as np

    subsets, s1, s2 = _merge_plan(k, s.bit_count())
    row = int(np.searchsorted(subsets, s))
    return int(s1[row][(dp[s1[row], v] + dp[s2[row], v]).argmin()])


def _arcs(adj: list[list[int]], w: np.ndarray) -> tuple[np.ndarray, ...]:
    """The graph in CSR form for scipy (indptr, indices, data: arc u->v weighs w[v]), and per
    node v its in-neighbours (sources of the arcs into v, by v: in_ptr, in_from) and w[v]."""
    import numpy as np

    indptr = np.zeros(len(adj) + 1, dtype=np.int32)
    indptr[1:] = np.cumsum([len(row) for row in adj])
    indices = np.array([v for row in adj for v in row], dtype=np.int32)
    by_to = np.argsort(indices, kind="stable")
    in_from = np.repeat(np.arange(len(adj), dtype=np.int32), np.diff(indptr))[by_to]
    in_ptr = np.searchsorted(indices[by_to], np.arange(len(adj) + 1)).astype(np.int32)
    return indptr, indices, w[indices].astype(np.float64), in_ptr, in_from, w


def _batch_dijkstra(n: int, graph: tuple[np.ndarray, ...], init: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``init``: label[v] = min(init[v], label[u] + w[v] over arcs u->v), and the
    predecessor of v (-1 where the label is init's own). The same as :func:`node_dijkstra`
    per row, all rows in one scipy call (the labels are small integers, exact in floats):
    row r is a super-source n + r with an arc to each v of finite init[v], of that weight,
    appended to the graph's CSR arrays as they are (no COO conversion)."""
    import numpy as np  # loaded on use: light commands need no array
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    indptr, indices, data, in_ptr, in_from, w = graph
    m = len(init)
    finite = init < INF
    if len(in_from):  # no super-source arc to v where some u->v has init[u] + w[v] < init[v]: v's label
        # is below init[v] then, so that arc is on no shortest path and every label stays (35 % of the
        # arcs in star hunt's programmes, a quarter of scipy's time; v's predecessor is the first node
        # giving its final label, never that arc: the rebuilt sets stayed the same in every captured call)
        near = np.minimum.reduceat(init.astype(np.int32)[:, in_from], np.minimum(in_ptr[:-1], len(in_from) - 1), axis=1)
        near[:, in_ptr[1:] == in_ptr[:-1]] = INF
        finite &= near + w >= init
    rows, cols = np.nonzero(finite)  # by row, then column: CSR order
    csr = csr_matrix((np.concatenate([data, init[rows, cols].astype(np.float64)]),
                      np.concatenate([indices, cols.astype(np.int32)]),
                      np.concatenate([indptr, len(indices) + np.cumsum(finite.sum(axis=1), dtype=np.int32)])),
                     shape=(n + m, n + m))
    dist, pr = dijkstra(csr, directed=True, indices=np.arange(n, n + m), return_predecessors=True)
    dist, pr = dist[:, :n], pr[:, :n]
    labels = np.where(np.isinf(dist), INF, np.nan_to_num(dist, posinf=0)).astype(np.int64)
    preds = np.where((pr >= n) | (pr < 0), -1, pr).astype(np.int64)
    return labels, preds


def crossing_order(sheet: Sheet, cells: int) -> tuple[str, ...]:
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


def prune_leaves(red: Reduced, nodes: set[int]) -> set[int]:
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


def nodes_cost(red: Reduced, nodes: set[int]) -> int:
    return sum(red.weight[v] for v in nodes)


def nodes_mask(red: Reduced, nodes: set[int]) -> int:
    m = 0
    for v in nodes:
        m |= red.members[v]
    return m


def connected_to_root(red: Reduced, nodes: set[int]) -> bool:
    return nodes <= root_component(red, nodes)


def cpsat_steiner(red: Reduced, start: set[int], lower: int, time_limit: float,
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
        return lower, nodes_cost(red, start), start
    chosen = root_component(red, {v for v in range(n) if solver.Value(x[v])})
    # a solution may carry a useless cycle cut off from the root (flows can circulate in it);
    # the part hanging from the root still holds every chosen terminal's flow path
    demanded = set(red.terminals) | {t for t in optional if t in chosen}
    assert demanded <= chosen and sum(1 for t in optional if t in chosen) >= need
    return int(round(solver.BestObjectiveBound())), nodes_cost(red, chosen), chosen


def root_component(red: Reduced, nodes: set[int]) -> set[int]:
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


def reduce_optional(sheet: Sheet, groups: list[int]) -> Reduced | None:
    """The open cells as a graph where each group's open part (if one connected piece) is one
    node 1..len(groups); None when a group's open cells are not connected."""
    board = sheet.board
    open_mask = board.full_mask & ~sheet.crossed
    members, weight, node_of = [0], [0], {}
    for g in groups:
        part = g & open_mask
        if len(_pieces(board, part)) != 1:
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
    return Reduced(weight, [sorted(x) for x in adj_sets], members, [], 0, 0, set())
