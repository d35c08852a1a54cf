"""Mission files: the shipped ones load; broken ones fail naming file, key and reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from nochmal.missions import MissionError, builtin_missions, load_mission, parse_mission_text
from nochmal.missions.model import DIFFICULTIES

from missions_support import mission_error, mission_toml

GOOD = mission_toml()


def broken(old: str, new: str) -> str:
    assert old in GOOD
    return GOOD.replace(old, new)



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
    msg = mission_error(broken('kind = "cells"', 'kind = "diagonals"'))
    assert msg.startswith("bad.toml: ") and "objectives[1].kind" in msg and "unknown kind 'diagonals'" in msg


def test_bad_cell():
    msg = mission_error(broken('["A1", "O7"]', '["A1", "P9"]'))
    assert "objectives[1].cells" in msg and "cell 'P9' is not on the classic board" in msg


def test_bad_type():
    msg = mission_error(broken('cells = ["A1", "O7"]', 'cells = "A1"'))
    assert "objectives[1].cells" in msg and "must be a non-empty list" in msg
    msg = mission_error(broken("2 = { easy = 30,", '2 = { easy = "many",'))
    assert "budgets.2.easy" in msg and "must be an integer" in msg


def test_missing_budget():
    msg = mission_error(broken("4 = { easy = 30, normal = 25, hard = 20 }\n", ""))
    assert "key 'budgets.4' is missing" in msg
    msg = mission_error(broken("3 = { easy = 30, normal = 25, hard = 20 }", "3 = { easy = 30, normal = 25 }"))
    assert "key 'budgets.3.hard' is missing" in msg


def test_unknown_keys_everywhere():
    assert "unknown key 'colour'" in mission_error(broken('name = "Mine"', 'name = "Mine"\ncolour = "y"'))
    msg = mission_error(broken('scope = "team"', 'scope = "team"\ncount = 3'))
    assert "objectives[1].count" in msg and "unknown key for kind 'cells'" in msg
    assert "unknown scope 'everyone'" in mission_error(broken('scope = "team"', 'scope = "everyone"'))


def test_impossible_targets():
    stars = GOOD.replace('kind = "cells"\ncells = ["A1", "O7"]', 'kind = "stars"\ncount = 16')
    assert "the sheet has 15 stars" in mission_error(stars)
    score = GOOD.replace('kind = "cells"\ncells = ["A1", "O7"]', 'kind = "score"\nat_least = 75').replace(
        'scope = "team"', 'scope = "each"')
    msg = mission_error(score)
    assert "objectives[1].at_least" in msg and "highest score is 74" in msg
    team = GOOD.replace('kind = "cells"\ncells = ["A1", "O7"]', 'kind = "score"\nat_least = { 1 = 10, 2 = 150, 3 = 10, 4 = 10 }')
    assert "150 for 2 player(s) is impossible" in mission_error(team)
    jokers = GOOD.replace('kind = "cells"\ncells = ["A1", "O7"]', 'kind = "jokers_left"\nat_least = 9').replace(
        'scope = "team"', 'scope = "any"')
    assert "highest number of unused jokers is 8" in mission_error(jokers)
    col = GOOD.replace('kind = "cells"\ncells = ["A1", "O7"]', 'kind = "columns"\ncolumns = ["H", "P"]')
    assert "column 'P' is not on the classic board" in mission_error(col)


def test_every_problem_is_reported_at_once():
    text = broken('kind = "cells"', 'kind = "cells"\nwhat = 1').replace("1 = { easy = 30, normal = 25, hard = 20 }\n", "")
    err = pytest.raises(MissionError, parse_mission_text, text, "x.toml").value
    assert len(err.problems) == 2


def test_not_toml_and_unknown_id(tmp_path):
    assert "not valid TOML" in mission_error("id = ")
    with pytest.raises(MissionError) as info:
        load_mission("no-such-mission")
    assert "star-hunt" in str(info.value)
    with pytest.raises(MissionError) as info:
        load_mission(str(tmp_path / "missing.toml"))
    assert "cannot read file" in str(info.value)


def test_board_key_accepts_a_board_file_next_to_the_mission(tmp_path):
    boards = Path(__file__).resolve().parents[2] / "boards"
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


# --- every problem at once, budgets that can never be enough -------------------------

def test_an_unknown_top_level_key_hides_nothing():
    text = broken('name = "Mine"', 'name = "Mine"\ncolour = "y"').replace('["A1", "O7"]', '["A1", "P9"]')
    text = text.replace("2 = { easy = 30,", '2 = { easy = "many",')
    problems = pytest.raises(MissionError, parse_mission_text, text, "x.toml").value.problems
    assert any("unknown key 'colour'" in p for p in problems)
    assert any("cell 'P9' is not on the classic board" in p for p in problems)
    assert any("budgets.2.easy' must be an integer" in p for p in problems)


def test_a_bad_scope_hides_nothing():
    text = GOOD.replace('kind = "cells"\ncells = ["A1", "O7"]', 'kind = "stars"\ncount = 16').replace(
        'scope = "team"', 'scope = "everyone"')
    problems = pytest.raises(MissionError, parse_mission_text, text, "x.toml").value.problems
    assert any("unknown scope 'everyone'" in p for p in problems)
    assert any("16 is impossible, the sheet has 15 stars" in p for p in problems)


def test_a_missing_player_count_hides_nothing():
    text = GOOD.replace('kind = "cells"\ncells = ["A1", "O7"]',
                        'kind = "score"\nat_least = { 1 = 80, 2 = 10, 3 = 10 }').replace('scope = "team"', 'scope = "each"')
    problems = pytest.raises(MissionError, parse_mission_text, text, "x.toml").value.problems
    assert any("at_least.4' is missing" in p for p in problems)
    assert any("80 for 1 player(s) is impossible, the highest score is 74" in p for p in problems)


def test_huge_numbers_and_keys_stay_one_short_line():
    text = broken("1 = { easy = 30,", "1 = { easy = 123456789012345678901234567890123456789,")
    text = text.replace('name = "Mine"', 'name = "Mine"\n"a\\nb' + "k" * 500 + '" = 1')
    msg = mission_error(text)
    assert "budgets.1.easy': a roll budget must be 1..1000" in msg
    assert "\n" not in msg and len(msg) < 500


def _block_sizes_by_flood_fill(grid: list[str]) -> list[int]:
    """Sizes of the one-colour orthogonal regions, by a flood fill written here (an oracle)."""
    rows, cols, seen, sizes = len(grid), len(grid[0]), set(), []
    for r in range(rows):
        for c in range(cols):
            if (r, c) in seen:
                continue
            stack, size = [(r, c)], 0
            seen.add((r, c))
            while stack:
                y, x = stack.pop()
                size += 1
                for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                    if 0 <= ny < rows and 0 <= nx < cols and (ny, nx) not in seen \
                            and grid[ny][nx].lower() == grid[y][x].lower():
                        seen.add((ny, nx))
                        stack.append((ny, nx))
            sizes.append(size)
    return sizes


def test_a_budget_that_can_never_be_enough_is_refused():
    from nochmal.board import load_board

    every_roll = sum(-(-s // 5) for s in _block_sizes_by_flood_fill(list(load_board("classic").printed)))
    assert every_roll == 35  # 25 blocks of 1-5 cells take a roll each, 5 blocks of 6 take two
    text = GOOD.replace('kind = "cells"\ncells = ["A1", "O7"]', 'kind = "columns"\ncolumns = "all"').replace(
        'scope = "team"', 'scope = "each"').replace("1 = { easy = 30, normal = 25, hard = 20 }",
                                                      "1 = { easy = 35, normal = 34, hard = 1 }")
    problems = pytest.raises(MissionError, parse_mission_text, text, "x.toml").value.problems
    assert any("budgets.1.hard': 1 roll(s) can never be enough, 1 player(s) need at least 35" in p for p in problems)
    assert any("budgets.1.normal': 34 roll(s) can never be enough" in p for p in problems)
    assert not any("budgets.1.easy'" in p for p in problems)
    # split over a team of 4 sheets: ceil(35 / 4) = 9 rolls at least, so 20 is not refused
    team = text.replace('scope = "each"', 'scope = "team"')
    problems = pytest.raises(MissionError, parse_mission_text, team, "x.toml").value.problems
    assert not any("budgets.4" in p for p in problems)
    assert any("budgets.1.hard'" in p for p in problems)


def test_the_roll_bound_never_exceeds_what_bot_teams_needed():
    """Won bot games are witnesses: the lower bound must be at most their roll count."""
    from nochmal.bots.registry import make_agent
    from nochmal.board import load_board
    from nochmal.missions import play_mission
    from nochmal.missions.model import rolls_lower_bound

    won = 0
    for mission in builtin_missions():
        board = load_board(mission.board)
        for players, seed in ((1, 3), (2, 5), (3, 8)):
            agents = [make_agent("greedy", seed + i) for i in range(players)]
            game, result = play_mission(mission, "easy", agents, seed)
            bound = rolls_lower_bound(mission.objectives, board, players)
            if result.won:
                won += 1
                assert bound <= result.won_on, (mission.id, players, seed)
    assert won >= 5


def test_a_shipped_id_wins_over_a_file_of_that_name_in_the_folder(tmp_path, monkeypatch):
    # review finding: `load_mission("lockstep")` read a file called lockstep in the current
    # folder before the shipped mission (a stray file made the id fail to load)
    from nochmal.missions.loader import load_mission, shipped_mission

    (tmp_path / "lockstep").write_text("not a mission")
    monkeypatch.chdir(tmp_path)
    assert load_mission("lockstep") is shipped_mission("lockstep")
    assert load_mission("lockstep").id == "lockstep" and shipped_mission("no-such") is None


@pytest.mark.parametrize("colour", ['"yg"', '""'])
def test_a_colour_is_one_letter_or_a_name_not_a_piece_of_ygbro(colour: str):
    msg = mission_error(broken('kind = "cells"\ncells = ["A1", "O7"]', f'kind = "colours"\ncolours = [{colour}]'))
    assert f"key 'objectives[1].colours': {colour.replace(chr(34), chr(39))} is not a colour" in msg


@pytest.mark.parametrize("old, new, key", [
    ("4 = { easy = 30, normal = 25, hard = 20 }\n",
     "4 = { easy = 30, normal = 25, hard = 20 }\n5 = { easy = 1, normal = 1, hard = 1 }\n", "budgets.5"),
    ('kind = "cells"\ncells = ["A1", "O7"]', 'kind = "score"\nat_least = { 1 = 10, 2 = 10, 3 = 10, 4 = 10, 7 = 3 }',
     "objectives[1].at_least.7"),
])
def test_a_table_by_player_count_names_only_1_to_4(old: str, new: str, key: str):
    assert f"key '{key}': unknown player count (use 1, 2, 3, 4)" in mission_error(broken(old, new))
