"""`nochmal solve` / `nochmal analyse`: JSON fields checked against the validator and the
engine, readable errors with exit code 1, usage errors with exit code 2."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from nochmal.agents import GreedyAgent
from nochmal.board import load_board
from nochmal.cli import app
from nochmal.play import play_solo
from nochmal.rules import RuleSettings
from nochmal.solver.instance import Instance
from nochmal.solver.plan import Plan
from nochmal.solver.validate import validate

# the optima asserted here are proven by CP-SAT's deterministic limits (tests/conftest.py cpsat_by_work)
pytestmark = pytest.mark.usefixtures("cpsat_by_work")

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def test_solve_seed_json_is_a_valid_plan():
    res = run("solve", "--seed", "4", "--rolls-count", "5", "--time-limit", "20", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    for key in ("steps", "total", "breakdown", "status", "bound", "gap", "wall_time", "instance"):
        assert key in data
    assert len(data["steps"]) == 5
    assert data["status"] == "optimal" and data["gap"] == 0
    inst = Instance.from_json(data["instance"])
    assert inst.rolls == Instance.from_seed(4, count=5).rolls
    plan = Plan.from_json(data)  # the command's output loads as it is
    validate(inst, plan)
    assert sum(s.points for s in plan.steps) == plan.total - (-22)


def test_solve_table_output_names_status():
    res = run("solve", "--seed", "2", "--rolls-count", "3", "--time-limit", "20")
    assert res.exit_code == 0, res.output
    assert "optimal" in res.stdout and "roll" in res.stdout


def test_solve_rolls_file_and_its_errors(tmp_path):
    good = tmp_path / "rolls.json"
    good.write_text(json.dumps([{"colours": ["y", "x"], "numbers": ["3", "?"]},
                                {"colours": ["b", "g"], "numbers": ["1", "5"]}]))
    res = run("solve", "--rolls", str(good), "--json", "--time-limit", "20")
    assert res.exit_code == 0, res.output
    assert [s["dice"] for s in json.loads(res.stdout)["steps"]] == ["yx/3?", "bg/15"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"colours": ["y", "x"], "numbers": ["3", "?"]},
                               {"colours": ["b", "g"], "numbers": ["1", "7"]}]))
    res = run("solve", "--rolls", str(bad))
    assert res.exit_code == 1
    assert "bad.json" in res.output and "item 2" in res.output and "Traceback" not in res.output


def test_solve_missing_record_and_usage_errors(tmp_path):
    res = run("solve", "--record", str(tmp_path / "nope.json"))
    assert res.exit_code == 1
    assert "nope.json" in res.output and "cannot read" in res.output
    assert run("solve").exit_code == 2
    assert run("solve", "--seed", "1", "--rolls", "x.json").exit_code == 2
    res = run("analyse", str(tmp_path / "nope.json"))
    assert res.exit_code == 1 and "nope.json" in res.output


def test_solve_record_mid_game_and_analyse_json(tmp_path):
    path = tmp_path / "game.json"
    rec = play_solo(load_board("classic"), GreedyAgent(), 6, RuleSettings(solo_rolls=5))
    rec.save(path)
    actual = rec.verify().sheets[0].score()
    res = run("solve", "--record", str(path), "--after-turn", "2", "--json", "--time-limit", "20")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    # rolls count from 1: after turn 2 the plan starts at roll 3
    assert data["first_roll"] == 3 and [s["roll"] for s in data["steps"]] == [3, 4, 5]
    assert data["instance"]["first_roll"] == 3
    validate(Instance.from_json(data["instance"]), Plan.from_json(data))
    res = run("solve", "--record", str(path), "--after-turn", "2", "--time-limit", "20")
    rows = [line.split()[1] for line in res.stdout.splitlines() if line[:1] in "│|" and line.split()[1:2]]
    assert [r for r in rows if r.isdigit()] == ["3", "4", "5"], res.stdout
    assert data["total"] >= actual
    res = run("analyse", str(path), "--json", "--time-limit", "20")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["actual_score"] == actual
    assert len(data["losses"]) == 5
    assert sum(r["loss"] for r in data["losses"]) == data["optimum"] - actual
    losses = {r["roll"]: r["loss"] for r in data["losses"]}
    assert [losses[r] for r in data["worst"]] == sorted(losses.values(), reverse=True)


def test_solve_rolls_from_a_typed_sheet(tmp_path):
    rolls = tmp_path / "rolls.json"
    rolls.write_text(json.dumps([{"colours": ["y", "b"], "numbers": ["1", "2"]}]))
    sheet = tmp_path / "sheet.txt"
    sheet.write_text("\n".join(["gggyyyyGbbbOyyy", "ogYgYyoorBboogg", "BgrgggGrrryyogg",
                                "brrgoObbggyyoRb", "roooorbbooorrrr", "rBbRrrryYoRbbbO",
                                "yybbbbryyyggGoo"]).replace("GbbbO", "xbbbO", 1) + "\n")
    res = run("solve", "--rolls", str(rolls), "--sheet", str(sheet), "--json", "--time-limit", "20")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    inst = Instance.from_json(data["instance"])
    assert inst.start is not None and inst.start.crossed == inst.board.mask_of(["H1"])
    validate(inst, Plan.from_json(data))
    # start: 14 open stars and 8 jokers (-20); one roll can at best cross one more star
    assert data["total"] == -18
    sheet.write_text("nonsense\n")
    res = run("solve", "--rolls", str(rolls), "--sheet", str(sheet))
    assert res.exit_code == 1 and "sheet.txt" in res.output


def test_solve_refuses_more_rolls_than_a_game_has():
    """Issue 17: --rolls-count 40 planned 40 rolls of a 30-roll solo game."""
    res = run("solve", "--seed", "1", "--rolls-count", "40")
    assert res.exit_code == 2
    assert "30" in res.output and "--rolls-count" in res.output
    assert run("solve", "--seed", "1", "--rolls-count", "31").exit_code == 2
    import pytest

    from nochmal.solver.instance import InstanceError

    with pytest.raises(InstanceError, match="1..30"):
        Instance.from_seed(1, count=31)
    assert len(Instance.from_seed(1, count=30).rolls) == 30


def test_planner_headlines_stay_one_line_when_piped():
    """Issue 17: a status line is one line even past rich's 80 columns when piped (the team
    headline broke as 'not' / 'proven fewest: time limit); 2.1s')."""
    res = run("solve", "--mission", "lockstep", "--players", "2", "--seed", "1", "--time-limit", "2")
    assert res.exit_code == 0, res.output
    headline = next(line for line in res.stdout.splitlines() if "budget of" in line)
    assert re.search(r"; \d+\.\ds$", headline), res.stdout
    res = run("solve", "--seed", "3", "--rolls-count", "20", "--time-limit", "0.5")
    assert res.exit_code == 0, res.output
    status = next(line for line in res.stdout.splitlines() if line.startswith(("optimal:", "feasible:", "unknown:")))
    assert re.search(r"; \d+\.\ds$", status), res.stdout
