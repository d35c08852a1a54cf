"""Lower bounds on the rolls of targets made of some of a sheet's units, from the part graph
alone (no search per target): the split (missions/split/listings.py) drops the subsets they rule out
before the piece search of missions/measures/rolls.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from nochmal.bitsets import bit_list
from nochmal.board import Board
from nochmal.cache import memo
from nochmal.missions.measures.rolls import part_graph, rooted_parts
from nochmal.missions.measures.steiner import INF, node_dijkstra
from nochmal.sheet import Sheet

if TYPE_CHECKING:
    import numpy as np


def _part_distances(adj: list[list[int]], weight: list[int]) -> np.ndarray:
    """D[a][b]: the least weight of a path of parts from node a to node b of
    :func:`rooted_parts` (both ends counted)."""
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


@memo("missions.measures.pair_bounds.pair_bounds", 256)
def _pair_bounds(board: Board, crossed: int, anchored: int, masks: tuple[int, ...]) -> PairBounds:
    import numpy as np  # loaded on use: light commands need no array

    adj, _ = rooted_parts(board, crossed, anchored)
    _, _, node_of, _ = part_graph(board, crossed, anchored)
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
    missions/split/listings.py drops the subsets they rule out before the piece search."""
    return _pair_bounds(sheet.board, sheet.crossed, sheet.anchored, tuple(masks))
