"""nochmal/steiner.py ``dreyfus_wagner`` merges all subsets of one size in one gather (its
``_merge_plan``), looks a merge's best half up only when rebuilding, and hands scipy its
graph as CSR arrays: compared with the per-subset merge and the COO-built batch it replaced
(kept here as the oracle: argmin over the halves per subset, a ``split`` table filled during
the search), the same dp table and the same rebuilt node sets (so the same witnesses).
tests/test_status_fast_paths.py checks the dp values against the textbook recursion."""

from __future__ import annotations

import random

import numpy as np
import pytest

from nochmal.board import load_board
from nochmal.steiner import INF, _merge_plan, dreyfus_wagner, node_dijkstra, reduce_target

from test_status_fast_paths import random_sheet  # sheets grown by legal one-cell crosses

CLASSIC = load_board("classic")


def coo_batch_dijkstra(n, arc_from, arc_to, w, init):
    """All rows' passes in one scipy call, the graph built from COO (nochmal/steiner.py, 59347c3)."""
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
    """The merge one subset at a time (nochmal/steiner.py before the merge plan, 59347c3)."""
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
def test_merge_plan_gives_the_per_subset_table_and_trees(seed):
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
        assert dp.dtype == want.dtype and np.array_equal(dp, want)
        for s in {(1 << len(terms)) - 1, rng.randrange(1, 1 << len(terms))}:
            for v in {0, *rng.sample(range(len(red.adj)), 6)}:
                if dp[s][v] >= INF:
                    continue
                nodes = rebuild(s, v)
                assert nodes == want_rebuild(s, v)
                assert sum(weight[x] for x in nodes) <= dp[s][v]
                checked += 1
    assert checked > 0


@pytest.mark.parametrize("k", range(1, 9))
def test_merge_plan_lists_every_split_once_in_the_scan_order(k):
    """Per subset: every half holding its lowest terminal but the subset itself, descending."""
    for size in range(1, k + 1):
        subsets, s1, s2 = _merge_plan(k, size)
        assert subsets.tolist() == [s for s in range(1, 1 << k) if s.bit_count() == size]
        for s, halves, others in zip(subsets.tolist(), s1.tolist(), s2.tolist()):
            if size == 1:
                continue
            low = s & -s
            want = [h for h in range(s - 1, 0, -1) if h & s == h and h & low]
            assert halves == want
            assert others == [s ^ h for h in halves]
