"""The calibration script's pure parts: budget choice on a known curve, the file rewrite."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from nochmal.missions import parse_mission_text

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "calibrate_missions.py"
MISSIONS = Path(__file__).resolve().parent.parent / "missions"


def load_script():
    spec = importlib.util.spec_from_file_location("calibrate_missions", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class KnownCurve:
    """A win-rate curve given as a formula (no games played)."""

    def __init__(self, cal, fn):
        self.fn = fn
        self.memo = {}
        self.budget_for = cal.Curve.budget_for.__get__(self)

    def rate(self, budget: int) -> float:
        self.memo[budget] = self.fn(budget)
        return self.memo[budget]


def test_budget_choice_is_nearest_to_each_aim():
    cal = load_script()
    # win rate rises linearly from 0 at 20 rolls to 1 at 120 rolls
    curve = KnownCurve(cal, lambda b: min(1.0, max(0.0, (b - 20) / 100)))
    budgets = cal.choose_budgets(curve, 200)
    assert budgets == {"easy": 100, "normal": 70, "hard": 40}
    # a curve that never reaches the aim gives the cap
    flat = KnownCurve(cal, lambda b: 0.1)
    assert flat.budget_for(0.5, 150) == 16  # every measured rate is as far: the smallest budget
    # a curve that falls again for long budgets: the nearest MEASURED rate wins, not the cap
    hump = KnownCurve(cal, lambda b: 0.6 if 40 <= b <= 100 else 0.1)
    chosen = hump.budget_for(0.8, 160)
    assert 40 <= chosen <= 100 and chosen in hump.memo


def test_rewrite_changes_only_budgets_and_target(tmp_path):
    cal = load_script()
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
