"""Team planning (solver/team.py) against an exhaustive search through the engine's co-op Game.

The oracle knows nothing of the model: it enumerates every joint legal move per roll with
Game.legal_moves (deduplicating equal positions) and asks the mission's own stop condition
(coop_game) whether the team has won.
"""

from __future__ import annotations

import json
import random
import time

import pytest
from typer.testing import CliRunner

from nochmal.board import Board
from nochmal.cli import app
from nochmal.dice import Roll, seeded_roll
from nochmal.missions.coop import coop_game, mission_result
from nochmal.missions.loader import load_mission
from nochmal.missions.model import Mission, Objective
from nochmal.move import PASS, Move
from nochmal.solver.interrupt import SigintStop
from nochmal.solver.team import (INFEASIBLE, OPTIMAL, TeamPlanError, plan_team, replay_team, solve_earliest,
                                 validate_team_plan)

# the proofs asserted here (status optimal or infeasible, proven) come from CP-SAT's
# deterministic limits, in the CLI's child processes too (tests/conftest.py cpsat_by_work)
pytestmark = pytest.mark.usefixtures("cpsat_by_work")

TINY = Board.from_grid(["ygbyr", "ggBro", "obbrO"], name="tiny", jokers=2)


def _mission(objectives: list[Objective], budget: int, board=TINY) -> Mission:
    budgets = tuple((p, (("easy", budget), ("normal", budget), ("hard", budget))) for p in (1, 2, 3, 4))
    return Mission("t", "test", "user", "test mission", tuple(objectives), budgets, board=board)


def _key(game) -> tuple:
    return tuple((s.crossed, s.jokers_used) for s in game.sheets)


def exhaustive_fewest(mission: Mission, players: int, rolls: list[Roll],
                      prefix: list[list[Move]] = ()) -> int | None:
    """The first roll after which some joint play has won, or None (budget spent); with
    ``prefix``, the play of the first rolls is those moves (per roll per player)."""
    start = coop_game(mission, "normal", players)
    for t, row in enumerate(prefix):
        start.apply_roll(rolls[t])
        while start.current_player() >= 0:
            start.apply_move(row[start.current_player()])
        if start.is_terminal():
            return mission_result(mission, start).won_on
    frontier = {_key(start): start}
    for t in range(len(prefix), start.roll_limit):
        nxt = {}
        for game in frontier.values():
            g = game.clone()
            g.apply_roll(rolls[t])
            stack = [g]
            while stack:
                cur = stack.pop()
                if cur.current_player() < 0:
                    if mission_result(mission, cur).won:
                        return t + 1
                    nxt.setdefault(_key(cur), cur)
                    continue
                for move in cur.legal_moves():
                    child = cur.clone()
                    child.apply_move(move)
                    stack.append(child)
        frontier = nxt
    return None


def _rolls(seed: int, players: int, count: int) -> list[Roll]:
    return [seeded_roll(seed, i, 2 if players == 1 else 3) for i in range(count)]


def _check(mission: Mission, players: int, rolls: list[Roll]):
    expected = exhaustive_fewest(mission, players, rolls)
    plan = plan_team(mission, players, rolls=rolls, difficulty="normal", time_limit=30)
    if expected is None:
        assert plan.status == INFEASIBLE
        assert plan.rolls_needed is None
    else:
        assert plan.status == OPTIMAL
        assert plan.rolls_needed == expected
        assert validate_team_plan(mission, "normal", rolls, plan.moves) == expected
    return plan


CASES = [
    ([Objective("cells", "team", cells=("B2", "E1"))], 4),
    ([Objective("cells", "each", cells=("B2", "D1"))], 5),
    ([Objective("cells", "any", cells=("A3", "E2"))], 4),
    ([Objective("columns", "team", columns=(0, 4))], 5),
    ([Objective("colours", "any", count=1)], 4),
    ([Objective("stars", "each", count=1)], 4),
    ([Objective("score", "team", at_least=tuple((p, 3) for p in (1, 2, 3, 4)))], 4),
    ([Objective("cells", "team", cells=("A1", "E3")),
      Objective("jokers_left", "each", at_least=tuple((p, 2) for p in (1, 2, 3, 4)))], 5),
]


# seeds per case for two players (budget 4, so the active/passive flow of roll 4 is in play);
# chosen to keep the exhaustive oracle quick, with wins and proven failures among them
TWO_PLAYER_SEEDS = {0: (1, 2), 1: (4, 5), 2: (8,), 3: (10,), 4: (13,), 5: (16,), 6: (19, 20), 7: (23,)}


@pytest.mark.parametrize("case", range(len(CASES)))
def test_fewest_rolls_equals_exhaustive_search_one_player(case: int):
    objectives, budget = CASES[case]
    mission = _mission(objectives, budget)
    for seed in (3 * case + 1, 3 * case + 2):
        _check(mission, 1, _rolls(seed, 1, budget))


@pytest.mark.parametrize("case", range(len(CASES)))
def test_fewest_rolls_equals_exhaustive_search_two_players(case: int):
    objectives, _ = CASES[case]
    mission = _mission(objectives, 4)
    for seed in TWO_PLAYER_SEEDS[case]:
        _check(mission, 2, _rolls(seed, 2, 4))


def test_two_player_cases_include_wins_and_failures():
    """Guards the seed table: the oracle must see both outcomes and a win on roll 4."""
    found = [exhaustive_fewest(_mission(CASES[c][0], 4), 2, _rolls(s, 2, 4))
             for c in (0, 1, 2) for s in TWO_PLAYER_SEEDS[c]]
    assert None in found and 4 in found


def test_passive_players_lose_the_dice_the_active_player_took():
    """From roll 4 on, one blue die and one '2' serve only one of two players (the active
    one takes them); in rolls 1-3 both players pick from all the dice."""
    board = Board.from_grid(["yyyyy", "yybyy", "yybyy"], name="col", jokers=0)
    mission = _mission([Objective("cells", "each", cells=("C2", "C3"))], 5, board)
    blue = Roll(("b", "y", "y"), ("2", "1", "1"))
    dull = Roll(("g", "g", "g"), ("1", "1", "1"))  # green: not on this board
    # rolls 1-3 useless, roll 4 lets only the active player take the blue 2, roll 5 too
    rolls = [dull, dull, dull, blue, blue]
    expected = exhaustive_fewest(mission, 2, rolls)
    assert expected == 5  # the oracle agrees one blue pair per roll is not enough for both
    plan = plan_team(mission, 2, rolls=rolls, difficulty="normal", time_limit=30)
    assert plan.rolls_needed == 5 and plan.status == OPTIMAL
    short = _mission(mission.objectives, 4, board)
    assert exhaustive_fewest(short, 2, rolls) is None
    assert plan_team(short, 2, rolls=rolls, difficulty="normal", time_limit=30).status == INFEASIBLE
    free = [dull, dull, blue, blue, blue]  # roll 3 is still a free roll: both take the blue 2
    assert exhaustive_fewest(mission, 2, free) == 3
    assert plan_team(mission, 2, rolls=free, difficulty="normal", time_limit=30).rolls_needed == 3


def test_budget_too_small_is_proven_and_agrees_with_exhaustive_search():
    mission = _mission([Objective("cells", "each", cells=("A1", "E3"))], 2)
    rolls = _rolls(5, 2, 2)
    assert exhaustive_fewest(mission, 2, rolls) is None
    plan = plan_team(mission, 2, rolls=rolls, difficulty="normal", time_limit=30)
    assert plan.status == INFEASIBLE and plan.lower_bound == 3 and plan.moves == []


def test_validator_rejects_a_plan_that_does_not_win():
    mission = _mission([Objective("cells", "team", cells=("B2", "E1"))], 4)
    rolls = _rolls(1, 2, 4)
    with pytest.raises(TeamPlanError):
        validate_team_plan(mission, "normal", rolls, [[PASS, PASS]] * 4)


def test_random_tiny_missions_match_exhaustive_search():
    rng = random.Random(11)
    cells = TINY.cells_of(TINY.full_mask)
    for _ in range(6):
        players = rng.choice([1, 2])
        scope = rng.choice(["team", "each", "any"])
        obj = Objective("cells", scope, cells=tuple(rng.sample(cells, 2)))
        mission = _mission([obj], 4)
        _check(mission, players, _rolls(rng.randrange(1000), players, 4))


MISSION_TOML = """
id = "near-h"
name = "Near H"
source = "user"
description = "Cross two cells next to column H."

[[objectives]]
kind = "cells"
cells = ["H4", "I4"]
scope = "team"

[budgets]
1 = {{ easy = {b}, normal = {b}, hard = {b} }}
2 = {{ easy = {b}, normal = {b}, hard = {b} }}
3 = {{ easy = {b}, normal = {b}, hard = {b} }}
4 = {{ easy = {b}, normal = {b}, hard = {b} }}
"""


def test_classic_board_mission_file_one_player_matches_exhaustive(tmp_path):
    path = tmp_path / "near-h.toml"
    path.write_text(MISSION_TOML.format(b=2))
    mission = load_mission(str(path))
    outcomes = [_check(mission, 1, _rolls(seed, 1, 2)).rolls_needed for seed in (1, 4, 5)]
    assert None in outcomes and 2 in outcomes  # both a proven failure and a win


def test_cli_json_fields_and_replay(tmp_path):
    path = tmp_path / "near-h.toml"
    path.write_text(MISSION_TOML.format(b=6))
    result = CliRunner().invoke(app, ["solve", "--mission", str(path), "--players", "2", "--seed", "4",
                                      "--time-limit", "20", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for key in ("mission", "players", "difficulty", "budget", "seed", "status", "rolls_needed",
                "lower_bound", "proven", "plan"):
        assert key in data
    assert data["players"] == 2 and data["budget"] == 6 and data["seed"] == 4
    mission = load_mission(str(path))
    rolls = _rolls(4, 2, 6)
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
    path.write_text(MISSION_TOML.format(b=2))  # seed 1: no win in 2 rolls (proven); 1 roll is refused on load
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
    text = MISSION_TOML.format(b=8).replace('scope = "team"', 'scope = "each"')
    path.write_text(text.replace('"H4", "I4"', '"H4", "M4"'))  # five columns apart: past roll 3
    mission = load_mission(str(path))
    rolls = _rolls(7, players, 8)
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
    for case, (objectives, budget) in enumerate(CASES):
        mission = _mission(objectives, 4 if players == 2 else budget)
        seed = TWO_PLAYER_SEEDS[case][0] if players == 2 else 3 * case + 1  # seeds the oracle is quick on
        rolls = _rolls(seed, players, 4 if players == 2 else budget)
        expected = exhaustive_fewest(mission, players, rolls)
        with SigintStop() as stop:
            status, won, lower, moves = solve_earliest(TINY, mission, rolls, players, 1,
                                                        time.monotonic() + 30, 1, stop)
        if expected is None:
            assert (status, won, lower) == (INFEASIBLE, None, len(rolls) + 1), case
        else:
            assert (status, won, lower) == (OPTIMAL, expected, expected), case
            assert validate_team_plan(mission, "normal", rolls, moves) == expected
        outcomes.add(expected is None)
    assert outcomes == {True, False}  # both a win and a proven failure were checked


# --- the time limit covers building; an unproven figure is never "the fewest" -----
def _plan_with(status: str, rolls_needed, lower_bound: int, interrupted: bool = False):
    from nochmal.solver.team import TeamPlan

    return TeamPlan("lockstep", 2, "normal", 47, 1, [], status, rolls_needed, lower_bound, wall_time=2.0,
                    interrupted=interrupted)


def test_headline_names_only_a_proven_figure_the_fewest():
    from nochmal.solver.team import FEASIBLE, UNKNOWN, describe_status

    best = describe_status(_plan_with(FEASIBLE, 40, 9))
    assert best.startswith("best found: 40 rolls") and "no plan can win in fewer than 9" in best
    assert "fewest rolls" not in best and "not proven" in best and "time limit" in best
    assert "interrupted" in describe_status(_plan_with(FEASIBLE, 40, 9, interrupted=True))
    assert describe_status(_plan_with(OPTIMAL, 11, 11)).startswith("fewest rolls: 11 of a budget of 47, proven")
    assert describe_status(_plan_with(INFEASIBLE, None, 48)).startswith("budget not enough (proven)")
    assert "fewest rolls" not in describe_status(_plan_with(UNKNOWN, None, 5))


def test_cli_prints_one_headline_without_an_unproven_fewest():
    result = CliRunner().invoke(app, ["solve", "--mission", "lockstep", "--players", "2", "--seed", "1",
                                      "--time-limit", "2"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if "rolls" in line and "budget" in line]
    assert len(lines) == 1
    assert lines[0].startswith("fewest rolls:") == ("proven" in lines[0] and "not proven" not in lines[0])


def test_building_stops_at_the_deadline(monkeypatch):
    """A deadline already passed: no model is built and nothing is solved (the 40-roll
    earliest-win model of lockstep took 14 s to build against a 2 s limit). Seen in what
    runs (no CP-SAT run starts), not in how long it took."""
    import nochmal.solver.team as team
    from nochmal.board import load_board
    from nochmal.solver.team import UNKNOWN
    from nochmal.solver.team_model import OutOfTime, build_team_model

    mission = load_mission("lockstep")
    board = load_board(mission.board)
    rolls = _rolls(1, 2, 40)
    with pytest.raises(OutOfTime):
        build_team_model(board, mission, rolls, 2, deadline=time.monotonic() - 1)
    runs = []
    monkeypatch.setattr(team, "run_team_model", lambda *args, **kwargs: runs.append(args))
    with SigintStop() as stop:
        status, won, lower, moves = solve_earliest(board, mission, rolls, 2, 3, time.monotonic() - 1, 1, stop)
    assert (status, won, lower, moves) == (UNKNOWN, None, 3, None)
    assert runs == []


def test_plan_team_keeps_to_its_time_limit(monkeypatch):
    """A regression check against a solve 7x over its limit (17.7 s for 2 s): every CP-SAT
    run is given at most the time left of the limit, and model building checks the deadline
    as it goes. No wall-clock assertion (speed is measured by benchmarks, not tests)."""
    import nochmal.solver.team as team
    import nochmal.solver.team_model as team_model
    from nochmal.missions.cpsolver import BY_WORK

    monkeypatch.delenv(BY_WORK)  # the wall-clock limit itself is under test here, not a proof
    budgets, checks = [], []
    real_run, real_check = team.run_team_model, team_model.check_deadline
    limit = 2.0

    def run(tm, seconds, *args, **kwargs):
        budgets.append(seconds)
        return real_run(tm, seconds, *args, **kwargs)

    def check(deadline):
        checks.append(deadline)
        return real_check(deadline)

    monkeypatch.setattr(team, "run_team_model", run)
    monkeypatch.setattr(team_model, "check_deadline", check)
    start = time.monotonic()
    plan = plan_team(load_mission("lockstep"), 2, seed=1, time_limit=limit)
    # On a loaded machine model building may use the whole limit, so that no CP-SAT run is
    # left to start (CI once saw none): every run that does start keeps to the time left.
    assert all(b <= limit for b in budgets)
    assert checks and all(d is not None and d <= start + limit + 0.01 for d in checks)
    assert plan.rolls_needed is not None  # the bots' plan at least


# --- the plan as a game record ---------------------------------------------------
def test_a_saved_team_plan_replays_with_verify_and_in_the_web_replay(tmp_path):
    """`solve --mission ... --save plan.json` writes a standard co-op record: `nochmal replay
    --verify` accepts it, its game is won on the plan's roll, and the web app's upload
    (POST /api/records, the /replay page's source) replays it too."""
    from fastapi.testclient import TestClient

    from nochmal.missions.coop import record_game
    from nochmal.record import GameRecord
    from nochmal.web import create_app

    out = tmp_path / "plan.json"
    result = CliRunner().invoke(app, ["solve", "--mission", "lockstep", "--players", "2", "--seed", "1",
                                      "--time-limit", "3", "--json", "--save", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["saved"] == str(out) and data["rolls_needed"] is not None
    verified = CliRunner().invoke(app, ["replay", str(out), "--verify"])
    assert verified.exit_code == 0, verified.output
    assert f"verified: {data['rolls_needed']} turns" in verified.stdout
    record = GameRecord.load(out)
    assert record.mode == "coop" and record.seed == 1 and len(record.players) == 2
    assert record.extra == {"mission": "lockstep", "difficulty": "normal"}
    game = record.verify(str(out), record_game)
    assert mission_result(load_mission("lockstep"), game).won_on == data["rolls_needed"]
    moves = [[Move.parse(m) for m in row["moves"]] for row in data["plan"]]
    # the plan's moves per player (the record keeps them in decision order: active player first)
    assert [[dict(ms)[p] for p in range(2)] for _, ms in record.rolls] == moves
    with TestClient(create_app(tmp_path / "web")) as client:
        summary = client.post("/api/records", files={"file": ("plan.json", out.read_bytes(), "application/json")})
        assert summary.status_code == 200, summary.text
        assert summary.json()["turns"] == data["rolls_needed"] and summary.json()["over"] is True


def test_a_saved_solo_plan_replays_with_verify(tmp_path):
    out = tmp_path / "plan.json"
    result = CliRunner().invoke(app, ["solve", "--seed", "3", "--rolls-count", "8", "--time-limit", "10", "--json",
                                      "--save", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    verified = CliRunner().invoke(app, ["replay", str(out), "--verify"])
    assert verified.exit_code == 0, verified.output
    assert "verified: 8 turns" in verified.stdout
    from nochmal.record import GameRecord

    record = GameRecord.load(out)
    assert record.verify().sheets[0].score() == data["total"]
    assert [str(ms[0][1]) for _, ms in record.rolls] == [s["move"] for s in data["steps"]]


def test_save_errors_are_one_line_and_come_before_the_solve(tmp_path):
    result = CliRunner().invoke(app, ["solve", "--mission", "lockstep", "--players", "2", "--seed", "1",
                                      "--save", str(tmp_path / "no-such-dir" / "p.json")])
    assert result.exit_code == 1 and "does not exist" in result.output
    rec = tmp_path / "g.json"
    from nochmal.agents import GreedyAgent
    from nochmal.board import load_board
    from nochmal.play import play_solo

    play_solo(load_board("classic"), GreedyAgent(), 3).save(rec)
    result = CliRunner().invoke(app, ["solve", "--record", str(rec), "--after-turn", "5", "--save",
                                      str(tmp_path / "p.json")])
    assert result.exit_code == 2 and "--save" in result.output
    mission = tmp_path / "near-h.toml"
    mission.write_text(MISSION_TOML.format(b=2))  # seed 1: no win in 2 rolls (proven)
    result = CliRunner().invoke(app, ["solve", "--mission", str(mission), "--players", "1", "--seed", "1",
                                      "--save", str(tmp_path / "p.json")])
    assert result.exit_code == 1 and "budget not enough (proven)" in result.stdout
    assert "nothing written" in result.output and not (tmp_path / "p.json").exists()


# --- the relaxation's lower bound -----------------------------------------------
def _relax(mission: Mission, players: int, rolls: list[Roll], seconds: float = 20.0) -> int:
    """The relaxation's bound over all the rolls given, without a known win to stop at."""
    from nochmal.board import load_board
    from nochmal.solver.team_relaxation import relaxation_bound

    return relaxation_bound(load_board(mission.board), mission, rolls, players, seconds)


def _check_relaxation(mission: Mission, players: int, rolls: list[Roll]) -> tuple[int, int | None]:
    """The relaxation's bound against the exhaustive fewest rolls (the oracle above): never
    above it, and above the budget only when no play wins at all."""
    bound = _relax(mission, players, rolls)
    fewest = exhaustive_fewest(mission, players, rolls)
    if fewest is None:
        assert bound <= len(rolls) + 1
    else:
        assert 1 <= bound <= fewest, (bound, fewest)
    return bound, fewest


@pytest.mark.parametrize("case", range(len(CASES)))
def test_relaxation_never_above_the_exhaustive_fewest_one_player(case: int):
    objectives, budget = CASES[case]
    mission = _mission(objectives, budget)
    for seed in (3 * case + 1, 3 * case + 2, 3 * case + 3):
        _check_relaxation(mission, 1, _rolls(seed, 1, budget))


@pytest.mark.parametrize("case", range(len(CASES)))
def test_relaxation_never_above_the_exhaustive_fewest_two_players(case: int):
    objectives, _ = CASES[case]
    mission = _mission(objectives, 4)
    for seed in TWO_PLAYER_SEEDS[case]:
        _check_relaxation(mission, 2, _rolls(seed, 2, 4))


@pytest.mark.slow
def test_relaxation_never_above_the_exhaustive_fewest_random_tiny_missions():
    rng = random.Random(20)
    cells = TINY.cells_of(TINY.full_mask)
    bounds = []
    for _ in range(12):
        players = rng.choice([1, 2])
        scope = rng.choice(["team", "each", "any"])
        obj = Objective("cells", scope, cells=tuple(rng.sample(cells, rng.choice([2, 3]))))
        bounds.append(_check_relaxation(_mission([obj], 4), players, _rolls(rng.randrange(1000), players, 4)))
    assert any(b > 1 for b, _ in bounds)  # not only the trivial bound


def test_relaxation_counts_the_dice_one_block_per_roll():
    """Four blue cells of one block (TINY: C1 C2 C3 B3, next to the start column) with only
    blue 1s rolled: one cell per roll, so 4 rolls; the dice-free slot bound says 1."""
    from nochmal.missions.model import rolls_lower_bound

    ones = Roll(("b", "b"), ("1", "1"))
    obj = Objective("cells", "team", cells=("C1", "C2", "C3", "B3"))
    mission = _mission([obj], 5)
    rolls = [ones] * 5
    assert rolls_lower_bound(mission.objectives, TINY, 1) == 1
    assert _relax(mission, 1, rolls) == exhaustive_fewest(mission, 1, rolls) == 4
    # two blocks (the blue one and yellow A1) need two picks: a roll of yellow-or-blue 5s
    # could do each block in one roll, but never both in one roll
    both = _mission([Objective("cells", "team", cells=("C1", "C2", "A1"))], 3)
    fives = [Roll(("b", "y"), ("5", "5"))] * 3
    assert _relax(both, 1, fives) == 2 <= (exhaustive_fewest(both, 1, fives) or 4)


def test_relaxation_bound_beats_cp_sat_on_lockstep_and_is_reported():
    """Lockstep, 2 players, seed 1: the relaxation proves 11 rolls at once (CP-SAT's own bound
    sat at 5-9 after 10 s); the plan reports the larger bound."""
    mission = load_mission("lockstep")
    budget = mission.budget(2, "normal")
    rolls = _rolls(1, 2, budget)
    assert _relax(mission, 2, rolls, seconds=5) >= 11
    plan = plan_team(mission, 2, seed=1, time_limit=1.5)
    assert plan.relaxation_bound >= 11 and plan.lower_bound >= plan.relaxation_bound
    if plan.rolls_needed is not None:
        assert plan.rolls_needed >= plan.lower_bound
        assert validate_team_plan(mission, "normal", rolls, plan.moves) == plan.rolls_needed
    data = plan.to_json()
    assert data["relaxation_bound"] == plan.relaxation_bound and data["lower_bound"] == plan.lower_bound


@pytest.mark.slow
@pytest.mark.parametrize("mission_id", ["lockstep", "star-hunt", "colour-fan", "column-relay", "team-target"])
def test_relaxation_never_above_a_won_bot_game(mission_id: str):
    """An independent oracle on the full board: every game the heuristic bots win (replayed
    through the engine's co-op game) is a real plan, so the relaxation's bound, searched
    without knowing it, is never above its winning roll."""
    from nochmal.solver.team import bot_moves

    mission = load_mission(mission_id)
    checked = 0
    for players in (1, 2, 3):
        budget = mission.budget(players, "easy")
        for seed in (1, 2, 3):
            rolls = _rolls(seed, players, budget)
            moves, won_on = bot_moves(mission, "easy", rolls, players)
            bound = _relax(mission, players, rolls, seconds=4)
            if won_on is not None:
                assert validate_team_plan(mission, "easy", rolls, moves) == won_on
                assert bound <= won_on, (players, seed, bound, won_on)
                checked += 1
            else:
                assert bound <= budget + 1
    assert checked  # the bots won some of these games


# --- planning from a position reached in a game (co-op analysis) ------------------
def _random_prefix(mission: Mission, players: int, rolls: list[Roll], k: int, rng: random.Random):
    """The first k rolls played by random legal moves (stopping early if the game ends)."""
    game = coop_game(mission, "normal", players)
    prefix = []
    for t in range(k):
        if game.is_terminal():
            break
        game.apply_roll(rolls[t])
        row = [PASS] * players
        while game.current_player() >= 0:
            p = game.current_player()
            row[p] = rng.choice(game.legal_moves())
            game.apply_move(row[p])
        prefix.append(row)
    return prefix


@pytest.mark.parametrize("players", [1, 2])
def test_plans_from_a_played_position_equal_exhaustive_search(players: int):
    """plan_team(prefix=...) plans on from the sheets the given moves reached, with the dice
    flow of the roll numbers it starts at: the same fewest rolls as the exhaustive search
    from that position (or the same proof that no win is left)."""
    rng = random.Random(players)
    outcomes = set()
    for case, (objectives, budget) in enumerate(CASES):
        budget = 4 if players == 2 else budget
        mission = _mission(objectives, budget)
        seed = TWO_PLAYER_SEEDS[case][0] if players == 2 else 3 * case + 1
        rolls = _rolls(seed, players, budget)
        prefix = _random_prefix(mission, players, rolls, rng.choice([1, 2]), rng)
        expected = exhaustive_fewest(mission, players, rolls, prefix)
        plan = plan_team(mission, players, rolls=rolls, difficulty="normal", time_limit=30, prefix=prefix)
        assert plan.given == len(prefix)
        if expected is None:
            assert plan.status == INFEASIBLE and plan.rolls_needed is None, (case, plan)
        else:
            assert plan.status == OPTIMAL and plan.rolls_needed == expected, (case, plan, expected)
            assert plan.moves[:len(prefix)] == prefix
            assert validate_team_plan(mission, "normal", rolls, plan.moves) == expected
        outcomes.add(expected is None)
    assert outcomes == {True, False}  # wins and proven failures among the cases


def test_a_known_plan_is_kept_and_the_rolls_after_it_are_not_needed():
    """The rest of a won game is a plan: the planner keeps it (or finds a better one), and
    needs no dice beyond its win."""
    mission = load_mission("lockstep")
    rolls = _rolls(1, 2, mission.budget(2, "normal"))
    moves = plan_team(mission, 2, rolls=rolls, time_limit=5).moves  # the bots' win at least
    won_on = len(moves)
    prefix = moves[:3]
    plan = plan_team(mission, 2, rolls=rolls[:won_on], time_limit=3, prefix=prefix, known=moves)
    assert plan.rolls_needed is not None and plan.rolls_needed <= won_on
    assert plan.moves[:3] == prefix
    assert validate_team_plan(mission, "normal", rolls, plan.moves) == plan.rolls_needed
    with pytest.raises(Exception, match="budget"):
        plan_team(mission, 2, rolls=rolls[:won_on], time_limit=3, prefix=prefix)


def test_a_plan_from_roll_4_keeps_the_dice_flow_of_roll_4():
    """After three rolls played, the plan starts at roll 4: the active/passive dice flow
    applies at once (one blue 2 serves only the active player), as the oracle says."""
    board = Board.from_grid(["yyyyy", "yybyy", "yybyy"], name="col", jokers=0)
    mission = _mission([Objective("cells", "each", cells=("C2", "C3"))], 5, board)
    blue = Roll(("b", "y", "y"), ("2", "1", "1"))
    dull = Roll(("g", "g", "g"), ("1", "1", "1"))  # green: not on this board
    rolls = [dull, dull, dull, blue, blue]
    prefix = [[PASS, PASS]] * 3
    assert exhaustive_fewest(mission, 2, rolls, prefix) == 5  # roll 4 cannot serve both
    plan = plan_team(mission, 2, rolls=rolls, time_limit=30, prefix=prefix)
    assert plan.rolls_needed == 5 and plan.status == OPTIMAL
    short = _mission(mission.objectives, 4, board)
    assert exhaustive_fewest(short, 2, rolls, prefix) is None
    assert plan_team(short, 2, rolls=rolls, time_limit=30, prefix=prefix).status == INFEASIBLE


# --- analyse for co-op records ----------------------------------------------------
def _coop_record(mission, players: int, seed: int, rng: random.Random, pass_weight: float = 0.5):
    """A finished co-op record of random play (passes with probability ``pass_weight``)."""
    from nochmal.missions.coop import mission_record

    game = coop_game(mission, "normal", players)
    t = 0
    while not game.is_terminal():
        game.apply_roll(seeded_roll(seed, t, 2 if players == 1 else 3))
        while game.current_player() >= 0:
            moves = game.legal_moves()
            game.apply_move(PASS if rng.random() < pass_weight else rng.choice(moves))
        t += 1
    return mission_record(mission, "normal", game, ["human"] * players, seed)


def test_coop_analysis_matches_exhaustive_search_per_roll(tmp_path):
    """Per roll of a played co-op game (one player: the exhaustive search on the classic
    board stays small), the fewest rolls to win from the position before it and the rolls
    the moves made cost equal the exhaustive search with the moves before it as played."""
    from nochmal.missions.coop import record_game
    from nochmal.solver.analyse import analyse_coop

    budget = 3
    path = tmp_path / "near-h.toml"
    path.write_text(MISSION_TOML.format(b=budget))
    mission = load_mission(str(path))
    rng = random.Random(1)
    seen = set()
    never = budget + 1

    def fewest(rolls, prefix):
        found = exhaustive_fewest(mission, 1, rolls, prefix)
        return never if found is None else found

    for seed in (1, 4, 5, 7, 9):
        record = _coop_record(mission, 1, seed, rng)
        result = analyse_coop(record, time_limit=20)
        rolls = [seeded_roll(seed, t, 2) for t in range(budget)]  # a won game's record stops at the win
        played = [[ms[0][1]] for _, ms in record.rolls]
        assert [r.roll for r in result.rolls] == list(range(1, len(played) + 1))
        for t, row in enumerate(result.rolls):
            before, after = fewest(rolls, played[:t]), fewest(rolls, played[:t + 1])
            assert row.fewest == row.fewest_low == before, (seed, t, row)
            assert row.lost == row.lost_low == row.lost_high == after - before and row.proven, (seed, t, row)
            seen.add(row.lost > 0)
        assert result.won_on == mission_result(mission, record.verify("r", record_game)).won_on
        assert result.fewest == fewest(rolls, [])
    assert seen == {True, False}  # some rolls cost rolls, some did not


@pytest.mark.slow
def test_coop_analysis_of_a_two_player_game_is_consistent():
    """Lockstep, 2 players, the heuristic bots' game: every roll's figures consistent (no
    oracle at this size): the fewest found never above the roll actually won on, bounds
    below them, and the best plan replays to a win through the engine."""
    from nochmal.missions.coop import mission_record
    from nochmal.solver.analyse import analyse_coop
    from nochmal.solver.team import bot_moves

    mission = load_mission("lockstep")
    rolls = _rolls(2, 2, mission.budget(2, "easy"))
    moves, won_on = bot_moves(mission, "easy", rolls, 2)
    assert won_on is not None
    game = replay_team(mission, "easy", rolls, moves)
    record = mission_record(mission, "easy", game, ["heuristic", "heuristic"], 2)
    result = analyse_coop(record, time_limit=0.5)
    assert result.won_on == won_on and len(result.rolls) == won_on
    assert result.fewest <= won_on and result.fewest_low <= result.fewest
    assert sum(r.lost for r in result.rolls) == won_on - result.fewest
    for r in result.rolls:
        assert r.fewest_low <= r.fewest <= won_on
        assert 0 <= r.lost_low <= r.lost <= r.lost_high, r
        if r.played == r.best:
            assert r.lost == 0, r
    plan = [[Move.parse(m) for m in row] for row in result.plan]
    assert validate_team_plan(mission, "easy", rolls, plan) == result.fewest


def test_ctrl_c_stops_a_coop_analysis_with_the_rolls_so_far(tmp_path):
    """A real SIGINT to `nochmal analyse` of a co-op record: the rolls analysed so far (the
    last ones), marked interrupted, exit code 130, no traceback."""
    import signal
    import subprocess
    import sys

    from nochmal.missions.coop import mission_record
    from nochmal.solver.team import bot_moves

    if sys.platform == "win32":
        pytest.skip("SIGINT to a child process is POSIX")
    mission = load_mission("lockstep")
    rolls = _rolls(2, 2, mission.budget(2, "easy"))
    moves, won_on = bot_moves(mission, "easy", rolls, 2)
    path = tmp_path / "coop.json"
    mission_record(mission, "easy", replay_team(mission, "easy", rolls, moves), ["human", "human"], 2).save(path)
    cmd = [sys.executable, "-c", "from nochmal.cli import app; app()", "analyse", str(path), "--time-limit", "30",
           "--json"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # not a terminal: a line per roll analysed; Ctrl-C once the first roll is done (a fixed
    # sleep raced the start-up on a loaded machine)
    seen = proc.stderr.readline()
    assert seen.startswith("analysing roll"), seen
    proc.send_signal(signal.SIGINT)
    try:  # the rolls left would take far longer than this: it ends by the press, or it hangs
        out, err = proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("nochmal analyse hung after Ctrl-C")
    assert proc.returncode == 130, (out, seen + err)
    assert "Traceback" not in err, err
    data = json.loads(out)
    assert data["interrupted"] is True and 1 < data["first_roll"] <= won_on, data
    assert [r["roll"] for r in data["rolls"]] == list(range(data["first_roll"], won_on + 1))
