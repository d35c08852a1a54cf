"""`nochmal puzzle` sessions and `nochmal replay --step/--to` through the CliRunner."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

from typer.testing import CliRunner

from nochmal.bots.registry import make_agent
from nochmal.board import load_board
from nochmal.dice import seeded_rolls
from nochmal.game import rating
from nochmal.play import play_competitive
from nochmal.record import GameRecord

from nochmal.cli import app

runner = CliRunner()


def run(args, lines):
    return runner.invoke(app, args, input="".join(line + "\n" for line in lines))


def test_open_puzzle_plays_to_the_end_with_score_rating_and_the_rolls_in_advance(tmp_path):
    out = tmp_path / "p.json"
    res = run(["puzzle", "--seed", "5", "--open", "--json", "--save", str(out), "--planner-time", "1"],
              ["1", "0"] * 40)
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    for key in ("seed", "score", "rating", "best", "planner", "daily", "open", "outcome", "sheets", "rolls"):
        assert key in data
    assert data["seed"] == 5 and data["daily"] is False and data["open"] is True
    assert data["outcome"] == "over" and data["rolls"] == 30
    game = GameRecord.load(out).verify()
    assert data["score"] == game.scores()[0]
    assert data["rating"] == rating(data["score"])
    planner = data["planner"]
    if planner is not None:  # the planner is installed: its play is at least as good, within its bound
        assert planner["bound"] is None or planner["bound"] >= planner["score"]
        assert data["best"] == (planner["score"] if planner["proven"] else None)
        if planner["proven"]:
            assert planner["score"] >= data["score"]
    # --open printed all 30 rolls of the seed, in order, before the first prompt
    before = res.stderr.split("you> ", 1)[0]
    shown = re.findall(r"^\s*(\d+)  ([ygbrox]) ([ygbrox]) / ([1-5?]) ([1-5?])", before, re.M)
    expected = seeded_rolls(5, 30, 2)
    assert [(int(i), (a, b), (c, d)) for i, a, b, c, d in shown] == [
        (k, r.colours, r.numbers) for k, r in enumerate(expected, 1)]


def test_daily_seed_is_the_utc_date():
    res = run(["puzzle", "--daily", "--json"], ["quit"])  # quitting: no planner run
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["seed"] == int(datetime.now(timezone.utc).strftime("%Y%m%d"))
    assert data["daily"] is True and data["outcome"] == "quit" and data["best"] is None


def test_puzzle_seed_and_daily_together_is_a_usage_error():
    res = run(["puzzle", "--seed", "3", "--daily"], [])
    assert res.exit_code == 2


def test_puzzle_without_json_prints_score_and_rating():
    res = run(["puzzle", "--seed", "12", "--planner-time", "0"], ["pass"] * 30)
    assert res.exit_code == 0, res.output
    m = re.search(r"score (-?\d+): (.+)", res.output)
    assert m and m.group(2).strip() == rating(int(m.group(1)))


def _record(tmp_path):
    rec = play_competitive(load_board("classic"), [make_agent("greedy"), make_agent("random", 3)], seed=17)
    path = tmp_path / "r.json"
    rec.save(path)
    return rec, path


def test_replay_to_json_matches_the_engine_replay(tmp_path):
    rec, path = _record(tmp_path)
    states = {t: [s.text() for s in g.sheets] for t, g in rec.replay()}
    for turn in (1, 4, len(rec.rolls)):
        res = run(["replay", str(path), "--to", str(turn), "--json"], [])
        assert res.exit_code == 0, res.output
        data = json.loads(res.stdout)
        for key in ("file", "turn", "turns", "dice", "moves", "scores", "over", "sheets"):
            assert key in data
        assert data["turn"] == turn and data["turns"] == len(rec.rolls)
        assert data["sheets"] == states[turn]
        assert data["dice"] == rec.rolls[turn - 1][0].to_json()
        assert [m["move"] for m in data["moves"]] == [str(m) for _, m in rec.rolls[turn - 1][1]]


def test_replay_step_walks_forward_and_back(tmp_path):
    rec, path = _record(tmp_path)
    res = run(["replay", str(path), "--step"], ["", "", "b", "5", "q"])
    assert res.exit_code == 0, res.output
    turns = [int(t) for t in re.findall(r"^turn (\d+) of \d+", res.output, re.M)]
    assert turns == [0, 1, 2, 1, 5]
    res = run(["replay", str(path), "--step", "--to", "3"], ["", "q"])
    assert [int(t) for t in re.findall(r"^turn (\d+) of", res.output, re.M)] == [3, 4]


def test_replay_bad_turn_and_step_with_json(tmp_path):
    rec, path = _record(tmp_path)
    res = run(["replay", str(path), "--to", "999"], [])
    assert res.exit_code == 2 and "--to 999" in res.output
    res = run(["replay", str(path), "--step", "--json"], [])
    assert res.exit_code == 2 and "--step is interactive" in res.output
    # the existing behaviour without the new options is unchanged
    res = run(["replay", str(path), "--verify", "--json"], [])
    assert res.exit_code == 0 and json.loads(res.stdout)["verified"] is True


def test_unicode_digits_at_the_prompts_are_refused_not_a_traceback(tmp_path):
    # "²".isdigit() is True but int("²") raises: the stepper and the play prompt must refuse it
    rec, path = _record(tmp_path)
    res = run(["replay", str(path), "--step"], ["²", "q"])
    assert res.exit_code == 0 and res.exception is None, res.output
    assert "unknown key '²'" in res.output
    res = run(["puzzle", "--seed", "3", "--planner-time", "0"], ["²", "quit"])
    assert res.exit_code == 0 and res.exception is None, res.output
