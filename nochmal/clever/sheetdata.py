"""The printed Clever 4ever sheet as data: load nochmal/clever/data/clever4ever.toml (its
header names the sources per fact group) and check it, reporting every problem with the
file and the key, as `board check` does for Noch mal! layouts."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from nochmal.clever.errors import SheetDataError
from nochmal.fileio import is_decimal, load_toml_text, read_text_file

DATA_FILE = Path(__file__).resolve().parent / "data" / "clever4ever.toml"

AREAS = ("yellow", "blue", "grey", "green", "pink")
ACTIONS = ("reroll", "plus-one", "polish")  # the three action tracks, in the sheet's order
QUESTIONS = tuple(f"?{area}" for area in AREAS) + ("?any",)
BONUSES = ACTIONS + ("fox",) + QUESTIONS
SHADES = {"W": "white", "L": "light grey", "D": "dark grey"}
MAX_DIE = 6


@dataclass(frozen=True)
class Segment:
    """A grey segment: a largest edge-connected group of cells of one shade."""

    index: int  # 0-based, in reading order of its first cell
    shade: str  # W, L or D
    cells: tuple[tuple[int, int], ...]  # (row, column), 0-based, sorted
    bonuses: tuple[str, ...]  # the cell bonuses inside it, in cell order


@dataclass(frozen=True)
class SheetFacts:
    """Every number and bonus printed on the sheet; 0-based indices throughout."""

    yellow_points: tuple[int, ...]
    yellow_bonuses: tuple[tuple[str | None, ...], ...]
    blue_points: tuple[int, ...]
    blue_row_bonuses: tuple[str | None, ...]
    blue_diagonal_bonus: str | None
    blue_anti_diagonal_points: int
    grey_shades: tuple[str, ...]
    grey_points: tuple[int, ...]
    segments: tuple[Segment, ...]
    start_segments: frozenset[int]
    neighbours: tuple[frozenset[int], ...]  # per segment: the segments touching it
    green_double_from: int
    green_bonuses: tuple[str | None, ...]
    pink_points: tuple[int, ...]
    pink_bonuses: tuple[str | None, ...]
    pink_bonus_numbers: frozenset[int]
    pink_circle_points: dict[int, int]
    track_slots: dict[str, int]
    track_end_bonus: dict[str, str | None]
    round_bonuses: tuple[str | None, ...]
    ratings: tuple[tuple[int, str, str], ...]  # (lowest score, English, German), best first
    grey_bonus_cells: tuple[tuple[tuple[int, int], str], ...] = ()  # (cell, bonus) as printed, for drawing

    # sizes, read off the data
    yellow_rows = property(lambda self: len(self.yellow_bonuses))
    yellow_columns = property(lambda self: len(self.yellow_points))
    blue_size = property(lambda self: len(self.blue_points))
    grey_rows = property(lambda self: len(self.grey_shades))
    green_fields = property(lambda self: len(self.green_bonuses))
    pink_fields = property(lambda self: len(self.pink_points))

    def rating(self, score: int, lang: str = "en") -> str:
        """The solo rating table's title for ``score`` (English or German, as printed)."""
        for low, en, de in self.ratings:
            if score >= low:
                return de if lang == "de" else en
        return self.ratings[-1][2 if lang == "de" else 1]


class _Reader:
    """Reads keys and remembers every problem instead of stopping at the first."""

    def __init__(self, data: dict):
        self.data = data
        self.problems: list[str] = []

    def bad(self, key: str, what: str) -> None:
        self.problems.append(f"{key}: {what}")

    def get(self, key: str, kind: type, default=None):
        node = self.data
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                self.bad(key, "missing")
                return default
            node = node[part]
        if kind is int and (not isinstance(node, int) or isinstance(node, bool)):
            self.bad(key, f"expected a whole number, got {node!r}")
            return default
        if kind is not int and not isinstance(node, kind):
            self.bad(key, f"expected a {kind.__name__}, got {type(node).__name__}")
            return default
        return node

    def ints(self, key: str, length: int | None = None, low: int = 0) -> tuple[int, ...]:
        values = self.get(key, list, [])
        good = all(isinstance(v, int) and not isinstance(v, bool) and v >= low for v in values)
        if not good:
            self.bad(key, f"expected whole numbers of at least {low}")
            return ()
        if length is not None and len(values) != length:
            self.bad(key, f"expected {length} numbers, got {len(values)}")
        return tuple(values)

    def bonus(self, key: str, value) -> str | None:
        if value == "":
            return None
        if value not in BONUSES:
            self.bad(key, f"unknown bonus {value!r} (bonuses: {', '.join(BONUSES)}, or \"\" for none)")
            return None
        return value

    def bonuses(self, key: str, length: int | None = None, values: list | None = None) -> tuple[str | None, ...]:
        if values is None:
            values = self.get(key, list, [])
        if length is not None and len(values) != length:
            self.bad(key, f"expected {length} bonuses, got {len(values)}")
        return tuple(self.bonus(f"{key}[{i + 1}]", v) for i, v in enumerate(values))


def _is_cell(cell, rows: int, cols: int) -> bool:
    """[row, column], 1-based whole numbers on a grid of rows x cols."""
    return (isinstance(cell, list) and len(cell) == 2 and all(type(v) is int for v in cell)
            and 1 <= cell[0] <= rows and 1 <= cell[1] <= cols)


def _segments(shades: tuple[str, ...]) -> list[list[tuple[int, int]]]:
    """The largest edge-connected groups of one shade, in reading order of their first cell."""
    rows, cols = len(shades), len(shades[0])
    seen: set[tuple[int, int]] = set()
    groups = []
    for r in range(rows):
        for c in range(cols):
            if (r, c) in seen:
                continue
            seen.add((r, c))
            stack, cells = [(r, c)], []
            while stack:
                y, x = stack.pop()
                cells.append((y, x))
                for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                    if 0 <= ny < rows and 0 <= nx < cols and (ny, nx) not in seen and shades[ny][nx] == shades[r][c]:
                        seen.add((ny, nx))
                        stack.append((ny, nx))
            groups.append(sorted(cells))
    return groups


def _read_grey(rd: _Reader):
    before = len(rd.problems)
    shades = tuple(rd.get("grey.shades", list, []))
    points = rd.ints("grey.column_points", low=0)
    if not shades or not all(isinstance(s, str) for s in shades):
        rd.bad("grey.shades", "expected a list of text rows")
        return shades, points, (), frozenset(), (), ()
    width = len(points) or len(shades[0])
    for i, row in enumerate(shades):
        if len(row) != width:
            rd.bad(f"grey.shades[{i + 1}]", f"expected {width} cells, got {len(row)}")
        if set(row) - set(SHADES):
            rd.bad(f"grey.shades[{i + 1}]", f"shades are {', '.join(SHADES)}, got {row!r}")
    if len(rd.problems) > before:
        return shades, points, (), frozenset(), (), ()
    bonus_at: dict[tuple[int, int], str] = {}
    for i, entry in enumerate(rd.get("grey.cell_bonuses", list, [])):
        key = f"grey.cell_bonuses[{i + 1}]"
        cell = entry.get("cell") if isinstance(entry, dict) else None
        if not _is_cell(cell, len(shades), width):
            rd.bad(key, f"cell must be [row 1-{len(shades)}, column 1-{width}], got {cell!r}")
            continue
        bonus = rd.bonus(f"{key}.bonus", entry.get("bonus"))
        where = (cell[0] - 1, cell[1] - 1)
        if where in bonus_at:
            rd.bad(key, f"cell {cell} has a bonus already")
        if bonus:
            bonus_at[where] = bonus
    groups = _segments(shades)
    segments = tuple(Segment(i, shades[g[0][0]][g[0][1]], tuple(g), tuple(bonus_at[c] for c in g if c in bonus_at))
                     for i, g in enumerate(groups))
    for s in segments:
        if len(s.cells) > MAX_DIE:
            rd.bad("grey.shades", f"the {SHADES[s.shade]} segment at row {s.cells[0][0] + 1}, column "
                   f"{s.cells[0][1] + 1} has {len(s.cells)} cells: no die could cross it")
    segment_of = {cell: s.index for s in segments for cell in s.cells}
    starts = set()
    for i, cell in enumerate(rd.get("grey.start_cells", list, [])):
        if not _is_cell(cell, len(shades), width):
            rd.bad(f"grey.start_cells[{i + 1}]", f"expected [row, column] on the grid, got {cell!r}")
            continue
        starts.add(segment_of[(cell[0] - 1, cell[1] - 1)])
    neighbours = []
    for s in segments:
        near = {segment_of[(y + dy, x + dx)] for y, x in s.cells for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1))
                if (y + dy, x + dx) in segment_of}
        neighbours.append(frozenset(near - {s.index}))
    return shades, points, segments, frozenset(starts), tuple(neighbours), tuple(sorted(bonus_at.items()))


def _read_ratings(rd: _Reader) -> tuple[tuple[int, str, str], ...]:
    out = []
    for i, entry in enumerate(rd.get("solo.ratings", list, [])):
        key = f"solo.ratings[{i + 1}]"
        if not (isinstance(entry, dict) and isinstance(entry.get("min"), int) and isinstance(entry.get("en"), str)
                and isinstance(entry.get("de"), str)):
            rd.bad(key, "expected { min = N, en = \"...\", de = \"...\" }")
            continue
        out.append((entry["min"], entry["en"], entry["de"]))
    if [low for low, _, _ in out] != sorted((low for low, _, _ in out), reverse=True) or not out:
        rd.bad("solo.ratings", "expected the bands best first (falling min), at least one")
    return tuple(out)


def parse_sheet(data: dict, source: str = "<data>") -> SheetFacts:
    """Check ``data`` (the TOML's table) and build the facts; SheetDataError lists every
    problem as ``key: problem``."""
    rd = _Reader(data)
    y_points = rd.ints("yellow.column_points", low=0)
    y_rows = rd.get("yellow.bonuses", list, [])
    y_bonuses = tuple(rd.bonuses(f"yellow.bonuses[{i + 1}]", len(y_points), row)
                      for i, row in enumerate(y_rows)) if all(isinstance(r, list) for r in y_rows) else ()
    if rd.get("yellow.rows", int, 0) != len(y_rows) or len(y_rows) != 3:
        rd.bad("yellow.rows", f"the yellow area has 3 rows (ascending, minus, plus); bonuses has {len(y_rows)}")
    if rd.get("yellow.columns", int, 0) != len(y_points):
        rd.bad("yellow.columns", "must be the number of column_points")
    size = rd.get("blue.size", int, 6)
    b_points = rd.ints("blue.column_points", size)
    row_bonuses = rd.bonuses("blue.row_bonuses", size)
    diagonal = rd.bonus("blue.diagonal_bonus", rd.get("blue.diagonal_bonus", str, ""))
    anti = rd.get("blue.anti_diagonal_points", int, 0)
    if size != MAX_DIE:
        rd.bad("blue.size", f"a die picks the row and another the column: the grid is {MAX_DIE} by {MAX_DIE}")
    shades, g_points, segments, starts, neighbours, bonus_cells = _read_grey(rd)
    fields = rd.get("green.fields", int, 0)
    g_bonuses = rd.bonuses("green.bonuses", fields)
    double_from = rd.get("green.double_from", int, 1)
    if not 1 <= double_from <= max(fields, 1):
        rd.bad("green.double_from", f"expected a field 1-{fields}")
    p_points = rd.ints("pink.points", low=0)
    p_bonuses = rd.bonuses("pink.bonuses", len(p_points))
    numbers = rd.ints("pink.bonus_numbers", low=1)
    circles_raw = rd.get("pink.circle_points", dict, {})
    circles = {}
    for k, v in circles_raw.items():
        if not (is_decimal(k) and len(k) < 3 and 1 <= int(k) <= MAX_DIE and isinstance(v, int)):
            rd.bad(f"pink.circle_points.{k}", "expected number = points, the number 1-6")
        else:
            circles[int(k)] = v
    slots, ends = {}, {}
    for name in ACTIONS:
        slots[name] = rd.get(f"tracks.{name}.slots", int, 0)
        ends[name] = rd.bonus(f"tracks.{name}.end_bonus", rd.get(f"tracks.{name}.end_bonus", str, ""))
    rounds = rd.bonuses("rounds.bonuses")
    ratings = _read_ratings(rd)
    if rd.problems:
        raise SheetDataError(source, rd.problems)
    return SheetFacts(
        yellow_points=y_points, yellow_bonuses=y_bonuses, blue_points=b_points, blue_row_bonuses=row_bonuses,
        blue_diagonal_bonus=diagonal, blue_anti_diagonal_points=anti, grey_shades=shades, grey_points=g_points,
        segments=segments, start_segments=starts, neighbours=neighbours, green_double_from=double_from - 1,
        green_bonuses=g_bonuses, pink_points=p_points, pink_bonuses=p_bonuses, pink_bonus_numbers=frozenset(numbers),
        pink_circle_points=circles, track_slots=slots, track_end_bonus=ends, round_bonuses=rounds, ratings=ratings,
        grey_bonus_cells=bonus_cells)


def load_sheet(path: str | Path) -> SheetFacts:
    """Load and check a sheet data file (SheetDataError names the file and every bad key)."""
    def error(why: str) -> SheetDataError:
        return SheetDataError(str(path), [why])

    data = load_toml_text(read_text_file(path, error), error)
    return parse_sheet(data, str(path))


@lru_cache(maxsize=1)
def clever4ever() -> SheetFacts:
    """The printed sheet (the package's data file)."""
    return load_sheet(DATA_FILE)
