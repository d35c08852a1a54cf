"""Bad option values: exit 2, one line ``error: ...`` on stderr naming the option,
nothing on stdout, no traceback, and never a silently ignored option. Click's own usage
errors (an unknown option, ``--count abc``) take the same one-line form."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

import nochmal as nm
from nochmal.bots import make_agent
from nochmal.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def record_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("rec") / "g.json"
    nm.play_solo(nm.load_board("classic"), make_agent("greedy", 2), 2).save(path)
    return str(path)


@pytest.fixture(scope="module")
def cells_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("cells") / "s.txt"
    path.write_text("H4\n", encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def sheet_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("sheet") / "empty.txt"
    path.write_text(nm.format_typed_sheet(nm.Sheet.empty(nm.load_board("classic"))), encoding="utf-8")
    return str(path)


CASES = [
    (["moves", "--colour", "", "--count", "2"], "--colour ''"),
    (["moves", "--colour", "z", "--count", "1"], "--colour 'z'"),
    (["moves", "--colour", "yg", "--count", "1"], "--colour 'yg'"),
    (["moves", "--colour", "y", "--count", "0"], "--count 0"),
    (["moves", "--colour", "y", "--count", "abc"], "'--count'"),
    (["moves", "--colour", "y"], "Missing option '--count'"),
    (["moves", "--colour", "y", "--count", "1", "--no-such"], "--no-such"),
    (["no-such-command"], "no-such-command"),
    (["rolls", "--seed", "1", "--count", "0"], "--count 0"),
    (["rolls", "--seed", "1", "--count", "100000000"], "--count 100000000"),
    (["puzzle", "--planner-time", "-1"], "--planner-time -1"),
    (["puzzle", "--planner-time", "nan"], "--planner-time nan"),
    (["puzzle", "--seed", "3", "--daily"], "either --seed or --daily"),
    (["play", "--difficulty", "hard"], "--difficulty"),
    (["play", "--mission", "star-hunt", "--difficulty", "brutal"], "--difficulty 'brutal'"),
    (["render", "{record}", "--board", "purple", "--svg", "{tmp}/x.svg"], "--board purple"),
    (["hint", "--sheet", "{cells}", "--roll", '{"colours": ["y","b"], "numbers": ["3","4"]}', "--solo",
      "--top", "0"], "--top 0"),
    (["hint", "--sheet", "{sheet}", "--roll", '{"colours": ["y","b"], "numbers": ["3","4"]}'],
     "--roll has 2 colour and 2 number dice; the race rolls 3 of each (use --solo for 2+2)"),
    (["hint", "--sheet", "{sheet}", "--roll", '{"colours": ["y","b","g"], "numbers": ["3","4","5"]}', "--solo"],
     "--roll has 3 colour and 3 number dice; solo rolls 2 of each"),
    (["hint", "--sheet", "{sheet}", "--roll", '{"colours": ["y","b"], "numbers": ["3","4"]}', "--solo",
      "--rolls-left", "40"], "--rolls-left 40: must be 0..29"),
    (["mission", "status", "star-hunt", "-d", "normal", "-k", "-1", "{cells}", "{cells}"], "--rolls-used -1"),
    (["solo", "--bot", "nobot"], "unknown bot 'nobot'"),
    (["board", "show", "nosuchpad"], "nosuchpad: unknown board"),
    (["bench", "bots", "--bots", "greedy,nobot"], "unknown bot 'nobot'"),
    (["bench", "bots", "--mode", "xx"], "--mode 'xx': use solo or table"),
    (["bench", "bots", "--mode", "table", "--players", "9"], "--players 9"),
    (["bench", "bots", "--seeds", "5..1"], "--seeds '5..1'"),
]


@pytest.mark.parametrize("args, needle", CASES, ids=[" ".join(a) for a, _ in CASES])
def test_bad_option_value_is_one_line_and_exit_2(args, needle, record_file, cells_file, sheet_file, tmp_path):
    args = [a.replace("{record}", record_file).replace("{cells}", cells_file).replace("{sheet}", sheet_file)
            .replace("{tmp}", str(tmp_path)) for a in args]
    res = runner.invoke(app, args, input="")
    assert res.exit_code == 2, (res.exit_code, res.stdout, res.stderr)
    assert res.stdout == ""
    assert res.stderr.startswith("error: ") and res.stderr.count("\n") == 1, repr(res.stderr)
    assert needle in res.stderr
    assert not (tmp_path / "x.svg").exists()


def test_errors_stay_one_line_on_a_narrow_pipe(tmp_path):
    """Rich would wrap at the console width; an error line must not be cut in two."""
    env = {**os.environ, "COLUMNS": "40"}
    for args in (["play", "--seat", "human", "--seat", "deep-blue"],
                 ["moves", "--colour", "y", "--count", "abc"]):
        done = subprocess.run([sys.executable, "-c", "from nochmal.cli import main; main()", *args],
                              env=env, capture_output=True, text=True, cwd=tmp_path)
        assert done.returncode == 2
        assert done.stderr.count("\n") == 1 and len(done.stderr) > 40, done.stderr
