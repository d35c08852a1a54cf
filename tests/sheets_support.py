"""Sheets for the tests: grown at random by legal one-cell crosses, small random boards, and a
replay of a witness through the engine's own legality check. Shared by the measure, split
and status tests, so a random legal sheet is grown one way everywhere."""

from __future__ import annotations

import random

from nochmal.board import Board
from nochmal.sheet import Sheet


def grow(sheet: Sheet, rng: random.Random, crosses: int) -> Sheet:
    """The sheet after ``crosses`` more legal one-cell crosses (each anchored when placed);
    fewer when no open cell is anchored."""
    board = sheet.board
    for _ in range(crosses):
        open_anchored = [b for b in range(board.n_cells) if sheet.anchored >> b & 1 and not sheet.crossed >> b & 1]
        if not open_anchored:
            break
        sheet = sheet.cross(1 << rng.choice(open_anchored))
    return sheet


def random_sheet(board: Board, rng: random.Random, crosses: int) -> Sheet:
    """An empty sheet grown by ``crosses`` legal one-cell crosses, its completions scored."""
    return grow(Sheet.empty(board), rng, crosses).with_all_completions_scored()


def replay(sheet: Sheet, cells) -> Sheet:
    """Cross the witness cells one at a time through the engine's own legality check."""
    for name in cells:
        bit = sheet.board.bit(name)
        sheet.check_placement(sheet.board.colour_of_bit(bit), 1, 1 << bit)
        sheet = sheet.cross(1 << bit)
    return sheet


def small_case(rng: random.Random, fewest_targets: int) -> tuple[Board, Sheet, int]:
    """A random 3 x 5 board (blocks as its colours fall), a sheet of 0-3 legal crosses, and
    fewest_targets..5 of its open cells as the target: small enough for the brute forces."""
    grid = ["".join(rng.choice("ygbro") for _ in range(5)) for _ in range(3)]
    board = Board.from_grid(grid, strict=False)
    sheet = random_sheet(board, rng, rng.randint(0, 3))
    open_bits = [b for b in range(board.n_cells) if not sheet.crossed >> b & 1]
    target = sum(1 << b for b in rng.sample(open_bits, min(len(open_bits), rng.randint(fewest_targets, 5))))
    return board, sheet, target
