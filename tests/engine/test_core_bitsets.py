"""nochmal.bitsets: the one "neighbours of a mask" and the one flood fill, checked
against the board's own neighbour table cell by cell."""

from __future__ import annotations

import random

from nochmal.bitsets import bit_list, component_of, neighbours_of
from nochmal.board import load_board

BOARD = load_board("classic")


def test_neighbours_of_a_mask_is_the_union_of_its_cells_neighbours():
    rng = random.Random(4)
    nb = BOARD.neighbour_mask
    assert neighbours_of(0, nb) == 0
    for _ in range(200):
        mask = rng.getrandbits(BOARD.rows * BOARD.cols) & BOARD.full_mask
        want = 0
        for b in bit_list(mask):
            want |= nb[b]
        assert neighbours_of(mask, nb) == want
    h7, h6 = BOARD.mask_of(["H7"]), BOARD.mask_of(["H6"])
    assert neighbours_of(h7, nb) & h6 and not neighbours_of(h7, nb) & h7


def test_component_of_is_the_flood_fill_split_needs():
    """missions/split/bounds.py's reach: the open cells reachable from a seed without leaving ``allowed``."""
    allowed = BOARD.mask_of(["H1", "H2", "H3", "G3", "A1"])
    assert component_of(BOARD.mask_of(["H1"]), allowed, BOARD.neighbour_mask) == BOARD.mask_of(["H1", "H2", "H3", "G3"])
    assert component_of(0, allowed, BOARD.neighbour_mask) == 0
