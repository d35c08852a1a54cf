"""What a room's status reuses between taps against the same figures computed fresh.

- missions/split/listings.py remembers rolls_feasible's per-sheet listings (``subsets_within``) per
  (sheet state, units' cells, rolls): a remembered listing must equal a fresh one on seeded
  random room states where one seat gains crosses at a time (a stale entry for the changed
  sheet would show here), and the verdicts must match the brute-force oracle on small cases.
- nochmal/impossible.py remembers each block's pieces per (block, local cells)
  (``block_pieces``): checked against a plain count written here and against the CP-SAT
  model ``rolls_needed_cpsat`` (tests/rolls_oracle.py) on boards with large blocks, two boards used in turn.
- a room whose items got done since seeds its split from the latest split of more units
  (``remembered_split``): the seed maps units by name, and the split stays within the
  brute-force optimum's bounds.
"""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from rolls_oracle import rolls_needed_cpsat
from sheets_support import grow
from split_oracle import brute_split_rolls

from nochmal.bitsets import bit_list, component_of, components
from nochmal.board import Board, load_board
from nochmal.cache import clear_caches
from nochmal.impossible import BLOCK_TABLES, block_pieces, rolls_needed
from nochmal.missions import split
from nochmal.missions.cpsolver import Deadline
from nochmal.missions.loader import builtin_missions
from nochmal.missions.model import Mission, Objective
from nochmal.missions.split import check_split, rolls_feasible, solve_split, split_instance, unit_lower_bound
from nochmal.sheet import Sheet

CLASSIC = load_board("classic")

# the proofs asserted here (exact, rolls_feasible's verdicts, the separator bound) come from
# CP-SAT's deterministic limits (tests/conftest.py cpsat_by_work)
pytestmark = pytest.mark.usefixtures("cpsat_by_work")
MISSIONS = {m.id: m for m in builtin_missions()}


def clear_reuse() -> None:
    """Every per-state cache of the split (what a fresh computation would not have)."""
    clear_caches("missions.split.")


def listings(inst, rolls: int) -> list:
    return [split.listings.subsets_within(inst, p, rolls, [10**9], Deadline()) for p in range(len(inst.sheets))]


# --- remembered listings vs fresh ones -----------------------------------------------------------------------
@pytest.mark.parametrize("mission_id,seed", [("column-relay", 0), ("column-relay", 1), ("star-hunt", 0),
                                             ("star-hunt", 1)])
def test_remembered_listings_equal_fresh_ones_as_one_seat_gains_crosses(mission_id, seed):
    rng = random.Random(7100 + seed)
    mission = MISSIONS[mission_id]
    sheets = [grow(Sheet.empty(CLASSIC), rng, rng.randint(15, 35)) for _ in range(4)]
    clear_reuse()
    hits = moves = 0
    for step in range(4):
        inst = split_instance(mission, sheets)
        rolls = unit_lower_bound(inst) + 1
        before = len(split.listings.LISTINGS)
        warm = listings(inst, rolls)  # entries of the earlier states (and this one's unchanged sheets) in the cache
        hits += 4 - (len(split.listings.LISTINGS) - before)
        again = listings(inst, rolls)  # all four remembered now
        moved = split.listings.MOVED.snapshot()
        clear_reuse()
        fresh = listings(inst, rolls)
        assert again == warm
        for p, (rows, fresh_rows) in enumerate(zip(warm, fresh)):  # the same subsets; figures differ only where
            assert [s for s, _ in rows] == [s for s, _ in fresh_rows]  # an earlier state's path moved here
            for (subset, (low, high)), (_, (f_low, f_high)) in zip(rows, fresh_rows):
                if (low, high) != (f_low, f_high):
                    moves += 1
                    assert high <= rolls and low <= f_low and f_low <= high
                    target = split.instance.units_target(inst, p, subset)
                    cells = moved[split.figures.state_key(CLASSIC, sheets[p].crossed, target)]
                    assert target & ~sheets[p].crossed & ~cells == 0 and not cells & sheets[p].crossed
                    assert all(piece & sheets[p].anchored for piece in components(cells, CLASSIC.neighbour_mask))
                    assert rolls_needed(CLASSIC, cells).upper == high
        # the listing's contract, checked on the fresh figures: a listed subset's lower figure fits
        for p, rows in enumerate(fresh):
            assert rows[0] == ((), (0, 0))
            for subset, (low, high) in rows[1:]:
                assert low <= rolls and low <= high
                assert all(inst.units[u].masks[p] for u in subset)
        seat = step % 4
        sheets[seat] = grow(sheets[seat], rng, 3)  # one seat's tap: its listing must not come from the cache
    assert hits > 0  # (the unchanged sheets were served from the cache: the test exercises hits)
    assert moves > 0  # (and the tapped sheets' rows from their earlier paths)


@pytest.mark.parametrize("seed", range(8))
def test_rolls_feasible_with_remembered_listings_matches_the_brute_force(seed):
    rng = random.Random(7300 + seed)
    budgets = tuple((p, (("easy", 30), ("normal", 20), ("hard", 10))) for p in (1, 2, 3, 4))
    objectives = [Objective("columns", "team", columns=(0, 1, 2, 12, 13, 14)),
                  Objective("cells", "team", cells=("A1", "B1", "C1", "O7", "N7", "H1")),
                  Objective("stars", "team", count=15)]
    for _ in range(40):
        n = rng.choice([2, 3])
        sheets = [grow(Sheet.empty(CLASSIC), rng, rng.randint(10, 60)) for _ in range(n)]
        mission = Mission("t", "T", "user", "a test", (rng.choice(objectives),), budgets)
        inst = split_instance(mission, sheets)
        if inst.demands and len(inst.units) <= 6:
            break
    else:
        pytest.skip("no small case drawn")
    low, want = brute_split_rolls(inst)
    for _ in range(2):  # the second round runs on remembered listings
        if low > 0:
            assert rolls_feasible(inst, low - 1, budget=100_000, time_limit=30)[0] is False
        feasible, assignment = rolls_feasible(inst, want, budget=100_000, time_limit=30)
        assert feasible is True and not check_split(inst, assignment)
        for p, units in enumerate(assignment):
            assert split.figures.upper_cost(inst, p, units)[0] <= want


# --- block pieces remembered per block ------------------------------------------------------------------------
def plain_pieces(board: Board, crossed: int) -> int:
    """Printed blocks have at most 6 cells: each connected part of a block takes ceil(size / 5)."""
    total = 0
    for block in board.blocks:
        for part in components(crossed & block.mask, board.neighbour_mask):
            total += -(-part.bit_count() // 5)
    return total


def test_block_pieces_remembered_equal_a_plain_count_on_the_classic_board():
    rng = random.Random(7500)
    clear_caches("impossible.")  # the blocks' tables: built afresh
    for _ in range(300):
        mask = 0
        for b in rng.sample(range(CLASSIC.n_cells), rng.randint(0, 40)):
            mask |= 1 << b
        first = block_pieces(CLASSIC, mask)
        assert first == block_pieces(CLASSIC, mask)  # remembered
        assert first[1] == plain_pieces(CLASSIC, mask)
        need = rolls_needed(CLASSIC, mask)
        reached = component_of(mask & CLASSIC.start_mask, mask, CLASSIC.neighbour_mask)
        assert need.reachable == (reached == mask) and need.upper == first[1]
        assert set(need.unanchored) == {c for c in components(mask, CLASSIC.neighbour_mask)
                                        if not c & CLASSIC.start_mask}


def test_block_pieces_of_large_blocks_match_cp_sat_with_two_boards_in_turn():
    boards = [Board.from_grid(["yyyyyyy", "yyyyyyy", "bbbgggg"]), Board.from_grid(["yyyyyyy", "ybyyyyy", "bbbgggg"])]
    rng = random.Random(7600)
    clear_caches("impossible.")  # the blocks' tables: built afresh
    for _ in range(40):
        board = rng.choice(boards)
        sheet = grow(Sheet.empty(board), rng, rng.randint(1, 14))
        pieces = block_pieces(board, sheet.crossed)[1]
        assert pieces == rolls_needed(board, sheet.crossed).upper
        # the fewest rolls of an anchored set are its fewest pieces of one block (impossible.py)
        assert rolls_needed_cpsat(board, sheet.crossed, pieces) is True
        if pieces > 1:
            assert rolls_needed_cpsat(board, sheet.crossed, pieces - 1) is False
    assert len(BLOCK_TABLES) == 2  # one per board, each kept while the other is used


# --- the seed of a room whose items got done since ---------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
def test_seed_from_a_split_of_more_units_maps_units_by_name(seed):
    rng = random.Random(7700 + seed)
    budgets = tuple((p, (("easy", 30), ("normal", 20), ("hard", 10))) for p in (1, 2, 3, 4))
    mission = Mission("t", "T", "user", "a test",
                      (Objective("cells", "team", cells=("G1", "I1", "G7", "I7", "F4", "J4")),), budgets)
    clear_reuse()
    sheets = [grow(Sheet.empty(CLASSIC), rng, rng.randint(3, 12)) for _ in range(3)]
    before = split_instance(mission, sheets)
    if not before.demands:
        pytest.skip("every cell crossed already")
    split.search.remember_split(before, [tuple(u for u in range(len(before.units)) if u % 3 == p) for p in range(3)])
    names = {p: {before.units[u].name for u in range(len(before.units)) if u % 3 == p} for p in range(3)}
    # cross one open target cell on some sheet where it is anchored: that unit is done for the team
    open_units = [(p, u) for u in range(len(before.units)) for p in range(3)
                  if before.units[u].masks[p] & sheets[p].anchored]
    if not open_units:
        pytest.skip("no target cell anchored")
    p, u = rng.choice(open_units)
    ready = before.units[u].masks[p] & sheets[p].anchored
    sheets[p] = sheets[p].cross(ready & -ready)
    after = split_instance(mission, sheets)
    seed_split = split.search.remembered_split(after)
    if len(after.units) < len(before.units):  # a unit went: the old split, restricted, by name
        assert seed_split is not None
        for q, units in enumerate(seed_split):
            assert {after.units[v].name for v in units} == names[q] & {x.name for x in after.units}
    if after.demands and len(after.units) <= 6:
        _, want = brute_split_rolls(after)
        found = solve_split(after)
        assert found.rolls_lower <= want <= found.rolls_upper
        assert not check_split(after, [plan.units for plan in found.plans])


# --- the piece search's trimmed path and the subsets model's programme ---------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_trimmed_rolls_from_the_untrimmed_answer_equal_a_fresh_trimmed_search(seed):
    from nochmal.missions.measures.rolls import fewest_rolls, trimmed_rolls

    rng = random.Random(7800 + seed)
    for _ in range(12):
        sheet = grow(Sheet.empty(CLASSIC), rng, rng.randint(0, 40))
        target = 0
        for b in rng.sample(range(CLASSIC.n_cells), rng.randint(1, 12)):
            target |= 1 << b
        assert trimmed_rolls(sheet, target, fewest_rolls(sheet, target, trim=False)) == fewest_rolls(sheet, target)


BUDGETS = tuple((p, (("easy", 30), ("normal", 20), ("hard", 10))) for p in (1, 2, 3, 4))
SMALL = {"colour-fan": MISSIONS["colour-fan"],  # team colours, and alternatives (any: one sheet's two columns)
         "any-columns": Mission("t", "T", "user", "a test", (Objective("columns", "any", columns=(0, 13)),), BUDGETS)}


def small_rooms(mission_id: str, rng: random.Random, rooms: int, most_crosses: int):
    """Seeded random rooms of a SMALL mission (3 sheets for any-columns, else 4), each sheet
    up to ``most_crosses`` legal crosses: (sheets, split instance), rooms with work left only."""
    for _ in range(rooms):
        players = 3 if mission_id == "any-columns" else 4
        sheets = [grow(Sheet.empty(CLASSIC), rng, rng.randint(0, most_crosses)) for _ in range(players)]
        inst = split_instance(SMALL[mission_id], sheets)
        if inst.demands:
            yield sheets, inst


@pytest.mark.parametrize("mission_id", sorted(SMALL))
def test_subsets_programme_finds_the_cp_sat_optimum(mission_id, monkeypatch):
    compared = 0
    for sheets, inst in small_rooms(mission_id, random.Random(mission_id), 6, 40):
        if len(inst.units) > split.models.DP_UNITS:
            continue
        figures = []
        for p in range(len(sheets)):
            units = [u for u in range(len(inst.units)) if inst.units[u].masks[p] is not None]
            rows = [(sub, split.sheet_figures(sheets[p], split.instance.units_target(inst, p, sub)) if sub
                     else split.figures.NO_FIGURES) for k in range(len(units) + 1) for sub in combinations(units, k)]
            figures.append(rows)
        for side in ("upper", "lower"):
            rolls, assignment, _ = split.models.pick_subsets_dp(inst, figures, side)
            monkeypatch.setattr(split.models, "DP_UNITS", -1)
            cp_rolls, cp_assignment, status = split.models.pick_subsets(inst, figures, side, 20.0)
            monkeypatch.setattr(split.models, "DP_UNITS", 6)
            assert status == "optimal" and rolls == cp_rolls and not check_split(inst, assignment)

            def crosses(picks):
                return sum(next(f[0].lower if side == "lower" else f[0].upper for s, f in figures[p] if s == sub)
                           for p, sub in enumerate(picks))
            assert crosses(assignment) == crosses(cp_assignment)
            compared += 1
    assert compared


# --- the exact one-sheet check behind rolls_feasible -----------------------------------------------------------
@pytest.mark.parametrize("seed", range(16))
def test_fits_rolls_matches_a_breadth_first_search_over_placements(seed):
    from measures_oracle import brute_fewest_rolls
    from sheets_support import small_case

    from nochmal.missions.measures.fits import fits_rolls

    rng = random.Random(7900 + seed)
    board, sheet, target = small_case(rng, 1)
    want = brute_fewest_rolls(sheet, target)
    for rolls in range(max(0, want - 2), want + 2):
        fits, cells = fits_rolls(sheet, target, rolls, time_limit=30)
        assert fits is (rolls >= want), (rolls, want)
        if fits and target & ~sheet.crossed:  # a legal set of new cells holding the target, within the rolls
            assert cells & target == target & ~sheet.crossed and not cells & sheet.crossed
            assert all(piece & sheet.anchored for piece in components(cells, board.neighbour_mask))
            assert rolls_needed(board, cells).upper <= rolls


def test_rolls_feasible_decides_column_relay_where_the_figures_straddle_the_rolls(monkeypatch):
    """The first tap of a column relay room (bench_rooms' seeded edit): without the entry bound
    in the pieces' figures (sheet_pieces) every sheet's figures for some sets of columns are
    intervals around 10 rolls, and the exact check decides them; with it, the figures settle
    those sets themselves. The same verdicts either way."""
    mission = MISSIONS["column-relay"]
    rng = random.Random(7950)
    sheets = [Sheet.empty(CLASSIC) for _ in range(4)]
    sheets[0] = grow(sheets[0], rng, 3)
    inst = split_instance(mission, sheets)
    found = {}
    for entry_bound in (False, True):
        with monkeypatch.context() as patch:
            if not entry_bound:
                patch.setattr(split.figures, "entry_rolls_bound", lambda sheet, target: 0)
            clear_reuse()
            verdicts = [rolls_feasible(inst, r, time_limit=60)[0] for r in (9, 10, 11)]
            assert None not in verdicts and verdicts == sorted(verdicts)  # (False before True: a bound and a split)
            feasible, assignment = rolls_feasible(inst, 11, time_limit=60)
            assert feasible and not check_split(inst, assignment)
            assert max(split.figures.upper_cost(inst, p, units)[0] for p, units in enumerate(assignment)) <= 11
            assert bool(split.listings.FITS) is not entry_bound  # (the exact check ran where the figures straddle)
            found[entry_bound] = verdicts
    assert found[False] == found[True]


@pytest.mark.parametrize("seed", range(4))
def test_rolls_feasible_on_sheets_in_the_same_state_matches_the_brute_force(seed):
    """Sheets in the same state have the same rows: the pick orders theirs (symmetry), and a
    verdict of the exact check applies to all of them; the answer must not change."""
    rng = random.Random(8100 + seed)
    columns = tuple(sorted(rng.sample(range(15), 5)))
    mission = Mission("t", "T", "user", "a test", (Objective("columns", "team", columns=columns),), BUDGETS)
    same = grow(Sheet.empty(CLASSIC), rng, rng.randint(0, 20))
    sheets = [same, same, grow(Sheet.empty(CLASSIC), rng, rng.randint(0, 20))][: rng.choice([2, 3])]
    inst = split_instance(mission, sheets)
    clear_reuse()
    low, want = brute_split_rolls(inst)
    if low > 0:
        assert rolls_feasible(inst, low - 1, budget=100_000, time_limit=30)[0] is False
    feasible, assignment = rolls_feasible(inst, want, budget=100_000, time_limit=30)
    assert feasible is True and not check_split(inst, assignment)


@pytest.mark.parametrize("mission_id", sorted(SMALL))
def test_lazy_subsets_split_equals_every_figure_computed_first(mission_id, monkeypatch):
    """_solve_subsets_lazily computes a subset's figures only once the roll count reaches its
    block slots; the split (rolls, bounds, total crosses) must equal the eager CP-SAT path's."""
    compared = 0
    for _, inst in small_rooms(mission_id, random.Random(f"lazy-{mission_id}"), 8, 50):
        lazy = solve_split(inst)
        monkeypatch.setattr(split.models, "DP_UNITS", -1)
        eager = solve_split(inst, time_limit=20)
        monkeypatch.setattr(split.models, "DP_UNITS", 6)
        assert (lazy.rolls_lower, lazy.rolls_upper) == (eager.rolls_lower, eager.rolls_upper)
        assert sum(p.crosses.upper for p in lazy.plans) == sum(p.crosses.upper for p in eager.plans)
        assert not check_split(inst, [plan.units for plan in lazy.plans])
        compared += 1
    assert compared


# --- listings filtered from a remembered one, and the cover search of the pick ---------------------------------------
def fewer_units(inst, keep):
    """The instance on the units ``keep`` only (as after other sheets did the rest)."""
    from nochmal.missions.split import Demand, SplitInstance

    units = tuple(inst.units[u] for u in keep)
    return SplitInstance(inst.sheets, units, (Demand(tuple(range(len(units))), len(units)),))


@pytest.mark.parametrize("mission_id,seed", [("column-relay", 0), ("column-relay", 1), ("star-hunt", 0)])
def test_listings_filtered_for_fewer_rolls_or_fewer_units_equal_fresh_ones(mission_id, seed):
    rng = random.Random(8300 + seed)
    mission = MISSIONS[mission_id]
    filtered = 0
    for _ in range(3):
        sheets = [grow(Sheet.empty(CLASSIC), rng, rng.randint(10, 35)) for _ in range(4)]
        inst = split_instance(mission, sheets)
        rolls = unit_lower_bound(inst) + 2
        keep = sorted(rng.sample(range(len(inst.units)), len(inst.units) - rng.randint(1, 3)))
        asks = [(inst, rolls - 1), (inst, rolls - 2), (fewer_units(inst, keep), rolls), (fewer_units(inst, keep), rolls - 1)]
        clear_reuse()
        listings(inst, rolls)  # remembered: every ask below is filtered from these, spending no figure
        served = [[split.listings.subsets_within(ask, p, r, [0], Deadline()) for p in range(4)] for ask, r in asks]
        for (ask, r), rows in zip(asks, served):
            clear_reuse()
            fresh = listings(ask, r)
            assert rows == fresh, (r, len(ask.units))
            filtered += 1
    assert filtered == 12


def brute_pick(inst, options) -> bool:
    """Whether one row per sheet meets the demands: every combination tried."""
    from itertools import product

    for rows in product(*options):
        if not check_split(inst, [subset for subset, _ in rows]):
            return True
    return False


@pytest.mark.parametrize("seed", range(6))
def test_cover_search_of_the_pick_matches_every_combination_and_cp_sat(seed):
    from nochmal.missions.split import Demand, SplitInstance, Unit

    rng = random.Random(8400 + seed)
    checked = {True: 0, False: 0}
    for _ in range(60):
        n = rng.randint(1, 4)
        units = rng.randint(1, 9)
        inst = SplitInstance((Sheet.empty(CLASSIC),) * n, tuple(Unit(f"u{u}", 0, (1,) * n) for u in range(units)),
                             (Demand(tuple(range(units)), units),))
        twin = [tuple(sorted(rng.sample(range(units), rng.randint(0, min(units, 4))))) for _ in range(rng.randint(1, 6))]
        options = []
        for p in range(n):
            if p and rng.random() < 0.3:  # a sheet in the same state as the one before: the same rows
                options.append(list(options[-1]))
                continue
            subsets = twin if rng.random() < 0.3 else \
                [tuple(sorted(rng.sample(range(units), rng.randint(0, min(units, 4))))) for _ in range(rng.randint(1, 6))]
            options.append([(s, (3, rng.choice([3, 4]))) for s in dict.fromkeys(subsets)])
        found = split.pick.pick_cover(inst, options, 3, Deadline())
        want = brute_pick(inst, options)
        assert found is not None and found[0] is want
        if want:
            assert len(found[1]) == n and all(row in rows for row, rows in zip(found[1], options))
            assert not check_split(inst, [subset for subset, _ in found[1]])
        cp = split.pick.pick_one_each(inst, options, Deadline())  # (no roll count: CP-SAT)
        assert cp[0] is want
        checked[want] += 1
    assert checked[True] and checked[False]


def test_cover_search_declines_demands_of_some_units_and_alternatives():
    inst = split_instance(SMALL["any-columns"], [Sheet.empty(CLASSIC)] * 3)
    assert split.pick.pick_cover(inst, [[((), (0, 0))]] * 3, 5, Deadline()) is None


def test_a_filtered_listing_keeps_a_row_only_where_its_smaller_subsets_are_kept():
    """Lower figures are bounds, not always growing with the units: a row that fits fewer
    rolls under one that does not is left out, as the growth of a fresh listing leaves it.
    (Figures planted in the caches: a row whose path does not fit the fewer rolls is decided
    by them, as a fresh listing would.)"""
    from nochmal.missions.measures.rolls import RollsEstimate

    sheet = Sheet.empty(CLASSIC)
    state = split.figures.state_key(CLASSIC, 0)
    source = [((), (0, 0)), ((0,), (5, 5)), ((1,), (3, 4)), ((2,), (4, 4)), ((0, 1), (4, 4)), ((1, 2), (4, 6)),
              ((0, 1, 2), (5, 5))]
    clear_reuse()
    masks = (8, 16, 32)
    for subset, (low, high) in source[1:]:  # (exact planted figures: no crosses programme on them)
        target = sum(masks[i] for i in subset)
        split.figures.PIECES.put((*state, target), RollsEstimate(high, high, target) if subset != (1, 2) else
                                 RollsEstimate(5, 5, target))
    split.listings.LISTINGS.put((*state, masks, 5), source)
    assert split.listings.filtered_listing((*state, masks, 4), sheet) == [((), (0, 0)), ((1,), (3, 4)), ((2,), (4, 4))]
    assert split.listings.filtered_listing((*state, (8, 32), 5), sheet) == [((), (0, 0)), ((0,), (5, 5)),
                                                                             ((1,), (4, 4))]
    assert split.listings.filtered_listing((*state, (16, 8), 5), sheet) is None  # (units in another order: not served)
    assert split.listings.filtered_listing((*state, masks, 6), sheet) is None  # (more rolls: not served)
    split.figures.PIECES.put((*state, 48), RollsEstimate(4, 4, 48))  # (1, 2)'s path within 4 rolls: now it fits them
    assert split.listings.filtered_listing((*state, masks, 4), sheet)[-1] == ((1, 2), (4, 4))
    clear_reuse()


@pytest.mark.parametrize("mission_id,seed", [("column-relay", 0), ("star-hunt", 0)])
def test_remembered_separators_equal_fresh_ones_as_one_seat_gains_crosses(mission_id, seed):
    rng = random.Random(8500 + seed)
    mission = MISSIONS[mission_id]
    sheets = [grow(Sheet.empty(CLASSIC), rng, rng.randint(5, 30)) for _ in range(4)]
    clear_reuse()
    hits = 0
    for step in range(6):
        inst = split_instance(mission, sheets)
        masks = [tuple(u.masks[q] for u in inst.units if u.masks[q]) for q in range(4)]
        before = len(split.bounds.SEPARATORS)
        warm = [split.bounds.separators(sheets[q], masks[q]) for q in range(4)]
        hits += 4 - (len(split.bounds.SEPARATORS) - before)
        lower = unit_lower_bound(inst)
        bound = split.separator_lower_bound(inst, lower, lower + 3, time_limit=30)
        clear_reuse()
        assert warm == [split.bounds.separators(sheets[q], masks[q]) for q in range(4)]
        assert split.separator_lower_bound(inst, lower, lower + 3, time_limit=30) == bound
        for q in range(4):  # the definition, on the sheet itself: u cannot be finished without a cell of j
            for u, js in enumerate(warm[q] or ()):
                for j in range(len(masks[q])):
                    reach = split.bounds.reach_without(sheets[q], masks[q][j])
                    assert (j in js) == (j != u and bool(masks[q][u] & ~reach))
        seat = step % 4
        sheets[seat] = grow(sheets[seat], rng, 3)
    assert hits > 0


def test_separators_are_remembered_per_sheet_state_not_per_units_cells_alone():
    """Columns A and C open on both sheets, the same cells: on the empty sheet every way to A
    crosses C; with column B crossed (and so A anchored) none does."""
    clear_reuse()
    masks = (CLASSIC.column_mask[0], CLASSIC.column_mask[2])
    empty, b_crossed = Sheet.empty(CLASSIC), Sheet(CLASSIC, CLASSIC.column_mask[1])
    for _ in range(2):  # (the second round from the cache)
        assert split.bounds.separators(empty, masks) == ((1,), ())
        assert split.bounds.separators(b_crossed, masks) == ((), ())


def test_block_slots_from_remembered_block_masks_equal_a_plain_count_with_two_boards_in_turn():
    from nochmal.missions.model import block_slots

    boards = [CLASSIC, Board.from_grid(["yyyyyyy", "yyyyyyy", "bbbgggg"])]
    rng = random.Random(8600)
    for _ in range(200):
        board = rng.choice(boards)
        mask = 0
        for b in rng.sample(range(board.n_cells), rng.randint(0, min(40, board.n_cells))):
            mask |= 1 << b
        plain = sum(-(-sum(1 for b in range(board.n_cells) if mask >> b & 1 and block.mask >> b & 1) // 5)
                    for block in board.blocks)
        assert block_slots(board, mask) == plain


@pytest.mark.parametrize("seed", range(2))
def test_rolls_feasible_on_moved_paths_gives_the_fresh_verdicts_and_plans_within_the_rolls(seed):
    """A tapped sheet's listing takes its earlier state's paths (less the new crosses) where
    they fit: the verdicts must equal a fresh computation's, and a split found must show
    plans within the rolls (sheet_figures told of the moved paths)."""
    rng = random.Random(8700 + seed)
    mission = MISSIONS["column-relay"]
    sheets = [grow(Sheet.empty(CLASSIC), rng, rng.randint(10, 25)) for _ in range(4)]
    clear_reuse()
    decided = 0
    for step in range(4):
        inst = split_instance(mission, sheets)
        rolls = split.separator_lower_bound(inst, unit_lower_bound(inst), 99, 30)
        for r in (rolls, rolls + 1):
            warm = rolls_feasible(inst, r, budget=100_000, time_limit=60)
            if warm[0]:
                assert not check_split(inst, warm[1])
                assert all(split.figures.upper_cost(inst, p, units)[0] <= r for p, units in enumerate(warm[1]))
            decided += warm[0] is not None
            kept = {cache: cache.snapshot() for cache in
                    (split.listings.MOVED, split.listings.STATES, split.figures.PIECES, split.listings.LISTINGS)}
            clear_reuse()
            assert rolls_feasible(inst, r, budget=100_000, time_limit=60)[0] is warm[0]
            for cache, entries in kept.items():  # (back to the warm caches for the next tap)
                cache.update(entries)
        seat = step % 4
        sheets[seat] = grow(sheets[seat], rng, 3)
    assert decided == 8 and split.listings.MOVED  # (the tapped sheets' listings took moved paths)


def test_a_path_of_fewer_rolls_told_to_sheet_figures_becomes_its_path():
    """tighten_upper (the exact check's and a moved path's way into the plans): sheet_figures
    then answers the fewer rolls, with a crossing order of those cells, each anchored."""
    from nochmal.missions.measures.fits import fits_rolls

    rng = random.Random(8800)
    told = 0
    for _ in range(40):
        clear_reuse()
        sheet = grow(Sheet.empty(CLASSIC), rng, rng.randint(0, 12))
        cols = rng.sample(range(15), rng.randint(2, 4))
        target = sum(CLASSIC.column_mask[c] for c in cols) & ~sheet.crossed
        _, lower, upper, _ = split.sheet_figures(sheet, target)
        if lower == upper:
            continue
        fits, cells = fits_rolls(sheet, target, upper - 1, time_limit=30)
        if not fits:
            continue
        split.figures.tighten_upper(sheet, target, cells)
        _, lower2, upper2, path = split.sheet_figures(sheet, target)
        assert lower2 == lower and upper2 == max(lower, rolls_needed(CLASSIC, cells).upper) < upper
        assert CLASSIC.mask_of(path) == cells
        crossed = sheet
        for name in path:  # each cell anchored when crossed
            bit = CLASSIC.mask_of((name,))
            assert bit & crossed.anchored
            crossed = crossed.cross(bit)
        told += 1
        if told == 3:
            break
    assert told


@pytest.mark.parametrize("seed", range(3))
def test_raise_lower_lifts_to_the_first_roll_count_with_a_split_and_never_below_the_separator_bound(seed):
    rng = random.Random(8900 + seed)
    sheets = [grow(Sheet.empty(CLASSIC), rng, rng.randint(0, 30)) for _ in range(4)]
    inst = split_instance(MISSIONS["column-relay"], sheets)
    lower = unit_lower_bound(inst)
    upper = lower + 3
    clear_reuse()
    bound, found, _ = split.search.raise_lower(inst, lower, upper, 60.0)
    first = next((r for r in range(lower, upper) if rolls_feasible(inst, r, time_limit=60)[0]), upper)
    assert bound == first and bound >= split.separator_lower_bound(inst, lower, upper, 30)
    if found is not None:
        assert not check_split(inst, found)
        assert max(split.figures.upper_cost(inst, p, u)[0] for p, u in enumerate(found)) <= bound


def test_raise_lower_takes_the_separator_bound_where_rolls_feasible_cannot_decide(monkeypatch):
    """(The room of test_status_fast_paths' separator test: its bound lifts 5 to 6.)"""
    sheets = [Sheet.from_cells(CLASSIC, cells).with_all_completions_scored() for cells in
              (["H1", "H3", "H4", "H5", "I5", "H6"], ["H2", "H3", "H4"], ["H1", "H5", "H7"], ["H2", "H3", "H7"])]
    inst = split_instance(MISSIONS["column-relay"], sheets)
    clear_reuse()
    monkeypatch.setattr(split.search, "rolls_feasible", lambda *args, **kwargs: (None, None))
    assert split.search.raise_lower(inst, 5, 9, 30.0) == (6, None, "separator lower bound")
    assert split.search.raise_lower(inst, 6, 9, 30.0) == (6, None, "lower bound")


def test_the_state_caches_key_by_layout_not_by_name_or_object():
    """A board of the same layout shares the figures; one of the same name and another layout
    (a freed board's id may come back for it) never gets them. (A planted entry tells a hit.)"""
    copy = Board.from_dict(CLASSIC.to_dict(), "a copy of classic")
    moved_start = Board.from_dict({**CLASSIC.to_dict(), "start_column": "G"}, "classic, start column G")
    assert moved_start.name == copy.name == CLASSIC.name
    clear_reuse()
    target = CLASSIC.column_mask[7]
    planted = (None, -1, -1, ())
    split.figures.FIGURES.put(split.figures.state_key(CLASSIC, 0, target, 0.0), planted)
    assert split.sheet_figures(Sheet.empty(copy), target) is planted
    assert split.sheet_figures(Sheet.empty(moved_start), target) is not planted
    assert split.sheet_figures(Sheet.empty(moved_start), target)[1] >= 1
    clear_reuse()


def test_layout_ids_and_per_layout_states_stay_bounded_and_ids_are_never_reused(monkeypatch):
    """A server sees one layout per user board: the layout registry keeps the latest
    LAYOUT_IDS.max_entries (here 3) and the split's per-layout states the latest STATES.max_entries (4); a dropped
    layout asked again gets a new id, never one another layout had (caches only miss)."""
    from nochmal import board as board_module

    monkeypatch.setattr(board_module.LAYOUT_IDS, "max_entries", 3)
    monkeypatch.setattr(split.listings.STATES, "max_entries", 4)
    columns = "ABCDEFGIJKLMNO"  # every start column but classic's H: 14 distinct layouts

    def layout(col: str) -> Board:
        return Board.from_dict({**CLASSIC.to_dict(), "start_column": col}, f"start {col}")

    ids = {col: layout(col).layout_id for col in columns[:5]}
    assert len(set(ids.values())) == 5 and len(board_module.LAYOUT_IDS) <= 3
    assert layout("E").layout_id == ids["E"]  # still registered: the same id for a new board
    again = layout("A").layout_id  # dropped: a new id, unused before
    assert again not in ids.values()
    for col in columns:
        split.listings.earlier_state(Sheet.empty(layout(col)))
    assert len(split.listings.STATES) == 4 and len(board_module.LAYOUT_IDS) <= 3
    clear_reuse()
