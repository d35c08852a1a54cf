"""The entry bound before fits_rolls' CP-SAT model (missions/measures/fits.py ``entry_rolls_bound``).

It claims that no legal set of new cells crossing the target takes fewer rolls. Checked
against two oracles that do not use it: a breadth-first search over the engine's own
placements on small boards (tests/missions/test_status_fast_paths.py ``brute_fewest_rolls``), and on
the classic board the CP-SAT model alone (``fits_by_cpsat``: a legal set within one roll
fewer than the bound would refute it). And fits_rolls' verdicts with the bound in front
equal the model's alone.
"""

from __future__ import annotations

import random

import pytest
from measures_oracle import brute_fewest_rolls
from sheets_support import random_sheet

from nochmal.board import Board, load_board
from nochmal.errors import BoardError
from nochmal.sheet import Sheet
from nochmal.missions.measures.fits import entry_rolls_bound, fits_by_cpsat, fits_rolls
from nochmal.missions.measures.rolls import fewest_rolls

CLASSIC = load_board("classic")

# the proofs asserted here (fits_rolls' and the model's verdicts) come from
# CP-SAT's deterministic limits (tests/conftest.py cpsat_by_work)
pytestmark = pytest.mark.usefixtures("cpsat_by_work")


def small_board_case(rng: random.Random) -> tuple[Sheet, int] | None:
    """A 3-4 row board of 6-8 columns in two to four colours, started from column A, a sheet
    of 0-1 legal crosses and 1-3 open target cells in the last three columns: far from the
    start, through blocks large enough that an entry can cost a piece; None where a block
    is too large for a board."""
    rows, cols = rng.choice([(3, 7), (3, 8), (4, 6), (4, 7)])
    colours = rng.choice(["ygb", "yg", "ygbr"])
    grid = ["".join(rng.choice(colours) for _ in range(cols)) for _ in range(rows)]
    try:
        board = Board.from_grid(grid, strict=False, start_column="A")
    except BoardError:
        return None
    sheet = random_sheet(board, rng, rng.randint(0, 1))
    far = [b for b in range(board.n_cells) if not sheet.crossed >> b & 1 and board.index_of_bit[b] % cols >= cols - 3]
    return sheet, sum(1 << b for b in rng.sample(far, min(len(far), rng.randint(1, 3))))


def classic_case(rng: random.Random) -> tuple[Sheet, int]:
    """A classic sheet of 0-15 legal crosses and 1-4 columns (sometimes a colour) as the target."""
    sheet = random_sheet(CLASSIC, rng, rng.randint(0, 15))
    if rng.random() < 0.25:
        target = CLASSIC.colour_mask[rng.choice(sorted(CLASSIC.colour_mask))]
    else:
        target = sum(CLASSIC.column_mask[c] for c in rng.sample(range(15), rng.randint(1, 4)))
    return sheet, target


@pytest.mark.parametrize("seed", range(60))
def test_the_bound_never_exceeds_a_breadth_first_search_on_small_boards(seed):
    rng = random.Random(9300 + seed)
    case = None
    while case is None:  # (a draw with a block too large for a small board is drawn again, not skipped)
        case = small_board_case(rng)
    sheet, target = case
    want = brute_fewest_rolls(sheet, target, 10)
    for limit in (6, 1, 0):  # every terminal group in the programme, one, none (the others at their weight)
        assert entry_rolls_bound(sheet, target, limit) <= want, limit
    assert entry_rolls_bound(sheet, target) >= fewest_rolls(sheet, target, trim=False).lower


def test_the_entry_costs_are_real_ones():
    """Where the bound beats the piece search's lower bound (an entry cost a piece), it meets
    the breadth-first search: what it adds is there (and it does add, in a few of the cases)."""
    beaten = 0
    for seed in range(300):
        case = small_board_case(random.Random(seed))
        if case is None:
            continue
        sheet, target = case
        bound = entry_rolls_bound(sheet, target)
        if bound > fewest_rolls(sheet, target, trim=False).lower:
            assert bound == brute_fewest_rolls(sheet, target, 10), seed
            beaten += 1
    assert beaten >= 5


def refuted(sheet: Sheet, target: int, bound: int) -> bool:
    """Whether the CP-SAT model alone finds a legal set within bound - 1 rolls."""
    if bound == 0:
        return False
    fits, _ = fits_by_cpsat(sheet, target & ~sheet.crossed, bound - 1, time_limit=60)
    assert fits is not None  # (decided within the time limit)
    return fits


@pytest.mark.parametrize("seed", range(12))
def test_the_bound_is_not_refuted_by_cp_sat_on_classic_sheets(seed):
    rng = random.Random(9400 + seed)
    sheet, target = classic_case(rng)
    bound = entry_rolls_bound(sheet, target)
    assert not refuted(sheet, target, bound), bound
    assert bound >= fewest_rolls(sheet, target, trim=False).lower


@pytest.mark.parametrize("seed", range(12, 60))
def test_the_bound_is_not_refuted_by_cp_sat_on_more_classic_sheets(seed):
    rng = random.Random(9400 + seed)
    sheet, target = classic_case(rng)
    for limit in (6, 1):
        assert not refuted(sheet, target, entry_rolls_bound(sheet, target, limit)), limit


def test_column_relay_first_tap_is_proven_by_the_bound():
    """bench_rooms' first column relay tap: columns A-C on an empty sheet. The piece search
    says 10..11; the model proves 11 (fits at 11, not at 10); the bound says 11 on its own."""
    sheet = Sheet.empty(CLASSIC)
    target = CLASSIC.column_mask[0] | CLASSIC.column_mask[1] | CLASSIC.column_mask[2]
    pieces = fewest_rolls(sheet, target, trim=False)
    assert (pieces.lower, pieces.upper) == (10, 11)
    assert fits_by_cpsat(sheet, target, 11, 60)[0] is True and fits_by_cpsat(sheet, target, 10, 60)[0] is False
    assert entry_rolls_bound(sheet, target) == 11
    assert fits_rolls(sheet, target, 10) == (False, 0)


@pytest.mark.parametrize("seed", range(10))
def test_fits_rolls_verdicts_equal_the_model_alone(seed):
    """Around the piece search's bounds (where the split asks): the same verdict with the bound
    in front as from the model alone, and a True still comes with its cells."""
    rng = random.Random(9500 + seed)
    sheet, target = classic_case(rng)
    pieces = fewest_rolls(sheet, target, trim=False)
    for rolls in range(max(0, pieces.lower - 1), pieces.upper + 1):
        fits, cells = fits_rolls(sheet, target, rolls, time_limit=60)
        alone, _ = fits_by_cpsat(sheet, target & ~sheet.crossed, rolls, time_limit=60)
        assert fits is alone, rolls
        assert not fits or cells & target == target & ~sheet.crossed or not target & ~sheet.crossed


def test_the_split_pieces_figures_hold_against_cp_sat_where_the_bound_lifts_them():
    """missions/split/figures.py sheet_pieces lifts the piece search's lower figure by the bound where
    the two differ: on column relay targets of early sheets (where that happens), no legal
    set within one roll fewer than the lifted figure exists (the model alone), and the path's
    rolls are the upper figure."""
    from nochmal.impossible import rolls_needed
    from nochmal.missions import split

    rng = random.Random(9600)
    lifted = 0
    for _ in range(400):
        sheet = random_sheet(CLASSIC, rng, rng.randint(0, 6))
        k = rng.randint(1, 4)  # k neighbouring columns, mostly at an edge (far from the start: entries cost there)
        start = rng.choice([0, 15 - k]) if rng.random() < 0.7 else rng.randint(0, 15 - k)
        target = sum(CLASSIC.column_mask[c] for c in range(start, start + k))
        for cache in (split.figures.PIECES, split.figures.FIGURES):
            cache.clear()
        plain = fewest_rolls(sheet, target, trim=False)
        pieces = split.sheet_pieces(sheet, target)
        assert plain.lower <= pieces.lower <= pieces.upper == plain.upper == rolls_needed(CLASSIC, pieces.cells).upper
        if pieces.lower > plain.lower:
            lifted += 1
            assert not refuted(sheet, target, pieces.lower)
            if lifted == 4:
                break
    assert lifted
