"""The fewest further crosses to a target: a set of cells, or k of some groups of cells
(the problem and the contraction: missions/measures/__init__.py).

Reductions before the search: target cells that are already crossed drop out; the connected
pieces of the open target cells must be crossed entirely, so each piece becomes ONE terminal
weighted by its size; a piece that already touches the anchored region merges into the root.
What is left is solved exactly by a Dreyfus-Wagner dynamic programme over terminal subsets
(node-weighted) when there are at most ``exact_limit`` terminals. Beyond that: an admissible
lower bound (the exact optimum for a spread subset of terminals with the others free to pass
through, plus their weight) and an upper bound from a real crossing sequence, then a CP-SAT
model (arborescence with one flow per terminal, the strong cut relaxation) that proves the
optimum or tightens the interval within a time limit (all 15 stars from an empty classic
sheet: proven 33 in 2-4 s). An interval is never reported as exact. The searches live in
missions/measures/steiner.py (its docstring says why networkx's Steiner tree does not serve).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import comb

from nochmal.bitsets import bit_list, components
from nochmal.cache import Cache
from nochmal.errors import InfeasibleError
from nochmal.missions.measures.steiner import (INF, Reduced, connected_to_root, cpsat_steiner, crossing_order,
                                               dreyfus_wagner, join_missing, node_dijkstra, nodes_cost, nodes_mask,
                                               prune_leaves, reduce_optional, reduce_target)
from nochmal.sheet import Sheet

EXACT_LIMIT = 12  # terminals up to which the Dreyfus-Wagner search runs (3^k work, ~1 s at 12)
CPSAT_SECONDS = 5.0  # CP-SAT time limit when the exact DP is out of reach
LAZY_FROM = 8  # terminals from which Dreyfus-Wagner starts on a subset and adds terminals lazily
_LAZY_STEP = 2  # terminals a lazy round adds (measured: fewer rounds vs. larger programmes)


@dataclass(frozen=True)
class CrossesEstimate:
    """Fewest further crosses to a target: exact (lower == upper) or an interval.

    ``cells``: a witness, cells that can be crossed one by one in this order (each anchored
    when placed) and that achieve ``upper``. ``method``: how the figure was found.
    """

    lower: int
    upper: int
    cells: tuple[str, ...] = ()
    method: str = "exact"

    @property
    def exact(self) -> bool:
        return self.lower == self.upper

    @property
    def value(self) -> int | None:
        """The figure when exact, else None (an interval is never a value)."""
        return self.lower if self.exact else None

    def to_dict(self) -> dict:
        return {"exact": self.exact, "value": self.value, "lower": self.lower, "upper": self.upper,
                "method": self.method, "cells": list(self.cells)}

    def text(self) -> str:
        return str(self.lower) if self.exact else f"{self.lower}..{self.upper} (approximate)"


def fewest_crosses(sheet: Sheet, target: int, exact_limit: int = EXACT_LIMIT,
                   time_limit: float = CPSAT_SECONDS) -> CrossesEstimate:
    """Fewest further crosses after which every cell of ``target`` (a mask) is crossed.

    Up to ``exact_limit`` terminal pieces: Dreyfus-Wagner, exact (from LAZY_FROM terminals on
    a growing subset, see :func:`_approximate`). Beyond: bounds from Dreyfus-Wagner on a
    spread subset, then (``time_limit`` > 0) a CP-SAT model that either proves the optimum
    or tightens the interval within the time limit.
    """
    red = reduce_target(sheet, target)
    terms = red.terminals
    if not terms:
        return CrossesEstimate(red.base, red.base, crossing_order(sheet, red.base_mask), "exact")
    if len(terms) <= min(exact_limit, LAZY_FROM):
        dp, rebuild = dreyfus_wagner(red, terms, red.weight)
        full = (1 << len(terms)) - 1
        cost = int(dp[full][0])
        nodes = rebuild(full, 0)
        if cost >= INF:
            raise InfeasibleError("target cells cannot be reached from the start column")
        mask = nodes_mask(red, nodes) | red.base_mask
        assert mask.bit_count() == cost + red.base
        return CrossesEstimate(cost + red.base, cost + red.base, crossing_order(sheet, mask), "dreyfus-wagner")
    return _approximate(sheet, red, exact_limit, time_limit)


# Recent answers per board: (crossed cells, the target cells still open then, the witness's
# new cells, the figure when exact else None). A sheet that only gained crosses since (a room
# after a tap; another sheet finishing a star shrinks a team target) reuses them as bounds:
# - upper: the old new cells minus the cells crossed meanwhile still finish every target cell
#   they covered and hang off the larger crossed region (checked as a solution, then pruned);
# - lower: an optimal set S for the new state, plus the cells crossed meanwhile, plus a path
#   from each old target piece no longer wanted to the nearest wanted piece or the crossed
#   region, solves the old state, so  new >= old figure - crossed meanwhile - those paths.
# When they meet, the figure is proven without a search; else they let the lazy rounds of
# _approximate stop early. Each answer also keeps the pieces of its last lazy round's subset:
# the same sheet state asked again for a smaller target grows its subset there after the
# first (cheap) round (any subset gives valid bounds; one that sufficed before usually
# suffices again, and the rounds on the way to it are skipped).
# per board object, weakly (an id could be reused): its latest RECENT_PER_BOARD answers, oldest first
RECENT = Cache("missions.measures.crosses.recent", None, weak_keys=True)
RECENT_PER_BOARD = 32


def _remember(sheet: Sheet, red: Reduced, cells: int, exact: bool, subset: tuple[int, ...] = ()) -> None:
    need = red.base_mask
    for v in red.terminals:
        need |= red.members[v]
    value = cells.bit_count() if exact else None
    answer = (sheet.crossed, need, cells, value, tuple(red.members[t] for t in subset))
    RECENT.change(sheet.board, lambda known: (*(known or ()), answer)[-RECENT_PER_BOARD:])


def remembered_subset(sheet: Sheet, red: Reduced, size: int, limit: int) -> list[int] | None:
    """The terminals of the latest lazy subset of this very sheet state (its pieces that are
    still terminals, in their order) when more than ``size`` and at most ``limit``; else None."""
    recent = RECENT.peek(sheet.board, ())
    node_of = {red.members[t]: t for t in red.terminals}
    for crossed, _, _, _, pieces in reversed(recent):
        if crossed == sheet.crossed and pieces:
            kept = [node_of[p] for p in pieces if p in node_of]
            return kept if size < len(kept) <= limit else None
    return None


def remembered_bounds(sheet: Sheet, red: Reduced) -> tuple[int, int, set[int] | None]:
    """(lower, upper, nodes of the upper) from the remembered answers; (-1, INF, None) if none apply."""
    import numpy as np  # loaded on use: light commands need no array
    recent = RECENT.peek(sheet.board, ())
    need = red.base_mask
    for v in red.terminals:
        need |= red.members[v]
    lower, upper, best = -1, INF, None
    node_of = None
    attach = None
    for crossed, old_need, cells, value, _ in recent:
        if crossed & ~sheet.crossed:
            continue
        if node_of is None:
            node_of = {b: v for v, m in enumerate(red.members) for b in bit_list(m)}
        if not need & ~cells:  # upper: the old witness, less what is crossed now
            nodes = {0} | {node_of[b] for b in bit_list(cells & ~sheet.crossed & ~red.base_mask)}
            if connected_to_root(red, nodes):
                nodes = prune_leaves(red, nodes)
                cost = nodes_cost(red, nodes) + red.base
                if cost < upper:
                    upper, best = cost, nodes
        if value is None:
            continue
        if attach is None:  # per open cell: the fewest crosses joining it to a wanted piece or the crossed region
            init = np.full(len(red.adj), INF, dtype=np.int64)
            init[0] = 0
            for t in red.terminals:
                init[t] = 0
            attach, _ = node_dijkstra(red.adj, red.weight, init)
        dropped = old_need & ~sheet.crossed & ~need
        paths = 0
        for piece in components(dropped, sheet.board.neighbour_mask):
            paths += min(int(attach[node_of[b]]) for b in bit_list(piece)) + piece.bit_count() - 1
        lower = max(lower, value - (sheet.crossed & ~crossed).bit_count() - paths)
    return lower, upper, best


def _approximate(sheet: Sheet, red: Reduced, exact_limit: int, time_limit: float) -> CrossesEstimate:
    """Too many terminals for one programme: Dreyfus-Wagner on a spread subset Q gives both
    bounds, Q grows while they differ, then CP-SAT closes what is left.

    Lower bound: the optimum for Q when the other terminals weigh 0, plus their weight (any
    full solution is such a set for Q, its cost minus theirs). When that optimal set already
    holds every other terminal, its real cost IS that bound: proven (lazy terminals). Else the
    missing terminals (farthest-spread first, ``_LAZY_STEP`` at a time) join Q, up to
    ``exact_limit`` terminals (when CP-SAT follows, Q starts at LAZY_FROM of them; without
    it, at ``exact_limit``, as before the lazy rounds existed). Upper bound: the
    set with the missing terminals joined along shortest paths, then pruned, or the same
    from the cheapest set holding Q and one missing terminal (the best over the rounds and
    over remembered answers, see remembered_bounds).
    """
    import numpy as np  # loaded on use: a light command (mission status) needs no array

    terms = red.terminals
    n = len(red.adj)
    root_init = np.full(n, INF, dtype=np.int64)
    root_init[0] = 0
    dist_root, _ = node_dijkstra(red.adj, red.weight, root_init)
    start_size = max(1, min(exact_limit, LAZY_FROM) if time_limit > 0 else exact_limit)  # CP-SAT does the rest
    chosen = [max(terms, key=lambda t: int(dist_root[t]))]
    near = None
    order_size = max(start_size, exact_limit)
    while len(chosen) < min(order_size, len(terms)):  # farthest-spread order
        init = np.full(n, INF, dtype=np.int64)
        init[chosen[-1]] = 0
        d, _ = node_dijkstra(red.adj, red.weight, init)
        near = np.minimum(near, d) if near is not None else np.minimum(dist_root, d)
        rest = [t for t in terms if t not in chosen]
        chosen.append(max(rest, key=lambda t: int(near[t])))
    rank = {t: i for i, t in enumerate(chosen)}
    subset = chosen[:start_size]
    remembered = remembered_subset(sheet, red, start_size, max(1, exact_limit)) or []
    lower, upper, best = remembered_bounds(sheet, red)
    rounds = 0
    while lower < upper:
        rounds += 1
        others = [t for t in terms if t not in subset]
        weight = list(red.weight)
        for t in others:
            weight[t] = 0
        dp, rebuild = dreyfus_wagner(red, subset, weight)
        full = (1 << len(subset)) - 1
        lower = max(lower, int(dp[full][0]) + sum(red.weight[t] for t in others) + red.base)
        relaxed = rebuild(full, 0)
        missing = [t for t in others if t not in relaxed]
        candidates = [join_missing(red, relaxed, missing)]
        for t in missing:  # the cheapest set holding Q and t, joined to the root and the rest: often better
            if dp[full][t] < INF:
                around = rebuild(full, t)
                candidates.append(join_missing(red, around, [0] + [x for x in others if x not in around]))
        for nodes in candidates:
            cost = nodes_cost(red, nodes) + red.base
            if cost < upper:
                upper, best = cost, nodes
        room = max(1, exact_limit) - len(subset)
        if lower >= upper or room <= 0 or not missing:
            break
        missing.sort(key=lambda t: rank.get(t, len(rank)))
        extra = [t for t in remembered if t not in subset]  # after a cheap first round: the subset that sufficed before
        add = extra + [t for t in missing if t not in extra]
        subset = subset + add[: min(room, max(len(extra), _LAZY_STEP))]
    nodes = best
    assert connected_to_root(red, nodes)
    method = (f"dreyfus-wagner on {len(subset)} of {len(terms)} terminals, bounds met" if lower == upper
              else f"bounds (dreyfus-wagner on {len(subset)} of {len(terms)} terminals)")
    if not rounds:
        method = "bounds from an earlier state of the sheet met"
    if time_limit > 0 and lower < upper:
        cp_lower, cp_upper, cp_nodes = cpsat_steiner(red, nodes, lower - red.base, time_limit)
        if cp_upper + red.base < upper:
            nodes, upper = cp_nodes, cp_upper + red.base
        lower = max(lower, cp_lower + red.base)
        method = "cp-sat" if lower == upper else f"bounds (cp-sat, {time_limit:g} s)"
    mask = nodes_mask(red, nodes) | red.base_mask
    assert lower <= upper, (lower, upper)
    _remember(sheet, red, mask, lower == upper, tuple(subset) if rounds else ())
    return CrossesEstimate(lower, upper, crossing_order(sheet, mask), method)


def fewest_crosses_choose(sheet: Sheet, groups: list[int], need: int, exact_limit: int = EXACT_LIMIT,
                          max_combinations: int = 500, time_limit: float = CPSAT_SECONDS) -> CrossesEstimate:
    """Fewest further crosses after which at least ``need`` of ``groups`` are wholly crossed.

    Used for "any k stars" or "k colours". Exact by trying every choice of groups when there
    are few; otherwise a greedy choice (upper bound) and a lower bound (each chosen group
    alone and the sizes, which every choice must pay), then, when every group's open cells
    are one connected piece (stars, cells, columns), a CP-SAT model that chooses the groups
    itself and proves the optimum or tightens the interval within ``time_limit``. Searches
    inside the loops skip CP-SAT.
    """
    if need <= 0:
        return CrossesEstimate(0, 0, (), "exact")
    if need > len(groups):
        raise InfeasibleError(f"{need} groups needed but only {len(groups)} exist")
    done = [g for g in groups if not g & ~sheet.crossed]
    if len(done) >= need:
        return CrossesEstimate(0, 0, (), "exact")
    todo = [g for g in groups if g & ~sheet.crossed]
    more = need - len(done)
    if _n_choose(len(todo), more) <= max_combinations:
        options = []
        for combo in combinations(todo, more):
            target = 0
            for g in combo:
                target |= g
            options.append((fewest_crosses(sheet, target, exact_limit, 0), target))
        lower = min(est.lower for est, _ in options)
        best, target = min(options, key=lambda o: (o[0].upper, o[0].lower))
        if not best.exact and time_limit > 0:
            best = fewest_crosses(sheet, target, exact_limit, time_limit)
            lower = min([best.lower] + [est.lower for est, t in options if t != target])
        method = "exact" if lower == best.upper else "bounds (every choice of groups)"
        return CrossesEstimate(lower, best.upper, best.cells, method)
    singles = sorted(fewest_crosses(sheet, g, exact_limit, 0).lower for g in todo)
    sizes = sorted((g & ~sheet.crossed).bit_count() for g in todo)
    lower = max(singles[more - 1], sum(sizes[:more]))
    chosen_mask = 0
    left = list(todo)
    for _ in range(more):  # greedy: the group that adds the fewest crosses
        options = [(fewest_crosses(sheet, chosen_mask | g, exact_limit, 0), g) for g in left]
        _, g = min(options, key=lambda o: (o[0].upper, o[0].lower))
        chosen_mask |= g
        left.remove(g)
    est = fewest_crosses(sheet, chosen_mask, exact_limit, time_limit)
    lower = min(lower, est.upper)
    if lower < est.upper and time_limit > 0:
        red = reduce_optional(sheet, todo)
        if red is not None:  # every open group is one connected piece: CP-SAT chooses them
            witness = sheet.board.mask_of(est.cells)
            start = {v for v in range(1, len(red.members)) if red.members[v] & ~witness == 0} | {0}
            optional = tuple(range(1, len(todo) + 1))
            cp_lower, cp_upper, nodes = cpsat_steiner(red, start, lower, time_limit, optional, more)
            lower = max(lower, cp_lower)
            if cp_upper < est.upper:
                mask = nodes_mask(red, nodes)
                est = CrossesEstimate(cp_upper, cp_upper, crossing_order(sheet, mask), "cp-sat")
            if lower >= est.upper:
                return CrossesEstimate(est.upper, est.upper, est.cells, "cp-sat")
            return CrossesEstimate(lower, est.upper, est.cells, f"bounds (cp-sat, {time_limit:g} s)")
    return CrossesEstimate(lower, est.upper, est.cells,
                           "exact" if lower >= est.upper else "bounds (greedy choice of groups)")


def _n_choose(n: int, k: int) -> int:
    return comb(n, k) if 0 <= k <= n else 0
