"""`nochmal board show/list/check` and `nochmal render --svg`.

Oracles: the board files themselves (read with tomllib), defects made on purpose whose broken
invariants are known in advance, and for SVG a parse with xml.etree and a count of the marks
against the typed sheet's x's / the engine's replay.
"""

from __future__ import annotations

import json
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

from typer.testing import CliRunner

from nochmal.bots.registry import make_agent
from nochmal.board import BUILTIN_BOARDS, load_board
from nochmal.play import play_competitive

from nochmal.cli import app

runner = CliRunner()
BOARDS = Path(__file__).resolve().parents[2] / "boards"
CLASSIC = (BOARDS / "classic.toml").read_text()
SVG = "{http://www.w3.org/2000/svg}"


def run(args, lines=()):
    return runner.invoke(app, args, input="".join(line + "\n" for line in lines))


def flat(text: str) -> str:
    return " ".join(text.split())


def test_board_list_json():
    res = run(["board", "list", "--json"])
    assert res.exit_code == 0
    data = json.loads(res.stdout)
    assert [b["name"] for b in data["boards"]] == list(BUILTIN_BOARDS)
    for b in data["boards"]:
        spec = tomllib.loads((BOARDS / f"{b['name']}.toml").read_text())
        assert b["title"] == spec["title"] and b["start_column"] == spec["start_column"]
    res = run(["board", "list"])
    assert res.exit_code == 0 and all(n in res.output for n in BUILTIN_BOARDS)


def test_board_show_json_matches_the_file():
    for name in ("classic", "purple"):
        res = run(["board", "show", name, "--json"])
        assert res.exit_code == 0
        data = json.loads(res.stdout)
        spec = tomllib.loads((BOARDS / f"{name}.toml").read_text())
        for key in ("grid", "column_points_first", "column_points_later", "jokers", "start_column"):
            assert data[key] == spec[key]
        stars = sorted(f"{chr(65 + c)}{r + 1}" for r, row in enumerate(spec["grid"])
                       for c, ch in enumerate(row) if ch.isupper())
        assert sorted(data["stars"]) == stars
        assert sorted(b["size"] for b in data["blocks"]) == sorted(list(range(1, 7)) * 5)
        assert sum(len(b["cells"]) for b in data["blocks"]) == 105


def test_board_show_draws_a_file_and_refuses_unknown_names(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text(CLASSIC.replace('name = "classic"', 'name = "mine"'))
    res = run(["board", "show", str(f)])
    assert res.exit_code == 0
    assert "gggyyyyGbbbOyyy" in res.output.replace(" ", "")
    res = run(["board", "show", "nosuchpad"])
    assert res.exit_code == 2 and "unknown board" in flat(res.output)


def test_board_check_valid_and_broken(tmp_path):
    res = run(["board", "check", str(BOARDS / "classic.toml"), "--json"])
    assert res.exit_code == 0
    assert json.loads(res.stdout) == {"file": str(BOARDS / "classic.toml"), "valid": True,
                                      "name": "classic", "problems": []}
    # row 2's star C2 made a plain cell: yellow then has 2 stars, the sheet 14, column C none
    broken = tmp_path / "broken.toml"
    broken.write_text(CLASSIC.replace('"ogYgYyoorBboogg"', '"ogygYyoorBboogg"'))
    res = run(["board", "check", str(broken)])
    assert res.exit_code == 1
    text = flat(res.output)
    for problem in ("colour yellow has 2 stars, expected 3", "the sheet has 14 stars, expected 15",
                    "column C has 0 stars, expected 1"):
        assert f"{broken}: {problem}" in text
    res = run(["board", "check", str(broken), "--json"])
    assert res.exit_code == 1
    data = json.loads(res.stdout)
    assert data["valid"] is False and len(data["problems"]) == 3


def test_board_check_missing_and_unparsable_files(tmp_path):
    res = run(["board", "check", str(tmp_path / "nope.toml")])
    assert res.exit_code == 1 and "cannot read file" in flat(res.output)
    bad = tmp_path / "bad.toml"
    bad.write_text("grid = [\n")
    res = run(["board", "check", str(bad), "--json"])
    assert res.exit_code == 1 and "not valid TOML" in json.loads(res.stdout)["problems"][0]


def _crosses(root: ET.Element) -> list[ET.Element]:
    assert root.tag == SVG + "svg"
    return [g for g in root.iter(SVG + "g") if g.get("class") == "cross"]


def _render_typed(tmp_path: Path, rows: list[str], extra: str) -> tuple[dict, ET.Element]:
    """`nochmal render` of a typed classic sheet (``rows``, then ``extra`` lines): its JSON
    sheet and the drawing's root."""
    sheet = tmp_path / "s.txt"
    sheet.write_text("\n".join(rows) + "\n" + extra)
    out = tmp_path / "s.svg"
    res = run(["render", str(sheet), "--svg", str(out), "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)["sheets"][0], ET.parse(out).getroot()


def test_render_typed_sheet(tmp_path):
    rows = ["xxxxxxxxbbbOyyy", "ogYgYyoxrBboogg", "BgrgggGxrryyogg", "brrgoObxggyyoRb",
            "roooorbxooorrrr", "rBbRrrrxYoRbbbO", "yybbbbrxyyggGoo"]
    data, root = _render_typed(tmp_path, rows, "jokers_used: 3\n")
    n_x = sum(r.count("x") for r in rows)
    assert data["crossed"] == n_x and data["jokers_used"] == 3
    assert len(_crosses(root)) == n_x
    stars = [p for p in root.iter(SVG + "polygon") if p.get("class") == "star"]
    assert len(stars) == 15
    used = [e for e in root.iter(SVG + "line") if e.get("class") == "joker-used"]
    assert len(used) == 3
    # column H is complete: its first value (1) is circled
    assert len([c for c in root.iter(SVG + "circle") if c.get("class") == "scored"]) == 1


def test_render_record_draws_every_final_sheet(tmp_path):
    rec = play_competitive(load_board("classic"), [make_agent("greedy"), make_agent("random", 1)], seed=3)
    path = tmp_path / "g.json"
    rec.save(path)
    out = tmp_path / "g.svg"
    res = run(["render", str(path), "--svg", str(out)])
    assert res.exit_code == 0, res.output
    final = rec.verify()
    root = ET.parse(out).getroot()
    assert len(_crosses(root)) == sum(s.crossed.bit_count() for s in final.sheets)
    sheets = [g for g in root.iter(SVG + "g") if g.get("class") == "sheet"]
    assert [int(g.get("data-score")) for g in sheets] == final.scores()


def test_render_errors_leave_no_file(tmp_path):
    sheet = tmp_path / "bad.txt"
    sheet.write_text("xxxyyyyGbbbOyyy\n" * 6 + "yybbbbryyyggGoQ\n")
    out = tmp_path / "bad.svg"
    res = run(["render", str(sheet), "--svg", str(out)])
    assert res.exit_code == 1
    # row 2 of the classic sheet has green at D2, the file says yellow
    assert "line 2, cell D2: 'y' but the classic board has green there" in flat(res.output)
    assert not out.exists()
    res = run(["render", str(tmp_path / "missing.txt"), "--svg", str(out)])
    assert res.exit_code == 1 and "cannot read file" in flat(res.output)
    assert not out.exists()
    res = run(["render", str(sheet)])
    assert res.exit_code == 2


def test_render_marks_a_column_scored_late_struck_and_circled(tmp_path):
    rows = ["gggyyyyxbbbOyyy", "ogYgYyoxrBboogg", "BgrgggGxrryyogg", "brrgoObxggyyoRb",
            "roooorbxooorrrr", "rBbRrrrxYoRbbbO", "yybbbbrxyyggGoo"]
    data, root = _render_typed(tmp_path, rows, "later_columns: H\n")
    # column H's later value is 0 and counts; its first value (1) is struck
    assert data["score"] == 0 + 8 - 2 * 14
    struck = [e for e in root.iter(SVG + "line") if e.get("class") == "struck"]
    circled = [e for e in root.iter(SVG + "circle") if e.get("class") == "scored"]
    assert len(struck) == 1 and len(circled) == 1
    # both marks sit under column H (the 8th column)
    h_cell = next(r for r in root.iter(SVG + "rect") if r.get("data-cell") == "H1")
    centre = float(h_cell.get("x")) + float(h_cell.get("width")) / 2
    assert abs(float(circled[0].get("cx")) - centre) < 1
    assert abs((float(struck[0].get("x1")) + float(struck[0].get("x2"))) / 2 - centre) < 1
    assert float(circled[0].get("cy")) > float(struck[0].get("y2"))  # the later row is below


def test_a_huge_joker_count_is_one_error_line_for_every_command(tmp_path):
    """jokers = 800000000000 once passed `board check`, hung `board show`, crashed `score`."""
    f = tmp_path / "greedy.toml"
    f.write_text(CLASSIC.replace("jokers = 8\n", "jokers = 800000000000\n"))
    sheet = tmp_path / "s.txt"
    sheet.write_text("\n".join(load_board("classic").printed) + "\n")
    for args in (["board", "check", str(f)], ["board", "show", str(f)],
                 ["score", "--board", str(f), str(sheet)]):
        res = run(args)
        assert res.exit_code == 1, (args, res.output)
        assert "key 'jokers' must be 0..8, got 800000000000" in res.output
        assert "Traceback" not in res.output


def test_score_and_render_refuse_a_sheet_no_game_can_produce(tmp_path):
    """A1 B1 C1 crossed, not connected to column H: exit 1 with the reason, unless allowed."""
    rows = list(load_board("classic").printed)
    rows[0] = "xxx" + rows[0][3:]
    sheet = tmp_path / "s.txt"
    sheet.write_text("\n".join(rows) + "\n")
    out = tmp_path / "s.svg"
    for args in (["score", str(sheet)], ["render", str(sheet), "--svg", str(out)]):
        res = run(args)
        assert res.exit_code == 1, res.output
        assert "impossible sheet: crossed cells A1 B1 C1 are not connected to column H" in flat(res.output)
        res = run(args + ["--allow-impossible"])
        assert res.exit_code == 0, res.output
        assert "warning: " in res.output
    assert out.exists()
