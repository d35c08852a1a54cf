"""Fewest further crosses: the exact search (nochmal.missions.measures.crosses) against networkx's
approximate Steiner trees, on an empty classic sheet.

    python benchmarks/bench_steiner.py

networkx's ``steiner_tree`` is edge weighted: a virtual root joined to the start column makes
the number of tree edges equal the number of cells crossed. Prints figures; asserts nothing.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import networkx as nx
from networkx.algorithms.approximation import steiner_tree

from nochmal.board import load_board
from nochmal.sheet import Sheet
from nochmal.missions.measures.crosses import fewest_crosses

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from graphs_support import cell_graph  # noqa: E402  (tests/ is not a package; the graphs are the tests')


def main() -> None:
    board = load_board("classic")
    graph = nx.Graph(cell_graph(board))
    for cell, start in list(graph.nodes(data="start")):
        if start:
            graph.add_edge("root", cell)
    targets = {"all 15 stars": board.star_mask, "column A": board.column_mask[0],
               "colour blue": board.colour_mask["b"]}
    for label, mask in targets.items():
        terminals = board.cells_of(mask) + ["root"]
        for method in ("kou", "mehlhorn"):
            t0 = time.perf_counter()
            tree = steiner_tree(graph, terminals, method=method)
            print(f"{label:13s} networkx {method:9s} {tree.number_of_edges():3d} crosses  "
                  f"{time.perf_counter() - t0:7.3f} s")
        t0 = time.perf_counter()
        est = fewest_crosses(Sheet.empty(board), mask)
        print(f"{label:13s} exact              {est.text():>3s} crosses  {time.perf_counter() - t0:7.3f} s ({est.method})")


if __name__ == "__main__":
    main()
