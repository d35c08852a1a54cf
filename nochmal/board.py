"""Sheet layouts: loading, invariant checks and the per-block data precomputed once.

Internal bit order: a board numbers its cells *block by block* (colour by colour, blocks in
reading order), so that every block occupies a contiguous run of bits. A block's local state
is then a shift and a mask away, which is what makes placement queries cheap
(see nochmal.placements). Cell *names* (``H4``) and the row-major grid index are the
outside view; ``Board.bit``/``Board.cell_name`` translate.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path

from nochmal.bitsets import bit_list, components
from nochmal.cache import Cache
from nochmal.errors import BoardError, quoted
from nochmal.fileio import load_toml_text, read_text_file

COLOURS = "ygbro"
N_COLOURS = len(COLOURS)
COLOUR_NAMES = {"y": "yellow", "g": "green", "b": "blue", "r": "red", "o": "orange"}
COLUMN_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

# placement tables enumerate the subsets of a block: keep custom blocks small (the printed
# sheets have 1..6)
MAX_BLOCK_SIZE = 16

# Caps on every number a board file holds: docs/rules.md §1 gives 8 jokers and one-digit points;
# a custom (non-strict) board may differ, but never so much that drawing the joker boxes or
# enumerating a block's subsets (nochmal.placements) runs without bound.
MAX_JOKERS_STRICT = 8
MAX_JOKERS_CUSTOM = 32
MAX_POINTS = 99
MAX_ROWS = 26
MAX_NAME_LENGTH = 40
MAX_TITLE_LENGTH = 120
_NAME = re.compile(rf"[A-Za-z0-9][A-Za-z0-9_.-]{{0,{MAX_NAME_LENGTH - 1}}}")
_COLOUR_LETTERS = frozenset(COLOURS + COLOURS.upper())


BUILTIN_BOARDS = ("classic", "red", "blue", "green", "orange", "purple", "yellow")

_REQUIRED_KEYS = {
    "name": str,
    "grid": list,
    "column_points_first": list,
    "column_points_later": list,
    "colour_bonus_first": int,
    "colour_bonus_later": int,
    "jokers": int,
    "star_penalty": int,
    "start_column": str,
}
_OPTIONAL_KEYS = {"title": str}


@dataclass(frozen=True)
class Block:
    """A maximal orthogonally connected region of one colour."""

    colour: str
    index: int  # position in Board.blocks
    offset: int  # first bit of the block
    size: int
    cells: tuple[int, ...]  # grid indices (row-major), in bit order
    local_neighbours: tuple[int, ...]  # per local bit: mask of adjacent local bits

    @cached_property
    def mask(self) -> int:
        """The block's cells as board bits (worked out once: the split's inner loops read it)."""
        return ((1 << self.size) - 1) << self.offset


# Board.layout_key -> Board.layout_id, the most recently asked LAYOUT_IDS.max_entries layouts (a
# server sees one per user board); ids come from a counter and are never reused, so a layout
# asked again after it was dropped (or the cache cleared) gets a new id: a cache keyed by the
# old one misses, never errs
MAX_LAYOUT_IDS = 4096
LAYOUT_IDS = Cache("board.layout_ids", MAX_LAYOUT_IDS)
_NEXT_LAYOUT_ID = itertools.count()


class Board:
    """An immutable sheet layout plus everything derived from it.

    ``strict`` boards satisfy every invariant of docs/rules.md §1; tests and the planner may build
    small non-strict boards (any size, any blocks) with ``Board.from_grid(..., strict=False)``.
    """

    def __init__(
        self,
        name: str,
        grid: list[str],
        column_points_first: list[int],
        column_points_later: list[int],
        colour_bonus_first: int = 5,
        colour_bonus_later: int = 3,
        jokers: int = 8,
        star_penalty: int = 2,
        start_column: str = "H",
        title: str = "",
        source: str = "",
    ):
        self.name = name
        self.title = title or name
        self.source = source or name
        self.rows = len(grid)
        self.cols = len(grid[0])
        self.grid = tuple(row.lower() for row in grid)
        self.printed = tuple(grid)
        self.column_points_first = tuple(column_points_first)
        self.column_points_later = tuple(column_points_later)
        self.colour_bonus_first = colour_bonus_first
        self.colour_bonus_later = colour_bonus_later
        self.jokers = jokers
        self.star_penalty = star_penalty
        self.start_column = COLUMN_LETTERS.index(start_column)
        self.n_cells = self.rows * self.cols
        self._derive()
        # Caches filled on first use, kept on the board so that everything playing on it
        # shares them. Not part of the layout: never compared or written out.
        self.placement_indexes: dict[bool, object] = {}  # bridging -> nochmal.placements.PlacementIndex
        self.placement_facts: dict[int, tuple] = {}  # mask -> nochmal.agents.placement_facts

    # --- construction -----------------------------------------------------------------
    def _derive(self) -> None:
        rows, cols = self.rows, self.cols
        colour_of = [self.grid[r][c] for r in range(rows) for c in range(cols)]
        self.colour_at = tuple(colour_of)
        # blocks: the connected pieces of each colour, on grid-index bits (row-major), in
        # colour order and then by their first cell
        grid_nb = _grid_neighbour_masks(rows, cols)
        raw_blocks: list[tuple[str, list[int]]] = []
        for colour in COLOURS:
            colour_cells = sum(1 << i for i in range(self.n_cells) if colour_of[i] == colour)
            raw_blocks += [(colour, bit_list(piece)) for piece in components(colour_cells, grid_nb)]
        bit_of = [0] * self.n_cells
        blocks: list[Block] = []
        offset = 0
        for colour, comp in raw_blocks:
            for k, i in enumerate(comp):
                bit_of[i] = offset + k
            local = tuple(
                sum(1 << comp.index(j) for j in self.grid_neighbours(i) if j in comp) for i in comp
            )
            blocks.append(Block(colour, len(blocks), offset, len(comp), tuple(comp), local))
            offset += len(comp)
        self.bit_of = tuple(bit_of)
        self.index_of_bit = tuple(sorted(range(self.n_cells), key=lambda i: bit_of[i]))
        self.blocks = tuple(blocks)
        self.block_of_bit = tuple(b.index for b in blocks for _ in range(b.size))
        self.colour_blocks = {c: tuple(b for b in blocks if b.colour == c) for c in COLOURS}
        self.full_mask = (1 << self.n_cells) - 1
        self.cell_bits = tuple(1 << bit_of[i] for i in range(self.n_cells))
        self.neighbour_mask = tuple(
            sum(self.cell_bits[j] for j in self.grid_neighbours(self.index_of_bit[b]))
            for b in range(self.n_cells)
        )
        self.colour_mask = {c: sum(b.mask for b in self.colour_blocks[c]) for c in COLOURS}
        self.column_mask = tuple(
            sum(self.cell_bits[r * cols + c] for r in range(rows)) for c in range(cols)
        )
        self.star_mask = sum(
            self.cell_bits[r * cols + c]
            for r in range(rows)
            for c in range(cols)
            if self.printed[r][c].isupper()
        )
        self.start_mask = self.column_mask[self.start_column]
        self.n_stars = self.star_mask.bit_count()
        self._names = tuple(
            f"{COLUMN_LETTERS[i % cols]}{i // cols + 1}" for i in range(self.n_cells)
        )
        self._bit_by_name = {self._names[i]: bit_of[i] for i in range(self.n_cells)}
        self._columns_cache: dict[int, tuple[int, ...]] = {}

    def grid_neighbours(self, i: int) -> list[int]:
        r, c = divmod(i, self.cols)
        out = []
        if r > 0:
            out.append(i - self.cols)
        if r < self.rows - 1:
            out.append(i + self.cols)
        if c > 0:
            out.append(i - 1)
        if c < self.cols - 1:
            out.append(i + 1)
        return out

    # --- names and masks ------------------------------------------------------------------
    def bit(self, name: str) -> int:
        """Bit position of a cell name like ``H4`` (case-insensitive); KeyError if off board."""
        return self._bit_by_name[name.upper()]

    def cell_name(self, bit: int) -> str:
        return self._names[self.index_of_bit[bit]]

    def mask_of(self, names) -> int:
        mask = 0
        for name in names:
            mask |= 1 << self.bit(name)
        return mask

    def cells_of(self, mask: int) -> list[str]:
        """Cell names of a mask, in reading order (row by row)."""
        idx = []
        while mask:
            low = mask & -mask
            idx.append(self.index_of_bit[low.bit_length() - 1])
            mask ^= low
        idx.sort()
        return [self._names[i] for i in idx]

    def columns_of(self, mask: int) -> tuple[int, ...]:
        """Columns that ``mask`` touches (cached: the engine asks this for every move)."""
        cols = self._columns_cache.get(mask)
        if cols is None:
            cols = tuple(sorted({self.index_of_bit[b] % self.cols for b in range(self.n_cells) if mask >> b & 1}))
            self._columns_cache[mask] = cols
        return cols

    def colour_of_bit(self, bit: int) -> str:
        return self.blocks[self.block_of_bit[bit]].colour

    def is_star(self, bit: int) -> bool:
        return bool(self.star_mask >> bit & 1)

    def column_name(self, column: int) -> str:
        return COLUMN_LETTERS[column]

    def to_dict(self) -> dict:
        """The layout as plain data (the same keys as a board file)."""
        return {
            "name": self.name,
            "title": self.title,
            "grid": list(self.printed),
            "column_points_first": list(self.column_points_first),
            "column_points_later": list(self.column_points_later),
            "colour_bonus_first": self.colour_bonus_first,
            "colour_bonus_later": self.colour_bonus_later,
            "jokers": self.jokers,
            "star_penalty": self.star_penalty,
            "start_column": COLUMN_LETTERS[self.start_column],
        }

    @cached_property
    def layout_key(self) -> tuple:
        """Everything of the layout that rules and scores read (to_dict without name and
        title), as one hashable value: equal keys, same game. Caches key by its layout_id
        rather than by the object (missions/split/), whose id a later board may reuse."""
        data = self.to_dict()
        del data["name"], data["title"]
        return tuple((key, tuple(value) if isinstance(value, list) else value) for key, value in data.items())

    @cached_property
    def layout_id(self) -> int:
        """A small number per distinct layout_key in this process, cheap to hash in a cache
        key looked up on every room tap: the same for boards of the same layout while that
        layout is among the last LAYOUT_IDS.max_entries asked for (a cache key, never an identity:
        compare layouts with same_layout)."""
        return LAYOUT_IDS.change(self.layout_key, lambda known: next(_NEXT_LAYOUT_ID) if known is None else known)

    def same_layout(self, other: "Board") -> bool:
        return self.layout_key == other.layout_key

    def __repr__(self) -> str:
        return f"Board({self.name!r})"

    # --- loading --------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: dict, source: str, strict: bool = True) -> "Board":
        problems = check_board_data(data, strict=strict)
        if problems:
            raise BoardError(source, problems)
        return cls(
            name=data["name"],
            title=data.get("title", ""),
            grid=data["grid"],
            column_points_first=data["column_points_first"],
            column_points_later=data["column_points_later"],
            colour_bonus_first=data["colour_bonus_first"],
            colour_bonus_later=data["colour_bonus_later"],
            jokers=data["jokers"],
            star_penalty=data["star_penalty"],
            start_column=data["start_column"],
            source=source,
        )

    @classmethod
    def from_grid(cls, grid: list[str], name: str = "custom", strict: bool = False, **kw) -> "Board":
        """A board from rows of letters, default points; for tests and small puzzles."""
        cols = len(grid[0])
        data = {
            "name": name,
            "grid": list(grid),
            "column_points_first": kw.pop("column_points_first", [1] * cols),
            "column_points_later": kw.pop("column_points_later", [0] * cols),
            "colour_bonus_first": kw.pop("colour_bonus_first", 5),
            "colour_bonus_later": kw.pop("colour_bonus_later", 3),
            "jokers": kw.pop("jokers", 8),
            "star_penalty": kw.pop("star_penalty", 2),
            "start_column": kw.pop("start_column", COLUMN_LETTERS[cols // 2]),
        }
        if kw:
            raise TypeError(f"unknown board keys {sorted(kw)}")
        return cls.from_dict(data, name, strict=strict)


def check_board_data(data: dict, strict: bool = True) -> list[str]:
    """Every problem with a board's data, as readable sentences (empty list = valid).

    Every key is checked independently, so one run lists every broken invariant: a wrong
    type, a bad start column and a changed cell come out together. Numbers are range
    checked (BOARD_LIMITS) so that no file can make a command enumerate without bound.
    """
    if not isinstance(data, dict):
        return [f"expected a table of board keys, got {type(data).__name__}"]
    problems: list[str] = []
    for key, typ in {**_REQUIRED_KEYS, **_OPTIONAL_KEYS}.items():
        if key not in data:
            if key in _REQUIRED_KEYS:
                problems.append(f"key {key!r} is missing")
        elif not isinstance(data[key], typ) or (typ is int and isinstance(data[key], bool)):
            problems.append(f"key {key!r} must be {typ.__name__}, got {quoted(data[key])}")
    for key in sorted(set(data) - set(_REQUIRED_KEYS) - set(_OPTIONAL_KEYS)):
        problems.append(f"unknown key {quoted(key)}")

    def well_typed(key: str) -> bool:
        typ = {**_REQUIRED_KEYS, **_OPTIONAL_KEYS}[key]
        value = data.get(key)
        return isinstance(value, typ) and not (typ is int and isinstance(value, bool))

    if well_typed("name") and not _NAME.fullmatch(data["name"]):
        problems.append(f"key 'name' must be 1-{MAX_NAME_LENGTH} letters, digits, '-', '_' or '.', "
                        f"got {quoted(data['name'])}")
    if well_typed("title") and (len(data["title"]) > MAX_TITLE_LENGTH or not data["title"].isprintable()):
        problems.append(f"key 'title' must be printable text of at most {MAX_TITLE_LENGTH} characters")
    max_jokers = MAX_JOKERS_STRICT if strict else MAX_JOKERS_CUSTOM
    for key, low, high in (("jokers", 0, max_jokers), ("star_penalty", 0, MAX_POINTS),
                           ("colour_bonus_first", 0, MAX_POINTS), ("colour_bonus_later", 0, MAX_POINTS)):
        if well_typed(key) and not low <= data[key] <= high:
            problems.append(f"key {key!r} must be {low}..{high}, got {quoted(data[key])}")

    grid_ok, cols = False, None
    if well_typed("grid"):
        grid_problems, cols = _grid_problems(data["grid"], strict)
        problems += grid_problems
        grid_ok = not grid_problems
    for key in ("column_points_first", "column_points_later"):
        if not well_typed(key):
            continue
        pts = data[key]
        if not all(isinstance(p, int) and not isinstance(p, bool) and 0 <= p <= MAX_POINTS for p in pts):
            problems.append(f"key {key!r} must hold whole numbers 0..{MAX_POINTS}")
        if cols is not None and len(pts) != cols:
            problems.append(f"key {key!r} has {len(pts)} values, expected one per column ({cols})")
    if well_typed("start_column"):
        letters = COLUMN_LETTERS[: cols or len(COLUMN_LETTERS)]
        if len(data["start_column"]) != 1 or data["start_column"] not in letters:
            problems.append(f"key 'start_column' must be one column letter A..{letters[-1]}, "
                            f"got {quoted(data['start_column'])}")
    if grid_ok and strict:
        problems += _invariant_problems(data["grid"])
    return problems


def _grid_problems(grid: list, strict: bool) -> tuple[list[str], int | None]:
    """Shape and letters of the grid; also the column count when the rows agree on it."""
    if not grid or not all(isinstance(r, str) for r in grid):
        return ["key 'grid' must be a non-empty list of strings"], None
    rows, cols = len(grid), len(grid[0])
    problems: list[str] = []
    want_rows, want_cols = (7, 15) if strict else (None, cols)
    if want_rows is not None and rows != want_rows:
        problems.append(f"grid has {rows} rows, expected {want_rows}")
    if rows > MAX_ROWS:
        return problems + [f"grid has {rows} rows, at most {MAX_ROWS} are supported"], None
    if cols > len(COLUMN_LETTERS) or cols == 0:
        return problems + [f"grid has {cols} columns, 1..{len(COLUMN_LETTERS)} are supported"], None
    for r, row in enumerate(grid, 1):
        if len(row) != want_cols:
            problems.append(f"grid row {r} has {len(row)} cells, expected {want_cols}")
        for c, ch in enumerate(row[: len(COLUMN_LETTERS)]):
            if ch not in _COLOUR_LETTERS:
                problems.append(f"cell {COLUMN_LETTERS[c]}{r}: unknown colour letter {quoted(ch)} "
                                "(use y g b r o, upper case for a star)")
    if not problems and not strict:
        big = _largest_block(grid)
        if big > MAX_BLOCK_SIZE:
            problems.append(f"a block has {big} cells; at most {MAX_BLOCK_SIZE} are supported")
    return problems, cols if all(len(row) == cols for row in grid) else None


def _invariant_problems(grid: list[str]) -> list[str]:
    """The invariants of docs/rules.md §1 for a grid of the right shape and letters."""
    problems: list[str] = []
    rows, cols = len(grid), len(grid[0])
    board = Board(name="check", grid=grid, column_points_first=[0] * cols,
                  column_points_later=[0] * cols, start_column="A")
    for colour in COLOURS:
        n = board.colour_mask[colour].bit_count()
        if n != 21:
            problems.append(f"colour {COLOUR_NAMES[colour]} has {n} cells, expected 21")
        sizes = sorted(b.size for b in board.colour_blocks[colour])
        if sizes != [1, 2, 3, 4, 5, 6]:
            detail = ", ".join(
                f"{b.size} at {board.cells_of(b.mask)[0]}" for b in board.colour_blocks[colour]
            )
            problems.append(
                f"colour {COLOUR_NAMES[colour]} has blocks of sizes {sizes} ({detail}), "
                "expected exactly one block of each size 1..6"
            )
        stars = (board.colour_mask[colour] & board.star_mask).bit_count()
        if stars != 3:
            problems.append(f"colour {COLOUR_NAMES[colour]} has {stars} stars, expected 3")
    if board.n_stars != 15:
        problems.append(f"the sheet has {board.n_stars} stars, expected 15")
    for c in range(cols):
        letter = COLUMN_LETTERS[c]
        stars = (board.column_mask[c] & board.star_mask).bit_count()
        if stars != 1:
            problems.append(f"column {letter} has {stars} stars, expected 1")
        present = {grid[r][c].lower() for r in range(rows)}
        missing = [COLOUR_NAMES[x] for x in COLOURS if x not in present]
        if missing:
            problems.append(f"column {letter} lacks {', '.join(missing)} (every column holds all five colours)")
    return problems


def _grid_neighbour_masks(rows: int, cols: int) -> tuple[int, ...]:
    """Per grid index (row-major): the mask of its orthogonal neighbours' grid indices."""
    out = []
    for i in range(rows * cols):
        r, c = divmod(i, cols)
        out.append(sum(1 << (y * cols + x) for y, x in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                       if 0 <= y < rows and 0 <= x < cols))
    return tuple(out)


def _largest_block(grid: list[str]) -> int:
    rows, cols = len(grid), len(grid[0])
    grid_nb = _grid_neighbour_masks(rows, cols)
    by_letter: dict[str, int] = {}
    for i in range(rows * cols):
        letter = grid[i // cols][i % cols].lower()
        by_letter[letter] = by_letter.get(letter, 0) | 1 << i
    return max((piece.bit_count() for cells in by_letter.values() for piece in components(cells, grid_nb)),
               default=0)


def read_board_file(path: str | Path, strict: bool = True) -> Board:
    """Load a board TOML file; BoardError names the file and every problem."""
    text = read_text_file(path, lambda reason: BoardError(str(path), [reason]))
    return parse_board_text(text, str(path), strict=strict)


def parse_board_text(text: str, source: str, strict: bool = True) -> Board:
    data = load_toml_text(text, lambda reason: BoardError(source, [reason]))
    return Board.from_dict(data, source, strict=strict)


@lru_cache(maxsize=None)
def _builtin(name: str) -> Board:
    text = resources.files("nochmal.boards").joinpath(f"{name}.toml").read_text(encoding="utf-8")
    return parse_board_text(text, f"{name}.toml")


def load_board(name_or_path: str | Path = "classic") -> Board:
    """A built-in board by name (``classic``, ``red``, ...) or a board file by path."""
    if isinstance(name_or_path, Board):
        return name_or_path
    key = str(name_or_path)
    if key in BUILTIN_BOARDS:
        return _builtin(key)
    path = Path(key)
    try:
        exists = path.exists()
    except (OSError, ValueError):  # a name too long for a path, or with a NUL byte
        exists = False
    if path.suffix or exists or "/" in key:
        return read_board_file(path)
    raise BoardError(key, [f"unknown board; built-in boards are {', '.join(BUILTIN_BOARDS)}, or give a file path"])


def board_data(board: Board) -> dict:
    """The layout plus what the engine derives from it (stars, blocks): `nochmal board show
    --json` and the web's /api/boards/NAME."""
    data = board.to_dict()
    data["source"] = board.source
    data["rows"], data["cols"] = board.rows, board.cols
    data["stars"] = board.cells_of(board.star_mask)
    data["blocks"] = [{"colour": blk.colour, "size": blk.size, "cells": board.cells_of(blk.mask)}
                      for blk in board.blocks]
    return data
