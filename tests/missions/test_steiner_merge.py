"""missions/measures/steiner.py ``dreyfus_wagner`` runs compiled (missions/measures/_steiner.c: merges, then
Dial's buckets for the shortest-path pass) and looks a merge's best half up only when
rebuilding: compared with a numpy programme it replaced (kept here as the oracle: the
per-subset merge, scipy's Dijkstra on a COO-built batch, a ``split`` table filled during
the search), the same dp table, and rebuilt node sets that are as cheap as the oracle's and
hang together (ties between equally cheap paths may be broken otherwise than scipy breaks
them, so the sets themselves may differ). tests/missions/test_status_fast_paths.py checks the dp
values against the textbook recursion."""

from __future__ import annotations

import random

import numpy as np
import pytest

from nochmal.board import load_board
from nochmal.missions.measures.steiner import (INF, Reduced, compiled_programme, dreyfus_wagner, halves, node_dijkstra,
                                               reduce_target)

from graphs_support import hangs_together  # networkx's connectivity
from measures_oracle import heapq_relax  # a textbook Dijkstra
from sheets_support import random_sheet  # sheets grown by legal crosses

CLASSIC = load_board("classic")
COMPILED = compiled_programme()
assert COMPILED is not None, "the C extension is not built: pip install -e . with a C compiler"


def coo_batch_dijkstra(n, arc_from, arc_to, w, init):
    """All rows' passes in one scipy call, the graph built from COO (missions/measures/steiner.py, 59347c3)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    m = len(init)
    rows, cols = np.nonzero(init < INF)
    data = np.concatenate([w[arc_to], init[rows, cols]]).astype(np.float64)
    graph = csr_matrix((data, (np.concatenate([arc_from, n + rows]), np.concatenate([arc_to, cols]))),
                       shape=(n + m, n + m))
    dist, pr = dijkstra(graph, directed=True, indices=np.arange(n, n + m), return_predecessors=True)
    dist, pr = dist[:, :n], pr[:, :n]
    labels = np.where(np.isinf(dist), INF, np.nan_to_num(dist, posinf=0)).astype(np.int64)
    preds = np.where(pr >= n, -1, pr).astype(np.int64)
    preds[preds < 0] = -1
    return labels, preds


def per_subset_dreyfus_wagner(red, terminals, weight):
    """The merge one subset at a time (missions/measures/steiner.py before the merge plan, 59347c3)."""
    n = len(red.adj)
    k = len(terminals)
    w = np.array(weight, dtype=np.int64)
    dp = np.full((1 << k, n), INF, dtype=np.int64)
    split = np.zeros((1 << k, n), dtype=np.int64)
    pred = np.full((1 << k, n), -1, dtype=np.int64)
    arc_from = np.array([u for u in range(n) for _ in red.adj[u]], dtype=np.int64)
    arc_to = np.array([v for u in range(n) for v in red.adj[u]], dtype=np.int64)
    by_size = [[] for _ in range(k + 1)]
    for s in range(1, 1 << k):
        by_size[s.bit_count()].append(s)
    for size in range(1, k + 1):
        subsets = by_size[size]
        init = np.full((len(subsets), n), INF, dtype=np.int64)
        for row, s in enumerate(subsets):
            if size == 1:
                t = terminals[s.bit_length() - 1]
                init[row, t] = weight[t]
                continue
            low = s & -s
            rest = s ^ low
            halves = []
            sub = (rest - 1) & rest
            while True:
                halves.append(low | sub)
                if sub == 0:
                    break
                sub = (sub - 1) & rest
            s1 = np.array(halves, dtype=np.int64)
            cand = dp[s1] + dp[s ^ s1] - w
            pick = cand.argmin(axis=0)
            init[row] = np.minimum(cand[pick, np.arange(n)], INF)
            split[s] = s1[pick]
        if len(subsets) <= 4:
            done = [node_dijkstra(red.adj, weight, row) for row in init]
            labels, preds = [d for d, _ in done], [p for _, p in done]
        else:
            labels, preds = coo_batch_dijkstra(n, arc_from, arc_to, w, init)
        for row, s in enumerate(subsets):
            dp[s] = labels[row]
            pred[s] = preds[row]
            if size > 1:
                split[s] = np.where(preds[row] < 0, split[s], 0)

    def rebuild(s, v):
        out = set()
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


@pytest.mark.parametrize("seed", range(8))
def test_compiled_programme_gives_the_per_subset_table_and_trees(seed):
    rng = random.Random(seed)
    checked = 0
    for _ in range(6):
        sheet = random_sheet(CLASSIC, rng, rng.randint(0, 25))
        target = sum(1 << b for b in rng.sample(range(CLASSIC.n_cells), rng.randint(5, 16)))
        red = reduce_target(sheet, target)
        if not red.terminals:
            continue
        terms = rng.sample(red.terminals, min(len(red.terminals), rng.randint(1, 8)))  # any order, as the lazy rounds
        weight = list(red.weight)
        if rng.random() < 0.5:  # the lazy rounds weigh the other terminals 0
            for t in set(red.terminals) - set(terms):
                weight[t] = 0
        dp, rebuild = dreyfus_wagner(red, terms, weight)
        want, want_rebuild = per_subset_dreyfus_wagner(red, terms, weight)
        assert np.array_equal(dp, want)
        for s in {(1 << len(terms)) - 1, rng.randrange(1, 1 << len(terms))}:
            for v in {0, *rng.sample(range(len(red.adj)), 6)}:
                if dp[s][v] >= INF:
                    continue
                nodes = rebuild(s, v)
                want_nodes = want_rebuild(s, v)
                held = {terms[i] for i in range(len(terms)) if s >> i & 1} | {v}
                assert held <= nodes and held <= want_nodes
                assert sum(weight[x] for x in nodes) == sum(weight[x] for x in want_nodes) == dp[s][v]
                assert hangs_together(red.adj, nodes)
                checked += 1
    assert checked > 0


@pytest.mark.parametrize("k", range(2, 10))
def test_halves_list_every_split_once_in_the_scan_order(k):
    """Per subset: every half holding its lowest terminal but the subset itself, descending
    (the order missions/measures/_steiner.c scans them, so the first best half is the one it met first)."""
    rng = random.Random(k)
    for s in rng.sample(range(1, 1 << k), min(40, (1 << k) - 1)):
        if s & (s - 1) == 0:
            continue
        s1, s2 = halves(s)
        low = s & -s
        assert s1.tolist() == [h for h in range(s - 1, 0, -1) if h & s == h and h & low]
        assert s2.tolist() == [s ^ h for h in s1.tolist()]


def test_compiled_programme_refuses_malformed_input():
    """One ValueError naming the argument, never a crash or a write out of bounds."""
    red = reduce_target(random_sheet(CLASSIC, random.Random(3), 5), CLASSIC.star_mask)
    n = len(red.adj)
    terms = red.terminals[:3]
    dp, pred = COMPILED.dreyfus_wagner(red.adj, red.weight, terms)  # well-formed: the Python entry's table
    assert np.array_equal(np.frombuffer(dp, dtype=np.int32).reshape(8, n), dreyfus_wagner(red, terms, red.weight)[0])
    off = [list(row) for row in red.adj]
    off[1] = off[1] + [n]
    negative = list(red.weight)
    negative[1] = -1
    for call, word in ((lambda: COMPILED.dreyfus_wagner(off, red.weight, terms), "adj"),
                       (lambda: COMPILED.dreyfus_wagner([[0.5]] + red.adj[1:], red.weight, terms), "adj"),
                       (lambda: COMPILED.dreyfus_wagner(5, red.weight, terms), "adj"),
                       (lambda: COMPILED.dreyfus_wagner(red.adj, red.weight[:-1], terms), "weight"),
                       (lambda: COMPILED.dreyfus_wagner(red.adj, negative, terms), "weight"),
                       (lambda: COMPILED.dreyfus_wagner(red.adj, [2**25] * n, terms), "weight"),
                       (lambda: COMPILED.dreyfus_wagner(red.adj, red.weight, [n]), "terms"),
                       (lambda: COMPILED.dreyfus_wagner(red.adj, red.weight, []), "terms"),
                       (lambda: COMPILED.dreyfus_wagner(red.adj, red.weight, list(range(21))), "terms"),
                       (lambda: COMPILED.relax(red.adj, red.weight, [0] * (n - 1)), "init"),
                       (lambda: COMPILED.relax(red.adj, red.weight, [-1] + [INF] * (n - 1)), "init"),
                       (lambda: COMPILED.relax(off, red.weight, [0] * n), "adj")):
        with pytest.raises(ValueError, match=word):
            call()


def test_compiled_module_is_built_from_the_current_source():
    """`pip install -e .` compiles missions/measures/_steiner.c; a later edit of it is not used until
    the next install (README, set-up), so an out-of-date build fails here, not in a figure."""
    from pathlib import Path

    source = Path(COMPILED.__file__).with_name("_steiner.c")
    if not source.exists():  # an installed (non-editable) copy carries only the build
        pytest.skip("no source next to the built module (a non-editable install)")
    assert Path(COMPILED.__file__).stat().st_mtime >= source.stat().st_mtime, \
        "missions/measures/_steiner.c is newer than its build: run `pip install -e .` again"


@pytest.mark.parametrize("seed", range(30))
def test_compiled_pass_matches_a_heapq_dijkstra_on_random_graphs(seed):
    """node_dijkstra (missions/measures/_steiner.c's pass) on random directed graphs, weights 0..6 (0:
    the lazy rounds' free terminals), any finite starting labels: the same labels, and every
    predecessor is an arc that gives its node's label."""
    rng = random.Random(seed)
    n = rng.randint(1, 40)
    adj = [sorted(rng.sample(range(n), rng.randint(0, min(n, 5)))) for _ in range(n)]
    weight = [rng.choice([0, 1, 1, 1, 2, 6]) for _ in range(n)]
    init = [rng.choice([INF, INF, 0, rng.randint(0, 300)]) for _ in range(n)]
    label, pred = node_dijkstra(adj, weight, init)
    assert label.tolist() == heapq_relax(adj, weight, init)
    for v in range(n):
        if pred[v] >= 0:
            assert v in adj[pred[v]] and label[pred[v]] + weight[v] == label[v] < init[v]
        else:
            assert label[v] == min(init[v], INF)


@pytest.mark.parametrize("heavy", [False, True])
@pytest.mark.parametrize("seed", range(20))
def test_compiled_programme_matches_the_plain_recursion_on_random_graphs(seed, heavy):
    """dreyfus_wagner on random undirected graphs (some disconnected: unreachable labels stay
    INF), weights 0..6, against the textbook recursion of tests/missions/test_status_fast_paths.py.
    ``heavy``: weights summing above missions/measures/_steiner.c's MAX16, so the merges read the 32-bit
    table instead of its 16-bit copy."""
    from measures_oracle import plain_dreyfus_wagner

    rng = random.Random(seed)
    n = rng.randint(2, 24)
    edges = {tuple(sorted(rng.sample(range(n), 2))) for _ in range(rng.randint(0, 2 * n))}
    adj = [sorted({b for a, b in edges if a == v} | {a for a, b in edges if b == v}) for v in range(n)]
    weight = [rng.choice([0, 1, 1, 2, 6]) for _ in range(n)]
    if heavy:
        weight = [x * 1500 for x in weight] + [8001]  # (a last node off the graph: the sum is above 8000)
        adj = adj + [[]]
        n += 1
    terms = rng.sample(range(n), rng.randint(1, min(n, 6)))
    red = Reduced(weight, adj, [0] * n, terms, 0, 0, set(terms))
    dp, rebuild = dreyfus_wagner(red, terms, weight)
    want = plain_dreyfus_wagner(adj, weight, terms)
    for s, row in want.items():
        assert dp[s].tolist() == row
    full = (1 << len(terms)) - 1
    for v in range(n):
        if dp[full][v] < INF:
            nodes = rebuild(full, v)
            assert set(terms) | {v} <= nodes and hangs_together(red.adj, nodes)
            assert sum(weight[x] for x in nodes) <= dp[full][v]


@pytest.mark.parametrize("seed", range(20))
def test_arc_costs_match_a_plain_recursion(seed):
    """extra (a cost per arc u -> v, INF: no arc; measures.fits.entry_rolls_bound's entries): the
    compiled pass and programme against a heapq Dijkstra and the textbook recursion with the
    same arc costs; malformed costs are refused naming ``extra``."""
    import heapq

    rng = random.Random(seed)
    n = rng.randint(2, 20)
    adj = [sorted(rng.sample(range(n), rng.randint(0, min(n, 4)))) for _ in range(n)]
    weight = [rng.choice([0, 1, 1, 2]) for _ in range(n)]
    extra = [[rng.choice([0, 0, 1, 3, INF]) for _ in row] for row in adj]

    def relax(init):
        return heapq_relax(adj, weight, init, extra)

    init = [rng.choice([INF, 0, rng.randint(0, 9)]) for _ in range(n)]
    assert node_dijkstra(adj, weight, init, extra)[0].tolist() == relax(init)
    terms = rng.sample(range(n), rng.randint(1, min(n, 5)))
    want = {}
    for s in range(1, 1 << len(terms)):
        row = [INF] * n
        if s & (s - 1) == 0:
            row[terms[s.bit_length() - 1]] = weight[terms[s.bit_length() - 1]]
        else:
            for s1 in range(1, s):
                if s1 & s == s1:
                    row = [min(r, want[s1][v] + want[s ^ s1][v] - weight[v]) for v, r in enumerate(row)]
            row = [min(r, INF) for r in row]
        want[s] = relax(row)
    red = Reduced(weight, adj, [0] * n, terms, 0, 0, set(terms))
    dp, _ = dreyfus_wagner(red, terms, weight, extra)
    assert all(dp[s].tolist() == row for s, row in want.items())
    for bad in ([[0] * len(row) for row in adj[:-1]], [[0] * (len(row) + 1) for row in adj], [[-1] * len(row) for row in adj]):
        if bad != [[] for _ in adj]:
            with pytest.raises(ValueError, match="extra"):
                node_dijkstra(adj, weight, init, bad)
