"""The fast paths behind a room's full status against slower independent ones.

- missions/measures/steiner.py ``dreyfus_wagner`` runs compiled (missions/measures/_steiner.c): compared with a
  plain per-subset programme (tests/measures_oracle.py).
- missions/measures/crosses.py ``fewest_crosses`` adds terminals lazily from LAZY_FROM terminals on:
  compared with a breadth-first brute force on small boards (LAZY_FROM forced down) and
  with the CP-SAT model alone (tests/measures_oracle.py ``cpsat_fewest_crosses``, stopped by
  a deterministic limit) on classic sheets with many stars open.
- missions/split/ skips CP-SAT when the local-search split meets the lower bound:
  compared with the solver run anyway (``shortcut=False``), for every shipped mission on
  seeded random legal sheets, and the whole room status is checked against the same oracles.
"""

from __future__ import annotations

import random
import zlib

import pytest
from measures_oracle import brute_fewest, brute_fewest_rolls, cpsat_fewest_crosses, plain_dreyfus_wagner
from sheets_support import grow, random_sheet, replay, small_case
from split_oracle import brute_split_rolls

from nochmal.board import load_board
from nochmal.missions.coop import mission_status
from nochmal.missions.cpsolver import BY_WORK
from nochmal.missions.loader import builtin_missions
from nochmal.missions.objectives import items_needed, objective_items
from nochmal.impossible import rolls_needed
from nochmal.missions.model import Mission, Objective
from nochmal.missions.split import (check_split, rolls_feasible, rolls_for, separator_lower_bound, sheet_crosses,
                                    sheet_figures, solve_split,
                                    split_instance, team_plan)
from nochmal.bitsets import bit_list, components
from nochmal.sheet import Sheet
from nochmal.missions.measures import crosses
from nochmal.missions.measures.crosses import fewest_crosses, fewest_crosses_choose
from nochmal.missions.measures.rolls import fewest_rolls
from nochmal.missions.measures.steiner import INF, crossing_order, dreyfus_wagner, reduce_target

CLASSIC = load_board("classic")


# --- batched Dreyfus-Wagner vs a plain one ---------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_batched_dreyfus_wagner_matches_the_plain_recursion(seed):
    rng = random.Random(seed)
    for _ in range(4):
        sheet = random_sheet(CLASSIC, rng, rng.randint(0, 30))
        target = 0
        for b in rng.sample(range(CLASSIC.n_cells), rng.randint(4, 14)):
            target |= 1 << b
        red = reduce_target(sheet, target)
        if not red.terminals:
            continue
        terms = red.terminals[: rng.randint(1, 6)]
        weight = list(red.weight)
        if rng.random() < 0.5:  # the lazy rounds weigh the other terminals 0
            for t in red.terminals[len(terms):]:
                weight[t] = 0
        dp, rebuild = dreyfus_wagner(red, terms, weight)
        want = plain_dreyfus_wagner(red.adj, weight, terms)
        for s, row in want.items():
            assert list(dp[s]) == row
        full = (1 << len(terms)) - 1
        for v in rng.sample(range(len(red.adj)), 5):
            if dp[full][v] >= INF:
                continue
            nodes = rebuild(full, v)
            assert set(terms) | {v} <= nodes
            assert sum(weight[x] for x in nodes) <= dp[full][v]  # shared nodes are counted once
            seen, stack = {v}, [v]
            while stack:  # the node set hangs together
                u = stack.pop()
                for x in red.adj[u]:
                    if x in nodes and x not in seen:
                        seen.add(x)
                        stack.append(x)
            assert seen == nodes


# --- lazy terminals vs brute force and vs CP-SAT ------------------------------------------------
@pytest.mark.parametrize("seed", range(12))
def test_lazy_terminals_match_brute_force_on_small_boards(seed, monkeypatch):
    monkeypatch.setattr(crosses, "LAZY_FROM", 1)  # every instance with 2+ terminals goes the lazy way
    rng = random.Random(1000 + seed)
    board, sheet, target = small_case(rng, 2)
    want = brute_fewest(board, sheet, target)
    for limit, time_limit in ((12, 5.0), (12, 0.0), (2, 0.0)):
        crosses.RECENT.clear()  # each call does its own search
        est = fewest_crosses(sheet, target, exact_limit=limit, time_limit=time_limit)
        assert est.lower <= want <= est.upper
        if limit == 12:  # (every terminal in the programme: proven without a timed CP-SAT run)
            assert est.exact and est.value == want and "cp-sat" not in est.method
        final = replay(sheet, est.cells)
        assert final.crossed & target == target and len(est.cells) == est.upper


@pytest.mark.parametrize("seed", range(4))
def test_lazy_terminals_match_cp_sat_on_classic_stars(seed):
    """9-15 open stars: the lazy programme's figure equals the CP-SAT model's proven optimum."""
    rng = random.Random(2000 + seed)
    sheet = random_sheet(CLASSIC, rng, rng.randint(0, 20))
    crosses.RECENT.clear()  # the lazy rounds themselves, not a remembered answer
    fast = fewest_crosses(sheet, CLASSIC.star_mask)
    assert fast.exact and "cp-sat" not in fast.method  # proven by the programme, not by a timed CP-SAT run
    assert cpsat_fewest_crosses(sheet, CLASSIC.star_mask) == (fast.value, fast.value)
    final = replay(sheet, fast.cells)
    assert final.crossed & CLASSIC.star_mask == CLASSIC.star_mask and len(fast.cells) == fast.value


# --- the split's shortcut and the whole status, every shipped mission ----------------------------
def room_sheets(rng: random.Random, players: int, most: int) -> list[Sheet]:
    return [random_sheet(CLASSIC, rng, rng.randint(0, most)) for _ in range(players)]


@pytest.mark.slow
@pytest.mark.usefixtures("cpsat_by_work")  # the split's run by work (cpsolver.Deadline): the same shortcuts anywhere
@pytest.mark.parametrize("mission", [m for m in builtin_missions()], ids=lambda m: m.id)
def test_split_shortcut_agrees_with_the_solver_for_every_shipped_mission(mission, monkeypatch):
    rng = random.Random(zlib.crc32(mission.id.encode()))
    shortcuts = 0
    for _ in range(3):
        sheets = room_sheets(rng, 4, 25)
        inst = split_instance(mission, sheets)
        fast = solve_split(inst)
        with monkeypatch.context() as shipped:  # the oracle on the wall clock: only its validity is asserted
            shipped.delenv(BY_WORK)  # (so its limit is short: its figures need not be exact to be checked)
            slow = solve_split(inst, time_limit=6, shortcut=False)
        # both are valid: the intervals share a value (equal figures where both are exact), the
        # plans are real splits
        assert max(fast.rolls_lower, slow.rolls_lower) <= min(fast.rolls_upper, slow.rolls_upper)
        for split in (fast, slow):
            assert not check_split(inst, [plan.units for plan in split.plans])
            for p, plan in enumerate(split.plans):
                if plan.units:
                    target = 0
                    for u in plan.units:
                        target |= inst.units[u].masks[p]
                    assert replay(sheets[p], plan.crosses.cells).crossed & target == target
            assert split.rolls_upper == max((plan.rolls for plan in split.plans), default=0)
        shortcuts += "meets the" in fast.method and "lower bound" in fast.method
    if mission.id in ("star-hunt", "column-relay"):
        # the piece search (measures.rolls.fewest_rolls) makes the per-sheet rolls meet, and the
        # listed subsets (rolls_feasible) then prove the split's rolls without CP-SAT
        assert shortcuts


@pytest.mark.slow
@pytest.mark.parametrize("mission", [m for m in builtin_missions()], ids=lambda m: m.id)
def test_room_status_figures_match_independent_oracles_for_every_shipped_mission(mission):
    """mission_status's per-sheet figures (lazy Dreyfus-Wagner, batched) against the CP-SAT
    model alone, and the team plan's rolls against the split solver run without shortcut."""
    rng = random.Random(7 + len(mission.id))
    sheets = room_sheets(rng, 4, 15)
    st = mission_status(mission, "normal", sheets, rolls_used=15)  # 15 crosses take at most 15 rolls
    assert not any(st.impossible)
    for obj, status in zip(mission.objectives, st.objectives):
        if obj.kind == "score":  # the score bound counts the colours a sheet could still finish
            for sheet in sheets:
                for colour in "ygbro":
                    mask = CLASSIC.colour_mask[colour]
                    if mask & ~sheet.crossed:
                        fast = sheet_crosses(sheet, mask)
                        oracle = fewest_crosses(sheet, mask, exact_limit=0, time_limit=60)
                        assert fast.lower <= oracle.upper and oracle.lower <= fast.upper
        if obj.kind in ("score", "jokers_left"):
            continue
        items = objective_items(obj, CLASSIC)
        need = items_needed(obj, items)
        pooled = [any(m & ~s.crossed == 0 for s in sheets) for _, m in items]
        for p, sheet in enumerate(sheets):
            est = status.crosses[p]
            if obj.scope == "team":
                open_masks = [m for (_, m), done in zip(items, pooled) if not done]
                more = need - sum(pooled)
            else:
                open_masks = [m for _, m in items if m & ~sheet.crossed]
                more = need - (len(items) - len(open_masks))
            if more <= 0:
                assert est.value == 0
                continue
            if more < len(open_masks):
                oracle = fewest_crosses_choose(sheet, open_masks, more, exact_limit=0, time_limit=60)
            else:
                oracle = fewest_crosses(sheet, sum(open_masks), exact_limit=0, time_limit=60)
            assert max(est.lower, oracle.lower) <= min(est.upper, oracle.upper)  # (equal where both exact)
    plan = team_plan(mission, sheets, st.rolls_left)
    slow = solve_split(split_instance(mission, sheets), time_limit=20, shortcut=False)
    assert max(plan.split.rolls_lower, slow.rolls_lower) <= min(plan.split.rolls_upper, slow.rolls_upper)
    assert plan.split.rolls_upper == max((p.rolls for p in plan.split.plans), default=0)
    assert all(p.rolls >= rolls_for(p.crosses.upper) for p in plan.split.plans)


# --- fewest rolls (one block a roll) vs brute force ------------------------------------------------
@pytest.mark.parametrize("seed", range(16))
def test_fewest_rolls_bounds_hold_against_brute_force(seed):
    """fewest_rolls' lower bound never exceeds the fewest rolls, its cells are a legal set of
    new crosses (every piece anchored) holding the target and taking ``upper`` pieces."""
    rng = random.Random(7000 + seed)
    board, sheet, target = small_case(rng, 1)
    want = brute_fewest_rolls(sheet, target)
    for limit in (8, 1, 0):  # all terminals exact, one, none (the others at their weight)
        est = fewest_rolls(sheet, target, exact_limit=limit)
        assert est.lower <= want <= est.upper, (limit, est, want)
        assert est.cells & target == target & ~sheet.crossed and not est.cells & sheet.crossed
        assert all(piece & sheet.anchored for piece in components(est.cells, board.neighbour_mask))
        assert rolls_needed(board, est.cells).upper == est.upper


def test_sheet_figures_rolls_match_a_brute_force_where_they_meet():
    """The split's per-sheet rolls (sheet_figures) on small boards: within the brute force,
    equal to it when proven, and the path takes the upper figure's rolls."""
    met = 0
    for seed in range(12):
        rng = random.Random(7500 + seed)
        board, sheet, target = small_case(rng, 2)
        want = brute_fewest_rolls(sheet, target)
        _, lower, upper, path = sheet_figures(sheet, target)
        assert lower <= want <= upper
        assert rolls_needed(board, board.mask_of(path)).upper <= upper
        assert replay(sheet, path).crossed & target == target
        met += lower == upper
    assert met >= 10  # (measured: all 12 meet; without the piece search, crosses and block slots met in 3)


# --- the separator lower bound and rolls_feasible vs brute force ------------------------------------------------
@pytest.mark.parametrize("seed", range(10))
@pytest.mark.usefixtures("cpsat_by_work")  # rolls_feasible's verdicts (proofs) from CP-SAT's work, not the clock
def test_lower_bounds_and_listed_splits_match_the_brute_force_optimum(seed):
    rng = random.Random(3000 + seed)
    objectives = [Objective("columns", "team", columns=(0, 1, 2, 12, 13, 14)),
                  Objective("columns", "team", columns=(3, 4, 5, 6, 8)),
                  Objective("columns", "each", columns=(0, 1, 14)),
                  Objective("cells", "team", cells=("A1", "B1", "C1", "O7", "N7")),
                  Objective("stars", "team", count=15)]
    budgets = tuple((p, (("easy", 30), ("normal", 20), ("hard", 10))) for p in (1, 2, 3, 4))
    for _ in range(40):  # draw until the case is small enough for the brute force
        n = rng.choice([2, 3])
        sheets = room_sheets(rng, n, 60)
        obj = rng.choice(objectives)
        inst = split_instance(Mission("t", "T", "user", "a test", (obj,), budgets), sheets)
        if inst.demands and len(inst.units) <= 6:
            break
    else:
        pytest.skip("no small case drawn")
    low, want = brute_split_rolls(inst)
    assert separator_lower_bound(inst, 0, want + 3, time_limit=30) <= low
    if low > 0:  # listing every subset that fits: no split within low - 1 rolls, one within want
        assert rolls_feasible(inst, low - 1, budget=100_000, time_limit=30)[0] is False
    feasible, assignment = rolls_feasible(inst, want, budget=100_000, time_limit=30)
    assert feasible is True and not check_split(inst, assignment)
    for p, units in enumerate(assignment):
        if units:
            target = 0
            for u in units:
                target |= inst.units[u].masks[p]
            assert sheet_figures(inst.sheets[p], target)[2] <= want
    fast = solve_split(inst)
    assert fast.rolls_lower <= want <= fast.rolls_upper  # (equal to the brute force's upper figure where exact)


@pytest.mark.usefixtures("cpsat_by_work")  # the separator bound's proofs from CP-SAT's work, not the clock
def test_separator_bound_proves_column_relay_where_the_sizes_cannot():
    """Four sheets with a few crosses in column H: the units' sizes allow 5 rolls (99 cells,
    4 x 25 crosses), but a sheet must cross a cell of every column between its own and H."""
    mission = next(m for m in builtin_missions() if m.id == "column-relay")
    sheets = [Sheet.from_cells(CLASSIC, cells).with_all_completions_scored() for cells in
              (["H1", "H3", "H4", "H5", "I5", "H6"], ["H2", "H3", "H4"], ["H1", "H5", "H7"], ["H2", "H3", "H7"])]
    inst = split_instance(mission, sheets)
    assert separator_lower_bound(inst, 0, 5, time_limit=30) == 5  # stops at the upper end it is given
    assert separator_lower_bound(inst, 5, 9, time_limit=30) == 6
    split = solve_split(inst)
    # the separator bound holds; one block a roll (missions/split/figures.py sheet_figures) makes it more
    assert 6 <= split.rolls_lower <= split.rolls_upper


@pytest.mark.parametrize("seed", range(3))
def test_remembered_answers_bound_the_figure_from_both_sides(seed):
    """An earlier state of a sheet (fewer crosses, a larger team target) gives bounds for the
    later one (missions/measures/crosses.py remembered_bounds): the upper one must be a real
    solution, both must hold the CP-SAT model's optimum, and the figure must stay that optimum."""
    rng = random.Random(4000 + seed)
    earlier = random_sheet(CLASSIC, rng, rng.randint(0, 6))
    fewest_crosses(earlier, CLASSIC.star_mask)  # remembered
    for _ in range(3):
        later = grow(earlier, rng, rng.randint(0, 6))  # the same sheet after a few more crosses
        target = CLASSIC.star_mask
        for b in rng.sample(bit_list(CLASSIC.star_mask), rng.randint(0, 3)):  # stars another sheet finished
            target &= ~(1 << b)
        red = reduce_target(later, target)
        lower, upper, nodes = crosses.remembered_bounds(later, red)
        oracle, proven = cpsat_fewest_crosses(later, target)
        assert oracle == proven and lower <= oracle <= upper
        if nodes is not None:
            assert set(red.terminals) <= nodes
            cells = red.base_mask
            for v in nodes:
                cells |= red.members[v]
            assert cells.bit_count() == upper
            assert replay(later, crossing_order(later, cells)).crossed & target == target
        fast = fewest_crosses(later, target)
        assert fast.exact and "cp-sat" not in fast.method and fast.value == oracle
