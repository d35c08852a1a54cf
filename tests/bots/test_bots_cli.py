"""`nochmal hint` and `nochmal bench bots` through typer's CliRunner, and the hint() API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nochmal.board import load_board
from nochmal.bots.hints import hint
from nochmal.cli import app
from nochmal.dice import Roll
from nochmal.game import Game, Mode
from nochmal.move import Move

runner = CliRunner()
BOARD = load_board("classic")
SHEET = """gggyyyyGbbbOyyy
ogYgYyoxrBboogg
BgrgggGxrryyogg
brrgoObxggyyoRb
roooorbxooorrrr
rBbRrrryYoRbbbO
yybbbbryyyggGoo
jokers_used: 7
"""
# (4 crosses in column H: 7 jokers take at least 4 rolls of one cross or more; a sheet no legal
# game can produce is refused, tests/cli/test_cli_impossible_sheets.py)
SOLO_ROLL = '{"colours": ["y", "x"], "numbers": ["3", "?"]}'


@pytest.fixture
def sheet_file(tmp_path):
    p = tmp_path / "sheet.txt"
    p.write_text(SHEET)
    return p


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_hint_json_fields_and_legality(sheet_file):
    r = run("hint", "--sheet", sheet_file, "--roll", SOLO_ROLL, "--solo", "--rolls-left", "10", "--top", "3",
            "--json")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["solo"] is True and data["rolls_left"] == 10 and data["roll"] == json.loads(SOLO_ROLL)
    hints = data["hints"]
    assert 1 <= len(hints) <= 3
    assert [h["rank"] for h in hints] == list(range(1, len(hints) + 1))
    values = [h["value"] for h in hints]
    assert values == sorted(values, reverse=True)
    # one joker left: each hint is legal in the position (checked by the engine)
    from nochmal.position import Position
    from nochmal.sheet import parse_typed_sheet
    game = Game.from_position(Position(Mode.SOLO, (parse_typed_sheet(SHEET, BOARD, "t"),), 19, 30,
                                       roll=Roll(("y", "x"), ("3", "?"))))
    legal = {str(m) for m in game.legal_moves()}
    for h in hints:
        assert h["move"] in legal
        move = Move.parse(h["move"])
        assert h["jokers"] == move.joker_cost <= 1
        assert h["cells"] == list(move.cells) and h["count"] == move.count


def test_hint_text_output(sheet_file):
    r = run("hint", "--sheet", sheet_file, "--roll", '{"colours": ["y","b","g"], "numbers": ["3","1","2"]}')
    assert r.exit_code == 0, r.stderr
    assert "best choices" in r.stdout and "value" in r.stdout


@pytest.mark.parametrize("roll,needle", [
    ('{"colours": ["y", "x"', "broken JSON"),
    ('{"colours": ["y", "q"], "numbers": ["3", "1"]}', "not a colour face"),
    ('{"colours": ["y"], "numbers": ["3", "1"]}', "--roll"),
    ('["y", "3"]', "--roll"),
])
def test_hint_bad_roll_exits_2(sheet_file, roll, needle):
    r = run("hint", "--sheet", sheet_file, "--roll", roll, "--solo")
    assert r.exit_code == 2  # a bad option value
    assert needle in r.stderr and "Traceback" not in r.stderr + r.stdout
    assert len(r.stderr.strip().splitlines()) == 1


def test_hint_wrong_dice_count_for_the_mode(sheet_file):
    r = run("hint", "--sheet", sheet_file, "--roll", SOLO_ROLL)
    assert r.exit_code == 2 and "--solo" in r.stderr


def test_hint_missing_sheet_file_exits_1(tmp_path):
    missing = tmp_path / "nope.txt"
    r = run("hint", "--sheet", missing, "--roll", SOLO_ROLL, "--solo")
    assert r.exit_code == 1
    assert str(missing) in r.stderr and "cannot read" in r.stderr


def test_hint_bad_sheet_names_line(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_text(SHEET.replace("BgrgggGxrryyogg", "BgrgggGxrryyog"))
    r = run("hint", "--sheet", p, "--roll", SOLO_ROLL, "--solo")
    assert r.exit_code == 1 and "line 3" in r.stderr


def test_hint_api_signature_and_pass_only():
    game = Game(BOARD, 1, mode="solo")
    game.apply_roll(Roll(("r", "r"), ("5", "5")))  # no red 5 can be anchored on an empty sheet
    out = hint(game, top=3)
    assert [str(m) for m, _ in out] == ["pass"]
    game2 = Game(BOARD, 1, mode="solo")
    game2.apply_roll(Roll(("y", "b"), ("2", "3")))
    out2 = hint(game2, top=2)
    assert len(out2) == 2 and all(isinstance(m, Move) and isinstance(v, float) for m, v in out2)
    assert out2[0][1] >= out2[1][1]


def test_bench_bots_json():
    r = run("bench", "bots", "--bots", "greedy,random", "--mode", "solo", "--seeds", "1..3", "--json")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["seeds"] == {"first": 1, "last": 3, "count": 3}
    assert [b["bot"] for b in data["bots"]] == ["greedy", "random"]
    assert {"mean_score", "score_ci", "win_rate", "seconds_per_decision", "cpu_seconds_per_decision"} <= set(data["bots"][0])
    assert data["paired"][0]["baseline"] == "greedy" and data["paired"][0]["seeds"] == 3


@pytest.mark.parametrize("args,needle", [
    (["--bots", "greedy,nobody"], "unknown bot"),
    (["--seeds", "5..1"], "--seeds"),
    (["--mode", "table", "--players", "7"], "2..4"),
])
def test_bench_bad_option_values_exit_2(args, needle):
    r = run("bench", "bots", "--seeds", "1..1", *args) if "--seeds" not in args else run("bench", "bots", *args)
    assert r.exit_code == 2
    assert needle in r.stderr


def test_bench_bots_on_a_board_file_equals_the_builtin_board(tmp_path):
    # bench bots runs on the batch runner: a board file travels to the workers as its text
    copy = tmp_path / "myred.toml"
    copy.write_text((Path(__file__).resolve().parents[2] / "boards" / "red.toml").read_text())
    by_file = run("bench", "bots", "--bots", "greedy", "--seeds", "1..2", "--board", str(copy), "--workers", "1", "--json")
    builtin = run("bench", "bots", "--bots", "greedy", "--seeds", "1..2", "--board", "red", "--workers", "1", "--json")
    assert by_file.exit_code == 0 and builtin.exit_code == 0, by_file.stderr + builtin.stderr
    scores = [json.loads(r.stdout)["per_seed"]["score"]["greedy"] for r in (by_file, builtin)]
    assert scores[0] == scores[1] and len(scores[0]) == 2
