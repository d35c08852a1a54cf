"""The Dreyfus-Wagner programme of missions/measures/_steiner.c in numpy, for an install
without a C compiler (docs/architecture.md, "A C compiler is optional").

Same entry points and the same answers as the compiled module (``dreyfus_wagner`` and
``relax``, int32 bytes out): the same dp table and labels, every label above the most a
cheapest set can weigh read as INF, and a pred that is -1 exactly where a label is its
row's own start (the merge). Where equally cheap paths tie, the pred may name another of
them than the compiled Dial's buckets do, so a rebuilt tree can differ while weighing the
same (tests/missions/test_steiner_fallback.py). The work is the same programme in whole-array steps:
each subset size's merges at once, and the shortest-path pass as rounds over every arc of
every row still improving (strict improvements only, so the preds never form a cycle).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

INF = 10**9  # missions/measures/steiner.py INF: "unreachable"
_PAIRS = 8192  # the most subset halves one merge step reads (rows of n labels each)


class _Arcs:
    """The arcs u -> v that can be taken, grouped by v, each with its cost weight[v] + extra."""

    def __init__(self, adj, weight, extra):
        w = np.asarray(weight, dtype=np.int64)
        src = np.repeat(np.arange(len(adj), dtype=np.int64), [len(row) for row in adj])
        dst = np.array([v for row in adj for v in row], dtype=np.int64)
        ex = np.zeros(len(src), dtype=np.int64) if extra is None else \
            np.minimum(np.array([c for row in extra for c in row], dtype=np.int64), INF)
        # the most a cheapest label can be (as _steiner.c's Graph.total): every weight plus,
        # per node, its dearest finite out-arc extra
        dearest = np.zeros(len(adj), dtype=np.int64)
        if len(src):
            np.maximum.at(dearest, src, np.where(ex < INF, ex, 0))
        self.total = int(w.sum() + dearest.sum())
        keep = ex < INF
        order = np.lexsort((src[keep], dst[keep]))
        self.src = src[keep][order]
        dst = dst[keep][order]
        self.cost = w[dst] + ex[keep][order]
        self.targets, self.starts = np.unique(dst, return_index=True)
        self.scale = 1 << max(1, len(self.src)).bit_length()  # a key's low bits: its arc's number

    def shortest(self, label: np.ndarray, pred: np.ndarray, limit: int) -> None:
        """Rows of ``label`` relaxed in place: label[v] = min(label[v], label[u] + cost) over
        arcs u -> v, labels above ``limit`` INF; pred[v] = u where an arc lowered label[v]."""
        label[label > limit] = INF
        if not len(self.src):
            return
        numbers = np.arange(len(self.src), dtype=np.int64)
        active = np.arange(len(label))
        while len(active):
            rows = label[active]
            keys = (rows[:, self.src] + self.cost) * self.scale + numbers
            best = np.minimum.reduceat(keys, self.starts, axis=1)
            value, arc = best // self.scale, best % self.scale
            better = (value < rows[:, self.targets]) & (value <= limit)
            r, c = np.nonzero(better)
            label[active[r], self.targets[c]] = value[r, c]
            pred[active[r], self.targets[c]] = self.src[arc[r, c]]
            active = active[better.any(axis=1)]


@lru_cache(maxsize=4096)
def _halves(s: int) -> tuple[np.ndarray, np.ndarray]:
    """The halves S1 of subset ``s`` that hold its lowest terminal, but ``s`` itself, and their
    other halves S - S1 (in any order: a merge takes their least sum)."""
    low = s & -s
    rest = s ^ low
    subs = np.zeros(1, dtype=np.int64)
    for b in range(rest.bit_length()):
        if rest >> b & 1:
            subs = np.concatenate([subs, subs | 1 << b])
    s1 = low | subs[:-1]  # (the last is all of rest: S1 = S)
    return s1, s ^ s1


def relax(adj, weight, init, extra=None) -> tuple[bytes, bytes]:
    """_steiner.relax: one shortest-path pass from ``init`` (labels from INF up: unreachable)."""
    arcs = _Arcs(adj, weight, extra)
    label = np.minimum(np.asarray(init, dtype=np.int64), INF).reshape(1, -1)
    pred = np.full(label.shape, -1, dtype=np.int64)
    finite = label[label < INF]
    arcs.shortest(label, pred, int(finite.max(initial=0)) + arcs.total)
    return label.astype(np.int32).tobytes(), pred.astype(np.int32).tobytes()


def dreyfus_wagner(adj, weight, terms, extra=None) -> tuple[bytes, bytes]:
    """_steiner.dreyfus_wagner: dp and pred, 2^k rows of n, subsets by size (each merge
    reads only smaller subsets' rows, which are final)."""
    arcs = _Arcs(adj, weight, extra)
    w = np.asarray(weight, dtype=np.int64)
    n, k = len(adj), len(terms)
    dp = np.full((1 << k, n), INF, dtype=np.int64)
    pred = np.full((1 << k, n), -1, dtype=np.int64)
    subsets = np.arange(1, 1 << k, dtype=np.int64)
    sizes = np.array([int(s).bit_count() for s in subsets])
    for size in range(1, k + 1):
        layer = subsets[sizes == size]
        rows = np.full((len(layer), n), INF, dtype=np.int64)
        if size == 1:
            for i, s in enumerate(layer):
                t = terms[int(s).bit_length() - 1]
                rows[i, t] = w[t]
        else:
            per = max(1, _PAIRS // ((1 << (size - 1)) - 1))
            for at in range(0, len(layer), per):
                halves = [_halves(int(s)) for s in layer[at:at + per]]
                s1 = np.concatenate([h[0] for h in halves])
                s2 = np.concatenate([h[1] for h in halves])
                starts = np.cumsum([0] + [len(h[0]) for h in halves[:-1]])
                least = np.minimum.reduceat(dp[s1] + dp[s2], starts, axis=0)
                rows[at:at + len(halves)] = np.where(least >= INF, INF, least - w)
        back = np.full(rows.shape, -1, dtype=np.int64)
        arcs.shortest(rows, back, arcs.total)
        dp[layer], pred[layer] = rows, back
    return dp.astype(np.int32).tobytes(), pred.astype(np.int32).tobytes()
