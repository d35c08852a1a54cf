"""Team planning from a position reached in a game, and the co-op analysis of a record
(solver/team.py, planner/): both against the exhaustive search of tests/planner_support.py."""

from __future__ import annotations

import json
import random
import time

import pytest

from nochmal.board import Board
from nochmal.cli import app
from nochmal.dice import Roll, seeded_roll
from nochmal.missions.coop import coop_game, mission_result
from nochmal.missions.loader import load_mission
from nochmal.missions.model import Mission, Objective
from nochmal.move import PASS, Move
from nochmal.solver.team import INFEASIBLE, OPTIMAL, plan_team, replay_team, validate_team_plan

from planner_support import TEAM_CASES, TWO_PLAYER_SEEDS, exhaustive_fewest, near_h_toml, team_mission, team_rolls

# the proofs asserted here (status optimal or infeasible, proven) come from CP-SAT's
# deterministic limits, in the CLI's child processes too (tests/conftest.py cpsat_by_work)
pytestmark = pytest.mark.usefixtures("cpsat_by_work")


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
    for case, (objectives, budget) in enumerate(TEAM_CASES):
        budget = 4 if players == 2 else budget
        mission = team_mission(objectives, budget)
        seed = TWO_PLAYER_SEEDS[case][0] if players == 2 else 3 * case + 1
        rolls = team_rolls(seed, players, budget)
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
    rolls = team_rolls(1, 2, mission.budget(2, "normal"))
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
    mission = team_mission([Objective("cells", "each", cells=("C2", "C3"))], 5, board)
    blue = Roll(("b", "y", "y"), ("2", "1", "1"))
    dull = Roll(("g", "g", "g"), ("1", "1", "1"))  # green: not on this board
    rolls = [dull, dull, dull, blue, blue]
    prefix = [[PASS, PASS]] * 3
    assert exhaustive_fewest(mission, 2, rolls, prefix) == 5  # roll 4 cannot serve both
    plan = plan_team(mission, 2, rolls=rolls, time_limit=30, prefix=prefix)
    assert plan.rolls_needed == 5 and plan.status == OPTIMAL
    short = team_mission(mission.objectives, 4, board)
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
    path.write_text(near_h_toml(budget))
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
    rolls = team_rolls(2, 2, mission.budget(2, "easy"))
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
    rolls = team_rolls(2, 2, mission.budget(2, "easy"))
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
