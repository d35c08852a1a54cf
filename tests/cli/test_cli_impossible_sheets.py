"""`hint`, `moves` and `solve --sheet` treat a sheet no legal game can produce as `score` and
`board show` do (nochmal/cli/common.py refuse_impossible): one line with the reasons and exit
1, or with --allow-impossible a warning and the answer."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from nochmal.board import load_board
from nochmal.cli import app
from nochmal.impossible import impossible_sheet_reasons
from nochmal.sheet import parse_typed_sheet

runner = CliRunner()
ROLL = '{"colours": ["y", "b"], "numbers": ["3", "?"]}'


def typed(cells: set[str]) -> str:
    """The typed sheet (7 lines of 15, x = crossed) that nochmal/cli/common.py read_sheet_file reads."""
    return "\n".join("".join("x" if f"{'ABCDEFGHIJKLMNO'[c]}{r + 1}" in cells else "." for c in range(15))
                     for r in range(7)) + "\n"


def write_sheet(tmp_path, cells: set[str], name: str):
    path = tmp_path / name
    path.write_text(typed(cells), encoding="utf-8")
    return path


@pytest.fixture
def sheets(tmp_path):
    board = load_board("classic")
    far = {f"A{r}" for r in range(1, 8)}  # column A alone: nothing connects it to column H
    near = {"H1", "H2"}
    for cells in (far, near):  # the premise, from the checker itself
        sheet = parse_typed_sheet(typed(cells), board)
        assert bool(impossible_sheet_reasons(sheet)) == (cells is far)
    return write_sheet(tmp_path, far, "far.txt"), write_sheet(tmp_path, near, "near.txt")


def rolls_file(tmp_path):
    path = tmp_path / "rolls.json"
    path.write_text(json.dumps([{"colours": ["y", "b"], "numbers": ["3", "2"]}] * 2), encoding="utf-8")
    return path


def commands(sheet, tmp_path) -> dict[str, list[str]]:
    return {
        "hint": ["hint", "--sheet", str(sheet), "--roll", ROLL, "--solo", "--json"],
        "moves": ["moves", "--sheet", str(sheet), "--colour", "y", "--count", "2", "--json"],
        "solve": ["solve", "--rolls", str(rolls_file(tmp_path)), "--sheet", str(sheet), "--time-limit", "5",
                  "--workers", "1", "--json"],
    }


@pytest.mark.parametrize("command", ["hint", "moves", "solve"])
def test_an_impossible_sheet_is_refused_with_its_reasons_or_warned_about(sheets, tmp_path, command):
    far, near = sheets
    args = commands(far, tmp_path)[command]
    res = runner.invoke(app, args)
    assert res.exit_code == 1
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {far}: impossible sheet: "), res.stderr
    allowed = runner.invoke(app, args + ["--allow-impossible"])
    assert allowed.exit_code == 0, allowed.stderr
    assert allowed.stderr.startswith(f"warning: {far}: impossible sheet: ")
    json.loads(allowed.stdout)  # the answer all the same
    fine = runner.invoke(app, commands(near, tmp_path)[command])
    assert fine.exit_code == 0 and "impossible" not in fine.stderr, fine.stderr
    json.loads(fine.stdout)
