"""Legal placements (docs/rules.md §3) against an independent brute-force oracle.

The oracle works on grid coordinates (row, column) straight from the rules text: a flood
fill finds blocks, every k-subset of cells is filtered by colour, one block, connected
(among themselves, or through crossed cells of the same block with bridging), anchored
(start column, or orthogonally next to a crossed cell) and not already crossed. It uses
neither ``board.blocks`` nor the placement tables.
"""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import nochmal as nm
from nochmal.board import COLUMN_LETTERS
from nochmal.dice import Roll
from nochmal.game import Game, Mode
from nochmal.position import Position
from nochmal.move import Move
from nochmal.placements import PlacementIndex
from nochmal.sheet import Sheet

CLASSIC = nm.load_board("classic")
CLASSIC_GRID = ["gggyyyyGbbbOyyy", "ogYgYyoorBboogg", "BgrgggGrrryyogg", "brrgoObbggyyoRb",
                "roooorbbooorrrr", "rBbRrrryYoRbbbO", "yybbbbryyyggGoo"]

Cell = tuple[int, int]


def _nbrs(cell: Cell, rows: int, cols: int):
    r, c = cell
    for y, x in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
        if 0 <= y < rows and 0 <= x < cols:
            yield y, x


class Oracle:
    """Brute-force rules of §3 on a grid of letters."""

    def __init__(self, grid: list[str], start_col: int):
        self.grid = [row.lower() for row in grid]
        self.rows, self.cols = len(grid), len(grid[0])
        self.start_col = start_col
        self.block_id: dict[Cell, int] = {}
        n = 0
        for r in range(self.rows):
            for c in range(self.cols):
                if (r, c) in self.block_id:
                    continue
                stack = [(r, c)]
                self.block_id[(r, c)] = n
                while stack:
                    cell = stack.pop()
                    for nb in _nbrs(cell, self.rows, self.cols):
                        if nb not in self.block_id and self.colour(nb) == self.colour((r, c)):
                            self.block_id[nb] = n
                            stack.append(nb)
                n += 1

    def colour(self, cell: Cell) -> str:
        return self.grid[cell[0]][cell[1]]

    def connected(self, cells: set[Cell], within: set[Cell]) -> bool:
        start = next(iter(cells))
        seen, stack = {start}, [start]
        while stack:
            for nb in _nbrs(stack.pop(), self.rows, self.cols):
                if nb in within and nb not in seen:
                    seen.add(nb)
                    stack.append(nb)
        return cells <= seen

    def flaws(self, cells: set[Cell], colour: str, crossed: set[Cell], bridging: bool) -> set[str]:
        """Every rule of §3 the set of new cells breaks (empty = legal)."""
        out = set()
        if any(self.colour(c) != colour for c in cells):
            out.add("wrong colour")
        if cells & crossed:
            out.add("already crossed")
        blocks = {self.block_id[c] for c in cells}
        if len(blocks) > 1:
            out.add("not one block")
        within = set(cells)
        if bridging and len(blocks) == 1:
            within |= {c for c in crossed if self.block_id[c] in blocks}
        if not self.connected(cells, within):
            out.add("not connected")
        anchored = any(c[1] == self.start_col for c in cells) or any(
            nb in crossed for c in cells for nb in _nbrs(c, self.rows, self.cols))
        if not anchored:
            out.add("not anchored")
        return out

    def legal(self, cells: tuple[Cell, ...], colour: str, crossed: set[Cell], bridging: bool) -> bool:
        """The same rules as ``flaws``, stopping at the first broken one (for speed)."""
        if any(self.colour(c) != colour or c in crossed for c in cells):
            return False
        block = self.block_id[cells[0]]
        if any(self.block_id[c] != block for c in cells):
            return False
        if not (any(c[1] == self.start_col for c in cells) or any(
                nb in crossed for c in cells for nb in _nbrs(c, self.rows, self.cols))):
            return False
        within = set(cells)
        if bridging:
            within |= {c for c in crossed if self.block_id[c] == block}
        return self.connected(set(cells), within)

    def placements(self, crossed: set[Cell], colour: str, count: int, bridging: bool,
                   universe=None) -> set[frozenset[Cell]]:
        if universe is None:
            universe = [(r, c) for r in range(self.rows) for c in range(self.cols)]
        return {frozenset(s) for s in combinations(universe, count)
                if self.legal(s, colour, crossed, bridging)}


def name_of(cell: Cell) -> str:
    return f"{COLUMN_LETTERS[cell[1]]}{cell[0] + 1}"


def cell_of(name: str) -> Cell:
    return int(name[1:]) - 1, COLUMN_LETTERS.index(name[0])


def engine_sheet(board, crossed: set[Cell]) -> Sheet:
    return Sheet(board, board.mask_of([name_of(c) for c in crossed]))


def engine_placements(sheet: Sheet, colour: str, count: int, bridging: bool) -> set[frozenset[Cell]]:
    masks = sheet.placements(colour, count, bridging)
    assert len(masks) == len(set(masks)), "duplicate placements"
    return {frozenset(cell_of(n) for n in sheet.board.cells_of(m)) for m in masks}


CLASSIC_ORACLE = Oracle(CLASSIC_GRID, 7)


# --- opening ---------------------------------------------------------------------------------

OPENING = {"g": [1, 0, 0, 0, 0], "y": [2, 3, 5, 4, 1], "b": [2, 3, 4, 1, 0],
           "r": [1, 1, 2, 1, 0], "o": [1, 1, 0, 0, 0]}  # docs/rules.md §1


@pytest.mark.parametrize("colour", "gybro")
def test_opening_placements_on_the_empty_classic_sheet(colour):
    sheet = Sheet.empty(CLASSIC)
    counts = [len(sheet.placements(colour, n)) for n in range(1, 6)]
    assert counts == OPENING[colour]
    # and the oracle (independent of the engine) agrees with the rules text
    oracle_counts = [len(CLASSIC_ORACLE.placements(set(), colour, n, False,
                                                   [c for c in CLASSIC_ORACLE.block_id
                                                    if CLASSIC_ORACLE.colour(c) == colour]))
                     for n in range(1, 6)]
    assert oracle_counts == OPENING[colour]


def test_opening_total_and_start_score():
    sheet = Sheet.empty(CLASSIC)
    assert sum(len(sheet.placements(c, n)) for c in "ygbro" for n in range(1, 6)) == 33
    assert sum(map(sum, OPENING.values())) == 33
    assert sheet.score() == 8 - 2 * 15 == -22
    bd = sheet.score_breakdown()
    assert (bd.columns, bd.colours, bd.jokers, bd.stars) == (0, 0, 8, -30)


def test_out_of_range_queries_are_empty():
    sheet = Sheet.empty(CLASSIC)
    assert sheet.placements("y", 0) == []
    assert sheet.placements("y", 6) == []
    assert sheet.placements("b", 6, bridging=True) == []


# --- property: enumerator == brute force -----------------------------------------------------

@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(crossed=st.sets(st.integers(0, 104), max_size=60), colour=st.sampled_from("ygbro"),
       count=st.integers(1, 5), bridging=st.booleans())
def test_classic_enumerator_equals_brute_force(crossed, colour, count, bridging):
    crossed_cells = {divmod(i, 15) for i in crossed}
    sheet = engine_sheet(CLASSIC, crossed_cells)
    got = engine_placements(sheet, colour, count, bridging)
    # every k-subset of the cells of the colour (cells of other colours fail the colour rule,
    # which the small-board test below checks literally over all cells)
    universe = [c for c in CLASSIC_ORACLE.block_id if CLASSIC_ORACLE.colour(c) == colour]
    want = CLASSIC_ORACLE.placements(crossed_cells, colour, count, bridging, universe)
    assert got == want
    for cells in want:
        sheet.check_placement(colour, count, CLASSIC.mask_of(map(name_of, cells)), bridging)


@st.composite
def small_boards(draw):
    # at most 16 cells: the engine's per-block tables enumerate every subset of a block,
    # so one-colour boards much bigger than this are slow to index (see the report)
    rows = draw(st.integers(1, 4))
    cols = draw(st.integers(1, 4 if rows == 4 else 5))
    palette = draw(st.sampled_from(["yb", "ygb", "ygbro", "y"]))
    grid = ["".join(draw(st.sampled_from(palette)) for _ in range(cols)) for _ in range(rows)]
    start = draw(st.integers(0, cols - 1))
    crossed = draw(st.sets(st.tuples(st.integers(0, rows - 1), st.integers(0, cols - 1))))
    return grid, start, crossed


@settings(max_examples=200, deadline=None)
@given(data=small_boards(), bridging=st.booleans())
@pytest.mark.slow
def test_small_board_enumerator_equals_brute_force_over_all_cells(data, bridging):
    grid, start, crossed = data
    board = nm.Board.from_grid(grid, start_column=COLUMN_LETTERS[start])
    oracle = Oracle(grid, start)
    sheet = engine_sheet(board, crossed)
    for colour in "ygbro":
        for count in range(1, 6):
            want = oracle.placements(crossed, colour, count, bridging)
            assert engine_placements(sheet, colour, count, bridging) == want, (colour, count)


def test_fresh_index_equals_shared_index():
    """A cold PlacementIndex answers like the shared warm one."""
    sheet = Sheet.from_cells(CLASSIC, ["H1", "H2", "G2", "H3", "I3", "J3", "H4", "H5"])
    fresh = PlacementIndex(CLASSIC, False)
    for colour in "ygbro":
        for n in range(1, 6):
            assert sorted(fresh.query(sheet.crossed, sheet.anchored, colour, n)) == \
                sorted(sheet.placements(colour, n))


# --- bridging by hand ------------------------------------------------------------------------

def test_bridging_connects_through_crossed_cells_of_the_block_only():
    board = nm.Board.from_grid(["yyy", "byb"], start_column="B")
    sheet = Sheet(board, board.mask_of(["B1"]))  # middle of the yellow row is crossed
    ac = board.mask_of(["A1", "C1"])
    assert ac not in sheet.placements("y", 2)
    assert ac in sheet.placements("y", 2, bridging=True)
    with pytest.raises(nm.IllegalMoveError, match="^not connected"):
        sheet.check_placement("y", 2, ac)
    sheet.check_placement("y", 2, ac, bridging=True)
    # A1 and C1 share a yellow block (through row 2) but the crossed B1 is blue: a crossed
    # cell of another colour never bridges
    board2 = nm.Board.from_grid(["yby", "yyy"], start_column="B")
    s2 = Sheet(board2, board2.mask_of(["B1"]))
    with pytest.raises(nm.IllegalMoveError, match="^not connected"):
        s2.check_placement("y", 2, board2.mask_of(["A1", "C1"]), bridging=True)


# --- check_placement reasons -----------------------------------------------------------------

EARLY = Sheet.from_cells(CLASSIC, ["H4", "H5", "G4", "G5"])  # a blue 4 on the start column


# (colour, count, cells, the reason the engine must give, every flaw the oracle must find)
REASONS = [
    ("g", 1, ["I5"], "wrong colour", {"wrong colour"}),             # I5 is orange, next to H5
    ("b", 1, ["H4"], "already crossed", {"already crossed"}),
    ("o", 2, ["I5", "E4"], "not one block", {"not one block", "not connected"}),
    ("y", 2, ["H6", "I7"], "not connected", {"not connected"}),     # diagonal only
    ("y", 2, ["A7", "B7"], "not anchored", {"not anchored"}),
    ("b", 2, ["I4"], "wrong count", None),
    ("b", 1, ["H3", "H2"], "wrong count", None),
]


@pytest.mark.parametrize("colour,count,cells,reason,flaws", REASONS, ids=[r[3] + "-" + "".join(r[2]) for r in REASONS])
def test_check_placement_reasons(colour, count, cells, reason, flaws):
    mask = CLASSIC.mask_of(cells)
    if flaws is not None:
        crossed = {cell_of(c) for c in CLASSIC.cells_of(EARLY.crossed)}
        assert CLASSIC_ORACLE.flaws({cell_of(c) for c in cells}, colour, crossed, False) == flaws
        assert mask not in EARLY.placements(colour, count)
    with pytest.raises(nm.IllegalMoveError) as info:
        EARLY.check_placement(colour, count, mask)
    assert str(info.value).startswith(reason + ":"), str(info.value)
    for name in cells if reason in ("wrong colour", "already crossed") else ():
        if reason == "already crossed" or CLASSIC.colour_of_bit(CLASSIC.bit(name)) != colour:
            assert name in str(info.value)


def draw_candidate(data, crossed_cells: set[Cell]) -> tuple[set[Cell], str]:
    """A random set of 1..5 cells: mostly a same-colour random walk from an anchored cell
    (so that legal sets are common), sometimes a walk across colours or scattered cells."""
    k = data.draw(st.integers(1, 5))
    style = data.draw(st.sampled_from(["walk", "walk", "walk", "jump", "mixed", "scatter"]))
    if style == "scatter":
        cells = {divmod(i, 15) for i in data.draw(st.sets(st.integers(0, 104), min_size=k, max_size=k))}
        return cells, CLASSIC_ORACLE.colour(min(cells))
    anchors = sorted({(r, 7) for r in range(7)} | {nb for c in crossed_cells for nb in _nbrs(c, 7, 15)})
    cur = data.draw(st.sampled_from(anchors))
    cells = {cur}
    while len(cells) < k:
        options = sorted(nb for c in cells for nb in _nbrs(c, 7, 15) if nb not in cells)
        if style == "jump":  # two steps away: same block, but maybe not connected
            options = sorted({n2 for nb in options for n2 in _nbrs(nb, 7, 15)} - cells) or options
        if style in ("walk", "jump"):
            options = [nb for nb in options if CLASSIC_ORACLE.colour(nb) == CLASSIC_ORACLE.colour(cur)] or options
        cells.add(data.draw(st.sampled_from(options)))
    return cells, CLASSIC_ORACLE.colour(cur)


@settings(max_examples=300, deadline=None)
@given(crossed=st.sets(st.integers(0, 104), max_size=40), data=st.data(),
       colour_pick=st.integers(0, 9), bridging=st.booleans())
@pytest.mark.slow
def test_check_placement_accepts_exactly_the_legal_ones(crossed, data, colour_pick, bridging):
    crossed_cells = {divmod(i, 15) for i in crossed}
    cells, first_colour = draw_candidate(data, crossed_cells)
    # mostly the colour of the first cell, so that legal sets are common
    colour = "ygbro"[colour_pick] if colour_pick < 5 else first_colour
    assert CLASSIC_ORACLE.legal(tuple(sorted(cells)), colour, crossed_cells, bridging) == \
        (not CLASSIC_ORACLE.flaws(cells, colour, crossed_cells, bridging))  # the oracle's two forms agree
    sheet = engine_sheet(CLASSIC, crossed_cells)
    mask = CLASSIC.mask_of(map(name_of, cells))
    flaws = CLASSIC_ORACLE.flaws(cells, colour, crossed_cells, bridging)
    legal = mask in sheet.placements(colour, len(cells), bridging)
    event("legal" if not flaws else "illegal: " + ", ".join(sorted(flaws)))
    assert legal == (not flaws)
    if not flaws:
        sheet.check_placement(colour, len(cells), mask, bridging)
        with pytest.raises(nm.IllegalMoveError, match="^wrong count:"):
            sheet.check_placement(colour, len(cells) + 1, mask, bridging)
        return
    with pytest.raises(nm.IllegalMoveError) as info:
        sheet.check_placement(colour, len(cells), mask, bridging)
    reason = str(info.value).split(":")[0]
    assert reason in flaws, (reason, flaws)
    if len(flaws) == 1:
        assert reason == next(iter(flaws))


# --- Game.check_move: dice and jokers --------------------------------------------------------

def with_jokers_used(jokers_used: int, roll: Roll, sheet: Sheet | None = None) -> Game:
    """A solo game at its first decision on ``roll`` with this many joker marks used."""
    sheet = Sheet.empty(CLASSIC) if sheet is None else sheet
    start = Sheet(CLASSIC, sheet.crossed, jokers_used, sheet.cols_upper, sheet.cols_lower,
                  sheet.colours_upper, sheet.colours_lower)
    return Game.from_position(Position(Mode.SOLO, (start,), 0, 30, roll=roll))


@pytest.mark.parametrize("roll, text, error, reason", [
    ("bx/4?", "y1 H6", nm.IllegalMoveError, "no colour die 'y'"),
    ("bx/4?", "b2 H4 H5", nm.IllegalMoveError, "no number die '2'"),
    ("gb/12", "g1 A1", nm.IllegalMoveError, "^not anchored"),
    ("gb/12", "g1 Z9", nm.IllegalMoveError, "Z9 is not on the classic board"),
])
def test_check_move_refusals_name_the_reason(roll: str, text: str, error: type, reason: str):
    game = Game(CLASSIC, 1, mode="solo")
    game.apply_roll(Roll.from_text(roll))
    with pytest.raises(error, match=reason):
        game.check_move(Move.parse(text))


def test_check_move_with_jokers_and_none_left():
    game = Game(CLASSIC, 1, mode="solo")
    game.apply_roll(Roll(("b", "x"), ("4", "?")))
    assert game.check_move(Move.parse("b4 G4 G5 H4 H5")) == CLASSIC.mask_of(["G4", "G5", "H4", "H5"])
    assert game.check_move(Move.parse("xy?1 H6")) == CLASSIC.mask_of(["H6"])
    # spend all but one joker: the double joker (cost 2) is refused, a single one is fine
    game = with_jokers_used(CLASSIC.jokers - 1, game.roll)
    with pytest.raises(nm.IllegalMoveError, match="^no jokers left"):
        game.check_move(Move.parse("xy?1 H6"))
    assert game.check_move(Move.parse("xy4 H6 H7 I7 J7")) == CLASSIC.mask_of(["H6", "H7", "I7", "J7"])
    game = with_jokers_used(CLASSIC.jokers, game.roll)
    assert game.sheets[0].jokers_left == 0
    for text in ("xy4 H6 H7 I7 J7", "b?1 H4", "xy?1 H6"):
        with pytest.raises(nm.IllegalMoveError, match="^no jokers left"):
            game.check_move(Move.parse(text))
    # every move the engine lists is accepted by check_move and none uses a joker
    for move in game.legal_moves():
        game.check_move(move)
        assert move.joker_cost == 0


def test_a_move_with_an_unknown_colour_is_no_move():
    with pytest.raises(nm.InvalidMoveError):
        Move.parse("q1 H1")


def test_check_placement_out_of_range_count_and_colour():
    """docs/rules.md §3: N is 1..5. The validator must agree with the enumerator (which never
    lists 0 or 6 crosses) and must answer with IllegalMoveError, not crash."""
    sheet = Sheet.from_cells(CLASSIC, ["H1"])
    six = CLASSIC.mask_of(["D1", "E1", "F1", "G1", "E2", "F2"])  # the whole yellow 6-block, anchored at G1
    five = CLASSIC.mask_of(["D1", "E1", "F1", "G1", "E2"])
    assert five in sheet.placements("y", 5) and sheet.placements("y", 6) == []
    with pytest.raises(nm.IllegalMoveError, match="^wrong count"):
        sheet.check_placement("y", 6, six)
    with pytest.raises(nm.IllegalMoveError, match="^wrong count"):
        sheet.check_placement("y", 0, 0)
    with pytest.raises(nm.IllegalMoveError, match="^wrong colour"):
        sheet.check_placement("q", 1, CLASSIC.mask_of(["H2"]))
    # through the game API a hand-built move with 6 crosses is an IllegalMoveError too
    game = with_jokers_used(0, Roll(("y", "b"), ("?", "1")), sheet)
    with pytest.raises(nm.IllegalMoveError, match="^wrong count"):
        game.check_move(Move.of("y", 6, CLASSIC.cells_of(six), number_joker=True))
