"""One sheet text everywhere without colour: ``score``, ``solo``, ``replay``,
``play`` and ``board show`` print the same drawing, with every open cell as its colour
letter (upper case: a star) whenever the console shows no colour (a pipe, NO_COLOR), the
scored column points circled and the jokers as ``X`` (used) and ``!`` (left).

Oracle: the classic sheet's printed layout typed out below (from the rulebook's sheet, not
read from boards/classic.toml) and the crossed cells named by each test.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys

from rich.console import Console
from typer.testing import CliRunner

import nochmal as nm
from nochmal.bots import make_agent
from nochmal.cli import app
from nochmal.sheetview import render_sheet

GRID = ["gggyyyyGbbbOyyy", "ogYgYyoorBboogg", "BgrgggGrrryyogg", "brrgoObbggyyoRb",
        "roooorbbooorrrr", "rBbRrrryYoRbbbO", "yybbbbryyyggGoo"]
LETTERS = "ABCDEFGHIJKLMNO"
runner = CliRunner()


def expected_rows(crossed: set[str]) -> list[list[str]]:
    return [["X" if f"{LETTERS[c]}{r + 1}" in crossed else GRID[r][c] for c in range(15)] for r in range(7)]


def grid_rows(output: str) -> list[list[str]]:
    """The seven cell rows of the first sheet drawn in ``output``."""
    rows = []
    for line in output.splitlines():
        m = re.match(r"^\s+(\d)\s+((?:\S\s*){15})$", line)
        if m and int(m.group(1)) == len(rows) + 1:
            rows.append(m.group(2).split())
            if len(rows) == 7:
                return rows
    raise AssertionError(f"no sheet in:\n{output}")


def jokers_line(output: str) -> str:
    return next(line for line in output.splitlines() if line.startswith("jokers"))


def test_score_prints_letters_marks_and_jokers(tmp_path):
    crossed = {f"A{r}" for r in range(1, 8)} | {"H4"}
    rows = ["".join("x" if f"{LETTERS[c]}{r + 1}" in crossed else "." for c in range(15)) for r in range(7)]
    path = tmp_path / "s.txt"
    path.write_text("\n".join(rows) + "\njokers_used: 3\n", encoding="utf-8")
    # column A alone is not connected to column H: drawn all the same with --allow-impossible
    out = runner.invoke(app, ["score", str(path), "--allow-impossible"]).stdout
    assert grid_rows(out) == expected_rows(crossed)
    first = next(line for line in out.splitlines() if line.startswith("1st"))
    assert first.split()[1] == "(5)"  # column A scored at its first value
    assert jokers_line(out).split()[1:] == ["X"] * 3 + ["!"] * 5 + ["(5", "left)"]


def test_no_joker_left_is_not_a_row_of_dots(tmp_path):
    path = tmp_path / "s.txt"
    path.write_text("\n".join(["." * 15] * 7) + "\njokers_used: 8\n", encoding="utf-8")
    out = runner.invoke(app, ["score", str(path), "--allow-impossible"]).stdout  # 8 jokers, nothing crossed
    assert jokers_line(out).split()[1:] == ["X"] * 8 + ["(0", "left)"]
    assert "." not in jokers_line(out)


def test_solo_replay_play_and_board_show_draw_the_same_text(tmp_path):
    record = nm.play_solo(nm.load_board("classic"), make_agent("greedy", 5), 5)
    final = nm.Sheet.from_text(record.result["sheets"][0], nm.load_board("classic"))
    crossed = set(final.board.cells_of(final.crossed))
    solo = runner.invoke(app, ["solo", "--seed", "5", "--save", str(tmp_path / "g.json")]).stdout
    replay = runner.invoke(app, ["replay", str(tmp_path / "g.json")]).stdout
    assert grid_rows(solo) == grid_rows(replay) == expected_rows(crossed)
    assert jokers_line(solo) == jokers_line(replay)
    play = runner.invoke(app, ["play", "--seed", "5"], input="quit\n").stdout
    show = runner.invoke(app, ["board", "show", "classic"]).stdout
    assert grid_rows(play) == grid_rows(show) == expected_rows(set())


def test_no_color_on_a_colour_terminal_prints_letters():
    sheet = nm.Sheet.from_cells(nm.load_board("classic"), ["H4"])

    def drawn(**kw) -> str:
        buf = io.StringIO()
        Console(file=buf, force_terminal=True, color_system="truecolor", width=120, **kw).print(render_sheet(sheet))
        return re.sub(r"\x1b\[[0-9;]*m", "", buf.getvalue())

    assert grid_rows(drawn(no_color=True)) == expected_rows({"H4"})
    coloured = grid_rows(drawn())
    assert coloured[3][7] == "X" and coloured[0][0] == "·" and coloured[0][7] == "*"


def test_no_color_environment_through_the_command(tmp_path):
    env = {**os.environ, "FORCE_COLOR": "1", "NO_COLOR": "1", "COLUMNS": "120"}
    exe = [sys.executable, "-c", "from nochmal.cli import main; main()", "board", "show", "classic"]
    out = subprocess.run(exe, env=env, capture_output=True, text=True, cwd=tmp_path).stdout
    assert grid_rows(re.sub(r"\x1b\[[0-9;]*m", "", out)) == expected_rows(set())
