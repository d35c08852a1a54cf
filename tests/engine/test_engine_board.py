"""Board files: every built-in sheet matches docs/rules.md §1 and its invariants; broken files are
rejected with a BoardError naming the file, the row/column or colour, and the invariant.

The invariant checks here are an independent oracle written from the rules text (grid
coordinates and a flood fill), not the engine's own checker.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import nochmal as nm
from nochmal.board import BUILTIN_BOARDS, parse_board_text, read_board_file

BOARDS_DIR = Path(__file__).resolve().parents[2] / "boards"

# The layouts exactly as printed in docs/rules.md §1 (rows 1..7, upper case = star).
SPEC_GRIDS = {
    "classic": ["gggyyyyGbbbOyyy", "ogYgYyoorBboogg", "BgrgggGrrryyogg", "brrgoObbggyyoRb",
                "roooorbbooorrrr", "rBbRrrryYoRbbbO", "yybbbbryyyggGoo"],
    "red": ["gGooOrrrYbbbbbr", "rooygGbyyyGooOr", "BbbRggByrrrogoo", "bbrrrggOoRygggg",
            "brrbbbobboyyyyB", "oyggboogbooYRry", "yyYgyyygggorrry"],
    "blue": ["rrggyyYggrrrroo", "OrrBbGyggRgYroo", "bOobgggroggggGy", "bbooogrrooooBby",
             "gbbrrrbBbbObyyG", "ggYyrbbyyybboyb", "yyyyRoooRyyborr"],
    "green": ["OgbbrrrgggYyyrr", "ggggrygRggryyry", "bboGyyGbrrrrooy", "booooggbbbboRoo",
              "bROrboooBYoorYO", "rrrrbbbyyyoBggg", "yyyyGByyooggbbb"],
    "orange": ["OoYorrRgoRggggg", "boooGrggYrrGbyy", "ybbggrgyyyrrbyO", "yYbyyyyBbyyrooo",
               "rygBbGyobbbbobb", "gggrbbboggOyyBb", "grrrooorroooRrr"],
    "purple": ["yyOooGbbbyyrrgg", "obbbrrrRryYbrRo", "oobbYrOooBbbrbB", "oGyyyyogobbObbr",
               "gggRyoggYooooor", "Bgrggogygrryyyr", "rrrgbbyyggggGyy"],
    "yellow": ["rggYyyyorrgggbY", "rgrrryyorrggbbb", "bRrbbGggggRbOBr", "oooobbbBgYybrrr",
               "ybboorrrbbbRroo", "yyBggoOyyobyyyo", "GyygGooyOoooygg"],
}
SPEC_FIRST = [5, 3, 3, 3, 2, 2, 2, 1, 2, 2, 2, 3, 3, 3, 5]
SPEC_LATER = [3, 2, 2, 2, 1, 1, 1, 0, 1, 1, 1, 2, 2, 2, 3]


def oracle_components(grid: list[str]) -> list[tuple[str, set[tuple[int, int]]]]:
    """Maximal orthogonally connected one-colour regions, by flood fill on (row, col)."""
    low = [row.lower() for row in grid]
    seen: set[tuple[int, int]] = set()
    comps = []
    for r in range(len(low)):
        for c in range(len(low[0])):
            if (r, c) in seen:
                continue
            colour, comp, stack = low[r][c], set(), [(r, c)]
            seen.add((r, c))
            while stack:
                y, x = stack.pop()
                comp.add((y, x))
                for ny, nx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                    if 0 <= ny < len(low) and 0 <= nx < len(low[0]) and (ny, nx) not in seen \
                            and low[ny][nx] == colour:
                        seen.add((ny, nx))
                        stack.append((ny, nx))
            comps.append((colour, comp))
    return comps


def oracle_invariant_problems(grid: list[str]) -> list[str]:
    out = []
    if len(grid) != 7 or any(len(r) != 15 for r in grid):
        return ["shape"]
    for colour in "ygbro":
        cells = [(r, c) for r in range(7) for c in range(15) if grid[r][c].lower() == colour]
        if len(cells) != 21:
            out.append(f"{colour} cells")
        sizes = sorted(len(comp) for col, comp in oracle_components(grid) if col == colour)
        if sizes != [1, 2, 3, 4, 5, 6]:
            out.append(f"{colour} blocks {sizes}")
        if sum(grid[r][c].isupper() for r, c in cells) != 3:
            out.append(f"{colour} stars")
    for c in range(15):
        column = [grid[r][c] for r in range(7)]
        if sum(ch.isupper() for ch in column) != 1:
            out.append(f"column {c} stars")
        if {ch.lower() for ch in column} != set("ygbro"):
            out.append(f"column {c} colours")
    return out


def test_every_board_file_is_shipped_and_listed():
    files = sorted(p.stem for p in BOARDS_DIR.glob("*.toml"))
    assert files == sorted(BUILTIN_BOARDS) == sorted(SPEC_GRIDS)


@pytest.mark.parametrize("name", sorted(SPEC_GRIDS))
def test_board_file_matches_rules_and_invariants(name):
    board = read_board_file(BOARDS_DIR / f"{name}.toml")
    assert list(board.printed) == SPEC_GRIDS[name]
    assert oracle_invariant_problems(list(board.printed)) == []
    assert list(board.column_points_first) == SPEC_FIRST
    assert list(board.column_points_later) == SPEC_LATER
    assert (board.colour_bonus_first, board.colour_bonus_later) == (5, 3)
    assert (board.jokers, board.star_penalty) == (8, 2)
    assert board.start_column == 7  # column H
    assert board.n_cells == 105 and board.n_stars == 15
    # the engine's derived masks agree with the grid
    for r in range(7):
        for c in range(15):
            name_ = f"{'ABCDEFGHIJKLMNO'[c]}{r + 1}"
            bit = board.bit(name_)
            assert board.colour_of_bit(bit) == SPEC_GRIDS[name][r][c].lower()
            assert board.is_star(bit) == SPEC_GRIDS[name][r][c].isupper()
            assert board.column_mask[c] >> bit & 1
    # blocks found by the engine are exactly the oracle's components
    engine_blocks = sorted((b.colour, frozenset(board.cells_of(b.mask))) for b in board.blocks)
    oracle_blocks = sorted(
        (col, frozenset(f"{'ABCDEFGHIJKLMNO'[c]}{r + 1}" for r, c in comp))
        for col, comp in oracle_components(SPEC_GRIDS[name]))
    assert engine_blocks == oracle_blocks


def test_oracle_catches_a_broken_grid():
    """The independent checker above must be able to fail."""
    grid = list(SPEC_GRIDS["classic"])
    grid[0] = "gggyyyygbbbOyyy"  # star removed in column H
    assert oracle_invariant_problems(grid)


def test_load_board_by_name_and_path_are_the_same_layout(tmp_path):
    by_name = nm.load_board("classic")
    copy = tmp_path / "mine.toml"
    copy.write_text((BOARDS_DIR / "classic.toml").read_text())
    by_path = nm.load_board(str(copy))
    assert by_path.same_layout(by_name)
    assert by_path.source == str(copy)


CLASSIC_TEXT = (BOARDS_DIR / "classic.toml").read_text(encoding="utf-8")
ROW1 = '"gggyyyyGbbbOyyy"'


def _row(r: str) -> str:
    return f'"{r}"'


# (description, broken text, regexes the message must match (besides the file name))
BROKEN = [
    ("wrong cell count", CLASSIC_TEXT.replace(ROW1, _row("gggyyyyGbbbOyy")),
     [r"row 1", r"14 cells, expected 15"]),
    ("two blocks of size 3",
     # swap A1 (green) with M3 (orange): orange gets blocks of size 3 at L1 and O6
     CLASSIC_TEXT.replace(ROW1, _row("oggyyyyGbbbOyyy")).replace(
         _row("BgrgggGrrryyogg"), _row("BgrgggGrrryygg" + "g")),
     [r"orange", r"3 at L1", r"3 at O6", r"expected exactly one block of each size"]),
    ("star missing in a column", CLASSIC_TEXT.replace(ROW1, _row("gggyyyygbbbOyyy")),
     [r"column H has 0 stars, expected 1"]),
    ("colour missing in a column", CLASSIC_TEXT.replace(ROW1, _row("gggyyyyYbbbOyyy")),
     [r"column H lacks green", r"every column holds all five colours"]),
    ("bad letter", CLASSIC_TEXT.replace(ROW1, _row("gggyyyyGbbbOyqy")),
     [r"cell N1", r"unknown colour letter 'q'"]),
    ("bad TOML", CLASSIC_TEXT.replace("jokers = 8\n", "jokers = \n"),
     [r"not valid TOML", r"line \d+"]),
    ("missing key", CLASSIC_TEXT.replace("star_penalty = 2\n", ""),
     [r"key 'star_penalty' is missing"]),
    ("wrong row count", CLASSIC_TEXT.replace('    "yybbbbryyyggGoo",  # 7\n', ""),
     [r"6 rows, expected 7"]),
    ("colour with too many cells", CLASSIC_TEXT.replace(ROW1, _row("yggyyyyGbbbOyyy")),
     [r"colour yellow has 22 cells, expected 21", r"colour green has 20 cells, expected 21"]),
    ("wrong type", CLASSIC_TEXT.replace("jokers = 8\n", 'jokers = "eight"\n'),
     [r"key 'jokers' must be int"]),
]


@pytest.mark.parametrize("what,text,patterns", BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_board_file_is_rejected_with_a_precise_message(tmp_path, what, text, patterns):
    assert text != CLASSIC_TEXT, "the corruption must change the file"
    path = tmp_path / "broken_sheet.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(nm.BoardError) as info:
        nm.load_board(str(path))
    msg = str(info.value)
    assert str(path) in msg
    for pat in patterns:
        assert re.search(pat, msg), f"{what}: {pat!r} not in {msg!r}"
    assert "\n" not in msg


def test_two_blocks_of_size_3_case_really_has_two_such_blocks():
    """Cross-check the corruption above with the oracle (not with the engine)."""
    text = BROKEN[1][1]
    grid = [line.split('"')[1] for line in text.splitlines() if line.startswith('    "')]
    sizes = sorted(len(c) for col, c in oracle_components(grid) if col == "o")
    assert sizes.count(3) == 2


def test_missing_file_and_unknown_board_name():
    with pytest.raises(nm.BoardError, match=r"nope/missing\.toml: cannot read file"):
        nm.load_board("nope/missing.toml")
    with pytest.raises(nm.BoardError, match=r"unknown board"):
        nm.load_board("chessboard")


def test_non_strict_small_board_from_grid():
    board = nm.Board.from_grid(["yyb", "ygb"])
    assert board.n_cells == 6
    assert sorted(b.size for b in board.colour_blocks["y"]) == [3]
    assert board.cells_of(board.start_mask) == ["B1", "B2"]
    with pytest.raises(nm.BoardError, match="cell C2: unknown colour letter"):
        nm.Board.from_grid(["yyb", "ygq"])
    # a small grid is refused where the strict invariants apply
    with pytest.raises(nm.BoardError, match="rows, expected 7"):
        nm.Board.from_grid(["yyb", "ygb"], strict=True)


# --- ranges and all-problems-at-once -----------------------------------------------

RANGE_BROKEN = [
    ("jokers far too many", CLASSIC_TEXT.replace("jokers = 8\n", "jokers = 800000000000\n"),
     r"key 'jokers' must be 0\.\.8, got 800000000000"),
    ("jokers above the rules", CLASSIC_TEXT.replace("jokers = 8\n", "jokers = 9\n"),
     r"key 'jokers' must be 0\.\.8, got 9"),
    ("negative jokers", CLASSIC_TEXT.replace("jokers = 8\n", "jokers = -1\n"),
     r"key 'jokers' must be 0\.\.8"),
    ("huge star penalty", CLASSIC_TEXT.replace("star_penalty = 2\n", "star_penalty = 1000\n"),
     r"key 'star_penalty' must be 0\.\.99"),
    ("huge colour bonus", CLASSIC_TEXT.replace("colour_bonus_first = 5\n", "colour_bonus_first = 9223372036854775807\n"),
     r"key 'colour_bonus_first' must be 0\.\.99"),
    ("huge column points", CLASSIC_TEXT.replace("[5, 3, 3, 3, 2, 2, 2, 1,", "[5000, 3, 3, 3, 2, 2, 2, 1,"),
     r"key 'column_points_first' must hold whole numbers 0\.\.99"),
    ("name with a slash", CLASSIC_TEXT.replace('name = "classic"', 'name = "a/b"'),
     r"key 'name' must be 1-40 letters"),
    ("a number of 5000 digits", CLASSIC_TEXT.replace("jokers = 8\n", "jokers = " + "9" * 5000 + "\n"),
     r"not valid TOML: a number has too many digits"),
    ("deep nesting", CLASSIC_TEXT.replace("jokers = 8\n", "jokers = " + "[" * 5000 + "\n"),
     r"not valid TOML"),
]


@pytest.mark.parametrize("what,text,pattern", RANGE_BROKEN, ids=[b[0] for b in RANGE_BROKEN])
def test_out_of_range_numbers_are_refused(tmp_path, what, text, pattern):
    path = tmp_path / "sheet.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(nm.BoardError) as info:
        nm.load_board(str(path))
    msg = str(info.value)
    assert re.search(pattern, msg), msg
    assert "\n" not in msg and len(msg) < 300


def test_every_broken_invariant_is_listed_at_once(tmp_path):
    """A wrong type, a bad start column and a changed cell: all three in one BoardError."""
    text = (CLASSIC_TEXT.replace("jokers = 8\n", 'jokers = "8"\n')
            .replace('start_column = "H"', 'start_column = "Z"')
            .replace(ROW1, _row("gggyyyyGbbbOyyg"))  # O1 yellow -> green
            .replace("star_penalty = 2\n", "star_penalty = 2\ncolour = 3\n"))
    path = tmp_path / "three.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(nm.BoardError) as info:
        nm.load_board(str(path))
    problems = info.value.problems
    wanted = [r"key 'jokers' must be int", r"key 'start_column' must be one column letter A\.\.O",
              r"colour yellow has 20 cells", r"colour green has 22 cells", r"column O lacks yellow",
              r"unknown key 'colour'"]
    for pat in wanted:
        assert any(re.search(pat, p) for p in problems), (pat, problems)


def test_custom_boards_have_caps_too():
    """Non-strict boards (tests, records) may differ from the rules, within caps."""
    assert nm.Board.from_grid(["yyb", "ygb"], jokers=20).jokers == 20
    with pytest.raises(nm.BoardError, match=r"key 'jokers' must be 0\.\.32"):
        nm.Board.from_grid(["yyb", "ygb"], jokers=10**12)
    with pytest.raises(nm.BoardError, match=r"at most 26 are supported"):
        nm.Board.from_grid(["yb"] * 27)
    with pytest.raises(nm.BoardError, match=r"a block has 20 cells; at most 16"):
        nm.Board.from_grid(["y" * 20])
    problems = nm.board.check_board_data({"name": 3, "grid": ["yyb", "yg"], "jokers": True}, strict=False)
    assert any("key 'name' must be str" in p for p in problems)
    assert any("grid row 2 has 2 cells, expected 3" in p for p in problems)
    assert any("key 'jokers' must be int" in p for p in problems)
    assert any("key 'start_column' is missing" in p for p in problems)
