"""The engine commands through typer's CliRunner: --json output carries its fields; bad
input exits 1 with a one-line error naming the file/line/cell, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import nochmal as nm
from nochmal.bots import make_agent
from nochmal.cli import app
from nochmal.dice import seeded_rolls

BOARDS_DIR = Path(__file__).resolve().parents[2] / "boards"
GRID = ["gggyyyyGbbbOyyy", "ogYgYyoorBboogg", "BgrgggGrrryyogg", "brrgoObbggyyoRb",
        "roooorbbooorrrr", "rBbRrrryYoRbbbO", "yybbbbryyyggGoo"]

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def ok_json(*args: str) -> dict:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def fails(*args: str, pattern: str, code: int = 1) -> str:
    """One error line on stderr and exit ``code`` (1 input or rule error, 2 bad option value)."""
    result = run(*args)
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
    err = result.stderr
    assert "Traceback" not in err + result.stdout
    assert err.count("\n") == 1 and err.startswith("error: "), repr(err)  # exactly one line
    assert pattern in err, err
    return err


def typed_sheet(cells: set[str], extra: str = "") -> str:
    letters = "ABCDEFGHIJKLMNO"
    rows = ["".join("x" if f"{letters[c]}{r + 1}" in cells else GRID[r][c] for c in range(15))
            for r in range(7)]
    return "\n".join(rows) + "\n" + extra


def test_solo_json_and_save_and_replay(tmp_path):
    path = tmp_path / "g.json"
    data = ok_json("solo", "--seed", 3, "--bot", "greedy", "--save", path)
    assert data["seed"] == 3 and data["bot"] == "greedy" and data["board"] == "classic"
    assert data["rolls"] == 30 and data["saved"] == str(path)
    # the printed result is the engine's result for that seed
    record = nm.play_solo(nm.load_board("classic"), make_agent("greedy", 3), 3)
    assert data["score"] == record.result["scores"][0] == data["breakdown"]["total"]
    assert data["sheet"] == record.result["sheets"][0]
    assert data["rating"] == nm.rating(data["score"])
    assert set(data["breakdown"]) == {"columns", "colours", "jokers", "stars", "total"}
    replayed = ok_json("replay", path, "--verify")
    assert replayed["verified"] is True and replayed["turns"] == 30 and replayed["mode"] == "solo"
    assert replayed["scores"] == [data["score"]] and replayed["sheets"] == [data["sheet"]]
    plain = run("replay", path, "--verify")
    assert plain.exit_code == 0 and "verified: 30 turns" in plain.stdout


def test_solo_text_output():
    result = run("solo", "--seed", 2, "--bot", "random")
    assert result.exit_code == 0
    assert "seed 2, bot random:" in result.stdout and "points" in result.stdout


def test_replay_rejects_a_tampered_record(tmp_path):
    path = tmp_path / "g.json"
    assert run("solo", "--seed", 4, "--save", path).exit_code == 0
    data = json.loads(path.read_text())
    data["rolls"][9]["dice"]["colours"] = ["x", "x"] if data["rolls"][9]["dice"]["colours"] != ["x", "x"] else ["y", "y"]
    path.write_text(json.dumps(data))
    fails("replay", path, "--verify", pattern=f"{path}: turn 10: roll")
    path.write_text("{broken")
    fails("replay", path, pattern="broken JSON at line 1")


def test_moves_json_on_empty_and_typed_sheet(tmp_path):
    data = ok_json("moves", "--board", "classic", "--colour", "y", "--count", 3)
    assert data["colour"] == "y" and data["count"] == 3
    assert len(data["placements"]) == 5  # docs/rules.md §1: yellow 3 has 5 openings
    for cells in data["placements"]:
        assert len(cells) == 3 and any(c[0] == "H" for c in cells)
    sheet = tmp_path / "s.txt"
    sheet.write_text(typed_sheet({"H4"}))
    # blue 1 next to the crossed H4 or in column H: G4 and H5 (G5 touches H4 only diagonally)
    data = ok_json("moves", "--sheet", sheet, "--colour", "b", "--count", 1)
    assert data["placements"] == [["G4"], ["H5"]]
    data = ok_json("moves", "--sheet", sheet, "--colour", "b", "--count", 3)
    assert data["placements"] == [["G4", "G5", "H5"]]


def test_score_json_breakdown(tmp_path):
    sheet = tmp_path / "s.txt"
    column_a = {f"A{r}" for r in range(1, 8)}
    sheet.write_text(typed_sheet(column_a, "jokers_used: 3\n"))
    data = ok_json("score", "--board", "classic", sheet, "--allow-impossible")  # column A alone: not connected to H
    # column A: 5; 5 jokers left; star A3 crossed, 14 open: -28
    assert (data["columns"], data["colours"], data["jokers"], data["stars"], data["total"]) == (5, 0, 5, -28, -18)
    assert data["complete_columns"] == ["A"] and data["complete_colours"] == []
    assert data["stars_crossed"] == 1


def test_rolls_json():
    data = ok_json("rolls", "--seed", 7, "--count", 4)
    assert data["seed"] == 7 and data["solo"] is False
    assert data["rolls"] == [r.to_json() for r in seeded_rolls(7, 4)]
    assert data["rolls"][0] == {"colours": ["b", "g", "x"], "numbers": ["4", "?", "1"]}  # golden
    solo = ok_json("rolls", "--seed", 7, "--count", 2, "--solo")
    assert solo["rolls"][0] == {"colours": ["o", "o"], "numbers": ["?", "5"]}  # golden


def test_help_has_examples():
    for cmd in ("solo", "replay", "moves", "score", "rolls"):
        result = run(cmd, "--help")
        assert result.exit_code == 0 and "Example: nochmal " + cmd in result.stdout


# --- bad input ----------------------------------------------------------------------------

def test_missing_files(tmp_path):
    fails("score", tmp_path / "nope.txt", pattern=f"{tmp_path / 'nope.txt'}: cannot read file")
    fails("replay", tmp_path / "nope.json", pattern="cannot read file")
    fails("moves", "--sheet", tmp_path / "nope.txt", "--colour", "y", "--count", 1, pattern="cannot read file")


def test_files_that_are_not_utf8_text(tmp_path):
    """A binary file is bad input like any other: one line, exit 1, no traceback."""
    for name in ("bin.txt", "bin.json", "bin.toml"):
        (tmp_path / name).write_bytes(b"\xff\xfe\x00 not text")
    fails("score", tmp_path / "bin.txt", pattern=f"{tmp_path / 'bin.txt'}: not a UTF-8 text file")
    fails("moves", "--sheet", tmp_path / "bin.txt", "--colour", "y", "--count", 1, pattern="not a UTF-8 text file")
    fails("replay", tmp_path / "bin.json", pattern=f"{tmp_path / 'bin.json'}: not a UTF-8 text file")
    fails("moves", "--board", tmp_path / "bin.toml", "--colour", "y", "--count", 1,
          pattern=f"{tmp_path / 'bin.toml'}: not a UTF-8 text file")


def test_broken_sheet_names_line_and_cell(tmp_path):
    sheet = tmp_path / "bad.txt"
    text = typed_sheet(set()).splitlines()
    text[2] = "Bgrgq" + text[2][5:]
    sheet.write_text("\n".join(text) + "\n")
    fails("score", sheet, pattern=f"{sheet}, line 3, cell E3: unexpected character 'q'")
    fails("moves", "--sheet", sheet, "--colour", "y", "--count", 1, pattern="line 3, cell E3")


def test_a_sheets_refusal_stays_english_in_a_german_terminal(tmp_path):
    """The terminal says a refusal's English line (docs/web.md "Languages"), its colour word too,
    whatever the locale: the catalogs are for the web's players."""
    sheet = tmp_path / "bad.txt"
    text = typed_sheet(set()).splitlines()
    text[0] = "b" + text[0][1:]  # classic's A1 is green
    sheet.write_text("\n".join(text) + "\n")
    result = runner.invoke(app, ["score", str(sheet)], env={"LANG": "de_DE.UTF-8", "LANGUAGE": "de", "LC_ALL": "de_DE.UTF-8"})
    assert result.exit_code == 1
    assert result.stderr == f"error: {sheet}, line 1, cell A1: 'b' but the classic board has green there\n"


def test_unknown_board_bot_colour_count():
    fails("moves", "--board", "chessboard", "--colour", "y", "--count", 1, pattern="unknown board", code=2)
    fails("solo", "--bot", "nobot", pattern="unknown bot 'nobot'", code=2)
    fails("moves", "--colour", "p", "--count", 1, pattern="--colour 'p'", code=2)
    fails("moves", "--colour", "y", "--count", 9, pattern="--count 9", code=2)
    fails("rolls", "--seed", -1, pattern="--seed -1: must be a non-negative integer", code=2)


def test_broken_board_file_is_one_line(tmp_path):
    """A long BoardError (several invariants) must not be wrapped over several lines."""
    bad = tmp_path / "brk.toml"
    bad.write_text((BOARDS_DIR / "classic.toml").read_text().replace('"gggyyyyGbbbOyyy"', '"gggyyyyYbbbOyyy"'))
    err = fails("moves", "--board", bad, "--colour", "y", "--count", 1, pattern=f"{bad}:")
    assert "column H lacks green" in err and "colour yellow has 22 cells" in err


def test_save_onto_a_directory(tmp_path):
    fails("solo", "--seed", 1, "--save", tmp_path, pattern=f"{tmp_path}: cannot write file")


def test_usage_error_is_exit_2():
    assert run("moves", "--colour", "y").exit_code == 2  # --count missing
