"""The sheet's data file: its facts against the two transcriptions it names (typed here
from them, field by field), its internal consistency (as many unlocks as track slots), and
the loader reporting every problem with the file and the key."""

import tomllib

import pytest

import clever_oracle
from nochmal.clever import clever4ever, load_sheet
from nochmal.clever.errors import SheetDataError
from nochmal.clever.sheetdata import ACTIONS, DATA_FILE, parse_sheet
from nochmal.errors import BoardError

FACTS = clever4ever()

# Mualig/clever src/game/sheet4.ts, typed from it (its names: qX = "?" of area X).
M = {
    "yellow": [[None, "polish", "?grey", "?green", "fox"], ["reroll", "?pink", "?blue", "plus-one", "?yellow"],
               [None] * 5],
    "blue_rows": ["?green", "?pink", "?yellow", "plus-one", "?grey", "fox"],
    "grey": ["DWWLLLLWWLLDLLDD", "LWWDDDLWWWLDLWDD", "LLWLLDWDDLLWLWWD", "LDDLDDWDDLWWLWLD"],
    "grey_bonus": {(0, 0): "polish", (0, 5): "?green", (0, 12): "polish", (1, 7): "reroll", (1, 15): "?green",
                   (2, 3): "?pink", (2, 5): "polish", (2, 9): "polish", (2, 13): "?blue", (3, 0): "reroll",
                   (3, 7): "plus-one", (3, 11): "?yellow", (3, 14): "polish"},
    "green": ["reroll", "?blue", "polish", "?yellow", "?grey", "plus-one", "?pink", "?blue", "?yellow", "fox",
              "plus-one"],
    "pink": ["polish", None, "?green", "plus-one", "reroll", None, "?grey", "fox", None, "?blue", None, "?yellow"],
}
# bergi11/bs-spieleparadies docs/clever-4ever.md (its grid with H = light grey; "Silber
# polieren" at all nine circles, as its "Nachträglich geklärt" says)
A_GRID = ["D W W H H H H W W H H D H H D D", "H W W D D D H W W W H D H W D D", "H H W H H D W D D H H W H W W D",
          "H D D H D D W D D H W W H W H D"]


def test_the_facts_agree_with_both_transcriptions():
    assert [list(r) for r in FACTS.yellow_bonuses] == M["yellow"]
    assert FACTS.yellow_points == (10, 10, 15, 15, 20)
    assert list(FACTS.blue_row_bonuses) == M["blue_rows"] and FACTS.blue_diagonal_bonus == "reroll"
    assert FACTS.blue_points == (7, 8, 9, 10, 11, 12) and FACTS.blue_anti_diagonal_points == 6
    assert list(FACTS.grey_shades) == M["grey"] == [g.replace(" ", "").replace("H", "L") for g in A_GRID]
    assert {cell: b for s in FACTS.segments for cell, b in zip([c for c in s.cells if c in M["grey_bonus"]], s.bonuses)} \
        == M["grey_bonus"]
    assert FACTS.grey_points == (1, 2, 3, 4, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11)
    assert list(FACTS.green_bonuses) == M["green"] and FACTS.green_double_from == 3
    assert list(FACTS.pink_bonuses) == M["pink"] and FACTS.pink_bonus_numbers == {5, 6}
    assert FACTS.pink_points == (2, 4, 6, 9, 12, 15, 19, 23, 27, 32, 37, 42)
    assert FACTS.pink_circle_points == {2: 2, 4: 4, 6: 3}
    assert FACTS.track_slots == {"reroll": 7, "plus-one": 7, "polish": 9}
    assert FACTS.track_end_bonus == {"reroll": "?pink", "plus-one": None, "polish": None}
    assert FACTS.round_bonuses[:4] == ("reroll", "plus-one", "polish", "?any") and not any(FACTS.round_bonuses[4:])
    assert [low for low, _, _ in FACTS.ratings] == [450, 420, 390, 360, 330, 300, 270, 240, 210, 180, -1000]


def test_segments_are_the_largest_groups_of_one_shade_and_start_at_the_red_frames():
    assert {frozenset(s.cells) for s in FACTS.segments} == set(clever_oracle.SEGMENTS)
    assert len(FACTS.segments) == 17 and max(len(s.cells) for s in FACTS.segments) <= 6
    starts = [FACTS.segments[i] for i in sorted(FACTS.start_segments)]
    assert [(s.shade, len(s.cells)) for s in starts] == [("D", 1), ("L", 4)]
    for s in FACTS.segments:  # neighbours touch edge to edge and are of another shade
        for n in FACTS.neighbours[s.index]:
            assert FACTS.segments[n].shade != s.shade
            assert any(abs(r - r2) + abs(c - c2) == 1 for r, c in s.cells for r2, c2 in FACTS.segments[n].cells)


def test_there_are_as_many_unlocks_as_track_slots_and_seven_fox_sources():
    printed = [b for row in FACTS.yellow_bonuses for b in row] + list(FACTS.blue_row_bonuses) + \
        [FACTS.blue_diagonal_bonus] + [b for s in FACTS.segments for b in s.bonuses] + list(FACTS.green_bonuses) + \
        list(FACTS.pink_bonuses) + list(FACTS.round_bonuses)
    for action in ACTIONS:
        assert printed.count(action) == FACTS.track_slots[action]
    assert printed.count("fox") + len({s.shade for s in FACTS.segments}) == 7  # 4 printed, 3 grey shades


def raw():
    return tomllib.loads(DATA_FILE.read_text(encoding="utf-8"))


@pytest.mark.parametrize("edit, problem", [
    (lambda d: d["yellow"].pop("column_points"), "yellow.column_points: missing"),
    (lambda d: d["yellow"]["bonuses"][1].__setitem__(2, "?red"), "yellow.bonuses[2][3]: unknown bonus '?red'"),
    (lambda d: d["blue"].__setitem__("size", 5), "blue.size: a die picks the row"),
    (lambda d: d["grey"]["shades"].__setitem__(0, "WWWLLLLWWLLDLLDD"), None),
    (lambda d: d["grey"]["shades"].__setitem__(3, "LDDLDDWDDLWWLWDD"), "no die could cross it"),
    (lambda d: d["grey"]["shades"].__setitem__(2, "LLWLLDWDDLLWLWW"), "grey.shades[3]: expected 16 cells, got 15"),
    (lambda d: d["grey"]["shades"].__setitem__(2, "LLWLLDWDDLLWLWWX"), "grey.shades[3]: shades are W, L, D"),
    (lambda d: d["grey"]["cell_bonuses"][0].__setitem__("cell", [5, 1]), "grey.cell_bonuses[1]: cell must be"),
    (lambda d: d["grey"]["start_cells"].append([0, 0]), "grey.start_cells[3]: expected [row, column]"),
    (lambda d: d["green"].__setitem__("fields", 12), "green.bonuses: expected 12 bonuses, got 11"),
    (lambda d: d["pink"]["circle_points"].__setitem__("9", 1), "pink.circle_points.9"),
    (lambda d: d["tracks"]["reroll"].__setitem__("slots", "7"), "tracks.reroll.slots: expected a whole number"),
    (lambda d: d["solo"]["ratings"].reverse(), "solo.ratings: expected the bands best first"),
])
def test_the_loader_names_every_bad_key(edit, problem):
    data = raw()
    edit(data)
    if problem is None:  # the older grid of one transcription (a 6-cell white start) still loads
        assert parse_sheet(data, "x.toml").segments[0].shade == "W"
        return
    with pytest.raises(SheetDataError) as err:
        parse_sheet(data, "x.toml")
    assert isinstance(err.value, BoardError) and str(err.value).startswith("x.toml: ")
    assert any(p.startswith(problem) or problem in p for p in err.value.problems), err.value.problems


def test_several_problems_are_reported_together(tmp_path):
    text = DATA_FILE.read_text(encoding="utf-8").replace("column_points = [7, 8, 9, 10, 11, 12]", "")
    text = text.replace('diagonal_bonus = "reroll"', 'diagonal_bonus = "jump"')
    bad = tmp_path / "bad.toml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(SheetDataError) as err:
        load_sheet(bad)
    assert str(bad) in str(err.value) and len(err.value.problems) >= 2
    (tmp_path / "broken.toml").write_text("[yellow\n", encoding="utf-8")
    with pytest.raises(SheetDataError, match="not valid TOML"):
        load_sheet(tmp_path / "broken.toml")
    with pytest.raises(SheetDataError, match="missing.toml"):
        load_sheet(tmp_path / "missing.toml")
