"""The numpy Dreyfus-Wagner programme (missions/measures/steiner_numpy.py), used when the C
extension is not built, gives the compiled programme's answers: the same dp tables and
labels on random graphs (zero weights, arc costs, disconnected parts, weights past the
compiled 16-bit table) and on the classic board's contracted sheets, rebuilt node sets as
cheap and connected, the same fewest-crosses figures; ``nochmal --version`` names the one in
use."""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest

from nochmal.board import load_board
from nochmal.missions.measures import steiner, steiner_numpy
from nochmal.missions.measures.crosses import LAZY_FROM, fewest_crosses
from nochmal.missions.measures.steiner import INF, dreyfus_wagner, node_dijkstra, reduce_target
from nochmal.sheet import Sheet

from graphs_support import hangs_together  # networkx's connectivity

CLASSIC = load_board("classic")
COMPILED = steiner.compiled_programme()
assert COMPILED is not None, "the C extension is not built: pip install -e . with a C compiler"


def random_graph(rng: random.Random) -> tuple[list[list[int]], list[int], list[list[int]] | None]:
    n = rng.randint(1, 30)
    adj = [sorted(rng.sample(range(n), rng.randint(0, min(n, 4)))) for _ in range(n)]
    weight = [rng.choice([0, 1, 1, 2, 6]) * rng.choice([1, 1, 1, 1500]) for _ in range(n)]
    extra = [[rng.choice([0, 0, 1, 3, INF]) for _ in row] for row in adj] if rng.random() < 0.4 else None
    return adj, weight, extra


def tables(module, adj, weight, terms, extra) -> tuple[np.ndarray, np.ndarray]:
    dp, pred = module.dreyfus_wagner(adj, weight, terms, extra)
    shape = (1 << len(terms), len(adj))
    return np.frombuffer(dp, dtype=np.int32).reshape(shape), np.frombuffer(pred, dtype=np.int32).reshape(shape)


def check_preds(adj, weight, extra, label, pred, start) -> None:
    """Every pred is an arc giving its node's label from a lower start; -1 keeps the start."""
    for v, u in enumerate(pred.tolist()):
        if u < 0:
            assert label[v] == min(start[v], INF)
        else:
            cost = 0 if extra is None else extra[u][adj[u].index(v)]
            assert label[u] + weight[v] + cost == label[v] < start[v]


@pytest.mark.parametrize("seed", range(40))
def test_same_labels_and_tables_on_random_graphs(seed):
    rng = random.Random(seed)
    adj, weight, extra = random_graph(rng)
    n = len(adj)
    init = [rng.choice([INF, INF, 0, rng.randint(0, 300)]) for _ in range(n)]
    got = [np.frombuffer(b, dtype=np.int32) for b in steiner_numpy.relax(adj, weight, init, extra)]
    want = [np.frombuffer(b, dtype=np.int32) for b in COMPILED.relax(adj, weight, init, extra)]
    assert got[0].tolist() == want[0].tolist()
    check_preds(adj, weight, extra, got[0], got[1], init)
    terms = rng.sample(range(n), rng.randint(1, min(n, 6)))
    dp, pred = tables(steiner_numpy, adj, weight, terms, extra)
    want_dp, _ = tables(COMPILED, adj, weight, terms, extra)
    assert np.array_equal(dp, want_dp)
    for s in range(1, 1 << len(terms)):
        if s & (s - 1):  # a merged row: pred -1 exactly where the label is the merge's
            start = [min((int(dp[h, v]) + int(dp[s ^ h, v]) - weight[v] for h in range(1, s) if h & s == h
                          and min(dp[h, v], dp[s ^ h, v]) < INF), default=INF) for v in range(n)]
            start = [x if x <= sum(weight) + (0 if extra is None else sum(
                max([c for c in row if c < INF], default=0) for row in extra)) else INF for x in start]
            check_preds(adj, weight, extra, dp[s], pred[s], start)


@pytest.mark.parametrize("seed", range(12))
def test_same_answers_on_sheets(seed, monkeypatch):
    """Contracted classic sheets (random targets, some cells crossed) through steiner.py's
    entry points: the same tables and labels, rebuilt sets as cheap as the table says and
    connected, the same fewest-crosses figure with a witness as long."""
    rng = random.Random(seed)
    sheet = Sheet.empty(CLASSIC)
    for _ in range(rng.randint(0, 12)):  # legal crosses: each anchored when placed
        open_anchored = [b for b in range(CLASSIC.n_cells) if sheet.anchored >> b & 1 and not sheet.crossed >> b & 1]
        sheet = sheet.cross(1 << rng.choice(open_anchored))
    target = sum(1 << b for b in rng.sample(range(CLASSIC.n_cells), rng.randint(3, 9)))
    red = reduce_target(sheet, target)
    terms = red.terminals[:LAZY_FROM]  # (a direct programme: no lazy rounds, no remembered answers)
    start = [0] + [INF] * (len(red.adj) - 1)
    answers = {}
    for name, module in (("compiled", COMPILED), ("numpy", steiner_numpy)):
        monkeypatch.setattr(steiner, "programme", lambda: module)
        label = node_dijkstra(red.adj, red.weight, start)[0].tolist()
        figure = fewest_crosses(sheet, target & sum(red.members[t] for t in terms) | target & sheet.crossed,
                                time_limit=0)
        answers[name] = (label, figure.lower, figure.upper, len(figure.cells))
        if terms:
            dp, rebuild = dreyfus_wagner(red, terms, red.weight)
            answers[name] += (dp.tolist(),)
            full = (1 << len(terms)) - 1
            for v in {0, *rng.sample(range(len(red.adj)), 5)}:
                if dp[full][v] < INF:
                    nodes = rebuild(full, v)
                    assert set(terms) | {v} <= nodes and hangs_together(red.adj, nodes)
                    assert sum(red.weight[x] for x in nodes) == dp[full][v]
    assert answers["numpy"] == answers["compiled"]


def test_version_names_the_programme_in_use(tmp_path):
    out = subprocess.run([sys.executable, "-m", "nochmal.cli", "--version"], cwd=tmp_path, capture_output=True,
                         text=True, check=True).stdout
    assert "compiled" in out and steiner.programme_name() in out
    forced = ("import sys; from nochmal.missions.measures import steiner, steiner_numpy\n"
              "steiner.programme = lambda: steiner_numpy\n"
              "from nochmal.cli import main; sys.argv = ['nochmal', '--version']\n"
              "try:\n    main()\nexcept SystemExit:\n    pass\n")
    out = subprocess.run([sys.executable, "-c", forced], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert "numpy" in out
