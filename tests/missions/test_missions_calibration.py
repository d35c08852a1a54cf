"""The mission calibration (nochmal/batch/calibrate.py, `nochmal batch calibrate`): budget
choice on a known curve, the file rewrite, and the batch run against a sequential one."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nochmal.batch import calibrate as cal
from nochmal.board import load_board
from nochmal.bots.registry import make_agent
from nochmal.cli import app
from nochmal.game import Game
from nochmal.missions import parse_mission_text
from nochmal.missions.loader import load_mission
from nochmal.missions.objectives import all_met, team_score
from nochmal.play import play_game

MISSIONS = Path(__file__).resolve().parents[2] / "missions"


def known_curve(fn) -> cal.Curve:
    """A win-rate curve given as a formula (no games played)."""
    return cal.Curve(lambda budget: (fn(budget), "formula"))


def test_budget_choice_is_nearest_to_each_aim():
    # win rate rises linearly from 0 at 20 rolls to 1 at 120 rolls
    curve = known_curve(lambda b: min(1.0, max(0.0, (b - 20) / 100)))
    assert cal.choose_budgets(curve, 200) == {"easy": 100, "normal": 70, "hard": 40}
    flat = known_curve(lambda b: 0.1)
    assert flat.budget_for(0.5, 150) == 16  # every measured rate is as far: the smallest budget
    # a curve that falls again for long budgets: the nearest MEASURED rate wins, not the cap
    hump = known_curve(lambda b: 0.6 if 40 <= b <= 100 else 0.1)
    chosen = hump.budget_for(0.8, 160)
    assert 40 <= chosen <= 100 and chosen in hump.memo


def test_rewrite_changes_only_budgets_and_target(tmp_path):
    src = MISSIONS / "team-target.toml"
    copy = tmp_path / "team-target.toml"
    copy.write_text(src.read_text())
    budgets = {p: {"easy": 30 + p, "normal": 20 + p, "hard": 10 + p} for p in (1, 2, 3, 4)}
    text = cal.rewrite_file(copy, budgets, {1: 11, 2: 22, 3: 33, 4: 44})
    mission = parse_mission_text(text, str(copy))
    assert mission.budget(3, "normal") == 23 and mission.objectives[0].threshold(4) == 44
    old_lines = [ln for ln in src.read_text().splitlines() if not ln[:1].isdigit() and "at_least" not in ln]
    new_lines = [ln for ln in text.splitlines() if not ln[:1].isdigit() and "at_least" not in ln]
    assert old_lines == new_lines


# --- the batch run against a sequential calibration written here ----------------------------
def direct_game(mission, players, bot, seed, budget, target, stop=True) -> Game:
    """The co-op game as the old one-process script played it (engine only)."""
    if target is not None:
        won = lambda g: sum(team_score(s) for s in g.sheets) >= target  # noqa: E731
    else:
        won = lambda g: all_met(mission.objectives, g.sheets)  # noqa: E731
    game = Game(load_board(mission.board), players, mode="coop", roll_limit=budget, stop_after_roll=won if stop else None)
    return play_game(game, [make_agent(bot, seed * 10 + p) for p in range(players)], seed)


def sequential(mission, players, settings: cal.Settings) -> dict:
    team, target = list(settings.bots), None
    if cal.is_score_mission(mission):
        medians = {b: statistics.median(sum(direct_game(mission, players, b, s, cal.REFERENCE_ROLLS, None, False).scores())
                                        for s in range(1001, 1001 + settings.probe_seeds)) for b in team}
        bot = max(medians, key=lambda b: (medians[b], -team.index(b)))
        target = round(statistics.median(sum(direct_game(mission, players, bot, s, cal.REFERENCE_ROLLS, None, False).scores())
                                         for s in range(2001, 2001 + settings.target_seeds)))
        team = [bot]

    def rate(seeds):
        def measure(budget):
            best = (-1.0, "")
            for bot in team:
                wins = 0
                for s in seeds:
                    g = direct_game(mission, players, bot, s, budget, target)
                    met = (sum(team_score(x) for x in g.sheets) >= target if target is not None
                           else all_met(mission.objectives, g.sheets))
                    wins += g.rolls_done <= budget and met
                best = max(best, (wins / len(seeds), bot), key=lambda r: r[0])
            return best
        return measure

    curve, check = cal.Curve(rate(settings.choose_seeds)), cal.Curve(rate(settings.check_seeds))
    budgets = cal.choose_budgets(curve, settings.cap)
    return {"budgets": budgets, "target": target, "rates": {d: curve.rate(b) for d, b in budgets.items()},
            "check_rates": {d: check.rate(b) for d, b in budgets.items()}}


@pytest.mark.slow
def test_the_batch_calibration_equals_a_sequential_one_and_resumes(tmp_path):
    store = tmp_path / "cal.sqlite"
    args = ["batch", "calibrate", "--missions", "lockstep,team-target", "--players", "1,2", "--bots", "greedy,heuristic",
            "--seeds", "3", "--probe-seeds", "2", "--target-seeds", "3", "--cap", "48", "--workers", "2",
            "--store", str(store), "--json"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    got = {(o["mission"], o["players"]): o for o in json.loads(res.stdout)["missions"]}
    settings = cal.Settings(("greedy", "heuristic"), 3, 2, 3, 48)
    for mission_id in ("lockstep", "team-target"):
        mission = load_mission(mission_id)
        for players in (1, 2):
            want = sequential(mission, players, settings)
            o = got[mission_id, players]
            assert (o["budgets"], o["target"], o["rates"], o["check_rates"]) == (
                want["budgets"], want["target"], want["rates"], want["check_rates"]), (mission_id, players)
    # the same command again: every game is stored, no round is played, the same answer
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0, again.output
    assert "round" not in again.stderr and json.loads(again.stdout)["missions"] == json.loads(res.stdout)["missions"]


def test_bad_calibration_options_are_one_line(tmp_path):
    store = tmp_path / "c.sqlite"
    for extra, text in ((["--missions", "nope"], "--missions: unknown 'nope'"), (["--players", "5"], "--players: unknown 5"),
                        (["--players", "x"], "--players 'x': expected a comma-separated list"),
                        (["--bots", "zzz"], "--bots: unknown 'zzz'"),
                        (["--players", "1,2", "--write"], "--write rewrites whole [budgets] tables"),
                        # 0 once meant "every core" here (batch solve/bots refused it)
                        (["--workers", "0", "--bots", "greedy", "--seeds", "1", "--cap", "2"], "--workers 0")):
        res = CliRunner().invoke(app, ["batch", "calibrate", "--store", str(store), *extra])
        assert res.exit_code != 0 and text in res.output and "Traceback" not in res.output, res.output
    assert not store.exists()


def test_write_checks_every_new_file_before_writing_any(tmp_path, monkeypatch):
    """--write wrote each mission file and only then loaded it: a text that did not load was
    already shipped, and the files before it rewritten. Now every text loads first."""
    import nochmal.missions.loader as loader

    copies = []
    for name in ("colour-fan.toml", "lockstep.toml"):
        copy = tmp_path / name
        copy.write_text((MISSIONS / name).read_text(encoding="utf-8"), encoding="utf-8")
        copies.append(copy)
    before = {p: p.read_text(encoding="utf-8") for p in copies}
    monkeypatch.setattr(loader, "builtin_mission_files", lambda: copies)
    ids = [loader.read_mission_file(p).id for p in copies]
    budgets = {"easy": 120, "normal": 100, "hard": 80}

    def fake_calibrate(missions, players, settings, results, play, on_round=None):
        return [cal.Outcome(m.id, p, dict(budgets), {d: 0.5 for d in budgets}, {d: 0.5 for d in budgets},
                            {d: "greedy" for d in budgets}) for m in missions for p in players]

    real_rewrite = cal.rewrite_file

    def rewrite(path, b, targets):  # the second file's new text does not load
        text = real_rewrite(path, b, targets)
        return text.replace("[budgets]", "[budgets]\nnonsense = ") if path == copies[1] else text

    monkeypatch.setattr(cal, "calibrate", fake_calibrate)
    monkeypatch.setattr(cal, "rewrite_file", rewrite)
    res = CliRunner().invoke(app, ["batch", "calibrate", "--store", str(tmp_path / "c.sqlite"), "--bots", "greedy",
                                   "--missions", ",".join(ids), "--write"])
    assert res.exit_code == 1 and "Traceback" not in res.output, res.output
    assert {p: p.read_text(encoding="utf-8") for p in copies} == before  # nothing written
    monkeypatch.setattr(cal, "rewrite_file", real_rewrite)
    res = CliRunner().invoke(app, ["batch", "calibrate", "--store", str(tmp_path / "c.sqlite"), "--bots", "greedy",
                                   "--missions", ",".join(ids), "--write"])
    assert res.exit_code == 0, res.output
    assert all(loader.read_mission_file(p).budget(2, "normal") == 100 for p in copies)
