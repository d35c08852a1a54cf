"""benchmarks/value_calibration.py: the recorded values and the bucket statistics.

Loaded by file path on purpose: the script is research tooling (it measures how well the
bots' evaluation predicts their own final scores, for benchmarks/RESULTS.md); no command or
module of the package uses its figures, so it stays out of the installed package.
"""

import importlib.util
import sys
from pathlib import Path

import pytest

from nochmal.board import load_board
from nochmal.bots.heuristic import Engine

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "value_calibration.py"
BOARD = load_board("classic")


def load_script():
    spec = importlib.util.spec_from_file_location("value_calibration", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


cal = load_script()


@pytest.mark.parametrize("tuples", [False, True])
def test_last_decision_is_valued_exactly(tuples):
    """With no roll to come the evaluation is the final score, so the last error is 0."""
    decisions, final = cal.play_recorded(BOARD, Engine(tuples=tuples), 5)
    assert [d.rolls_left for d in decisions] == list(range(29, -1, -1))
    assert decisions[-1].value == pytest.approx(final, abs=1e-9)
    assert any(abs(final - d.value) > 0.5 for d in decisions)  # earlier values are estimates


def test_bucket_errors_by_hand():
    D = cal.Decision
    games = {
        1: ([D(25, 20.0, 0, 0, 8), D(24, 22.0, 1, 0, 7), D(3, 26.0, 2, 1, 5)], 27),
        2: ([D(25, 18.0, 0, 0, 8), D(4, 30.0, 1, 2, 6)], 24),
    }
    table = cal.bucket_errors(games, cal.grouping_key(None, 0))
    # phase 21-29: game 1 errors 7 and 5 (mean 6), game 2 error 6 -> mean 6, SD 0
    assert table[(3, 0)] == {"mean": 6.0, "ci": 0.0, "games": 2}
    # phase 1-5: game 1 error 1, game 2 error -6 -> mean -2.5, SD 4.95 -> CI 1.96 * 4.95 / sqrt 2
    late = table[(0, 0)]
    assert late["mean"] == -2.5 and late["games"] == 2
    assert late["ci"] == pytest.approx(1.96 * 4.949747 / 2 ** 0.5, rel=1e-6)
    by_columns = cal.bucket_errors(games, cal.grouping_key("columns_short", 1))
    assert by_columns[(3, 1)] == {"mean": 5.0, "ci": float("inf"), "games": 1}  # capped bucket 1+
    assert by_columns[(0, 1)]["mean"] == -2.5  # 2 columns short, capped at 1
