"""Node-weighted Steiner trees on a sheet: the exact and bounding searches behind the fewest
further crosses and rolls (missions/measures/__init__.py states the problem,
missions/measures/crosses.py the reductions).

A sheet is contracted into a small graph (``Reduced``): node 0 is the *root* (every crossed
cell, weight 0), the other nodes are open cells (weight 1) or whole target pieces (weight
their size). ``dreyfus_wagner`` solves the node-weighted Steiner tree exactly over terminal
subsets; ``cpsat_steiner`` is a CP-SAT arborescence model (one flow per terminal, the strong
cut relaxation) for when there are too many terminals for the 3^k programme.

Why hand-written and not networkx: networkx's ``steiner_tree`` is a 2-approximation on
edge weights, while a crosses figure must be exact (or an honest interval) and is node
weighted (measured, benchmarks/bench_steiner.py: all 15 stars from an empty classic sheet,
networkx 35-36 crosses in ~0.02 s, the proven optimum 33). The Dreyfus-Wagner programme
itself is C (missions/measures/_steiner.c: a table room's status runs it on every tap that crosses a
star; missions/measures/steiner_numpy.py is the same programme for an install without a C
compiler); networkx serves the tests as an independent view of the board
(tests/graphs_support.py), not the library.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from nochmal.bitsets import bit_list, components, neighbours_of
from nochmal.board import Board
from nochmal.missions.cpsolver import cp_solver
from nochmal.sheet import Sheet

if TYPE_CHECKING:
    import numpy as np

INF = 10**9  # "unreachable" in the integer labels


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


def compiled_programme():
    """The compiled Dreyfus-Wagner programme (missions/measures/_steiner.c, built at install
    when a C compiler is there), or None without it; the tests hold it against the numpy one."""
    try:
        from nochmal.missions.measures import _steiner
    except ImportError:
        return None
    return _steiner


@cache
def programme():
    """The Dreyfus-Wagner programme in use: the compiled one (:func:`compiled_programme`), else
    the same programme in numpy (missions/measures/steiner_numpy.py; docs/architecture.md says
    what the compiler buys)."""
    compiled = compiled_programme()
    if compiled is None:
        from nochmal.missions.measures import steiner_numpy as compiled
    return compiled


def programme_name() -> str:
    """Which programme :func:`programme` is, in words (``nochmal --version`` prints it)."""
    if programme().__name__.endswith("steiner_numpy"):
        return "numpy (the C extension is not built)"
    return "compiled (C extension)"


def node_dijkstra(adj: list[list[int]], weight: list[int], init, extra=None) -> tuple[np.ndarray, np.ndarray]:
    """Node-weighted relaxation: label[v] = min(init[v], label[u] + weight[v]); returns labels, preds
    (the node each label came from, -1 where it is init's own). ``extra``: per node a list
    parallel to adj[u], a cost added on that arc (INF: no arc). Runs in :func:`programme`."""
    import numpy as np  # loaded on use (light commands need no array)

    label, pred = programme().relax(adj, weight, init.tolist() if isinstance(init, np.ndarray) else init, extra)
    return np.frombuffer(label, dtype=np.int32).astype(np.int64), np.frombuffer(pred, dtype=np.int32).astype(np.int64)


def dreyfus_wagner(red: Reduced, terminals: list[int], weight: list[int], extra=None) -> tuple[np.ndarray, callable]:
    """dp[S][v]: cheapest connected node set holding terminals S and node v (weights counted;
    ``extra`` as :func:`node_dijkstra`'s: a cost on each arc u -> v taken, v being u's parent
    in a tree grown towards v).

    Returns dp and a function rebuilding the node set of (S, v). The programme (per subset
    a merge over its halves, then one shortest-path pass) runs compiled, missions/measures/_steiner.c;
    which half achieves a merge is only looked up when a node set is rebuilt (a few merges
    per tree, not one per subset and node).
    """
    import numpy as np  # loaded on use (light commands need no array)

    n = len(red.adj)
    k = len(terminals)
    dp, pred = programme().dreyfus_wagner(red.adj, weight, terminals, extra)
    dp = np.frombuffer(dp, dtype=np.int32).reshape(1 << k, n)  # read-only views: INF + INF stays below 2^31
    pred = np.frombuffer(pred, dtype=np.int32).reshape(1 << k, n)

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
                s1 = _first_best_half(dp, s, v)
                stack.append((s1, v))
                stack.append((s ^ s1, v))
        return out

    return dp, rebuild


@lru_cache(maxsize=4096)
def halves(s: int) -> tuple[np.ndarray, np.ndarray]:
    """The halves S1 of subset ``s`` that hold its lowest terminal (all but ``s`` itself,
    descending: the order missions/measures/_steiner.c scans them, so that a rebuilt tree takes
    the half the compiled merge met first) and their other halves S - S1."""
    import numpy as np

    low = s & -s
    rest = s ^ low
    bits = np.array([b for b in range(rest.bit_length()) if rest >> b & 1], dtype=np.int64)
    idx = np.arange((1 << len(bits)) - 2, -1, -1, dtype=np.int64)  # submask numbers of rest, descending
    sub = ((idx[:, None] >> np.arange(len(bits))[None, :]) & 1) << bits[None, :]
    s1 = low | sub.sum(axis=1)
    s2 = s ^ s1
    for a in (s1, s2):  # shared by every call (cached)
        a.setflags(write=False)
    return s1, s2


def _first_best_half(dp: np.ndarray, s: int, v: int) -> int:
    """The first half S1 (in :func:`halves`' order) with dp[S1][v] + dp[S - S1][v] least."""
    s1, s2 = halves(s)
    return int(s1[(dp[s1, v] + dp[s2, v]).argmin()])


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


def join_missing(red: Reduced, nodes: set[int], missing: list[int]) -> set[int]:
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


def nodes_cost(red: Reduced, nodes: set[int]) -> int:
    return sum(red.weight[v] for v in nodes)


def nodes_mask(red: Reduced, nodes: set[int]) -> int:
    m = 0
    for v in nodes:
        m |= red.members[v]
    return m


def connected_to_root(red: Reduced, nodes: set[int]) -> bool:
    return nodes <= root_component(red, nodes)


def cpsat_steiner(red: Reduced, start: set[int], lower: int, time_limit: float | None,
                   optional: tuple[int, ...] = (), need: int = 0,
                   deterministic_time: float | None = None) -> tuple[int, int, set[int]]:
    """Node-weighted Steiner arborescence from the root as a CP-SAT model (multi-commodity flow).

    Every chosen node but the root has one chosen parent arc; each terminal receives one unit
    of its own flow from the root along chosen arcs, and every chosen arc carries some flow,
    so the chosen set hangs together from the root. ``optional`` nodes: at least ``need`` of
    them must be chosen (each gets its own flow when chosen). Returns (proven lower bound,
    cost of the best set found, that set). ``time_limit`` in seconds (None: none);
    ``deterministic_time`` (None: none) stops the run where the work done says, so a test's
    proof does not depend on the machine's speed (missions/cpsolver.py).
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
    solver = cp_solver(time_limit, min_time=None, deterministic_time=deterministic_time, linearization_level=2)
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
