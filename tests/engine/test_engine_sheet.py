"""Sheet state: scoring by hand, the compact text form, the typed sheet format."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nochmal as nm
from nochmal.sheet import Sheet, format_typed_sheet, parse_typed_sheet

CLASSIC = nm.load_board("classic")
GRID = ["gggyyyyGbbbOyyy", "ogYgYyoorBboogg", "BgrgggGrrryyogg", "brrgoObbggyyoRb",
        "roooorbbooorrrr", "rBbRrrryYoRbbbO", "yybbbbryyyggGoo"]
LETTERS = "ABCDEFGHIJKLMNO"


def column(letter: str) -> list[str]:
    return [f"{letter}{r}" for r in range(1, 8)]


def colour_cells(colour: str) -> list[str]:
    return [f"{LETTERS[c]}{r + 1}" for r in range(7) for c in range(15) if GRID[r][c].lower() == colour]


def typed(cells: set[str], extra: str = "") -> str:
    rows = ["".join("x" if f"{LETTERS[c]}{r + 1}" in cells else GRID[r][c] for c in range(15))
            for r in range(7)]
    return "\n".join(rows) + "\n" + extra


# --- scoring, totals by hand ----------------------------------------------------------------

def test_score_one_column_first_value():
    # column A (5 points first) holds the star A3: 14 stars left uncrossed
    sheet = Sheet.from_cells(CLASSIC, column("A"))
    assert sheet.score_breakdown().to_dict() == {
        "columns": 5, "colours": 0, "jokers": 8, "stars": -28, "total": 5 + 8 - 28}


def test_score_start_column_with_jokers_used():
    # column H: 1 point first, star H1 crossed; 3 jokers used -> 5 left
    sheet = Sheet.from_cells(CLASSIC, column("H"), jokers_used=3)
    assert sheet.score() == 1 + 5 - 28 == -22


def test_score_one_colour_first_and_later():
    green = colour_cells("g")
    assert len(green) == 21
    # green stars: H1, G3, M7 -> 12 uncrossed; no column is complete
    assert Sheet.from_cells(CLASSIC, green).score() == 5 + 8 - 24
    later = parse_typed_sheet(typed(set(green), "later_colours: g\n"), CLASSIC)
    assert later.score_breakdown().colours == 3
    assert later.score() == 3 + 8 - 24


def test_score_full_sheet():
    every = {f"{LETTERS[c]}{r}" for c in range(15) for r in range(1, 8)}
    full = Sheet.from_cells(CLASSIC, every, jokers_used=8)
    # 5+3+3+3+2+2+2+1+2+2+2+3+3+3+5 = 41 columns, 5 colours x 5, no jokers, no stars
    assert full.score_breakdown().to_dict() == {
        "columns": 41, "colours": 25, "jokers": 0, "stars": 0, "total": 66}
    # columns A and O and colour yellow completed after somebody else: 3+3 instead of 5+5, 3
    late = parse_typed_sheet(typed(every, "jokers_used: 8\nlater_columns: A O\nlater_colours: y\n"), CLASSIC)
    assert late.score_breakdown().to_dict() == {
        "columns": 37, "colours": 23, "jokers": 0, "stars": 0, "total": 60}


def test_score_stars_only():
    # the three green stars and nothing complete: 12 stars left
    sheet = Sheet.from_cells(CLASSIC, ["H1", "G3", "M7"], jokers_used=1)
    assert sheet.score() == 7 - 24


def test_complete_but_unawarded_column_scores_nothing():
    """Points come from the awarded masks, not from the crosses alone (the game awards them)."""
    sheet = Sheet(CLASSIC, CLASSIC.mask_of(column("O")))
    assert sheet.complete_columns() == 1 << 14
    assert sheet.score() == 8 - 28
    assert sheet.with_all_completions_scored().score() == 5 + 8 - 28


# --- compact text ---------------------------------------------------------------------------

@settings(max_examples=80, deadline=None)
@given(cells=st.sets(st.integers(0, 104)), jokers=st.integers(0, 8), later=st.integers(0, 2 ** 15 - 1),
       later_colours=st.integers(0, 31), board=st.sampled_from(nm.BUILTIN_BOARDS))
def test_compact_text_round_trips(cells, jokers, later, later_colours, board):
    b = nm.load_board(board)
    sheet = Sheet(b, sum(b.cell_bits[i] for i in cells), jokers).with_all_completions_scored(later, later_colours)
    text = sheet.text()
    assert "\n" not in text and text.startswith(board + "/")
    back = Sheet.from_text(text, b)
    assert back == sheet
    assert back.anchored == sheet.anchored
    assert back.score() == sheet.score()
    # the crossed hex is in row-major cell order, independent of the internal bit order
    assert int(text.split("/")[1], 16) == sum(1 << i for i in cells)


@settings(max_examples=40, deadline=None)
@given(cells=st.sets(st.integers(0, 104)), jokers=st.integers(0, 8), later=st.integers(0, 2 ** 15 - 1))
def test_typed_sheet_round_trips(cells, jokers, later):
    sheet = Sheet(CLASSIC, sum(CLASSIC.cell_bits[i] for i in cells), jokers).with_all_completions_scored(later, 0)
    text = format_typed_sheet(sheet)
    assert parse_typed_sheet(text, CLASSIC) == sheet
    rows = text.splitlines()[:7]
    assert all(len(r) == 15 for r in rows)
    for i in range(105):
        r, c = divmod(i, 15)
        assert (rows[r][c] == "x") == (i in cells)


@pytest.mark.parametrize("text,pattern", [
    ("classic/zz/0/-/-/-/-", r"bad crossed mask"),
    ("classic/0/9/-/-/-/-", r"out of range"),
    ("classic/0/0/-/-/-", r"expected 7 fields"),
    ("red/0/0/-/-/-/-", r"is for board 'red'"),
    ("classic/0/0/A/-/-/-", r"incomplete column is marked scored"),
    ("classic/0/0/-/-/q/-", r"'q' is not a colour"),
])
def test_bad_compact_text(text, pattern):
    with pytest.raises(nm.SheetError, match=pattern):
        Sheet.from_text(text, CLASSIC)


def test_scored_twice_is_rejected():
    a = Sheet.from_cells(CLASSIC, column("A")).text()
    assert a.split("/")[3] == "A"
    parts = a.split("/")
    parts[4] = "A"
    with pytest.raises(nm.SheetError, match="scored twice"):
        Sheet.from_text("/".join(parts), CLASSIC)


# --- typed sheets ---------------------------------------------------------------------------

def test_typed_sheet_basic():
    text = typed({"H4", "H5"}, "jokers_used: 2\n# a comment\n")
    sheet = parse_typed_sheet(text, CLASSIC, "mine.txt")
    assert CLASSIC.cells_of(sheet.crossed) == ["H4", "H5"]
    assert sheet.jokers_used == 2
    # dots for open cells and spaces inside rows are accepted
    dotted = "\n".join(" ".join("." * 15) for _ in range(7))
    assert parse_typed_sheet(dotted, CLASSIC).crossed == 0


@pytest.mark.parametrize("mutate,pattern", [
    (lambda rows: rows[:3] + [rows[3][:14]] + rows[4:], r"mine\.txt, line 4: row 4 has 14 characters, expected 15"),
    (lambda rows: rows[:2] + ["q" + rows[2][1:]] + rows[3:], r"mine\.txt, line 3, cell A3: unexpected character 'q'"),
    (lambda rows: rows[:1] + ["y" + rows[1][1:]] + rows[2:], r"mine\.txt, line 2, cell A2: 'y' but the classic board has orange"),
    (lambda rows: rows[:6], r"mine\.txt: 6 sheet rows, expected 7"),
    (lambda rows: rows + ["jokers_used: 9"], r"mine\.txt, line 8: jokers_used must be a whole number 0\.\.8"),
    (lambda rows: rows + ["jokers_used: \u00b2"], r"mine\.txt, line 8: jokers_used must be a whole number"),
    (lambda rows: rows + ["colour: y"], r"mine\.txt, line 8: unknown key 'colour'"),
    (lambda rows: rows + ["later_columns: A"], r"mine\.txt, line 8: later_columns names a column that is not complete"),
    (lambda rows: rows + ["later_colours: p"], r"mine\.txt, line 8: later_colours: 'p' is not a colour"),
    (lambda rows: rows + ["jokers_used: 1", "jokers_used: 2"], r"mine\.txt, line 9: key 'jokers_used' given twice"),
])
def test_typed_sheet_errors_name_file_line_cell(mutate, pattern):
    rows = typed(set()).splitlines()
    with pytest.raises(nm.SheetError, match=pattern):
        parse_typed_sheet("\n".join(mutate(rows)) + "\n", CLASSIC, "mine.txt")


def test_from_cells_unknown_cell():
    with pytest.raises(nm.SheetError, match="cell P1 is not on the classic board"):
        Sheet.from_cells(CLASSIC, ["P1"])


# --- transitions ----------------------------------------------------------------------------

@settings(max_examples=50, deadline=None)
@given(steps=st.lists(st.sets(st.integers(0, 104), max_size=5), max_size=12))
def test_cross_only_adds_and_keeps_anchored_exact(steps):
    sheet = Sheet.empty(CLASSIC)
    cells: set[int] = set()
    for step in steps:
        new = sheet.cross(sum(CLASSIC.cell_bits[i] for i in step), 1 if step else 0)
        assert new.crossed & sheet.crossed == sheet.crossed
        cells |= step
        sheet = new
        # anchored: column H plus orthogonal neighbours of crossed cells, by grid arithmetic
        want = set(range(7, 105, 15))
        for i in cells:
            r, c = divmod(i, 15)
            want |= {y * 15 + x for y, x in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                     if 0 <= y < 7 and 0 <= x < 15}
        assert sheet.anchored == sum(CLASSIC.cell_bits[i] for i in want)
    assert sheet.crossed == sum(CLASSIC.cell_bits[i] for i in cells)
