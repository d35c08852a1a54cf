"""Independent oracles for the missions' measures (missions/measures/): a textbook heapq
Dijkstra, the Dreyfus-Wagner recursion one subset at a time, and breadth-first brute forces
for the fewest crosses and the fewest rolls on small boards."""

from __future__ import annotations

import heapq

from nochmal.board import COLOURS, Board
from nochmal.missions.measures.steiner import INF, cpsat_steiner, reduce_target
from nochmal.sheet import Sheet


def heapq_relax(adj, weight, init, extra=None) -> list[int]:
    """label[v] = min(init[v], label[u] + weight[v] (+ the arc's extra cost; INF: no arc)) by a
    textbook heapq Dijkstra."""
    label = list(init)
    heap = [(d, v) for v, d in enumerate(label) if d < INF]
    heapq.heapify(heap)
    while heap:
        d, u = heapq.heappop(heap)
        if d > label[u]:
            continue
        for i, v in enumerate(adj[u]):
            cost = weight[v] + (extra[u][i] if extra else 0)
            if (not extra or extra[u][i] < INF) and d + cost < label[v]:
                label[v] = d + cost
                heapq.heappush(heap, (label[v], v))
    return label


def plain_dreyfus_wagner(adj, weight, terminals) -> dict[int, list[int]]:
    """dp[S][v] by the textbook recursion, one subset at a time, Dijkstra with heapq."""
    n = len(adj)

    def relax(label):
        return heapq_relax(adj, weight, label)

    dp = {}
    for s in range(1, 1 << len(terminals)):
        if s & (s - 1) == 0:
            t = terminals[s.bit_length() - 1]
            init = [INF] * n
            init[t] = weight[t]
        else:
            init = [INF] * n
            for s1 in range(1, s):
                if s1 & s == s1:
                    for v in range(n):
                        init[v] = min(init[v], dp[s1][v] + dp[s ^ s1][v] - weight[v])
            init = [min(x, INF) for x in init]
        dp[s] = relax(init)
    return dp


def brute_fewest(board: Board, sheet: Sheet, target: int, limit: int = 12) -> int:
    """Breadth-first search over sets of new crosses (small boards only)."""
    if target & ~sheet.crossed == 0:
        return 0
    frontier = {sheet.crossed}
    for depth in range(1, limit + 1):
        nxt = set()
        for crossed in frontier:
            anchored = board.start_mask
            for b in range(board.n_cells):
                if crossed >> b & 1:
                    anchored |= board.neighbour_mask[b]
            for b in range(board.n_cells):
                if anchored >> b & 1 and not crossed >> b & 1:
                    new = crossed | 1 << b
                    if target & ~new == 0:
                        return depth
                    nxt.add(new)
        frontier = nxt
    raise AssertionError("brute force limit reached")


def brute_fewest_rolls(sheet: Sheet, target: int, limit: int = 8) -> int:
    """Breadth-first search over the engine's own legal placements (Sheet.placements: every
    colour, 1-5 crosses), one a roll, until every target cell is crossed (small boards only)."""
    if target & ~sheet.crossed == 0:
        return 0
    frontier, seen = [sheet], {sheet.crossed}
    for depth in range(1, limit + 1):
        nxt = []
        for s in frontier:
            for colour in COLOURS:
                for count in range(1, 6):
                    for mask in s.placements(colour, count):
                        new = s.crossed | mask
                        if target & ~new == 0:
                            return depth
                        if new not in seen:
                            seen.add(new)
                            nxt.append(s.cross(mask))
        frontier = nxt
    raise AssertionError("brute force limit reached")


def cpsat_fewest_crosses(sheet: Sheet, target: int, work: float = 300.0) -> tuple[int, int]:
    """(lower, upper) fewest further crosses holding ``target`` by the CP-SAT model alone
    (missions/measures/steiner.py ``cpsat_steiner`` on the reduced graph: no Dreyfus-Wagner,
    no remembered answers), one worker and seed 0, stopped by ``work`` units of CP-SAT's
    deterministic time and no clock: the same figures on any machine."""
    red = reduce_target(sheet, target)
    if not red.terminals:
        return red.base, red.base
    every = set(range(len(red.adj)))  # (the fallback upper bound: every open cell)
    lower, upper, _ = cpsat_steiner(red, every, 0, None, deterministic_time=work)
    return lower + red.base, upper + red.base
