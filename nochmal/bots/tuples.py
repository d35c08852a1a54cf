"""An n-tuple residual for the evaluation, learned by TD(0) self-play.

The linear evaluation (nochmal.bots.evaluation) sees summaries: how many cells a column or
a colour still misses, how many pieces, how many stars are open. Which cells are missing
matters as well (the last cell of a column may sit in a block that is hard to reach, two
neighbouring columns may need the same block), and a linear model of summaries cannot
express that. An n-tuple network can (the approach that made 2048 agents strong): one table
entry per pattern of a small group of cells, and the residual of a sheet is the sum of its
entries. The groups here:

- each column's cells (2^rows patterns: 128 on the 7 rows of the shipped boards),
- each block's cells plus one bit "one of its open cells is anchored" (at most 128),
- each pair of neighbouring columns (2 x rows cells, 16 384 patterns on 7 rows),
- the jokers left (9 entries),

each in one of six game phases (rolls left after the decision: 1-5, 6-10, ..., 26 and
more). The tables are learned by benchmarks/train_tuples.py with TD(0) on after-states in
solo self-play and shipped as nochmal/bots/tuple_weights.npz, for the board they were
trained on (the block groups are that board's blocks); other boards get no residual.
"""

from __future__ import annotations

import io
import zipfile
from importlib import resources
from pathlib import Path

import numpy as np

from nochmal.board import Board
from nochmal.cache import Cache
from nochmal.errors import WeightsError
from nochmal.fileio import atomic_write_bytes

PHASES = 6
PHASE_ROLLS = 5  # rolls per phase
WEIGHTS_RESOURCE = "tuple_weights.npz"
FORMAT = 1
FIELD_BITS = 8  # a column's crossed cells are packed into one byte-wide field: rows <= 8
BLOCK_CELLS = 6  # a block's pattern: its cells (<= 6) plus the anchored bit, 2^7 entries
BLOCK_ENTRIES = 1 << (BLOCK_CELLS + 1)
BLOCK_ANCHORED = 1 << BLOCK_CELLS  # the "an open cell is anchored" bit of a block's entry


def sheet_key(board: Board) -> str:
    """The printed grid: tables fit a board exactly when this key is the same."""
    return "/".join(board.printed)


def phase_of(rolls_left: int) -> int:
    """Phase table for a sheet with ``rolls_left`` >= 1 rolls still to come."""
    return min((rolls_left - 1) // PHASE_ROLLS, PHASES - 1)


class TupleLayout:
    """Where each group's entries live in a phase table, and how a sheet picks them."""

    def __init__(self, board: Board):
        if not 1 <= board.rows <= FIELD_BITS:
            raise WeightsError(f"n-tuple layout: a column packs into {FIELD_BITS} bits, "
                               f"so boards of 1..{FIELD_BITS} rows; this one has {board.rows}")
        big = [b for b in board.blocks if b.size > BLOCK_CELLS]
        if big:
            raise WeightsError(f"n-tuple layout: blocks of at most {BLOCK_CELLS} cells; "
                               f"this board has one of {big[0].size}")
        self.grid = sheet_key(board)
        self.cols = board.cols
        self.rows = board.rows
        self.column_entries = 1 << board.rows  # patterns of one column's cells (128 on 7 rows)
        self.column_field = self.column_entries - 1  # the mask of a column's packed field
        self.pair_entries = self.column_entries * self.column_entries  # two neighbouring columns
        self.n_bytes = (board.n_cells + 7) // 8
        # per byte of the crossed mask: its cells' bits packed into one field per column
        # (column c's rows in bits FIELD_BITS*c + row), so a sheet's column patterns cost one
        # lookup a byte
        where = {board.bit_of[r * board.cols + c]: (c, r) for c in range(board.cols) for r in range(board.rows)}
        self.byte_tables = []
        for k in range(self.n_bytes):
            table = []
            for v in range(256):
                packed = 0
                for i in range(8):
                    if v >> i & 1 and 8 * k + i in where:
                        c, r = where[8 * k + i]
                        packed |= 1 << (FIELD_BITS * c + r)
                table.append(packed)
            self.byte_tables.append(table)
        self.blocks = tuple((b.offset, (1 << b.size) - 1) for b in board.blocks)
        ce, pe = self.column_entries, self.pair_entries
        self.block_base = board.cols * ce
        self.joker_base = self.block_base + len(self.blocks) * BLOCK_ENTRIES
        self.pair_base = self.joker_base + 9
        self.size = self.pair_base + (board.cols - 1) * pe  # entries per phase table
        # per column: (its table start, the start of its pair with the column before, shift)
        self.column_slots = tuple((c * ce, self.pair_base + (c - 1) * pe, FIELD_BITS * c) for c in range(board.cols))
        self.block_slots = tuple((off, full, self.block_base + i * BLOCK_ENTRIES)
                                 for i, (off, full) in enumerate(self.blocks))

    def column_patterns(self, crossed: int) -> list[int]:
        """Per column, which of its cells are crossed (bit r = row r + 1)."""
        packed = 0
        tables = self.byte_tables
        x = crossed
        for k in range(self.n_bytes):
            packed |= tables[k][x & 255]
            x >>= 8
        field = self.column_field
        return [(packed >> (FIELD_BITS * c)) & field for c in range(self.cols)]

    def indices(self, crossed: int, anchored: int, jokers_left: int) -> list[int]:
        """The entries of a sheet in its phase table (one per group)."""
        cols = self.column_patterns(crossed)
        ce = self.column_entries
        out = [c * ce + p for c, p in enumerate(cols)]
        open_anchored = anchored & ~crossed
        base = self.block_base
        for i, (off, full) in enumerate(self.blocks):
            idx = (crossed >> off) & full
            if (open_anchored >> off) & full:
                idx += BLOCK_ANCHORED
            out.append(base + i * BLOCK_ENTRIES + idx)
        out.append(self.joker_base + min(jokers_left, 8))
        pb = self.pair_base
        pe = self.pair_entries
        out += [pb + c * pe + cols[c] + ce * cols[c + 1] for c in range(self.cols - 1)]
        return out


class TupleResidual:
    """The tables of one board; ``value`` and ``joker`` are added to the evaluation."""

    def __init__(self, layout: TupleLayout, tables: list[list[float]]):
        if len(tables) != PHASES or any(len(t) != layout.size for t in tables):
            raise WeightsError(f"n-tuple tables: expected {PHASES} tables of {layout.size} entries")
        self.layout = layout
        self.tables = tables  # mutable lists: the trainer updates them in place

    @classmethod
    def zeros(cls, board: Board) -> "TupleResidual":
        layout = TupleLayout(board)
        return cls(layout, [[0.0] * layout.size for _ in range(PHASES)])

    def value(self, crossed: int, anchored: int, rolls_left: int) -> float:
        """The sheet's residual without the joker entry (0 when no roll is to come)."""
        if rolls_left <= 0:
            return 0.0
        t = self.tables[phase_of(rolls_left)]
        lay = self.layout
        packed = 0
        x = crossed
        for table in lay.byte_tables:
            packed |= table[x & 255]
            x >>= 8
        total = 0.0
        prev = -1
        field, ce = lay.column_field, lay.column_entries
        for col_off, pair_off, shift in lay.column_slots:
            p = (packed >> shift) & field
            total += t[col_off + p]
            if prev >= 0:
                total += t[pair_off + prev + ce * p]
            prev = p
        open_anchored = anchored & ~crossed
        for off, full, entry in lay.block_slots:
            if (open_anchored >> off) & full:
                total += t[entry + BLOCK_ANCHORED + ((crossed >> off) & full)]
            else:
                total += t[entry + ((crossed >> off) & full)]
        return total

    def joker(self, rolls_left: int, jokers_left: int) -> float:
        if rolls_left <= 0:
            return 0.0
        return self.tables[phase_of(rolls_left)][self.layout.joker_base + min(jokers_left, 8)]

    # --- files --------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write the tables (float32, compressed) atomically, with the board they fit."""
        buf = io.BytesIO()
        np.savez_compressed(buf, format=np.int64(FORMAT), grid=np.array(self.layout.grid),
                            tables=np.asarray(self.tables, dtype=np.float32))
        atomic_write_bytes(path, buf.getvalue())

    @classmethod
    def load(cls, path: str | Path, board: Board) -> "TupleResidual":
        """Tables from ``path``; an error names the file if it does not fit ``board``."""
        return cls._fit(path, board, *_read_tables(path))

    @classmethod
    def _fit(cls, path: str | Path, board: Board, fmt: int, grid: str, tables: np.ndarray) -> "TupleResidual":
        """The residual for ``board`` from a file's contents, checked against its layout."""
        layout = TupleLayout(board)
        if fmt != FORMAT:
            raise WeightsError(f"{path}: format {fmt}, this version reads format {FORMAT}")
        if grid != layout.grid:
            raise WeightsError(f"{path}: trained for another sheet, not {board.name}")
        if tables.shape != (PHASES, layout.size):
            raise WeightsError(f"{path}: tables of shape {tables.shape}, expected {(PHASES, layout.size)}")
        if not np.isfinite(tables).all():
            raise WeightsError(f"{path}: the tables hold values that are not finite numbers")
        return cls(layout, [row.astype(float).tolist() for row in tables])


def _read_tables(path: str | Path) -> tuple[int, str, np.ndarray]:
    """(format, grid key, tables) of a weights file; an error names the file if unreadable."""
    try:
        with np.load(path, allow_pickle=False) as data:
            return int(data["format"]), str(data["grid"]), data["tables"]
    except (OSError, EOFError, KeyError, ValueError, TypeError, AttributeError, zipfile.BadZipFile) as exc:
        raise WeightsError(f"{path}: not an n-tuple weights file ({exc})") from None


def shipped_path() -> Path:
    return Path(str(resources.files("nochmal.bots").joinpath(WEIGHTS_RESOURCE)))


# the shipped file read once per process: its contents (None if it is not installed) under
# SHIPPED_FILE, and its tables fitted to the layout they were trained for, by sheet_key
# (nochmal/cache.py: clear_caches("bots.tuples.") reads the file again)
SHIPPED = Cache("bots.tuples.shipped", 8)
SHIPPED_FILE = "file"


def shipped_residual(board: Board) -> TupleResidual | None:
    """The shipped tables if they were trained for this board's layout, else None."""
    if SHIPPED_FILE not in SHIPPED:
        path = shipped_path()
        SHIPPED.put(SHIPPED_FILE, _read_tables(path) if path.exists() else None)
    shipped = SHIPPED.peek(SHIPPED_FILE)
    grid = sheet_key(board)
    if shipped is None or shipped[1] != grid:
        return None
    res = SHIPPED.get(grid)
    if res is None:
        res = TupleResidual._fit(shipped_path(), board, *shipped)
        SHIPPED.put(grid, res)
    return res
