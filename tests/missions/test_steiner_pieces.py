"""missions/measures/rolls.py ``reduce_pieces`` keeps the part graph's node numbers and works out
only the arcs next to the forced groups: compared with the all-dictionary version it
replaced (kept here as a regression oracle, not an independent one), the same contracted
graph up to the nodes' numbers (a node is known by its cells; the group parts merged away
are nodes without arcs or cells), on random sheets and targets (cells, stars, columns) of
the classic board; and the same fewest-rolls bounds from both. The independent checks of those bounds are the brute forces
over the engine's own placements (tests/measures_oracle.py ``brute_fewest_rolls``, used by
tests/missions/test_status_fast_paths.py and tests/missions/test_split_entry_bound.py)."""

from __future__ import annotations

import random

import pytest

from nochmal.bitsets import bit_list
from nochmal.board import load_board
from nochmal.sheet import Sheet
from nochmal.missions.measures.graphs import column_target
from nochmal.missions.measures.rolls import ROLLS_EXACT_LIMIT, fewest_rolls, reduce_pieces
from nochmal.missions.measures.steiner import INF, Reduced, dreyfus_wagner

from graphs_support import forced_groups, open_parts
from sheets_support import random_sheet  # sheets grown by legal one-cell crosses

CLASSIC = load_board("classic")


def regression_reduce_pieces(sheet: Sheet, target: int) -> Reduced:
    """A regression oracle: the all-dictionary reduce_pieces the present one replaced, frozen
    (its part graph built by networkx: tests/graphs_support.py open_parts). It shares the
    contraction's design, so it finds changes, not a mistake both make."""
    parts, touching = open_parts(sheet.board, sheet.crossed)
    root = len(parts)
    adj = touching + [set()]
    for i, cells in enumerate(parts):
        if cells & sheet.anchored:
            adj[i].add(root)
            adj[root].add(i)
    adj = [frozenset(a) for a in adj]
    need = target & ~sheet.crossed
    weight = [max(1, -(-(cells & need).bit_count() // 5)) for cells in parts]
    forced = {i for i, cells in enumerate(parts) if cells & need} | {root}
    group = forced_groups(adj, forced)
    heads = [group[root]] + sorted({g for g in group.values() if g != group[root]}) + \
        [i for i in range(len(parts)) if i not in forced]
    new = {h: k for k, h in enumerate(heads)}
    of = {i: new[group.get(i, i)] for i in range(root + 1)}
    members = [0] * len(heads)
    wts = [0] * len(heads)
    for i, cells in enumerate(parts):
        members[of[i]] |= cells
        wts[of[i]] += weight[i]
    base = wts[0]
    wts[0] = 0
    adj_new = [set() for _ in heads]
    for u in range(root + 1):
        for v in adj[u]:
            if of[u] != of[v]:
                adj_new[of[u]].add(of[v])
    terminals = list(range(1, len({g for g in group.values()})))
    return Reduced(wts, [sorted(s) for s in adj_new], members, terminals, base, members[0], set(terminals))


def lower_bound(red: Reduced) -> int:
    """fewest_rolls' lower bound on a contracted graph (all terminals: the classic board's
    cases here stay within ROLLS_EXACT_LIMIT or are skipped)."""
    if not red.terminals:
        return red.base
    dp, _ = dreyfus_wagner(red, red.terminals, red.weight)
    assert dp[-1][0] < INF
    return int(dp[-1][0]) + red.base


@pytest.mark.parametrize("seed", range(10))
def test_reduce_pieces_gives_the_regression_oracle_graph(seed):
    rng = random.Random(seed)
    for _ in range(12):
        sheet = random_sheet(CLASSIC, rng, rng.randint(0, 40))
        kind = rng.randrange(4)
        if kind == 3:  # whole blocks: parts with more than 5 target cells (weight ceil(n / 5))
            target = sum(b.mask for b in rng.sample(CLASSIC.blocks, 3))
        elif kind == 0:
            target = sum(1 << b for b in rng.sample(range(CLASSIC.n_cells), rng.randint(1, 20)))
        elif kind == 1:
            target = sum(1 << b for b in rng.sample(bit_list(CLASSIC.star_mask), rng.randint(1, 15)))
        else:
            target = column_target(CLASSIC, rng.sample("ABCDEFGHIJKLMNO", rng.randint(1, 3)))
        got, want = reduce_pieces(sheet, target), regression_reduce_pieces(sheet, target)
        assert (got.base, got.base_mask, got.members[0]) == (want.base, want.base_mask, want.members[0])
        live = [v for v in range(len(got.adj)) if v == 0 or got.members[v]]
        dead = [v for v in range(len(got.adj)) if v not in live]
        assert all(got.adj[v] == [] and got.weight[v] == 0 for v in dead)
        assert all(v not in got.adj[u] for u in live for v in dead)
        want_of = {m: i for i, m in enumerate(want.members) if i}
        match = {0: 0} | {v: want_of[got.members[v]] for v in live if v}  # (KeyError: a node the oracle lacks)
        assert sorted(match.values()) == list(range(len(want.adj)))
        for v in live:
            assert got.weight[v] == want.weight[match[v]]
            assert sorted(match[u] for u in got.adj[v]) == want.adj[match[v]]
        assert [match[t] for t in got.terminals] == want.terminals
        assert {match[t] for t in got.target_nodes} == want.target_nodes
        if len(want.terminals) <= ROLLS_EXACT_LIMIT:  # (beyond, fewest_rolls takes a subset)
            assert fewest_rolls(sheet, target, trim=False).lower == lower_bound(want)
