"""SVG pictures (nochmal/svg.py): addressable cells, headings, unfinished records, no overlap."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import nochmal as nm
from nochmal.bots import make_agent
from nochmal.svg import record_svg, sheet_height, sheets_svg

SVG = "{http://www.w3.org/2000/svg}"


def _root(text: str) -> ET.Element:
    return ET.fromstring(text.split("?>", 1)[1])


def _cells(root):
    return [r for r in root.iter(SVG + "rect") if r.get("class") == "cell"]


def test_every_cell_carries_its_name_colour_crossed_and_star():
    board = nm.load_board("classic")
    sheet = nm.Sheet.from_cells(board, ["H1", "H2", "H3", "G3"])
    root = _root(sheets_svg([("t", sheet)]))
    cells = _cells(root)
    assert len(cells) == board.rows * board.cols
    by_name = {c.get("data-cell"): c for c in cells}
    assert len(by_name) == len(cells)
    for name, rect in by_name.items():
        bit = board.bit(name)
        assert rect.get("data-colour") == board.colour_of_bit(bit)
        assert rect.get("data-crossed") == str(sheet.crossed >> bit & 1)
        assert rect.get("data-star") == str(int(board.is_star(bit)))
    assert sorted(n for n, r in by_name.items() if r.get("data-crossed") == "1") == ["G3", "H1", "H2", "H3"]
    assert sum(r.get("data-star") == "1" for r in cells) == 15


def _record(seed=3, seats=("greedy", "random")):
    return nm.play_competitive(nm.load_board("classic"), [make_agent(s, k) for k, s in enumerate(seats)], seed=seed)


def test_record_heading_names_seats_board_seed_mode_date_and_formula():
    rec = _record()
    rec.players = ["human:Anna", "random"]
    text = record_svg(rec, drawn="2026-12-01")
    root = _root(text)
    heading = " | ".join(t.text for t in root.iter(SVG + "text") if t.get("class") == "heading")
    assert "competitive" in heading and "seed 3" in heading and "2026-12-01" in heading
    assert rec.board.title in heading and "winner" in heading
    titles = [t.text for t in root.iter(SVG + "text") if t.get("class") == "title"]
    assert titles[0].startswith("Anna: ") and titles[1].startswith("random (seat 2): ")
    final = rec.verify()
    scores = ["".join(t.itertext()) for t in root.iter(SVG + "text") if t.get("class") == "score"]
    for line, sheet in zip(scores, final.sheets):
        bd = sheet.score_breakdown()
        assert line == (f"score {bd.total} = columns {bd.columns} + colours {bd.colours} + "
                        f"jokers left {bd.jokers} \u2212 stars open {-bd.stars}")
    assert root.find(SVG + "title").text.startswith("Noch mal! competitive game")


def test_unfinished_record_is_drawn_as_unfinished():
    rec = nm.play_solo(nm.load_board("classic"), make_agent("greedy"), seed=7)
    rec.rolls = rec.rolls[:12]
    rec.result = None
    root = _root(record_svg(rec))
    heading = [t.text for t in root.iter(SVG + "text") if t.get("class") == "heading"]
    assert any("UNFINISHED: 12 of 30 rolls played" in h for h in heading)
    sheet = next(g for g in root.iter(SVG + "g") if g.get("class") == "sheet")
    assert sheet.get("data-unfinished") == "1"
    assert any(r.get("class") == "unfinished" for r in root.iter(SVG + "rect"))
    finished = _root(record_svg(nm.play_solo(nm.load_board("classic"), make_agent("greedy"), seed=7)))
    assert not any(r.get("class") == "unfinished" for r in finished.iter(SVG + "rect"))


def test_coop_picture_names_the_mission_and_the_outcome():
    from nochmal.missions import load_mission, mission_record, play_mission
    from nochmal.missions.coop import mission_outcome_line, record_game

    mission = load_mission("star-hunt")
    game, result = play_mission(mission, "easy", [make_agent("greedy"), make_agent("greedy", 1)], seed=1)
    rec = mission_record(mission, "easy", game, ["human:Anna", "greedy"], 1)
    outcome = mission_outcome_line(rec, game)
    heading = [t.text for t in _root(record_svg(rec, outcome=outcome, game_factory=record_game)).iter(SVG + "text") if t.get("class") == "heading"]
    verdict = f"WON on roll {result.won_on}" if result.won else f"LOST after {result.rolls_used}"
    assert any(h.startswith("mission star-hunt (easy): " + verdict) for h in heading)


def _ys(element) -> list[float]:
    out = []
    for e in element.iter():
        for key in ("y", "y1", "y2", "cy"):
            if e.get(key) is not None:
                out.append(float(e.get(key)) + float(e.get("height", 0)) + float(e.get("r", 0)))
        if e.get("points"):
            out.extend(float(p.split(",")[1]) for p in e.get("points").split())
    return out


def test_stacked_sheets_never_overlap():
    rec = _record(seats=("greedy", "random", "greedy", "random"))
    root = _root(record_svg(rec))
    sheets = [g for g in root.iter(SVG + "g") if g.get("class") == "sheet"]
    assert len(sheets) == 4
    spans = [(min(_ys(g)), max(_ys(g))) for g in sheets]
    for (_, bottom), (top, _) in zip(spans, spans[1:]):
        assert bottom < top  # every element of a sheet ends above the next sheet's first one
    height = float(root.get("height"))
    assert spans[-1][1] <= height
    first_height = sheet_height(rec.verify().sheets[0])
    assert spans[1][0] - spans[0][0] <= first_height + 1
    assert re.search(r"data-seat=\"3\"", record_svg(rec))


def test_cells_named_and_text_readable_on_a_phone():
    """Every cell says what a screen reader reads, and the drawing scaled to a 360 px phone keeps
    cells of 22 px and no text under 11 px (docs/web.md, phones)."""
    board = nm.load_board("classic")
    sheet = nm.Sheet.from_cells(board, ["H4"])
    root = _root(sheets_svg([("Anna", sheet)]))
    by_name = {r.get("data-cell"): r for r in root.iter(SVG + "rect") if r.get("class") == "cell"}
    h4 = by_name["H4"]
    star = ", star" if h4.get("data-star") == "1" else ""
    assert h4.get("aria-label") == f"H4 {_WORD[h4.get('data-colour')]}{star}, crossed"
    assert by_name["A1"].get("aria-label").endswith(", not crossed")
    scale = 360 / float(root.get("width"))
    assert float(h4.get("width")) * scale >= 22
    assert min(float(t.get("font-size")) for t in root.iter(SVG + "text")) * scale >= 11


_WORD = {"y": "yellow", "g": "green", "b": "blue", "r": "red", "o": "orange"}
