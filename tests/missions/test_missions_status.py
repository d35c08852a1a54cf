"""mission_status: one state vocabulary; impossible sheets never 'met'; lost as soon as it is
certain.

Oracles: the crosses a sheet still needs are counted here from the board's columns (for
lockstep's columns G H I, reachable from column H, the fewest crosses are exactly the open
cells), and the rolls they take from docs/rules.md §3's 5 crosses per roll.
"""

from __future__ import annotations

import pytest

from nochmal.board import load_board
from nochmal.missions import load_mission, mission_status
from nochmal.missions.model import IN_PROGRESS, LOST, STATES, WON
from nochmal.sheet import Sheet

BOARD = load_board("classic")

# the splits asserted exact come from CP-SAT's deterministic limits (tests/conftest.py cpsat_by_work)
pytestmark = pytest.mark.usefixtures("cpsat_by_work")


def column_cells(letter: str) -> set[str]:
    return {f"{letter}{r}" for r in range(1, 8)}


def sheet_of(cells, jokers_used: int = 0) -> Sheet:
    return Sheet.from_cells(BOARD, sorted(cells), jokers_used)


def write(tmp_path, text: str):
    path = tmp_path / "m.toml"
    path.write_text(text)
    return load_mission(str(path))


MISSION = """
id = "m"
name = "M"
source = "user"
description = "test"
{objectives}
[budgets]
1 = {{ easy = 30, normal = 30, hard = 30 }}
2 = {{ easy = 30, normal = 30, hard = 30 }}
3 = {{ easy = 30, normal = 30, hard = 30 }}
4 = {{ easy = 30, normal = 30, hard = 30 }}
"""


def test_an_impossible_sheet_is_never_met():
    lockstep = load_mission("lockstep")
    # G H I complete, plus A1 which no legal cross can reach (not connected to column H)
    cells = column_cells("G") | column_cells("H") | column_cells("I") | {"A1"}
    st = mission_status(lockstep, "easy", [sheet_of(cells)], 20)
    assert any(st.impossible)
    assert st.met is False and st.to_dict()["all_met"] is False
    assert st.state is None and st.to_dict()["state"] is None
    # the same sheet without A1 is won
    st = mission_status(lockstep, "easy", [sheet_of(cells - {"A1"})], 20)
    assert st.met and st.state == WON


def rolls_for(cells: set[str]) -> int:
    """One roll crosses at most 5 cells of one block: sum over blocks of ceil(cells / 5), the
    blocks found by a flood fill over the printed grid written here."""
    grid = [row.lower() for row in BOARD.printed]
    block_of, seen = {}, {}
    for r in range(7):
        for c in range(15):
            if (r, c) in seen:
                continue
            stack, seen[(r, c)] = [(r, c)], len(block_of)
            while stack:
                y, x = stack.pop()
                block_of[f"{'ABCDEFGHIJKLMNO'[x]}{y + 1}"] = seen[(r, c)]
                for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                    if 0 <= ny < 7 and 0 <= nx < 15 and (ny, nx) not in seen and grid[ny][nx] == grid[y][x]:
                        seen[(ny, nx)] = seen[(r, c)]
                        stack.append((ny, nx))
    per_block: dict[int, int] = {}
    for cell in cells:
        per_block[block_of[cell]] = per_block.get(block_of[cell], 0) + 1
    return sum(-(-n // 5) for n in per_block.values())


def test_lockstep_is_lost_when_the_crosses_no_longer_fit_in_the_rolls_left():
    lockstep = load_mission("lockstep")
    budget = lockstep.budget(1, "normal")
    crossed = {"H1", "H2", "H3"}
    missing = (column_cells("G") | column_cells("H") | column_cells("I")) - crossed
    open_cells = len(missing)
    # 18 crosses: 4 rolls at 5 crosses a roll, more since a roll crosses in one block only
    rolls_needed = max(-(-open_cells // 5), rolls_for(missing))
    sheet = sheet_of(crossed)
    just_enough = mission_status(lockstep, "normal", [sheet], budget - rolls_needed)
    assert just_enough.state == IN_PROGRESS and just_enough.lost_reasons == []
    too_few = mission_status(lockstep, "normal", [sheet], budget - rolls_needed + 1)
    assert too_few.state == LOST
    [reason] = too_few.lost_reasons
    assert f"needs at least {rolls_needed} more rolls" in reason
    assert too_few.to_dict()["state"] == LOST and too_few.to_dict()["lost_reasons"] == [reason]
    # with 3 rolls left the crosses alone do not fit: 18 > 5 x 3
    crosses = mission_status(lockstep, "normal", [sheet], budget - 3)
    assert f"needs at least {open_cells} more crosses" in crosses.lost_reasons[0]
    assert "at most 5 x 3 = 15" in crosses.lost_reasons[0]
    spent = mission_status(lockstep, "normal", [sheet], budget)
    assert spent.state == LOST and "is spent" in spent.lost_reasons[0]


def test_a_jokers_left_shortfall_is_lost_at_once(tmp_path):
    mission = write(tmp_path, MISSION.format(objectives="""
[[objectives]]
kind = "jokers_left"
at_least = 4
scope = "each"
"""))
    keeps = mission_status(mission, "easy", [sheet_of(column_cells("H"), 4), sheet_of({"H4"}, 0)], 5)
    assert keeps.state == WON
    short = mission_status(mission, "easy", [sheet_of(column_cells("H"), 5), sheet_of({"H4"}, 0)], 5)
    assert short.state == LOST and "jokers never come back" in short.lost_reasons[0]


def test_any_and_team_scopes_are_lost_only_when_no_sheet_or_split_can_do_it(tmp_path):
    def status(scope: str, sheets, rolls_used: int):
        mission = write(tmp_path, MISSION.format(objectives=f"""
[[objectives]]
kind = "columns"
columns = ["G", "I"]
scope = "{scope}"
"""))
        return mission_status(mission, "easy", sheets, rolls_used)

    near = sheet_of(column_cells("G") | column_cells("H") | column_cells("I") - {"I7"})  # 1 open cell
    far = sheet_of({"H4"})  # 14 open cells
    # 1 roll left: 5 crosses. 'any': the near sheet can still do it; 'each': the far one cannot
    assert status("any", [near, far], 29).state == IN_PROGRESS
    assert status("each", [near, far], 29).state == LOST
    assert status("any", [far, far], 29).state == LOST
    # 'team': G is done on the near sheet, I may come from either: never lost from per-sheet figures
    assert status("team", [far, far], 29).state == IN_PROGRESS


def test_the_vocabulary_is_one_tuple():
    assert STATES == (WON, LOST, IN_PROGRESS) == ("won", "lost", "in progress")


def test_lost_when_the_missing_cells_lie_in_more_blocks_than_rolls_left():
    """Four missing cells of four colours: few crosses, but one block (so one cell) per roll."""
    lockstep = load_mission("lockstep")
    budget = lockstep.budget(1, "normal")
    target = column_cells("G") | column_cells("H") | column_cells("I")
    missing, colours = [], set()
    for cell in sorted(target):
        colour = BOARD.colour_of_bit(BOARD.bit(cell))
        if colour not in colours and len(missing) < 4:
            colours.add(colour)
            missing.append(cell)
    assert len(missing) == 4  # four colours: four different blocks
    sheet = sheet_of(target - set(missing))
    in_time = mission_status(lockstep, "normal", [sheet], budget - 4)
    assert in_time.state == IN_PROGRESS
    late = mission_status(lockstep, "normal", [sheet], budget - 3)
    assert late.state == LOST
    [reason] = late.lost_reasons
    assert "sheet 1 needs at least 4 more rolls" in reason and "3 rolls are left" in reason


def test_the_split_counts_one_block_a_roll_as_the_lost_check_does():
    """Lockstep, two sheets H1 H2 H3: 18 open cells are 4 rolls at 5 crosses, but they lie in
    blocks (counted by the flood fill above), one block a roll: the split says so, and the
    lost check agrees with it at the same roll count."""
    from nochmal.missions.split import status_document, team_plan

    lockstep = load_mission("lockstep")
    budget = lockstep.budget(2, "normal")
    crossed = {"H1", "H2", "H3"}
    missing = (column_cells("G") | column_cells("H") | column_cells("I")) - crossed
    need = rolls_for(missing)
    assert need > -(-len(missing) // 5)  # the case: blocks, not crosses, decide
    sheets = [sheet_of(crossed), sheet_of(crossed)]
    plan = team_plan(lockstep, sheets, need)
    split = plan.split
    assert split.exact and split.rolls_upper == need, split.lines()
    assert [p.rolls for p in split.plans] == [need, need]
    assert f"18 crosses, {need} roll(s)" in split.lines()[1]
    assert not plan.lost_early
    st = mission_status(lockstep, "normal", sheets, budget - need)
    assert status_document(st, ["a", "b"], plan)["state"] == IN_PROGRESS
    late = team_plan(lockstep, sheets, need - 1)
    assert late.lost_early and f"needs at least {need} rolls" in late.lost_early[0]


def test_a_column_split_counts_the_blocks_of_its_cells(tmp_path):
    """Column H alone, H1 H2 crossed: 5 crosses would fit one roll, but the cells lie in
    several blocks; the split's rolls are at least those blocks (the figure the flood fill
    gives), never the 1 roll of 5 crosses."""
    from nochmal.missions.split import team_plan

    mission = write(tmp_path, MISSION.format(objectives="""
[[objectives]]
kind = "columns"
columns = ["H"]
scope = "team"
"""))
    missing = column_cells("H") - {"H1", "H2"}
    assert rolls_for(missing) > 1
    split = team_plan(mission, [sheet_of({"H1", "H2"}), sheet_of({"H1", "H2"})], 20).split
    assert split.rolls_lower >= rolls_for(missing) and split.exact
    [busy] = [p for p in split.plans if p.units]
    assert busy.rolls == split.rolls_upper == rolls_for(missing)


def test_a_cell_list_sheet_names_its_own_line_numbers(tmp_path):
    """A cell list is converted to a typed sheet before parsing; its key errors still name the
    line of the file the user wrote (was 'line 8' of a 2-line file)."""
    from typer.testing import CliRunner

    from nochmal.cli import app

    runner = CliRunner()
    for text, line in (("H1\njokers_used: 99\n", 2), ("H1 H2\n\n# note\njokers_usd: 1\n", 4)):
        path = tmp_path / "jk.txt"
        path.write_text(text)
        res = runner.invoke(app, ["mission", "status", "lockstep", "-d", "normal", "-k", "3", str(path)])
        assert res.exit_code != 0 and "Traceback" not in res.output
        [message] = res.output.strip().splitlines()
        assert f"jk.txt, line {line}: " in message, message
    path.write_text("H1 H2\njokers_used: 1\n")
    res = runner.invoke(app, ["mission", "status", "lockstep", "-d", "normal", "-k", "3", str(path), "--json"])
    assert res.exit_code == 0, res.output
