"""The team split (missions/split/) against a brute-force oracle on small cases.

The oracle tries every assignment of the missing units to the sheets allowed to take them,
keeps those that meet every demand (check_split, which knows no solver) and takes the
fewest rolls, each sheet paying ``fewest_crosses`` of its union (exact on these small cases)
at 5 crosses and one block a roll.
"""

from __future__ import annotations

import random

import pytest
from sheets_support import random_sheet
from split_oracle import brute_split_rolls

from nochmal.board import load_board
from nochmal.missions.model import Mission, Objective, block_slots
from nochmal.missions.split import (check_split, sheet_figures, solve_split, split_instance, team_plan)
from nochmal.sheet import Sheet
from nochmal.missions.measures.crosses import fewest_crosses

BOARD = load_board("classic")


def mission(*objectives: Objective) -> Mission:
    budgets = tuple((p, (("easy", 30), ("normal", 20), ("hard", 10))) for p in (1, 2, 3, 4))
    return Mission("test", "Test", "user", "a test mission", tuple(objectives), budgets)


OBJECTIVES = [
    Objective("stars", "team", count=15),
    Objective("stars", "team", count=12),
    Objective("columns", "team", columns=(0, 1, 12, 13, 14)),
    Objective("columns", "each", columns=(5, 6, 8)),
    Objective("cells", "any", cells=("A1", "O7", "C4")),
    Objective("colours", "team", count=3),
    Objective("cells", "team", cells=("A1", "O7", "C4", "L2", "F6")),
    Objective("columns", "team", columns=(0, 13, 14)),
]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("model", ["subsets", "cells"])
@pytest.mark.usefixtures("cpsat_by_work")  # the split's exact figure and optimum from CP-SAT's work, not the clock
def test_split_matches_brute_force(seed, model):
    rng = random.Random(seed)
    n = rng.choice([2, 3])
    for _ in range(50):  # draw until the case is small enough for the oracle
        sheets = [random_sheet(BOARD, rng, rng.randint(25, 80)) for _ in range(n)]
        obj = rng.choice(OBJECTIVES)
        inst = split_instance(mission(obj), sheets)
        sizes = [sum(1 for p in range(n) if u.masks[p] is not None) + 1 for u in inst.units]
        work = 1
        for s in sizes:
            work *= s
        if inst.demands and work <= 4000 and max(len([u for u in inst.units if u.masks[p] is not None])
                                                 for p in range(n)) <= 6:
            break
    else:
        pytest.skip("no small case drawn")
    low, high = brute_split_rolls(inst)
    split = solve_split(inst, time_limit=20, model=model)
    assert split.rolls_lower <= high <= split.rolls_upper  # a valid bound; the split is one assignment
    assert split.rolls_upper >= low
    if model == "subsets":  # it minimises over the same figures
        assert split.rolls_upper == high
    if low == high:
        assert split.exact, split.method
        assert split.rolls_upper == high
    assignment = [plan.units for plan in split.plans]
    assert check_split(inst, assignment) == []
    for p, plan in enumerate(split.plans):  # each path is a legal crossing order covering its units
        sheet = inst.sheets[p]
        for cell in plan.crosses.cells:
            bit = BOARD.bit(cell)
            assert sheet.anchored >> bit & 1 and not sheet.crossed >> bit & 1
            sheet = sheet.cross(1 << bit)
        for u in plan.units:
            assert inst.units[u].masks[p] & ~sheet.crossed == 0


def test_empty_sheets_bounds_hold_and_star_hunt_is_split():
    m = mission(Objective("stars", "team", count=15))
    sheets = [Sheet.empty(BOARD) for _ in range(3)]
    plan = team_plan(m, sheets, rolls_left=20, time_limit=2)
    split = plan.split
    assert split.rolls_lower <= split.rolls_upper
    assert check_split(split.instance, [p.units for p in split.plans]) == []
    # one sheet alone needs at least 15 rolls (the 15 stars lie in 15 blocks, one block a roll;
    # the piece search proves more: some star blocks only connect through other blocks);
    # three sheets share them: at least 5 rolls each, and a split does far better than alone
    alone = sheet_figures(sheets[0], BOARD.star_mask)
    assert alone[1] >= 15 and alone[1] == alone[2] and split.rolls_lower >= 5
    assert split.rolls_upper < alone[1]
    for sheet_plan in split.plans:  # each sheet's rolls are at least its stars' blocks
        assert sheet_plan.rolls >= block_slots(BOARD, BOARD.mask_of(sheet_plan.crosses.cells) & BOARD.star_mask)
    assert not plan.lost_early


def test_lost_early_when_the_split_or_the_score_bound_cannot_make_it():
    m = mission(Objective("columns", "each", columns=(0, 14)))
    sheets = [Sheet(BOARD, 0, jokers_used=1), Sheet.empty(BOARD)]
    plan = team_plan(m, sheets, rolls_left=2, time_limit=2)
    # columns A and O from an empty sheet take far more than 2 rolls x 5 crosses
    assert any("needs at least" in r and "only 2 left" in r for r in plan.lost_early)
    assert not team_plan(m, sheets, rolls_left=40, time_limit=2).lost_early
    target = mission(Objective("score", "team", at_least=tuple((p, 30) for p in (1, 2, 3, 4))))
    short = team_plan(target, sheets, rolls_left=1)
    assert short.score_bounds[0]["best_reachable"] < 30
    assert any("points still reachable in 1 roll" in r for r in short.lost_early)
    assert not team_plan(target, sheets, rolls_left=25).lost_early


def test_score_bound_is_an_upper_bound_of_a_real_finish():
    rng = random.Random(3)
    sheet = random_sheet(BOARD, rng, 60)
    from nochmal.missions.split import best_score_bound
    from nochmal.missions.objectives import team_score
    bound = best_score_bound(sheet, 3)
    # crossing 15 more cells along any legal path cannot beat the bound
    for trial in range(20):
        s = sheet
        for _ in range(15):
            options = [b for b in range(BOARD.n_cells) if s.anchored >> b & 1 and not s.crossed >> b & 1]
            if not options:
                break
            s = s.cross(1 << rng.choice(options))
        assert team_score(s.with_all_completions_scored()) <= bound
    assert best_score_bound(sheet, 0) == team_score(sheet)


def test_cli_status_prints_the_split_and_the_early_loss(tmp_path):
    import json

    from typer.testing import CliRunner

    from nochmal.cli import app

    (tmp_path / "a.txt").write_text("H1 H2 H3 H4 H5 H6 H7 G1\n")
    (tmp_path / "b.txt").write_text("H4\n")
    files = [str(tmp_path / "a.txt"), str(tmp_path / "b.txt")]
    runner = CliRunner()
    res = runner.invoke(app, ["mission", "status", "lockstep", "-d", "hard", "-k", "40", *files, "--json"])
    data = json.loads(res.stdout)
    assert data["state"] == "lost"
    assert data["team"]["lost_early"] and "only 2 left" in data["team"]["lost_reasons"][0]
    split = data["team"]["split"]
    assert [s["items"] for s in split["sheets"]] == [["column G", "column I"], ["column G", "column H", "column I"]]
    res = runner.invoke(app, ["mission", "status", "lockstep", "-d", "hard", "-k", "10", *files])
    assert res.exit_code == 0
    assert "who should do what" in res.stdout and "sheet 2: column G, column H, column I" in res.stdout


def test_a_score_target_has_no_split_but_its_score_bound():
    """No cell objectives (team-target): no 'nothing left to split: every cell objective is
    met' while the team is points short; the plan points to the best score still reachable."""
    from nochmal.missions.loader import load_mission

    plan = team_plan(load_mission("team-target"), [Sheet.empty(BOARD), Sheet.empty(BOARD)], rolls_left=20)
    data = plan.to_dict()
    assert data["split"]["has_cells"] is False
    text = "\n".join(plan.lines())
    assert "no cell objectives" in text and "every cell objective is met" not in text
    assert "best still reachable at most" in text
    met = team_plan(mission(Objective("columns", "each", columns=(7,))), [Sheet.from_cells(BOARD, [f"H{r}" for r in range(1, 8)])], 5)
    assert met.to_dict()["split"]["has_cells"] is True and "every cell objective is met" in met.lines()[1]
