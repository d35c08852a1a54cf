"""Fewest further crosses (missions/measures/crosses.py) against an independent brute-force search.

The oracle works on (row, column) cells straight from the rules: from a set of crossed
cells, one new cross may go on any open cell in the start column or orthogonally next to a
crossed cell; a breadth-first search over the sets of crossed cells finds the fewest crosses
after which the target cells are all crossed. It uses neither the engine's masks nor the
graph module.
"""

from __future__ import annotations

import random

import pytest

import nochmal as nm
from nochmal.board import Board
from nochmal.errors import IllegalMoveError
from nochmal.sheet import Sheet
from nochmal.impossible import impossible_sheet_reasons
from nochmal.missions.measures import crosses
from nochmal.missions.measures.crosses import fewest_crosses, fewest_crosses_choose
from nochmal.missions.measures.graphs import colour_target, column_target, crosses_per_cell, reachable
from graphs_support import block_graph, cell_graph

# the proofs asserted here come from CP-SAT's deterministic limits (tests/conftest.py cpsat_by_work)
pytestmark = pytest.mark.usefixtures("cpsat_by_work")

CLASSIC = nm.load_board("classic")
LETTERS = "ABCDEFGHIJKLMNO"


def _name(r: int, c: int) -> str:
    return f"{LETTERS[c]}{r + 1}"


def brute_fewest(rows: int, cols: int, start_col: int, crossed: set, targets: set, limit: int = 40) -> int | None:
    """BFS over sets of crossed cells; cells are (row, col)."""
    def nbrs(cell):
        r, c = cell
        for y, x in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= y < rows and 0 <= x < cols:
                yield y, x

    start = frozenset(crossed)
    if targets <= start:
        return 0
    frontier = {start}
    seen = {start}
    for depth in range(1, limit + 1):
        nxt = set()
        for state in frontier:
            for r in range(rows):
                for c in range(cols):
                    cell = (r, c)
                    if cell in state:
                        continue
                    if c != start_col and not any(n in state for n in nbrs(cell)):
                        continue
                    new = state | {cell}
                    if targets <= new:
                        return depth
                    if new not in seen:
                        seen.add(new)
                        nxt.add(new)
        frontier = nxt
    return None


def _random_board(rng: random.Random, rows: int, cols: int) -> Board:
    grid = ["".join(rng.choice("ygbro") for _ in range(cols)) for _ in range(rows)]
    return Board.from_grid(grid, strict=False)


def _connected_crossed(rng: random.Random, rows: int, cols: int, start_col: int, n: int) -> set:
    """A producible set of crossed cells: grown cell by cell from the start column."""
    crossed: set = set()
    for _ in range(n):
        options = [(r, c) for r in range(rows) for c in range(cols) if (r, c) not in crossed and (
            c == start_col or any(abs(r - y) + abs(c - x) == 1 for y, x in crossed))]
        crossed.add(rng.choice(options))
    return crossed


def _replay_witness(sheet: Sheet, cells) -> Sheet:
    """Cross the witness cells one at a time through the engine's own legality check."""
    for name in cells:
        bit = sheet.board.bit(name)
        mask = 1 << bit
        sheet.check_placement(sheet.board.colour_of_bit(bit), 1, mask)
        sheet = sheet.cross(mask)
    return sheet


@pytest.mark.parametrize("seed", range(40))
def test_fewest_crosses_matches_brute_force_on_small_boards(seed):
    rng = random.Random(seed)
    rows, cols = rng.choice([(3, 3), (3, 4), (4, 3), (2, 5), (3, 5)])
    board = _random_board(rng, rows, cols)
    start_col = board.start_column
    crossed = _connected_crossed(rng, rows, cols, start_col, rng.randrange(0, 4))
    open_cells = [(r, c) for r in range(rows) for c in range(cols) if (r, c) not in crossed]
    targets = set(rng.sample(open_cells, min(len(open_cells), rng.randrange(1, 5))))
    targets |= set(rng.sample(sorted(crossed), min(len(crossed), 1)))  # crossed targets are free
    sheet = Sheet.from_cells(board, [_name(r, c) for r, c in crossed])
    mask = board.mask_of([_name(r, c) for r, c in targets])
    want = brute_fewest(rows, cols, start_col, crossed, targets)
    est = fewest_crosses(sheet, mask)
    assert est.exact and est.value == want
    final = _replay_witness(sheet, est.cells)
    assert len(est.cells) == want and final.crossed & mask == mask


@pytest.mark.parametrize("seed", range(12))
def test_bounds_bracket_the_brute_force_when_forced_to_approximate(seed):
    rng = random.Random(100 + seed)
    board = _random_board(rng, 3, 4)
    cells = [(r, c) for r in range(3) for c in range(4)]
    targets = set(rng.sample(cells, 5))
    sheet = Sheet.empty(board)
    mask = board.mask_of([_name(r, c) for r, c in targets])
    want = brute_fewest(3, 4, board.start_column, set(), targets)
    est = fewest_crosses(sheet, mask, exact_limit=1, time_limit=0)
    assert est.lower <= want <= est.upper
    assert len(est.cells) == est.upper
    final = _replay_witness(sheet, est.cells)
    assert final.crossed & mask == mask
    if not est.exact:
        assert est.value is None and "approximate" in est.text()


@pytest.mark.parametrize("seed", range(8))
def test_cp_sat_path_matches_brute_force(seed):
    """With the DP switched off (exact_limit=0) the CP-SAT model must prove the same optimum."""
    rng = random.Random(500 + seed)
    board = _random_board(rng, 3, 4)
    crossed = _connected_crossed(rng, 3, 4, board.start_column, rng.randrange(0, 3))
    open_cells = [(r, c) for r in range(3) for c in range(4) if (r, c) not in crossed]
    targets = set(rng.sample(open_cells, min(len(open_cells), 4)))
    sheet = Sheet.from_cells(board, [_name(r, c) for r, c in crossed])
    mask = board.mask_of([_name(r, c) for r, c in targets])
    want = brute_fewest(3, 4, board.start_column, crossed, targets)
    est = fewest_crosses(sheet, mask, exact_limit=0, time_limit=10)
    assert est.exact and est.value == want
    assert _replay_witness(sheet, est.cells).crossed & mask == mask


def test_choose_groups_matches_brute_force():
    rng = random.Random(7)
    methods = []
    for _ in range(12):
        board = _random_board(rng, 3, 4)
        cells = [(r, c) for r in range(3) for c in range(4)]
        groups = rng.sample(cells, 5)
        need = rng.randrange(1, 4)
        from itertools import combinations
        want = min(brute_fewest(3, 4, board.start_column, set(), set(combo)) for combo in combinations(groups, need))
        masks = [board.mask_of([_name(*g)]) for g in groups]
        est = fewest_crosses_choose(Sheet.empty(board), masks, need)
        assert est.exact and est.value == want
        # the CP-SAT path that picks the groups itself (enumeration switched off)
        cp = fewest_crosses_choose(Sheet.empty(board), masks, need, max_combinations=0, time_limit=10)
        assert cp.lower <= want <= cp.upper and cp.exact and cp.value == want
        assert len(cp.cells) == want
        methods.append(cp.method)
    assert "cp-sat" in methods  # the model really ran (greedy bounds did not always close)


@pytest.mark.parametrize("case", [
    ([], ["F2"]),
    (["H7"], ["K7", "K5"]),
    (["H4", "G4", "F4"], ["C4"]),
    (["H1", "I1"], ["K1", "K3"]),
    ([], ["G1", "I7"]),
])
def test_classic_small_cases_match_brute_force(case):
    crossed_names, target_names = case
    def rc(name):
        return int(name[1:]) - 1, LETTERS.index(name[0])
    want = brute_fewest(7, 15, 7, {rc(n) for n in crossed_names}, {rc(n) for n in target_names}, limit=12)
    sheet = Sheet.from_cells(CLASSIC, crossed_names)
    est = fewest_crosses(sheet, CLASSIC.mask_of(target_names))
    assert est.exact and est.value == want


def test_classic_column_and_colour_targets_are_consistent_with_geometry():
    sheet = Sheet.empty(CLASSIC)
    # a column is one connected piece: its 7 cells plus the shortest way to it from column H
    for col in range(15):
        est = fewest_crosses(sheet, column_target(CLASSIC, [col]))
        assert est.exact and est.value == 7 + abs(col - 7)
    full = fewest_crosses(sheet, CLASSIC.full_mask)
    assert full.exact and full.value == 105
    for colour in "ygbro":
        est = fewest_crosses(sheet, colour_target(CLASSIC, colour))
        assert est.lower >= 21
        final = _replay_witness(sheet, est.cells)
        assert final.crossed & CLASSIC.colour_mask[colour] == CLASSIC.colour_mask[colour]


def test_all_stars_interval_holds_a_real_crossing_sequence():
    est = fewest_crosses(Sheet.empty(CLASSIC), CLASSIC.star_mask, exact_limit=6, time_limit=0)
    assert est.lower <= est.upper
    final = _replay_witness(Sheet.empty(CLASSIC), est.cells)
    assert final.crossed & CLASSIC.star_mask == CLASSIC.star_mask
    assert len(est.cells) == est.upper
    assert est.lower >= 15


def test_graphs_have_the_board_shape():
    g = cell_graph(CLASSIC)
    assert g.number_of_nodes() == 105
    assert g.number_of_edges() == 7 * 14 + 6 * 15
    assert g.nodes["H4"]["start"] and g.nodes["H4"]["column"] == "H" and g.nodes["H4"]["row"] == 4
    assert sum(1 for _, s in g.nodes(data="star") if s) == 15
    bg = block_graph(CLASSIC)
    assert bg.number_of_nodes() == 30
    assert sorted(d["size"] for _, d in bg.nodes(data=True) if d["colour"] == "y") == [1, 2, 3, 4, 5, 6]
    # two cells of different blocks that touch make their blocks adjacent
    for u, v, same in g.edges(data="same_block"):
        a, b = g.nodes[u]["block"], g.nodes[v]["block"]
        assert (a == b) == same
        if not same:
            assert bg.has_edge(a, b)


def test_reachability_and_distances():
    sheet = Sheet.from_cells(CLASSIC, ["H4", "G4"])
    dist = crosses_per_cell(sheet)
    assert dist[CLASSIC.bit("F4")] == 1 and dist[CLASSIC.bit("H1")] == 1 and dist[CLASSIC.bit("A4")] == 6
    assert CLASSIC.bit("H4") not in dist
    near = reachable(sheet, 1)
    assert set(CLASSIC.cells_of(near)) >= {"F4", "G3", "G5", "H3", "H5", "I4", "H1", "H7"}
    assert "E4" not in CLASSIC.cells_of(near)
    assert reachable(sheet) == CLASSIC.full_mask & ~sheet.crossed


@pytest.mark.parametrize("board_name", ["classic", "purple"])
def test_crosses_per_cell_equal_networkx_dijkstra(board_name):
    """The breadth-first rings against networkx's multi-source Dijkstra on cell_graph (the
    search crosses_per_cell ran before the start-up work), on random sheets."""
    import networkx as nx

    board = nm.load_board(board_name)
    g = cell_graph(board)
    rng = random.Random(17)
    for _ in range(40):
        bits = rng.sample(range(board.n_cells), rng.randrange(0, board.n_cells // 2))
        sheet = Sheet.from_cells(board, [board.cell_name(b) for b in bits])  # any set: distances need no game
        open_cells = [n for n, bit in g.nodes(data="bit") if not sheet.crossed >> bit & 1]
        sources = [board.cell_name(b) for b in range(board.n_cells) if (sheet.anchored & ~sheet.crossed) >> b & 1]
        want = {}
        if sources:
            dist = nx.multi_source_dijkstra_path_length(g.subgraph(open_cells), sources)
            want = {g.nodes[name]["bit"]: d + 1 for name, d in dist.items()}
        assert crosses_per_cell(sheet) == want


def test_impossible_sheet_reasons():
    ok = Sheet.from_cells(CLASSIC, ["H4", "G4", "F4"])
    assert impossible_sheet_reasons(ok) == []
    floating = Sheet.from_cells(CLASSIC, ["H4", "A1", "B1"])
    reasons = impossible_sheet_reasons(floating)
    assert len(reasons) == 1 and "A1 B1" in reasons[0] and "column H" in reasons[0]
    bad_jokers = Sheet(CLASSIC, ok.crossed, jokers_used=9).with_all_completions_scored()
    assert any("jokers_used" in r for r in impossible_sheet_reasons(bad_jokers))
    assert any("they take 5 rolls" in r for r in impossible_sheet_reasons(Sheet.from_cells(
        CLASSIC, ["H1", "H2", "H3", "H4", "H5", "H6"]), rolls=1))
    unscored = Sheet(CLASSIC, CLASSIC.column_mask[7])
    assert any("not scored" in r for r in impossible_sheet_reasons(unscored))


def test_witness_is_refused_by_the_engine_if_order_is_broken():
    """Guard for the replay helper itself: a floating cross must be refused."""
    with pytest.raises(IllegalMoveError):
        _replay_witness(Sheet.empty(CLASSIC), ["A1"])


def test_all_stars_on_classic_is_proven_by_cp_sat():
    """Too many terminals for the DP (held at 8): CP-SAT must close the interval, with a real
    crossing order; by default the lazy programme proves the same figure without CP-SAT."""
    est = fewest_crosses(Sheet.empty(CLASSIC), CLASSIC.star_mask, exact_limit=8, time_limit=60)
    assert est.method == "cp-sat" and est.exact
    crosses.RECENT.clear()  # (else the answer just found is remembered and reused)
    lazy = fewest_crosses(Sheet.empty(CLASSIC), CLASSIC.star_mask)
    assert lazy.exact and lazy.value == est.value and lazy.method.startswith("dreyfus-wagner on")
    final = _replay_witness(Sheet.empty(CLASSIC), est.cells)
    assert final.crossed & CLASSIC.star_mask == CLASSIC.star_mask and len(est.cells) == est.value
    loose = fewest_crosses(Sheet.empty(CLASSIC), CLASSIC.star_mask, exact_limit=4, time_limit=0)
    assert loose.lower <= est.value <= loose.upper
