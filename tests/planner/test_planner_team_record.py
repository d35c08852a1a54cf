"""A team plan saved as a game record (solver/team.py, `nochmal solve --save`): it replays with
`nochmal replay --verify` and in the web replay; a bad path is refused before the solve."""

from __future__ import annotations

import json
import time

import pytest
from typer.testing import CliRunner

from nochmal.cli import app
from nochmal.missions.coop import mission_result
from nochmal.missions.loader import load_mission
from nochmal.move import Move

from planner_support import near_h_toml

# the proofs asserted here (status optimal or infeasible, proven) come from CP-SAT's
# deterministic limits, in the CLI's child processes too (tests/conftest.py cpsat_by_work)
pytestmark = pytest.mark.usefixtures("cpsat_by_work")


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
    mission.write_text(near_h_toml(2))  # seed 1: no win in 2 rolls (proven)
    result = CliRunner().invoke(app, ["solve", "--mission", str(mission), "--players", "1", "--seed", "1",
                                      "--save", str(tmp_path / "p.json")])
    assert result.exit_code == 1 and "budget not enough (proven)" in result.stdout
    assert "nothing written" in result.output and not (tmp_path / "p.json").exists()
