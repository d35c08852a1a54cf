"""The fewest further rolls to a target, one block a roll (bridging off): the sheet's open
parts of blocks as a graph (a roll crosses cells of one part), a Steiner tree over it for the
lower bound and the cells of a real crossing for the upper one (missions/measures/__init__.py
states the problem; missions/split/figures.py asks it per sheet and subset of a team's targets).
"""

from __future__ import annotations

from dataclasses import dataclass

from nochmal.bitsets import bit_list, component_of, components, connected_within, neighbours_of
from nochmal.board import Board
from nochmal.cache import memo
from nochmal.errors import InfeasibleError
from nochmal.missions.measures.steiner import INF, Reduced, dreyfus_wagner, join_missing, node_dijkstra, nodes_mask
from nochmal.sheet import Sheet

ROLLS_EXACT_LIMIT = 8  # terminal parts up to which fewest_rolls runs Dreyfus-Wagner on all of them


@dataclass(frozen=True)
class RollsEstimate:
    """Fewest further rolls to a target with one block a roll: ``lower`` .. ``upper``, and
    ``cells`` (a mask) that cross the target in ``upper`` rolls, each piece anchored in turn."""

    lower: int
    upper: int
    cells: int


@memo("missions.measures.rolls.part_graph", 256)
def part_graph(board: Board, crossed: int, anchored: int) -> tuple[list[int], list[frozenset[int]], dict[int, int],
                                                                   list[list[int]]]:
    """The open parts of blocks and their adjacency, the last node (index len(parts)) the
    crossed region, the part of each open cell, and the adjacency as sorted lists: the same
    for every target of one sheet state."""
    open_mask = board.full_mask & ~crossed
    parts = []
    for block in board.blocks:
        local = (open_mask & block.mask) >> block.offset
        parts.extend(part << block.offset for part in components(local, block.local_neighbours))
    node_of = {b: i for i, cells in enumerate(parts) for b in bit_list(cells)}
    root = len(parts)
    adj: list[set[int]] = [set() for _ in range(root + 1)]
    for i, cells in enumerate(parts):
        if cells & anchored:
            adj[i].add(root)
            adj[root].add(i)
        for b in bit_list(neighbours_of(cells, board.neighbour_mask) & open_mask & ~cells):
            adj[i].add(node_of[b])
    return parts, [frozenset(a) for a in adj], node_of, [sorted(a) for a in adj]


@memo("missions.measures.rolls.rooted_parts", 256)
def rooted_parts(board: Board, crossed: int, anchored: int) -> tuple[list[list[int]], list[int]]:
    """:func:`part_graph` numbered as :func:`reduce_pieces` numbers its nodes: node 0 the
    crossed region, node i + 1 part i; the adjacency lists and each node's cells."""
    parts, _, _, ordered = part_graph(board, crossed, anchored)
    root = len(parts)
    adj = [sorted(0 if v == root else v + 1 for v in ordered[root])]
    adj.extend(sorted(0 if v == root else v + 1 for v in ordered[i]) for i in range(root))
    return adj, [0] + parts


def reduce_pieces(sheet: Sheet, target: int) -> Reduced:
    """The sheet contracted for "fewest rolls that cross ``target``": a node per connected open
    part of a block (a roll crosses cells of one part, so a set of new cells takes at least
    one roll per part it touches, and ceil(n / 5) for n target cells of a part); node 0 is
    the crossed region. Forced parts (those holding target cells) next to the root or to each
    other are merged (an exact contraction: every solution holds both ends) into the node of
    the group's first part (the root's group into node 0); the group's other parts stay as
    nodes without arcs. A room's split asks this for thousands of targets a status, so the
    nodes keep the numbers of the sheet state's part graph (:func:`rooted_parts`) and only
    the arcs next to the forced parts are worked out per target: the rest are shared lists."""
    need = target & ~sheet.crossed
    parts, adj, node_of, _ = part_graph(sheet.board, sheet.crossed, sheet.anchored)
    rooted_adj, rooted_members = rooted_parts(sheet.board, sheet.crossed, sheet.anchored)
    root = len(parts)  # (node 0 below; part i is node i + 1)
    held = sorted({node_of[b] for b in bit_list(need)})
    forced = {i for i in held} | {root}  # (built as a set in ascending order: the groups' first parts below depend on it)
    group = {}
    for start in forced:  # connected groups of forced nodes, each labelled by its first part
        if start in group:
            continue
        stack, group[start] = [start], start
        while stack:
            u = stack.pop()
            for v in adj[u]:
                if v in forced and v not in group:
                    group[v] = start
                    stack.append(v)
    root_group = group[root]
    node = {i: 0 if group[i] == root_group else group[i] + 1 for i in forced}  # each forced part's (group's) node
    wts = [1] * (root + 1)
    members = list(rooted_members)
    for i in forced:
        wts[node[i]] = 0
        if i != root:
            members[i + 1] = 0  # (its cells join its group's node below)
            wts[i + 1] = 0
    for i in held:
        members[node[i]] |= parts[i]
        wts[node[i]] += max(1, -(-(parts[i] & need).bit_count() // 5))
    base = wts[0]
    wts[0] = 0
    adj_new = list(rooted_adj)  # (shared lists: nothing changes them)
    near: dict[int, set[int]] = {}
    for u in forced:  # a group's node: its parts' neighbours' nodes, less itself, once each
        if u != root and node[u] != u + 1:
            adj_new[u + 1] = []  # merged into its group's node
        near.setdefault(node[u], set()).update(node[v] if v in forced else v + 1 for v in adj[u])
    for u in {v for i in forced for v in adj[i]} - forced:  # next to a group: arcs to the groups' nodes
        adj_new[u + 1] = sorted({node[v] if v in forced else v + 1 for v in adj[u]})
    for g, arcs in near.items():
        arcs.discard(g)
        adj_new[g] = sorted(arcs)
    terminals = sorted(g for g in near if g)
    return Reduced(wts, adj_new, members, terminals, base, members[0], set(terminals))


def fewest_rolls(sheet: Sheet, target: int, exact_limit: int = ROLLS_EXACT_LIMIT,
                 trim: bool = True) -> RollsEstimate:
    """Fewest further rolls after which every cell of ``target`` is crossed, each roll one
    connected piece of at most 5 cells in one block, anchored (bridging off).

    Lower bound: a node-weighted Steiner tree over :func:`reduce_pieces` (any legal set of new
    cells touches a connected set of parts holding every target part, and takes at least
    the parts' weights in rolls), exact by Dreyfus-Wagner up to ``exact_limit`` terminals,
    else on a subset of them with the others free to pass (plus their weight). Upper bound:
    the cells of the tree's parts (legal: connected to the crossed region), their pieces
    counted by nochmal.impossible.rolls_needed, then cells off the target dropped while the
    set stays legal and saves rolls, and (``trim``: fewer crosses for the same rolls, what a
    path shown to a player wants; bounds alone do not) while its pieces do not grow."""
    import numpy as np  # loaded on use: light commands need no array

    from nochmal.impossible import rolls_needed

    board = sheet.board
    need = target & ~sheet.crossed
    if not need:
        return RollsEstimate(0, 0, 0)
    red = reduce_pieces(sheet, target)
    terms = red.terminals
    if not terms:
        nodes = {0}
        lower = red.base
    else:
        subset = terms
        if len(terms) > max(0, exact_limit):  # the farthest terminals from the root: the most telling subset
            init = np.full(len(red.adj), INF, dtype=np.int64)
            init[0] = 0
            dist, _ = node_dijkstra(red.adj, red.weight, init)
            subset = sorted(terms, key=lambda t: -int(dist[t]))[:exact_limit]
        weight = list(red.weight)
        for t in terms:
            if t not in subset:
                weight[t] = 0
        nodes, tree = {0}, 0
        if subset:
            dp, rebuild = dreyfus_wagner(red, subset, weight)
            full = (1 << len(subset)) - 1
            if int(dp[full][0]) >= INF:
                raise InfeasibleError("target cells cannot be reached from the start column")
            tree, nodes = int(dp[full][0]), rebuild(full, 0)
        lower = tree + red.base + sum(red.weight[t] for t in terms if t not in subset)
        nodes = join_missing(red, nodes, [t for t in terms if t not in nodes])
    cells = nodes_mask(red, nodes) | red.base_mask
    upper = rolls_needed(board, cells).upper
    if upper > lower or trim:
        cells, upper = _drop_cells(sheet, cells, need, upper, trim)
    assert lower <= upper, (lower, upper)
    return RollsEstimate(lower, upper, cells)



def trimmed_rolls(sheet: Sheet, target: int, pieces: RollsEstimate) -> RollsEstimate:
    """``fewest_rolls(sheet, target)`` (trim on) from its ``trim=False`` answer ``pieces``: the
    same tree and the same first drops (at their fixed point, or none where the rolls already
    meet the bound), so only the trimming is left to do."""
    need = target & ~sheet.crossed
    if not need:
        return pieces
    cells, upper = _drop_cells(sheet, pieces.cells, need, pieces.upper, True)
    return RollsEstimate(pieces.lower, upper, cells)


def _drop_cells(sheet: Sheet, cells: int, need: int, rolls: int, trim: bool) -> tuple[int, int]:
    """Drop cells off the target from a legal set of new cells while every connected piece of
    it stays anchored: first cells of a block's part of more than 5 chosen cells while that
    saves a roll (a drop that merely splits a part in two would block cutting it to 5), then
    (``trim``) any cell while the rolls stay."""
    from nochmal.impossible import block_pieces

    board = sheet.board
    nb, anchored = board.neighbour_mask, sheet.anchored

    def drop(b: int, strict: bool) -> bool:
        nonlocal cells, rolls
        trial = cells & ~(1 << b)
        if component_of(trial & anchored, trial, nb) != trial:  # some piece of it left unanchored
            return False
        r = block_pieces(board, trial)[1]  # (rolls_needed's pieces; anchoring checked above)
        if r < rolls or (r == rolls and not strict):
            cells, rolls = trial, r
            return True
        return False

    changed = True
    while changed:
        changed = False
        for block in board.blocks:
            if (cells & block.mask).bit_count() <= 5:
                continue  # (no part of more than 5 cells)
            for part in components(cells & block.mask, board.neighbour_mask):
                if part.bit_count() > 5 and any(connected_within(part & ~(1 << b), part & ~(1 << b), board.neighbour_mask) and drop(b, True)
                                                 for b in bit_list(part & ~need)):
                    changed = True  # (only a drop that leaves the part in one piece can save a roll)
    if trim:
        for b in bit_list(cells & ~need):
            drop(b, False)
    return cells, rolls
