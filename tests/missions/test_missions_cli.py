"""`nochmal mission list | show | status` through typer's CliRunner, with exact --json fields.

Expected crosses are counted by hand from the rules (columns G and I lie next to the start
column H, so finishing them costs exactly their open cells).
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from nochmal.cli import app
from nochmal.missions import load_mission

runner = CliRunner()
GRID = ["gggyyyyGbbbOyyy", "ogYgYyoorBboogg", "BgrgggGrrryyogg", "brrgoObbggyyoRb",
        "roooorbbooorrrr", "rBbRrrryYoRbbbO", "yybbbbryyyggGoo"]


def typed(cells: set[str]) -> str:
    rows = []
    for r in range(7):
        rows.append("".join("x" if f"{'ABCDEFGHIJKLMNO'[c]}{r + 1}" in cells else GRID[r][c] for c in range(15)))
    return "\n".join(rows) + "\n"


def col(letter: str) -> set[str]:
    return {f"{letter}{r}" for r in range(1, 8)}


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_status_json_has_the_exact_fields(tmp_path):
    anna = tmp_path / "anna.txt"
    anna.write_text(typed(col("H") | {"G4"}) + "jokers_used: 1\n")
    ben = tmp_path / "ben.txt"
    ben.write_text(" ".join(sorted(col("H") | col("G"))) + "\n")  # a plain list of crossed cells
    result = run("mission", "status", "lockstep", "--difficulty", "normal", "--rolls-used", 8, anna, ben, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    budget = load_mission("lockstep").budget(2, "normal")
    expected_top = {
        "mission": "lockstep", "name": "Lockstep", "source": "project", "difficulty": "normal", "players": 2,
        "budget": budget, "rolls_used": 8, "rolls_left": budget - 8, "all_met": False, "state": "in progress",
        "lost_reasons": [], "sheets": [str(anna), str(ben)], "impossible": [],
    }
    assert {k: data[k] for k in expected_top} == expected_top
    assert set(data) == set(expected_top) | {"objectives", "team"}
    [obj] = data["objectives"]
    assert set(obj) == {"kind", "scope", "description", "met", "progress", "total", "contributing", "missing",
                        "fewest_crosses"}
    assert (obj["kind"], obj["scope"], obj["met"], obj["progress"], obj["total"]) == ("columns", "each", False, 3, 6)
    assert obj["contributing"] == []
    assert obj["missing"] == ["sheet 1: G, I", "sheet 2: I"]
    fc = obj["fewest_crosses"]
    assert [f["value"] for f in fc] == [6 + 7, 7] and all(f["exact"] for f in fc)
    assert set(fc[0]) == {"exact", "value", "lower", "upper", "method", "cells"}
    assert sorted(fc[1]["cells"]) == sorted(col("I"))


def test_status_won_and_human_output(tmp_path):
    sheet = tmp_path / "s.txt"
    sheet.write_text(typed(col("G") | col("H") | col("I")))
    data = json.loads(run("mission", "status", "lockstep", "-d", "easy", "-k", 11, sheet, "--json").stdout)
    assert data["state"] == "won" and data["all_met"] and data["objectives"][0]["contributing"] == [1]
    result = run("mission", "status", "lockstep", "-d", "easy", "-k", 11, sheet)
    assert result.exit_code == 0 and "done" in result.stdout and "won" in result.stdout


def test_status_impossible_sheet_exits_1_with_reasons(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text(typed({"H4"}))
    bad = tmp_path / "bad.txt"
    bad.write_text(typed({"H4", "A1", "B1"}))
    result = run("mission", "status", "star-hunt", "-d", "hard", "-k", 3, good, bad, "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["state"] is None and data["all_met"] is None and data["objectives"] == []
    assert [(d["sheet"], d["file"]) for d in data["impossible"]] == [(2, str(bad))]
    [reason] = data["impossible"][0]["reasons"]
    assert "A1 B1" in reason and "column H" in reason
    human = run("mission", "status", "star-hunt", "-d", "hard", "-k", 3, good, bad)
    assert human.exit_code == 1 and "impossible sheet" in human.stderr and "Traceback" not in human.output


def test_status_too_many_crosses_for_the_rolls(tmp_path):
    sheet = tmp_path / "s.txt"
    sheet.write_text(typed(col("H") | col("G")))
    result = run("mission", "status", "lockstep", "-d", "easy", "-k", 2, sheet, "--json")
    assert result.exit_code == 1
    # columns G and H lie in 8 blocks of which none holds more than 5 of their cells: 8 rolls
    assert "take 8 rolls" in json.loads(result.stdout)["impossible"][0]["reasons"][0]


def test_status_bad_input_is_one_line(tmp_path):
    sheet = tmp_path / "s.txt"
    sheet.write_text("H4 Q9\n")
    result = run("mission", "status", "lockstep", "-d", "easy", "-k", 2, sheet)
    assert result.exit_code == 1 and "cell 'Q9' is not on the classic board" in result.stderr
    assert result.stderr.count("\n") == 1
    sheet.write_text("H4\n")
    result = run("mission", "status", "lockstep", "-d", "brutal", "-k", 2, sheet)
    assert result.exit_code == 2 and "brutal" in result.stderr
    result = run("mission", "status", "no-such", "-d", "easy", "-k", 2, sheet)
    assert result.exit_code == 1 and "no such mission" in result.stderr


def test_list_and_show_json():
    result = run("mission", "list", "--json")
    assert result.exit_code == 0
    missions = json.loads(result.stdout)
    assert sorted(m["id"] for m in missions) == ["colour-fan", "column-relay", "lockstep", "star-hunt", "team-target"]
    assert all(m["source"] == "project" for m in missions)
    shown = json.loads(run("mission", "show", "star-hunt", "--json").stdout)
    assert set(shown) == {"id", "name", "source", "description", "board", "objectives", "budgets", "path"}
    assert shown["objectives"] == [{"kind": "stars", "scope": "team", "count": 15}]
    assert set(shown["budgets"]) == {"1", "2", "3", "4"}
    assert set(shown["budgets"]["2"]) == {"easy", "normal", "hard"}
    human = run("mission", "show", "team-target")
    assert human.exit_code == 0 and "not the printed wording" in human.stdout
