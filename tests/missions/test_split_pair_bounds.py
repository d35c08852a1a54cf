"""missions/measures/pair_bounds.py ``pair_rolls_bounds`` (rolls bounds from the part graph alone, per
pair of a sheet's units, and the count of a subset's parts plus the parts off every unit
between a pair) and its use in missions/split/listings.py ``subsets_within``, which drops a subset
whose bound is above the rolls before the piece search:

- the bound never exceeds the piece search's exact lower bound (``fewest_rolls`` with every
  terminal in its programme), nor the rolls of a breadth-first search over the engine's
  placements on a small board;
- a listing with the bounds equals one without them (the bounds replaced by zeros), for the
  missions whose units are stars, columns and colours.
"""

from __future__ import annotations

import random

import pytest

from nochmal.bitsets import bit_list
from nochmal.board import Board, load_board
from nochmal.missions import split
from nochmal.missions.loader import builtin_missions
from nochmal.missions.split import split_instance
from nochmal.sheet import Sheet
from nochmal.missions.measures.graphs import column_target
from nochmal.missions.measures.pair_bounds import pair_rolls_bounds
from nochmal.missions.measures.rolls import fewest_rolls, reduce_pieces

from sheets_support import grow
from test_split_reuse import clear_reuse, listings

CLASSIC = load_board("classic")


class NO_BOUNDS:  # pair_rolls_bounds that rule nothing out
    @staticmethod
    def lower(subset) -> int:
        return 0


def random_masks(board: Board, rng: random.Random) -> tuple[int, ...]:
    kind = rng.randrange(3)
    if kind == 0:  # stars (star hunt's units)
        return tuple(1 << b for b in rng.sample(bit_list(board.star_mask), 6))
    if kind == 1:  # columns (column relay's)
        return tuple(column_target(board, c) for c in rng.sample("ABCDEFGHIJKLMNO", 4))
    return tuple(sum(1 << b for b in rng.sample(range(board.n_cells), rng.randint(1, 4))) for _ in range(5))


@pytest.mark.parametrize("seed", range(8))
def test_pair_bounds_never_exceed_the_piece_search_lower_bound(seed):
    rng = random.Random(seed)
    checked = 0
    for _ in range(5):
        sheet = grow(Sheet(CLASSIC), rng, rng.randint(0, 30))
        masks = random_masks(CLASSIC, rng)
        bounds = pair_rolls_bounds(sheet, masks)
        subsets = [(i, j) for i in range(len(masks)) for j in range(i + 1)]
        subsets += [tuple(sorted(rng.sample(range(len(masks)), 3))) for _ in range(6)]
        for subset in subsets:
            target = 0
            for i in subset:
                target |= masks[i]
            assert bounds.trees[subset[0]][subset[-1]] == bounds.trees[subset[-1]][subset[0]]
            if not target & ~sheet.crossed:
                assert bounds.lower(subset) == 0
                continue
            terminals = len(reduce_pieces(sheet, target).terminals)
            exact = fewest_rolls(sheet, target, exact_limit=max(8, terminals), trim=False)
            assert bounds.lower(subset) <= exact.lower, (subset, bounds.lower(subset), exact)
            checked += 1
    assert checked > 50


def placements_bfs(sheet: Sheet, target: int, most: int) -> int | None:
    """The fewest rolls (each one anchored block piece of at most 5 cells) that cross every cell
    of ``target``, by breadth-first search over the sheet's legal placements; None beyond ``most``."""
    frontier = {sheet.crossed}
    board = sheet.board
    for rolls in range(most + 1):
        if any(not target & ~c for c in frontier):
            return rolls
        grown = set()
        for crossed in frontier:
            state = Sheet(board, crossed=crossed)
            for block in board.blocks:
                open_cells = [b for b in bit_list(block.mask) if not crossed >> b & 1]
                for size in range(1, 6):
                    for cells in _pieces_of(board, open_cells, size):
                        if cells & state.anchored:
                            grown.add(crossed | cells)
        frontier = grown
    return None


def _pieces_of(board: Board, open_cells: list[int], size: int):
    """Connected sets of ``size`` of the given cells (as masks)."""
    allowed = sum(1 << b for b in open_cells)
    seen = set()
    stack = [1 << b for b in open_cells]
    while stack:
        piece = stack.pop()
        if piece in seen:
            continue
        seen.add(piece)
        if piece.bit_count() == size:
            yield piece
            continue
        near = 0
        for b in bit_list(piece):
            near |= board.neighbour_mask[b]
        for b in bit_list(near & allowed & ~piece):
            stack.append(piece | 1 << b)


SMALL = Board.from_grid(["ggyyb", "gbbyb", "rrbyy", "rgggo"], "small")


@pytest.mark.parametrize("seed", range(6))
def test_pair_bounds_never_exceed_a_breadth_first_search_on_a_small_board(seed):
    rng = random.Random(seed)
    sheet = grow(Sheet(SMALL), rng, rng.randint(0, 4))
    masks = tuple(1 << b for b in rng.sample([b for b in range(SMALL.n_cells) if not sheet.crossed >> b & 1], 4))
    bounds = pair_rolls_bounds(sheet, masks)
    checked = 0
    for subset in [(i, j) for i in range(len(masks)) for j in range(i + 1)] + [(0, 1, 2), (1, 2, 3), (0, 1, 2, 3)]:
        target = 0
        for i in subset:
            target |= masks[i]
        rolls = placements_bfs(sheet, target, 4)
        if rolls is not None:
            assert bounds.lower(subset) <= rolls
            checked += bounds.lower(subset) == rolls  # (tight somewhere: the bound is not trivially low)
    assert checked > 0


@pytest.mark.parametrize("mission_id", ["star-hunt", "column-relay", "colour-fan"])
@pytest.mark.parametrize("seed", range(3))
def test_listings_with_the_pair_bounds_equal_listings_without(mission_id, seed, monkeypatch):
    mission = next(m for m in builtin_missions() if m.id == mission_id)
    rng = random.Random(seed)
    sheets = [grow(Sheet(CLASSIC), rng, rng.randint(0, 12)) for _ in range(3)]
    inst = split_instance(mission, sheets)
    for rolls in (2, 3, 4, 6):
        clear_reuse()
        with_bounds = listings(inst, rolls)
        clear_reuse()
        with monkeypatch.context() as m:
            m.setattr(split.listings, "pair_rolls_bounds", lambda sheet, masks: NO_BOUNDS)
            without = listings(inst, rolls)
        assert with_bounds == without
