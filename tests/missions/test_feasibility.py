"""The exact impossible-sheet check (nochmal/impossible.py) against independent oracles.

* brute force: every crossed set reachable in k <= 3 rolls, found by applying the engine's
  own legal placements (Sheet.placements) breadth first, with the fewest rolls for each;
  the check must give exactly that figure, and must refuse sets one cell away that are
  not reachable;
* a second implementation: a CP-SAT model that knows nothing of the piece argument;
* real games: every sheet of seeded bot games is possible after each roll, with that
  roll count.
"""

from __future__ import annotations

import random

import pytest
from rolls_oracle import rolls_needed_cpsat

from nochmal.bots.registry import make_agent
from nochmal.board import COLOURS, Board, load_board
from nochmal.impossible import impossible_sheet_reasons, rolls_needed
from nochmal.play import play_competitive, play_solo
from nochmal.sheet import Sheet

CLASSIC = load_board("classic")


def fewest_rolls_by_brute_force(board: Board, max_rolls: int, bridging: bool = False) -> dict[int, int]:
    """Every crossed set reachable in <= max_rolls rolls -> the fewest rolls (engine moves)."""
    level = {0: 0}
    frontier = [0]
    for k in range(1, max_rolls + 1):
        grown = []
        for crossed in frontier:
            sheet = Sheet(board, crossed)
            for colour in COLOURS:
                for count in range(1, 6):
                    for mask in sheet.placements(colour, count, bridging):
                        if crossed | mask not in level:
                            level[crossed | mask] = k
                            grown.append(crossed | mask)
        frontier = grown
    return level


@pytest.mark.parametrize("board_name,max_rolls", [("classic", 3), ("purple", 2)])
def test_the_fewest_rolls_match_brute_force(board_name, max_rolls):
    board = load_board(board_name)
    level = fewest_rolls_by_brute_force(board, max_rolls)
    assert len(level) > 900
    for crossed, k in level.items():
        need = rolls_needed(board, crossed)
        assert need.reachable and need.exact and need.lower == k, board.cells_of(crossed)
    # one cell more or less: reachable within max_rolls exactly when brute force found it
    rng = random.Random(7)
    items = list(level)
    for _ in range(4000):
        crossed = rng.choice(items) ^ 1 << rng.randrange(board.n_cells)
        need = rolls_needed(board, crossed)
        figure = need.lower if need.reachable else None
        if crossed in level:
            assert figure == level[crossed]
        else:
            assert figure is None or figure > max_rolls, board.cells_of(crossed)


def test_column_h_plus_three_cells_is_not_two_rolls():
    """The issue's example: column H spans 7 blocks, so it alone takes 5+ rolls."""
    cells = [f"H{r}" for r in range(1, 8)] + ["G4", "G3", "I4"]
    sheet = Sheet.from_cells(CLASSIC, cells)
    reasons = impossible_sheet_reasons(sheet, rolls=2)
    assert len(reasons) == 1 and "10 crossed cells after 2 roll(s), but they take" in reasons[0]
    need = rolls_needed(CLASSIC, sheet.crossed)
    assert impossible_sheet_reasons(sheet, rolls=need.lower) == []
    assert impossible_sheet_reasons(sheet, rolls=need.lower - 1) != []
    assert rolls_needed_cpsat(CLASSIC, sheet.crossed, need.lower) is True
    assert rolls_needed_cpsat(CLASSIC, sheet.crossed, need.lower - 1) is False


def test_unanchored_pieces_and_jokers():
    floating = Sheet.from_cells(CLASSIC, ["H4", "A1", "B1"])
    [reason] = impossible_sheet_reasons(floating)
    assert "A1 B1" in reason and "column H" in reason
    assert not rolls_needed(CLASSIC, floating.crossed).reachable
    two = Sheet(CLASSIC, CLASSIC.mask_of(["H4"]), jokers_used=2)
    assert impossible_sheet_reasons(two) == [] and impossible_sheet_reasons(two, rolls=1) == []
    three = Sheet(CLASSIC, CLASSIC.mask_of(["H4"]), jokers_used=3)
    assert any("jokers used but only 1 cell" in r for r in impossible_sheet_reasons(three))
    # H4 H5: two blue cells of one block, one roll; three jokers need a second roll
    split = Sheet(CLASSIC, CLASSIC.mask_of(["H4", "H5"]), jokers_used=3)
    assert rolls_needed(CLASSIC, split.crossed).lower == 1
    assert impossible_sheet_reasons(split, rolls=2) == []
    assert any("at most 2 per roll" in r for r in impossible_sheet_reasons(split, rolls=1))


def test_cpsat_agrees_on_random_sheets_near_reachable_ones():
    level = fewest_rolls_by_brute_force(CLASSIC, 2)
    rng = random.Random(11)
    items = list(level)
    for _ in range(25):
        crossed = rng.choice(items) ^ 1 << rng.randrange(CLASSIC.n_cells)
        need = rolls_needed(CLASSIC, crossed)
        for k in (1, 2, 3):
            assert rolls_needed_cpsat(CLASSIC, crossed, k) == (need.reachable and need.lower <= k), \
                (CLASSIC.cells_of(crossed), k)


def _game_sheets_after_each_roll(record):
    for turn, game in record.replay():
        for sheet in game.sheets:
            yield game.rolls_done, sheet


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sheets_of_real_bot_games_are_always_possible(seed):
    records = [play_solo(CLASSIC, make_agent("greedy", seed), seed),
               play_competitive(load_board("green"), [make_agent("greedy", seed), make_agent("random", seed + 1)],
                                seed)]
    checked = 0
    for record in records:
        for rolls, sheet in _game_sheets_after_each_roll(record):
            assert impossible_sheet_reasons(sheet, rolls) == [], (seed, rolls, sheet.text())
            checked += 1
    assert checked > 50


def test_cpsat_confirms_the_roll_count_of_a_game_sheet():
    """The sheet after 10 rolls of a bot game; CP-SAT on whole 30-roll sheets can take
    minutes (benchmarks/bench_feasibility.py), the piece argument answers at once."""
    record = play_solo(CLASSIC, make_agent("greedy", 4), 4)
    sheet = next(game.sheets[0] for turn, game in record.replay() if game.rolls_done == 10)
    need = rolls_needed(CLASSIC, sheet.crossed)
    assert need.lower <= 10
    assert rolls_needed_cpsat(CLASSIC, sheet.crossed, need.lower, work=120) is True
    assert rolls_needed_cpsat(CLASSIC, sheet.crossed, need.lower - 1, work=120) is False


# a custom board with one large yellow block: a plus of arms two cells long around C3
PLUS = Board.from_grid(["bbybb", "bbybb", "yyyyy", "gbygb", "gbygb"], name="plus", start_column="C")


def test_large_blocks_exact_without_bridging_and_bounded_with_it():
    cross = PLUS.mask_of(["C1", "C2", "A3", "B3", "C3", "D3", "E3", "C4", "C5"])
    off = rolls_needed(PLUS, cross)
    on = rolls_needed(PLUS, cross, bridging=True)
    assert off.exact and off.lower == 3  # 9 cells: no 5+4 split leaves both halves connected
    assert not on.exact and (on.lower, on.upper) == (2, 3)
    for bridging, need in ((False, off), (True, on)):
        level = fewest_rolls_by_brute_force(PLUS, 3, bridging)
        truth = level.get(cross)
        assert truth is not None and need.lower <= truth <= need.upper
        if not bridging:
            assert truth == 3
        else:
            assert truth == 2  # C3 + two arms, then the other two arms through C3
    assert rolls_needed_cpsat(PLUS, cross, 3) is True and rolls_needed_cpsat(PLUS, cross, 2) is False
