"""The generic checker: every objective kind in every scope, met and not met, on hand-made sheets.

Expected values come from the rules, counted by hand on the classic sheet (e.g. yellow is 21
cells; the stars are the upper-case letters), never from the checker itself.
"""

from __future__ import annotations

import pytest

import nochmal as nm
from nochmal.missions.model import Objective
from nochmal.missions.objectives import evaluate, team_score
from nochmal.sheet import Sheet

B = nm.load_board("classic")


def col(letter: str) -> list[str]:
    return [f"{letter}{r}" for r in range(1, 8)]


def colour(c: str) -> list[str]:
    return B.cells_of(B.colour_mask[c])


def sheet(*cells, jokers_used: int = 0) -> Sheet:
    names = [c for group in cells for c in (group if isinstance(group, list) else [group])]
    return Sheet.from_cells(B, names, jokers_used)


def per_players(v: int):
    return tuple((p, v) for p in (1, 2, 3, 4))


EMPTY = Sheet.empty(B)
STARS = ["H1", "L1", "C2", "E2", "J2", "A3", "G3", "F4", "N4", "B6", "D6", "I6", "K6", "O6", "M7"]


def test_star_list_is_the_printed_one():
    assert sorted(B.cells_of(B.star_mask)) == sorted(STARS)


# --- columns ---------------------------------------------------------------------------
GHI = Objective("columns", "team", columns=(6, 7, 8))


def test_columns_team_pools_completed_columns():
    st = evaluate(GHI, [sheet(col("G"), col("H")), sheet(col("H"), col("I"))])
    assert st.met and (st.progress, st.total) == (3, 3) and st.contributing == [0, 1] and st.missing == []
    st = evaluate(GHI, [sheet(col("G"), col("H")), sheet(col("H"), col("I")[:6])])
    assert not st.met and (st.progress, st.total) == (2, 3) and st.missing == ["I"] and st.contributing == [0, 1]
    # per sheet: the fewest crosses for that sheet to finish column I alone (7 cells next to H)
    assert [c.value for c in st.crosses] == [7, 1]


def test_columns_each_needs_every_sheet():
    obj = Objective("columns", "each", columns=(6, 7, 8))
    full = sheet(col("G"), col("H"), col("I"))
    st = evaluate(obj, [full, full])
    assert st.met and (st.progress, st.total) == (6, 6)
    st = evaluate(obj, [full, sheet(col("G"), col("H"))])
    assert not st.met and (st.progress, st.total) == (5, 6) and st.missing == ["sheet 2: I"]
    assert st.contributing == [0]
    # an empty sheet needs all 21 cells of G, H, I (connected, touching column H)
    st = evaluate(obj, [full, EMPTY])
    assert [c.value for c in st.crosses] == [0, 21]


def test_columns_any_needs_one_sheet_with_all():
    obj = Objective("columns", "any", columns=(6, 7, 8))
    st = evaluate(obj, [sheet(col("G"), col("H")), sheet(col("I"))])
    assert not st.met and (st.progress, st.total) == (2, 3)
    assert st.missing == ["closest sheet 1: I"]
    st = evaluate(obj, [EMPTY, sheet(col("G"), col("H"), col("I"))])
    assert st.met and st.contributing == [1]


# --- colours ---------------------------------------------------------------------------
def test_colours_list_in_all_scopes():
    yb = (("y", "b"))
    y_sheet, b_sheet = sheet(colour("y")), sheet(colour("b"))
    both = sheet(colour("y"), colour("b"))
    team = Objective("colours", "team", colours=yb)
    assert evaluate(team, [y_sheet, b_sheet]).met
    st = evaluate(team, [y_sheet, y_sheet])
    assert not st.met and st.missing == ["blue"] and (st.progress, st.total) == (1, 2)
    each = Objective("colours", "each", colours=yb)
    assert evaluate(each, [both, both]).met
    st = evaluate(each, [both, y_sheet])
    assert not st.met and st.missing == ["sheet 2: blue"]
    anyo = Objective("colours", "any", colours=yb)
    assert evaluate(anyo, [EMPTY, both]).met
    assert not evaluate(anyo, [y_sheet, b_sheet]).met


def test_colours_count_counts_distinct_colours():
    team2 = Objective("colours", "team", count=2)
    assert evaluate(team2, [sheet(colour("y")), sheet(colour("o"))]).met
    st = evaluate(team2, [sheet(colour("y")), sheet(colour("y"))])
    assert not st.met and (st.progress, st.total) == (1, 2) and st.missing == ["1 more of: green blue red orange"]
    each1 = Objective("colours", "each", count=1)
    assert evaluate(each1, [sheet(colour("y")), sheet(colour("r"))]).met
    assert not evaluate(each1, [sheet(colour("y")), EMPTY]).met
    any2 = Objective("colours", "any", count=2)
    assert evaluate(any2, [EMPTY, sheet(colour("g"), colour("r"))]).met
    assert not evaluate(any2, [sheet(colour("g")), sheet(colour("r"))]).met


# --- stars -----------------------------------------------------------------------------
def test_stars_team_each_any():
    team = Objective("stars", "team", count=15)
    st = evaluate(team, [sheet(STARS[:8]), sheet(STARS[8:])])
    assert st.met and st.progress == 15
    st = evaluate(team, [sheet(STARS[:8]), sheet(STARS[8:-1])])
    assert not st.met and st.missing == ["M7"] and st.progress == 14
    each3 = Objective("stars", "each", count=3)
    assert evaluate(each3, [sheet(STARS[:3]), sheet(STARS[5:8])]).met
    st = evaluate(each3, [sheet(STARS[:3]), sheet(STARS[5:7])])
    assert not st.met and (st.progress, st.total) == (5, 6)
    assert st.missing[0].startswith("sheet 2: 1 more of:")
    any4 = Objective("stars", "any", count=4)
    assert evaluate(any4, [sheet(STARS[:4]), EMPTY]).met
    assert not evaluate(any4, [sheet(STARS[:3]), sheet(STARS[3:6])]).met


def test_stars_count_crosses_pick_the_nearest_star():
    # from an empty sheet the nearest star is H1 (in the start column): one cross;
    # two stars: H1 and then G3 or I6, each one step off column H (H3+G3 or H6+I6): 3
    st = evaluate(Objective("stars", "each", count=1), [EMPTY])
    assert st.crosses[0].exact and st.crosses[0].value == 1
    st = evaluate(Objective("stars", "each", count=2), [EMPTY])
    assert st.crosses[0].exact and st.crosses[0].value == 3


# --- cells -----------------------------------------------------------------------------
def test_cells_team_each_any():
    cells = ("H1", "H7")
    a, b = sheet("H1"), sheet("H7")
    team = evaluate(Objective("cells", "team", cells=cells), [a, b])
    assert team.met and team.contributing == [0, 1]
    each = evaluate(Objective("cells", "each", cells=cells), [a, b])
    assert not each.met and each.missing == ["sheet 1: H7", "sheet 2: H1"]
    assert [c.value for c in each.crosses] == [1, 1]
    anyo = evaluate(Objective("cells", "any", cells=cells), [a, b])
    assert not anyo.met
    assert evaluate(Objective("cells", "any", cells=cells), [a, sheet("H1", "H7")]).met
    assert evaluate(Objective("cells", "each", cells=cells), [sheet("H1", "H7")] * 2).met
    far = evaluate(Objective("cells", "team", cells=("A4",)), [EMPTY])
    assert not far.met and far.crosses[0].value == 8  # H4 .. B4 then A4


# --- score -----------------------------------------------------------------------------
def test_score_scopes():
    # empty sheet: 8 jokers - 15 stars x 2 = -22; column H complete: +1 for the column and
    # its star H1 no longer costs 2 -> -19
    h = sheet(col("H"))
    assert team_score(EMPTY) == -22 and team_score(h) == -19
    team = Objective("score", "team", at_least=per_players(-41))
    assert evaluate(team, [EMPTY, h]).met
    st = evaluate(team, [EMPTY, EMPTY])
    assert not st.met and st.progress == -44 and st.missing == ["3 more points for the team"]
    each = Objective("score", "each", at_least=per_players(-19))
    assert not evaluate(each, [EMPTY, h]).met and evaluate(each, [h, h]).met
    anyo = Objective("score", "any", at_least=per_players(-19))
    assert evaluate(anyo, [EMPTY, h]).met and not evaluate(anyo, [EMPTY, EMPTY]).met
    assert evaluate(anyo, [EMPTY, h]).crosses == [None, None]


def test_score_threshold_depends_on_player_count():
    obj = Objective("score", "team", at_least=((1, -22), (2, -40), (3, 0), (4, 0)))
    assert evaluate(obj, [EMPTY]).met
    assert not evaluate(obj, [EMPTY, EMPTY]).met


def test_team_score_ignores_later_values():
    later = nm.parse_typed_sheet("\n".join(
        "".join("x" if c == 7 else B.printed[r][c] for c in range(15)) for r in range(7)) + "\nlater_columns: H\n", B)
    assert later.score() == -20 and team_score(later) == -19


# --- jokers ----------------------------------------------------------------------------
def test_jokers_left_scopes():
    a, b = sheet("H4", jokers_used=3), sheet("H4")
    assert evaluate(Objective("jokers_left", "team", at_least=per_players(13)), [a, b]).met
    assert not evaluate(Objective("jokers_left", "team", at_least=per_players(14)), [a, b]).met
    assert evaluate(Objective("jokers_left", "each", at_least=per_players(5)), [a, b]).met
    st = evaluate(Objective("jokers_left", "each", at_least=per_players(6)), [a, b])
    assert not st.met and st.missing == ["sheet 1: 1 more unused joker"]
    assert evaluate(Objective("jokers_left", "any", at_least=per_players(8)), [a, b]).met
    assert not evaluate(Objective("jokers_left", "any", at_least=per_players(8)), [a, a]).met


@pytest.mark.parametrize("scope", ["team", "each", "any"])
def test_describe_names_the_scope(scope):
    text = Objective("cells", scope, cells=("A1",)).describe(2)
    assert "A1" in text and {"team": "at least one sheet", "each": "every sheet", "any": "at least one sheet"}[scope] in text
