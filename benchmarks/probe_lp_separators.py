"""Does time-indexed connectivity tighten the 30-roll LP? (a negative result, benchmarks/log/)

    python benchmarks/probe_lp_separators.py --seeds 3,6,29 --rounds 4

Why: the solo model's LP bound sits 10-14 points above the optimum, and the anchoring order
is where real plans lose points the LP does not see (benchmarks/RESULTS.md, "where the time
goes"). A cell crossed before roll t is joined to the start column by a path of cells all
crossed before t (every block was anchored when it was crossed). So for every vertex set Z
that separates cell c from the start column (Z may hold start-column cells, never c):

    crossed_before[c, t] <= sum of crossed_before[z, t] over z in Z

These cuts are separated on the LP values (a max-flow per cell and roll, with the vertex
capacities the LP's crossed_before values), added, and the LP solved again, ``--rounds``
times. Prints the LP value per round and the cuts added; nothing is asserted. The model is
``build_model``'s default; the LP is ``lp_relaxation`` (nochmal/solver/experiments.py).
"""

from __future__ import annotations

import argparse
import os
import time

import networkx as nx

from nochmal.bitsets import bit_list
from nochmal.rules import RuleSettings
from nochmal.solver.cpsat import build_model
from nochmal.solver.experiments import lp_relaxation
from nochmal.solver.instance import Instance

from bench_planner import parse_seeds

EPS = 1e-6
SCALE = 10 ** 6  # LP values as integer capacities
BIG = 10 ** 9  # a start-sheet cross: never cut


def separator(board, values: dict[int, float], crossed: int, cell: int) -> tuple[float, list[int]]:
    """The cheapest vertex set (capacities ``values``; start-sheet crosses never cut) between
    ``cell`` and the start column, as (its capacity, its bits)."""
    g = nx.DiGraph()
    for bit in range(board.n_cells):
        if bit != cell:
            # integer capacities: networkx's preflow-push fails on some tiny float ones
            cap = BIG if crossed >> bit & 1 else round(values.get(bit, 0.0) * SCALE)
            g.add_edge(("in", bit), ("out", bit), capacity=cap)
        for nb in bit_list(board.neighbour_mask[bit]):
            g.add_edge(("out", bit), ("in", nb))  # no capacity: unbounded
    for bit in bit_list(board.start_mask):
        g.add_edge(("out", bit), "start")
    source = ("out", cell)
    _, (near, _) = nx.minimum_cut(g, source, "start")
    cut = [bit for bit in range(board.n_cells)
           if bit != cell and ("in", bit) in near and ("out", bit) not in near]
    return sum(values.get(bit, 0.0) for bit in cut), cut


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=parse_seeds, default="3,6,29")
    ap.add_argument("--rolls", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--board", default="classic")
    args = ap.parse_args()
    print(f"# load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for seed in args.seeds:
        inst = Instance.from_seed(seed, args.board, RuleSettings(solo_rolls=args.rolls), count=args.rolls)
        pm = build_model(inst)
        board, crossed = pm.board, pm.start.crossed
        lp, v, value = lp_relaxation(pm.model)
        lp.Solve()
        line = [f"seed {seed}: LP {value():.2f}"]
        total = 0
        t0 = time.monotonic()
        by_roll: dict[int, dict[int, object]] = {}
        for (bit, t), var in pm.crossed_before.items():
            by_roll.setdefault(t, {})[bit] = v[var.Index()]
        for _ in range(args.rounds):
            added = 0
            solved = {t: {bit: var.solution_value() for bit, var in cells.items()} for t, cells in by_roll.items()}
            for t, cells in by_roll.items():
                values = solved[t]  # read before any cut is added (a changed model has no solution)
                for cell, x in values.items():
                    if x <= EPS or board.start_mask >> cell & 1:
                        continue
                    cap, cut = separator(board, values, crossed, cell)
                    if cap < x - 1e-4:
                        lp.Add(sum(cells[z] for z in cut if z in cells) >= cells[cell])
                        added += 1
            total += added
            lp.Solve()
            line.append(f"{value():.2f} (+{added})")
            if not added:
                break
        print(" -> ".join(line) + f"; {total} cuts, {time.monotonic() - t0:.1f} s", flush=True)
    print(f"# load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
