"""Team planning (solver/team.py) within its time limit: the limit covers building the model,
and a figure not proven is never called the fewest."""

from __future__ import annotations

import time

import pytest
from typer.testing import CliRunner

from nochmal.cli import app
from nochmal.missions.cpsolver import Deadline
from nochmal.missions.loader import load_mission
from nochmal.solver.interrupt import SigintStop
from nochmal.solver.team import INFEASIBLE, OPTIMAL, plan_team, solve_earliest

from planner_support import team_rolls

# the proofs asserted here (status optimal or infeasible, proven) come from CP-SAT's
# deterministic limits, in the CLI's child processes too (tests/conftest.py cpsat_by_work)
pytestmark = pytest.mark.usefixtures("cpsat_by_work")


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
    rolls = team_rolls(1, 2, 40)
    with pytest.raises(OutOfTime):
        build_team_model(board, mission, rolls, 2, deadline=Deadline(-1))
    runs = []
    monkeypatch.setattr(team, "run_team_model", lambda *args, **kwargs: runs.append(args))
    with SigintStop() as stop:
        status, won, lower, moves = solve_earliest(board, mission, rolls, 2, 3, Deadline(-1), 1, stop)
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

    def run(tm, deadline, *args, **kwargs):
        budgets.append(deadline.left())
        return real_run(tm, deadline, *args, **kwargs)

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
    assert checks and all(d is not None and d.end <= start + limit + 0.01 for d in checks)
    assert plan.rolls_needed is not None  # the bots' plan at least
