"""The benchmark harness: paired statistics against a hand computation, and pairing/seat
rotation against games replayed independently here."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nochmal.bots.registry import make_agent
from nochmal.board import load_board
from nochmal.bots.harness import MAX_SEEDS, mean_ci, parse_seed_range, run_bench, summarize, t_quantile
from nochmal.cli import app
from nochmal.errors import NochmalError, OptionError
from nochmal.game import Game
from nochmal.play import play_game

BOARD = load_board("classic")


def test_mean_ci_by_hand():
    # values 10, 12, 14: mean 12, sample sd 2, t(2) = 4.303 -> 4.303 * 2 / sqrt(3) = 4.9687
    m, ci = mean_ci([10, 12, 14])
    assert m == 12
    assert ci == pytest.approx(4.303 * 2 / math.sqrt(3))
    assert ci == pytest.approx(4.9687, abs=1e-4)
    assert math.isnan(mean_ci([3.0])[1])


def test_t_quantile_known_values():
    assert t_quantile(1) == pytest.approx(12.706)
    assert t_quantile(29) == pytest.approx(2.045)
    assert t_quantile(60) == pytest.approx(2.000, abs=0.003)  # tables: 2.000
    assert t_quantile(120) == pytest.approx(1.980, abs=0.003)  # tables: 1.980


def test_paired_differences_by_hand():
    # seeds s1..s3: A scores 10, 12, 14; B scores 11, 15, 14 -> B - A = 1, 3, 0
    # mean 4/3; sample variance ((1-4/3)^2 + (3-4/3)^2 + (0-4/3)^2) / 2 = 7/3
    # CI half-width 4.303 * sqrt(7/3 / 3) = 4.303 * 0.881917 = 3.79489
    # wins (table): A 1, 0, 0.5; B 0, 1, 0.5 -> B - A = -1, 1, 0: mean 0, sd 1, CI 4.303/sqrt(3)
    res = summarize("table", 2, (1, 3), ["A", "B"],
                    {"A": [10, 12, 14], "B": [11, 15, 14]},
                    {"A": [1, 0, 0.5], "B": [0, 1, 0.5]},
                    {"A": 4, "B": 8}, {"A": 2.0, "B": 2.0}, {"A": 6, "B": 6}, {"A": 1.0, "B": 1.0})
    a, b = res.bots
    assert (a.mean_score, b.mean_score) == (12, pytest.approx(40 / 3))
    assert a.win_rate == pytest.approx(0.5) and b.win_rate == pytest.approx(0.5)
    assert a.seconds_per_decision == 0.5 and b.seconds_per_decision == 0.25
    assert a.cpu_seconds_per_decision == 0.25 and b.cpu_seconds_per_decision == 0.125
    score_diff = next(d for d in res.paired if d.metric == "score")
    assert (score_diff.bot, score_diff.baseline, score_diff.seeds) == ("B", "A", 3)
    assert score_diff.mean == pytest.approx(4 / 3)
    assert score_diff.ci == pytest.approx(3.79489, abs=1e-5)
    win_diff = next(d for d in res.paired if d.metric == "win")
    assert win_diff.mean == pytest.approx(0)
    assert win_diff.ci == pytest.approx(4.303 / math.sqrt(3))
    # the paired CI is narrower than the unpaired spread of B alone would suggest
    assert score_diff.ci < mean_ci([11, 15, 14])[1]


def test_solo_bench_matches_independent_games():
    res = run_bench(BOARD, ["greedy", "random"], "solo", (3, 5))
    for bot in ("greedy", "random"):
        expect = [float(play_game(Game(BOARD, 1, mode="solo"), [make_agent(bot, s)], s).scores()[0])
                  for s in (3, 4, 5)]
        assert res.per_seed["score"][bot] == expect
    fig = {f.bot: f for f in res.bots}
    assert fig["greedy"].games == 3 and fig["greedy"].decisions == 90
    assert fig["greedy"].win_rate is None
    assert res.to_dict()["seeds"] == {"first": 3, "last": 5, "count": 3}


def test_table_bench_rotates_seats_on_the_same_dice():
    res = run_bench(BOARD, ["greedy", "random"], "table", (7, 8), players=2)
    for i, seed in enumerate((7, 8)):
        score = {"greedy": 0.0, "random": 0.0}
        win = {"greedy": 0.0, "random": 0.0}
        for seats in (["greedy", "random"], ["random", "greedy"]):
            agents = [make_agent(n, seed * 10 + s) for s, n in enumerate(seats)]
            game = play_game(Game(BOARD, 2, mode="competitive"), agents, seed)
            for s, n in enumerate(seats):
                score[n] += game.scores()[s] / 2
                win[n] += (1 / len(game.winners()) if s in game.winners() else 0) / 2
        for bot in ("greedy", "random"):
            assert res.per_seed["score"][bot][i] == pytest.approx(score[bot])
            assert res.per_seed["win"][bot][i] == pytest.approx(win[bot])
    # win shares of the two seats add up to one per seed
    for i in range(2):
        assert res.per_seed["win"]["greedy"][i] + res.per_seed["win"]["random"][i] == pytest.approx(1)


def test_bad_bench_requests():
    with pytest.raises(NochmalError, match="unknown bot"):
        run_bench(BOARD, ["nobody"], "solo", (1, 1))
    with pytest.raises(NochmalError, match="2..4"):
        run_bench(BOARD, ["greedy"], "table", (1, 1), players=5)
    with pytest.raises(NochmalError, match="A..B"):
        parse_seed_range("1-5")
    assert parse_seed_range("100000..100199") == (100000, 100199)


def test_a_seed_range_is_capped_at_max_seeds():
    """The cap counts seeds inclusively: MAX_SEEDS seeds pass, one more is refused by name."""
    assert parse_seed_range(f"7..{7 + MAX_SEEDS - 1}") == (7, 7 + MAX_SEEDS - 1)
    with pytest.raises(OptionError, match=f"'7..{7 + MAX_SEEDS}': {MAX_SEEDS + 1} seeds; at most 1,000,000"):
        parse_seed_range(f"7..{7 + MAX_SEEDS}")


def test_bench_bots_refuses_a_huge_seed_range_in_one_line():
    result = CliRunner().invoke(app, ["bench", "bots", "--bots", "greedy", "--seeds", "1..1000000000"])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0] == "error: --seeds '1..1000000000': 1000000000 seeds; at most 1,000,000 in one run"


BENCH_SCRIPTS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.mark.parametrize("script, args, message", [
    ("bench_bots.py", ["solo", "--bots", "greedy", "--seeds", "9..x"], "--seeds '9..x'"),
    ("bench_bots.py", ["solo", "--bots", "greedy", "--seeds", "1..1000000000"], "at most 1,000,000"),
    ("bench_bots.py", ["solo", "--bots", "nosuchbot", "--seeds", "1..2"], "unknown bot 'nosuchbot'"),
    ("bench_bots.py", ["solo", "--bots", "greedy", "--board", "nosuch"], "nosuch: unknown board"),
    ("value_calibration.py", ["--seeds", "5..x"], "--seeds '5..x'"),
])
def test_benchmark_scripts_name_bad_input(script, args, message):
    """A bad argument is one error line and exit 2, never a traceback."""
    run = subprocess.run([sys.executable, str(BENCH_SCRIPTS / script), *args], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 2
    assert message in run.stderr and "Traceback" not in run.stderr
