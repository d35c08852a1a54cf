"""Mission files: the shipped ones load; broken ones fail naming file, key and reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from nochmal.missions import MissionError, builtin_missions, load_mission, parse_mission_text
from nochmal.missions.model import DIFFICULTIES

GOOD = """
id = "my-mission"
name = "Mine"
source = "user"
description = "Cross A1 and O7 together."

[[objectives]]
kind = "cells"
cells = ["A1", "O7"]
scope = "team"

[budgets]
1 = { easy = 30, normal = 25, hard = 20 }
2 = { easy = 30, normal = 25, hard = 20 }
3 = { easy = 30, normal = 25, hard = 20 }
4 = { easy = 30, normal = 25, hard = 20 }
"""


def broken(old: str, new: str) -> str:
    assert old in GOOD
    return GOOD.replace(old, new)


def error_of(text: str, source: str = "bad.toml") -> str:
    with pytest.raises(MissionError) as info:
        parse_mission_text(text, source)
    return str(info.value)


def test_shipped_missions_load_and_say_they_are_project_design():
    missions = {m.id: m for m in builtin_missions()}
    assert set(missions) == {"column-relay", "star-hunt", "colour-fan", "lockstep", "team-target"}
    for m in missions.values():
        assert m.source == "project"
        for p in (1, 2, 3, 4):
            budgets = [m.budget(p, d) for d in DIFFICULTIES]
            assert all(b >= 1 for b in budgets)
            assert budgets[0] >= budgets[1] >= budgets[2]  # easy gives the most rolls
    relay = missions["column-relay"].objectives[0]
    assert (relay.kind, relay.scope, relay.columns) == ("columns", "team", tuple(range(15)))
    assert missions["star-hunt"].objectives[0].count == 15
    assert missions["colour-fan"].objectives[0].colours == tuple("ygbro")
    lock = missions["lockstep"].objectives[0]
    assert (lock.scope, lock.columns) == ("each", (6, 7, 8))
    target = missions["team-target"].objectives[0]
    assert target.kind == "score" and target.scope == "team"
    assert [target.threshold(p) for p in (1, 2, 3, 4)] == sorted(target.threshold(p) for p in (1, 2, 3, 4))


def test_good_file_parses_and_loads_by_path(tmp_path):
    m = parse_mission_text(GOOD, "mine.toml")
    assert m.objectives[0].cells == ("A1", "O7") and m.budget(3, "hard") == 20
    path = tmp_path / "mine.toml"
    path.write_text(GOOD)
    assert load_mission(str(path)).id == "my-mission"


def test_unknown_kind():
    msg = error_of(broken('kind = "cells"', 'kind = "diagonals"'))
    assert msg.startswith("bad.toml: ") and "objectives[1].kind" in msg and "unknown kind 'diagonals'" in msg


def test_bad_cell():
    msg = error_of(broken('["A1", "O7"]', '["A1", "P9"]'))
    assert "objectives[1].cells" in msg and "cell 'P9' is not on the classic board" in msg


def test_bad_type():
    msg = error_of(broken('cells = ["A1", "O7"]', 'cells = "A1"'))
    assert "objectives[1].cells" in msg and "must be a non-empty list" in msg
    msg = error_of(broken("2 = { easy = 30,", '2 = { easy = "many",'))
    assert "budgets.2.easy" in msg and "must be an integer" in msg


def test_missing_budget():
    msg = error_of(broken("4 = { easy = 30, normal = 25, hard = 20 }\n", ""))
    assert "key 'budgets.4' is missing" in msg
    msg = error_of(broken("3 = { easy = 30, normal = 25, hard = 20 }", "3 = { easy = 30, normal = 25 }"))
    assert "key 'budgets.3.hard' is missing" in msg


def test_unknown_keys_everywhere():
    assert "unknown key 'colour'" in error_of(broken('name = "Mine"', 'name = "Mine"\ncolour = "y"'))
    msg = error_of(broken('scope = "team"', 'scope = "team"\ncount = 3'))
    assert "objectives[1].count" in msg and "unknown key for kind 'cells'" in msg
    assert "unknown scope 'everyone'" in error_of(broken('scope = "team"', 'scope = "everyone"'))


def test_impossible_targets():
    stars = GOOD.replace('kind = "cells"\ncells = ["A1", "O7"]', 'kind = "stars"\ncount = 16')
    assert "the sheet has 15 stars" in error_of(stars)
    score = GOOD.replace('kind = "cells"\ncells = ["A1", "O7"]', 'kind = "score"\nat_least = 75').replace(
        'scope = "team"', 'scope = "each"')
    msg = error_of(score)
    assert "objectives[1].at_least" in msg and "highest score is 74" in msg
    team = GOOD.replace('kind = "cells"\ncells = ["A1", "O7"]', 'kind = "score"\nat_least = { 1 = 10, 2 = 150, 3 = 10, 4 = 10 }')
    assert "150 for 2 player(s) is impossible" in error_of(team)
    jokers = GOOD.replace('kind = "cells"\ncells = ["A1", "O7"]', 'kind = "jokers_left"\nat_least = 9').replace(
        'scope = "team"', 'scope = "any"')
    assert "highest number of unused jokers is 8" in error_of(jokers)
    col = GOOD.replace('kind = "cells"\ncells = ["A1", "O7"]', 'kind = "columns"\ncolumns = ["H", "P"]')
    assert "column 'P' is not on the classic board" in error_of(col)


def test_every_problem_is_reported_at_once():
    text = broken('kind = "cells"', 'kind = "cells"\nwhat = 1').replace("1 = { easy = 30, normal = 25, hard = 20 }\n", "")
    err = pytest.raises(MissionError, parse_mission_text, text, "x.toml").value
    assert len(err.problems) == 2


def test_not_toml_and_unknown_id(tmp_path):
    assert "not valid TOML" in error_of("id = ")
    with pytest.raises(MissionError) as info:
        load_mission("no-such-mission")
    assert "star-hunt" in str(info.value)
    with pytest.raises(MissionError) as info:
        load_mission(str(tmp_path / "missing.toml"))
    assert "cannot read file" in str(info.value)


def test_board_key_accepts_a_board_file_next_to_the_mission(tmp_path):
    boards = Path(__file__).resolve().parent.parent / "boards"
    (tmp_path / "mine.toml").write_text((boards / "purple.toml").read_text())
    path = tmp_path / "m.toml"
    path.write_text(GOOD.replace('description = ', 'board = "mine.toml"\ndescription = '))
    mission = load_mission(str(path))
    assert mission.board == str(tmp_path / "mine.toml")
    from nochmal.missions import coop_game
    assert coop_game(mission, "easy", 2).board.grid[0] == "yyooogbbbyyrrgg"  # the purple pad's first row
    path.write_text(GOOD.replace('description = ', 'board = "nowhere.toml"\ndescription = '))
    with pytest.raises(MissionError) as info:
        load_mission(str(path))
    assert "key 'board'" in str(info.value)
