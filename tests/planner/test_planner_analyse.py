"""Post-game analysis: constructed cases with losses worked out by hand, and losses against
the exhaustive oracle of test_planner_core on random short games."""

from __future__ import annotations

import random

import pytest

from nochmal.agents import RandomAgent
from nochmal.board import load_board
from nochmal.dice import Roll
from nochmal.game import Game
from nochmal.move import PASS, Move
from nochmal.play import play_solo
from nochmal.record import GameRecord
from nochmal.rules import RuleSettings
from nochmal.solver.analyse import analyse
from nochmal.solver.instance import Instance, InstanceError
from nochmal.solver.plan import Step
from nochmal.solver.validate import validate

from planner_support import SMALL, exhaustive_best, interrupted_run, random_rolls

# the proofs asserted here come from CP-SAT's deterministic limits (tests/conftest.py cpsat_by_work)
pytestmark = pytest.mark.usefixtures("cpsat_by_work")

BLUE_1 = Roll(("b", "b"), ("1", "1"))
YELLOW_2 = Roll(("y", "y"), ("2", "2"))


def record_of(rolls: list[Roll], moves: list[Move], rules: RuleSettings | None = None) -> GameRecord:
    rules = rules or RuleSettings(solo_rolls=len(rolls))
    game = Game(SMALL, 1, rules, "solo")
    for roll, move in zip(rolls, moves):
        game.apply_roll(roll)
        game.apply_move(move)
    assert game.is_terminal()
    return GameRecord.from_game(game, ["me"], None)


def test_pass_on_a_star_loses_two_on_that_roll():
    # SMALL: start column C; C2 is a blue star, so b1 C2 is worth +2; yellow can never be
    # anchored after a pass, so the pass on roll 1 costs 2 and roll 2 costs nothing.
    rec = record_of([BLUE_1, YELLOW_2], [PASS, PASS])
    result = analyse(rec, time_limit=20)
    assert [r.loss for r in result.losses] == [2, 0]
    assert result.optimum - result.actual_score == 2
    assert all(r.proven for r in result.losses)
    assert result.worst(1)[0].roll == 1


def test_loss_lands_on_the_roll_that_wasted_the_chance():
    # b1 C1 gains nothing at once but keeps y2 A1 B1 (star B1, +2) open; passing on roll 2
    # throws it away: the loss belongs to roll 2, not roll 1.
    rec = record_of([BLUE_1, YELLOW_2], [Move.parse("b1 C1"), PASS])
    result = analyse(rec, time_limit=20)
    assert [r.loss for r in result.losses] == [0, 2]
    assert result.losses[1].best == "y2 A1 B1"
    validate(Instance(SMALL, [BLUE_1, YELLOW_2], RuleSettings(solo_rolls=2)), result.plan)


@pytest.mark.parametrize("seed", range(4))
def test_losses_match_exhaustive_oracle(seed):
    rng = random.Random(seed)
    rolls = random_rolls(rng, 4)
    rules = RuleSettings(solo_rolls=4)
    game = Game(SMALL, 1, rules, "solo")
    agent = RandomAgent(seed)
    for roll in rolls:
        game.apply_roll(roll)
        game.apply_move(agent.choose(game))
    rec = GameRecord.from_game(game, ["random"], None)
    values = []
    for t in range(len(rolls)):
        inst = Instance.from_record(rec, after_turn=t)
        values.append(exhaustive_best(inst))
    values.append(game.sheets[0].score())
    result = analyse(rec, time_limit=20)
    assert [r.loss for r in result.losses] == [values[t] - values[t + 1] for t in range(len(rolls))]
    assert result.optimum == values[0]


def test_analyse_rejects_unfinished_and_non_solo_records():
    game = Game(SMALL, 1, RuleSettings(solo_rolls=3), "solo")
    game.apply_roll(BLUE_1)
    game.apply_move(PASS)
    with pytest.raises(InstanceError, match="not finished"):
        analyse(GameRecord.from_game(game, ["me"], None))
    comp = play_solo(load_board("classic"), RandomAgent(1), 1, RuleSettings(solo_rolls=2))
    comp.mode = "competitive"
    with pytest.raises(InstanceError, match="solo"):
        analyse(comp)


# --- what a time limit or Ctrl-C cut short ------------------------------------
def _check_consistent(result) -> None:
    """What the figures must satisfy whatever the time limit: every loss inside its proven
    interval and never negative, the losses adding up to optimum - actual, a roll whose
    move is the best move found losing 0, the plan validated and no bound below it."""
    assert result.optimum_bound >= result.optimum >= result.actual_score
    assert sum(r.loss for r in result.losses) == result.optimum - result.actual_score
    for r in result.losses:
        assert 0 <= r.loss_low <= r.loss <= r.loss_high, r
        if r.actual == r.best:
            assert r.loss == 0, r
        if r.proven:
            assert r.loss_low == r.loss == r.loss_high, r
    assert result.plan.total == result.optimum
    if result.plan.bound is not None:
        assert result.plan.bound >= result.plan.total


def _greedy_record(seed: int, rolls: int | None = None) -> GameRecord:
    from nochmal.agents import GreedyAgent

    rules = RuleSettings() if rolls is None else RuleSettings(solo_rolls=rolls)
    return play_solo(load_board("classic"), GreedyAgent(), seed, rules)


def test_a_solve_worse_than_its_hint_falls_back_to_the_hint(monkeypatch):
    """`analyse --time-limit 1` stopped with "roll 13: the solver's plan (19) is worse than
    the actual move's continuation (24)". Here every solve returns the all-pass plan (as a
    search that could not use its hint would): the analysis goes on with the hints."""
    import nochmal.solver.analyse as an
    from nochmal.solver.cpsat import finish_plan

    def all_pass(inst, **kwargs):
        return finish_plan(inst, [Step.of(inst.first_roll + t, r, None, inst.board) for t, r in enumerate(inst.rolls)],
                           "unknown", None, 0.0)

    monkeypatch.setattr(an, "solve", all_pass)
    rec = _greedy_record(7, 12)
    result = analyse(rec, time_limit=1)
    # every value is the actual continuation: no loss found, none proven
    assert [r.loss for r in result.losses] == [0] * 12
    assert result.optimum == result.actual_score
    assert all("hint" in s["note"] for s in result.solves[:-1])  # the all-pass plan was worse
    assert [r.best for r in result.losses] == [r.actual for r in result.losses]
    assert not result.optimum_proven and not result.interrupted
    _check_consistent(result)


def test_a_roll_whose_move_is_the_best_found_loses_nothing(monkeypatch):
    """Roll 1 played its best move, later rolls threw points away. The solve for roll 1 is
    exact, every later solve returns no solution (only its hint, unproven): the plan for roll
    1 without its first step is a plan for roll 2, so roll 1 loses 0 (it showed "1 (in
    0..27)" before) and the exact bound of roll 1 carries over to roll 2."""
    import nochmal.solver.analyse as an
    import nochmal.solver.cpsat as cpsat

    rng = random.Random(3)
    for _ in range(20):
        rolls = random_rolls(rng, 4)
        rules = RuleSettings(solo_rolls=4)
        best = cpsat.solve(Instance(SMALL, rolls, rules), time_limit=20)
        first = best.steps[0].move()
        if first.is_pass:
            continue
        rec = record_of(rolls, [first, PASS, PASS, PASS], rules)
        if rec.verify().sheets[0].score() < best.total:
            break
    else:
        pytest.fail("no suitable random game")
    real_run, real_solve = cpsat.run_model, cpsat.solve
    blind = {"on": False}

    def run(pm, *args, **kwargs):
        if blind["on"]:
            return cpsat.Run([None] * len(pm.x), None, None, False, False, "no solution")
        return real_run(pm, *args, **kwargs)

    def solve(inst, **kwargs):
        blind["on"] = inst.first_roll > 1  # every solve after roll 1's
        return real_solve(inst, **kwargs)

    monkeypatch.setattr(cpsat, "run_model", run)
    monkeypatch.setattr(an, "solve", solve)
    result = analyse(rec, time_limit=20)
    roll1 = result.losses[0]
    assert roll1.actual == roll1.best == str(first)
    assert (roll1.loss, roll1.loss_low, roll1.loss_high, roll1.proven) == (0, 0, 0, True)
    assert result.optimum == best.total and result.optimum_proven
    # roll 2's value and bound come from roll 1's exact solve: its loss is at most the one shown
    assert result.losses[1].loss == result.losses[1].loss_high > 0
    _check_consistent(result)


@pytest.mark.slow
def test_a_tiny_time_limit_on_a_full_game_gives_intervals(tmp_path):
    """A 30-roll greedy record with 0.1 s per solve: the analysis finishes (exit 0) with
    intervals wherever a solve was not proven, every figure consistent."""
    import json

    from typer.testing import CliRunner

    from nochmal.cli import app

    path = tmp_path / "g.json"
    _greedy_record(7).save(path)
    res = CliRunner().invoke(app, ["analyse", str(path), "--time-limit", "0.1", "--workers", "1", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert len(data["losses"]) == 30 and not data["interrupted"] and data["first_roll"] == 1
    assert not data["optimum_proven"]  # 30 rolls are never proven in 0.1 s
    assert any(not r["proven"] for r in data["losses"])
    for r in data["losses"]:
        assert 0 <= r["loss_low"] <= r["loss"] <= r["loss_high"]
    assert sum(r["loss"] for r in data["losses"]) == data["optimum"] - data["actual_score"]
    res = CliRunner().invoke(app, ["analyse", str(path), "--time-limit", "0.1", "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert " (in " in res.stdout and "not proven" in res.stdout
    # the plain progress lines (stderr is no terminal) count down to roll 1, never to "roll 0"
    assert "analysing roll 1 of 30" in res.stderr and "all 30 rolls analysed" in res.stderr
    assert "analysing roll 0 " not in res.stderr


def test_the_progress_line_never_shows_a_bound_below_the_best(tmp_path, monkeypatch):
    """The status line mixed solves: the best of roll 1's solve beside the bound of roll 30's
    ("best 26, bound 13"). Every state it shows must come from one solve."""
    from typer.testing import CliRunner

    import nochmal.cli.solver_cmds as cmds
    from nochmal.cli import app

    shown = []
    real_call = cmds.ProgressLine.__call__

    def call(self, event):
        real_call(self, event)
        shown.append((self.best, self.bound))

    monkeypatch.setattr(cmds.ProgressLine, "__call__", call)
    path = tmp_path / "g.json"
    _greedy_record(7, 12).save(path)
    res = CliRunner().invoke(app, ["analyse", str(path), "--time-limit", "2"])
    assert res.exit_code == 0, res.output
    assert shown
    assert all(best is None or bound is None or best <= bound for best, bound in shown), shown


@pytest.mark.parametrize("as_json", [False, True])
def test_ctrl_c_stops_the_analysis_and_prints_the_rolls_so_far(tmp_path, as_json):
    """Ctrl-C cut only the current roll's solve short and the analysis went on (five presses
    ended in an error). Now it stops: the rolls analysed so far (the last ones), marked
    interrupted, exit code 130 (as any interrupted command, nochmal/cli/common.py)."""
    import json
    import sys

    if sys.platform == "win32":
        pytest.skip("SIGINT to a child process is POSIX")
    path = tmp_path / "g.json"
    _greedy_record(7).save(path)
    # 30 solves of up to 20 s each: far from done 3 s after the first (the last rolls solve at once)
    code, out, err = interrupted_run(["analyse", str(path), "--time-limit", "20", *(["--json"] if as_json else [])],
                                     tmp_path, after=3.0, first="analysing roll")
    assert code == 130, err
    assert "Traceback" not in err and "interrupted" in err  # it stopped; the rolls left unanalysed below
    if as_json:
        data = json.loads(out)
        assert data["interrupted"] is True
        first = data["first_roll"]
        assert 1 < first <= 30
        assert [r["roll"] for r in data["losses"]] == list(range(first, 31))
        for r in data["losses"]:
            assert 0 <= r["loss_low"] <= r["loss"] <= r["loss_high"]
    else:
        assert "interrupted, rolls" in out and "of 30 analysed" in out
        assert "│ 30 " in out  # the last roll's row is there
        assert "interrupted (Ctrl-C)" in out


def test_ctrl_c_between_two_solves_stops_the_analysis(monkeypatch):
    """A SIGINT that lands between two solves (no CP-SAT search running) stops the analysis
    too: the rolls solved so far come back, marked interrupted (it raised KeyboardInterrupt
    and lost them)."""
    import os
    import signal

    import nochmal.solver.analyse as an

    real_solve = an.solve

    def solve(inst, **kwargs):
        plan = real_solve(inst, **kwargs)
        if inst.first_roll == 9:  # roll 9 solved: Ctrl-C now, outside any search
            os.kill(os.getpid(), signal.SIGINT)
        return plan

    monkeypatch.setattr(an, "solve", solve)
    result = analyse(_greedy_record(7, 12), time_limit=2)
    assert result.interrupted and result.first_roll == 9
    assert [r.roll for r in result.losses] == [9, 10, 11, 12]
    _check_consistent(result)
