"""Team planning (solver/team.py) against an exhaustive search through the engine's co-op Game.

The oracle (tests/planner_support.py exhaustive_fewest) knows nothing of the model: it
enumerates every joint legal move per roll with Game.legal_moves (deduplicating equal
positions) and asks the mission's own stop condition (coop_game) whether the team has won.
"""

from __future__ import annotations

import json
import random

import pytest
from typer.testing import CliRunner

from nochmal.board import Board
from nochmal.cli import app
from nochmal.dice import Roll
from nochmal.missions.coop import mission_result
from nochmal.missions.cpsolver import Deadline
from nochmal.missions.loader import load_mission
from nochmal.missions.model import Objective
from nochmal.move import PASS, Move
from nochmal.solver.interrupt import SigintStop
from nochmal.solver.team import (INFEASIBLE, OPTIMAL, TeamPlanError, plan_team, replay_team, solve_earliest,
                                 validate_team_plan)

from planner_support import (TEAM_CASES, TINY, TWO_PLAYER_SEEDS, case_instances, check_team_plan, exhaustive_fewest,
                             near_h_toml, team_mission, team_rolls)

# the proofs asserted here (status optimal or infeasible, proven) come from CP-SAT's
# deterministic limits, in the CLI's child processes too (tests/conftest.py cpsat_by_work)
pytestmark = pytest.mark.usefixtures("cpsat_by_work")


@pytest.mark.parametrize("players", [1, 2])
@pytest.mark.parametrize("case", range(len(TEAM_CASES)))
def test_fewest_rolls_equals_exhaustive_search(case: int, players: int):
    for mission, rolls in case_instances(case, players):
        check_team_plan(mission, players, rolls)


def test_two_player_cases_include_wins_and_failures():
    """Guards the seed table: the oracle must see both outcomes and a win on roll 4."""
    found = [exhaustive_fewest(team_mission(TEAM_CASES[c][0], 4), 2, team_rolls(s, 2, 4))
             for c in (0, 1, 2) for s in TWO_PLAYER_SEEDS[c]]
    assert None in found and 4 in found


def test_passive_players_lose_the_dice_the_active_player_took():
    """From roll 4 on, one blue die and one '2' serve only one of two players (the active
    one takes them); in rolls 1-3 both players pick from all the dice."""
    board = Board.from_grid(["yyyyy", "yybyy", "yybyy"], name="col", jokers=0)
    mission = team_mission([Objective("cells", "each", cells=("C2", "C3"))], 5, board)
    blue = Roll(("b", "y", "y"), ("2", "1", "1"))
    dull = Roll(("g", "g", "g"), ("1", "1", "1"))  # green: not on this board
    # rolls 1-3 useless, roll 4 lets only the active player take the blue 2, roll 5 too
    rolls = [dull, dull, dull, blue, blue]
    expected = exhaustive_fewest(mission, 2, rolls)
    assert expected == 5  # the oracle agrees one blue pair per roll is not enough for both
    plan = plan_team(mission, 2, rolls=rolls, difficulty="normal", time_limit=30)
    assert plan.rolls_needed == 5 and plan.status == OPTIMAL
    short = team_mission(mission.objectives, 4, board)
    assert exhaustive_fewest(short, 2, rolls) is None
    assert plan_team(short, 2, rolls=rolls, difficulty="normal", time_limit=30).status == INFEASIBLE
    free = [dull, dull, blue, blue, blue]  # roll 3 is still a free roll: both take the blue 2
    assert exhaustive_fewest(mission, 2, free) == 3
    assert plan_team(mission, 2, rolls=free, difficulty="normal", time_limit=30).rolls_needed == 3


def test_budget_too_small_is_proven_and_agrees_with_exhaustive_search():
    mission = team_mission([Objective("cells", "each", cells=("A1", "E3"))], 2)
    rolls = team_rolls(5, 2, 2)
    assert exhaustive_fewest(mission, 2, rolls) is None
    plan = plan_team(mission, 2, rolls=rolls, difficulty="normal", time_limit=30)
    assert plan.status == INFEASIBLE and plan.lower_bound == 3 and plan.moves == []


def test_validator_rejects_a_plan_that_does_not_win():
    mission = team_mission([Objective("cells", "team", cells=("B2", "E1"))], 4)
    rolls = team_rolls(1, 2, 4)
    with pytest.raises(TeamPlanError):
        validate_team_plan(mission, "normal", rolls, [[PASS, PASS]] * 4)


def test_random_tiny_missions_match_exhaustive_search():
    rng = random.Random(11)
    cells = TINY.cells_of(TINY.full_mask)
    for _ in range(6):
        players = rng.choice([1, 2])
        scope = rng.choice(["team", "each", "any"])
        obj = Objective("cells", scope, cells=tuple(rng.sample(cells, 2)))
        mission = team_mission([obj], 4)
        check_team_plan(mission, players, team_rolls(rng.randrange(1000), players, 4))


def test_classic_board_mission_file_one_player_matches_exhaustive(tmp_path):
    path = tmp_path / "near-h.toml"
    path.write_text(near_h_toml(2))
    mission = load_mission(str(path))
    outcomes = [check_team_plan(mission, 1, team_rolls(seed, 1, 2)).rolls_needed for seed in (1, 4, 5)]
    assert None in outcomes and 2 in outcomes  # both a proven failure and a win


def test_cli_json_fields_and_replay(tmp_path):
    path = tmp_path / "near-h.toml"
    path.write_text(near_h_toml(6))
    result = CliRunner().invoke(app, ["solve", "--mission", str(path), "--players", "2", "--seed", "4",
                                      "--time-limit", "20", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for key in ("mission", "players", "difficulty", "budget", "seed", "status", "rolls_needed",
                "lower_bound", "proven", "plan"):
        assert key in data
    assert data["players"] == 2 and data["budget"] == 6 and data["seed"] == 4
    mission = load_mission(str(path))
    rolls = team_rolls(4, 2, 6)
    assert data["status"] in ("optimal", "infeasible")  # a tiny case is proven within 20 s
    assert data["proven"] is True
    if data["rolls_needed"] is not None:
        assert len(data["plan"]) == data["rolls_needed"]
        moves = [[Move.parse(m) for m in row["moves"]] for row in data["plan"]]
        game = replay_team(mission, "normal", rolls, moves)
        assert mission_result(mission, game).won_on == data["rolls_needed"]
        assert data["lower_bound"] == data["rolls_needed"]


def test_cli_text_output_and_unknown_mission(tmp_path):
    path = tmp_path / "near-h.toml"
    path.write_text(near_h_toml(2))  # seed 1: no win in 2 rolls (proven); 1 roll is refused on load
    result = CliRunner().invoke(app, ["solve", "--mission", str(path), "--players", "1", "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert "budget not enough (proven)" in result.stdout
    result = CliRunner().invoke(app, ["solve", "--mission", "no-such-mission", "--players", "2", "--seed", "1"])
    assert result.exit_code == 1
    assert "no such mission" in result.output


@pytest.mark.parametrize("players", [3, 4])
def test_three_and_four_player_plans_pass_the_engine_replay(tmp_path, players: int):
    """No exhaustive oracle at this size: the plan must win through the engine on exactly
    its last roll, and one roll fewer must be proven impossible (status optimal)."""
    path = tmp_path / "near-h.toml"
    text = near_h_toml(8).replace('scope = "team"', 'scope = "each"')
    path.write_text(text.replace('"H4", "I4"', '"H4", "M4"'))  # five columns apart: past roll 3
    mission = load_mission(str(path))
    rolls = team_rolls(7, players, 8)
    plan = plan_team(mission, players, rolls=rolls, difficulty="normal", time_limit=30)
    assert plan.status == OPTIMAL  # (a win within the 8 rolls, proven by work done: every run alike)
    assert validate_team_plan(mission, "normal", rolls, plan.moves) == plan.rolls_needed
    assert plan.lower_bound == plan.rolls_needed
    assert len(plan.moves[0]) == players
    assert plan.rolls_needed > 3  # the active/passive dice flow is in play


@pytest.mark.parametrize("players", [1, 2])
def test_earliest_win_model_alone_equals_exhaustive_search(players: int):
    """The earliest-win optimisation over all rolls (no feasibility checks, no bots' plan in
    front of it) finds exactly the exhaustive fewest rolls, or proves there is no win."""
    outcomes = set()
    for case, (objectives, budget) in enumerate(TEAM_CASES):
        mission = team_mission(objectives, 4 if players == 2 else budget)
        seed = TWO_PLAYER_SEEDS[case][0] if players == 2 else 3 * case + 1  # seeds the oracle is quick on
        rolls = team_rolls(seed, players, 4 if players == 2 else budget)
        expected = exhaustive_fewest(mission, players, rolls)
        with SigintStop() as stop:
            status, won, lower, moves = solve_earliest(TINY, mission, rolls, players, 1,
                                                        Deadline(30), 1, stop)
        if expected is None:
            assert (status, won, lower) == (INFEASIBLE, None, len(rolls) + 1), case
        else:
            assert (status, won, lower) == (OPTIMAL, expected, expected), case
            assert validate_team_plan(mission, "normal", rolls, moves) == expected
        outcomes.add(expected is None)
    assert outcomes == {True, False}  # both a win and a proven failure were checked
