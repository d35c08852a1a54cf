"""Team play: seeded co-op games won and lost, saved as records and replayed identically.

The roll on which a game is won is checked independently: the record is replayed through the
engine roll by roll and a direct test of the objective (written here, not the checker) finds
the first roll after which it holds.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import nochmal as nm
from nochmal.bots.registry import make_agent
from nochmal.cli import app
from nochmal.missions import (coop_game, load_mission, mission_record, mission_result, play_mission)
from nochmal.missions.coop import record_game
from nochmal.missions.model import MissionError
from nochmal.errors import RecordError
from nochmal.record import GameRecord

MISSION = """
id = "{id}"
name = "Test"
source = "user"
description = "test"

[[objectives]]
{objective}

[budgets]
1 = {{ easy = {b}, normal = {b}, hard = {b} }}
2 = {{ easy = {b}, normal = {b}, hard = {b} }}
3 = {{ easy = {b}, normal = {b}, hard = {b} }}
4 = {{ easy = {b}, normal = {b}, hard = {b} }}
"""


def write_mission(tmp_path, ident: str, objective: str, budget: int):
    path = tmp_path / f"{ident}.toml"
    path.write_text(MISSION.format(id=ident, objective=objective, b=budget))
    return load_mission(str(path))


def first_roll_where(record: GameRecord, holds) -> int | None:
    """Replay every roll through the engine; the first roll after which ``holds(sheets)``."""
    game = nm.Game(record.board, len(record.players), record.rules, "coop", None)
    for t, (roll, moves) in enumerate(record.rolls, 1):
        game.apply_roll(roll)
        for _, move in moves:
            game.apply_move(move)
        if holds(game.sheets):
            return t
    return None


def test_won_game_stops_on_the_winning_roll_and_replays(tmp_path):
    mission = write_mission(tmp_path, "two-stars", 'kind = "stars"\ncount = 2\nscope = "any"', 20)
    agents = [make_agent("greedy", s) for s in (1, 2)]
    game, result = play_mission(mission, "normal", agents, seed=5)
    assert result.won and result.finished and game.is_terminal()
    board = game.board
    want = None
    record = mission_record(mission, "normal", game, [a.name for a in agents], 5)
    want = first_roll_where(record, lambda sheets: any((s.crossed & board.star_mask).bit_count() >= 2 for s in sheets))
    assert result.won_on == want == len(record.rolls) == game.rolls_done
    assert want < 20
    assert record.extra["mission"] == "two-stars" and record.extra["difficulty"] == "normal"
    path = tmp_path / "won.json"
    record.save(path)
    loaded = GameRecord.load(path)  # the mission layer rebuilds the stop condition for the core's replay
    assert loaded.needs_mission
    with pytest.raises(RecordError, match="replays through its mission"):
        loaded.verify(str(path))  # the core alone cannot know the mission's stop condition
    replayed = loaded.verify(str(path), record_game)
    assert [s.text() for s in replayed.sheets] == [s.text() for s in game.sheets]
    assert loaded.result["winners"] == replayed.winners() == [0, 1]  # the team wins together
    again = mission_result(mission, replayed)
    assert (again.won, again.won_on) == (True, want)
    # the front end (`nochmal replay --verify`) passes the mission's game: it stops on that roll
    res = CliRunner().invoke(app, ["replay", str(path), "--verify", "--json"])
    assert res.exit_code == 0, res.output
    shown = json.loads(res.output)
    assert shown["turns"] == want and shown["sheets"] == [s.text() for s in game.sheets]
    # a second seeded game gives the same record, byte for byte
    game2, _ = play_mission(mission, "normal", [make_agent("greedy", s) for s in (1, 2)], seed=5)
    assert mission_record(mission, "normal", game2, ["greedy", "greedy"], 5).dumps() == record.dumps()


def test_lost_game_runs_out_of_rolls_and_says_what_is_missing(tmp_path):
    mission = write_mission(tmp_path, "far-corners", 'kind = "cells"\ncells = ["A1", "O1"]\nscope = "each"', 4)
    agents = [make_agent("greedy", s) for s in (1, 2, 3)]
    game, result = play_mission(mission, "hard", agents, seed=11)
    assert game.rolls_done == 4 and game.is_terminal()
    assert not result.won and result.finished and result.won_on is None
    a1, o1 = game.board.bit("A1"), game.board.bit("O1")
    crossed_both = [s.crossed >> a1 & 1 and s.crossed >> o1 & 1 for s in game.sheets]
    assert not all(crossed_both)
    text = " ".join(result.missing)
    for p, s in enumerate(game.sheets):
        for name, bit in (("A1", a1), ("O1", o1)):
            if not s.crossed >> bit & 1:
                assert f"sheet {p + 1}:" in text and name in text
    assert "lost after 4 rolls" in result.text()
    record = mission_record(mission, "hard", game, ["greedy"] * 3, 11)
    path = tmp_path / "lost.json"
    record.save(path)
    loaded = GameRecord.load(path)
    replayed = loaded.verify(str(path), record_game)
    assert [s.text() for s in replayed.sheets] == [s.text() for s in game.sheets]
    assert not mission_result(mission, replayed).won
    # a lost mission has no winners (the record stored the top scorer, a seat that
    # lost with everybody else); the replay and `replay --json` agree
    assert loaded.result["winners"] == replayed.winners() == game.winners() == []
    assert game.returns() == [0.0, 0.0, 0.0]
    res = CliRunner().invoke(app, ["replay", str(path), "--verify", "--json"])
    assert res.exit_code == 0 and json.loads(res.output)["winners"] == [], res.output
    # a stored winner in a lost game is refused ...
    top = game.top_scorers()
    assert top == [0, 1, 2]  # all tied on -16: the old record said all three had won
    wrong = GameRecord.from_json(dict(record.to_json(), result=dict(record.result, winners=[1])))
    with pytest.raises(RecordError, match=r"recorded winners \[1\] but the replay gives \[\]"):
        wrong.verify("wrong", record_game)
    # ... but a record saved before the fix (top scorers as winners) still verifies, read as today
    legacy = GameRecord.from_json(dict(record.to_json(), result=dict(record.result, winners=top)))
    legacy.verify("legacy", record_game)
    assert legacy.result["winners"] == []


def test_shipped_mission_game_uses_budget_and_dice_flow():
    mission = load_mission("star-hunt")
    game = coop_game(mission, "easy", 3)
    assert game.mode == "coop" and game.roll_limit == mission.budget(3, "easy") and game.dice_per_kind == 3
    solo = coop_game(mission, "hard", 1)
    assert solo.dice_per_kind == 2 and solo.roll_limit == mission.budget(1, "hard")
    with pytest.raises(MissionError):
        coop_game(mission, "impossible", 2)
    with pytest.raises(MissionError):
        coop_game(mission, "easy", 5)


def test_shipped_mission_played_by_bots_agrees_with_direct_check():
    mission = load_mission("lockstep")
    agents = [make_agent("greedy", s) for s in range(2)]
    game, result = play_mission(mission, "easy", agents, seed=3)
    record = mission_record(mission, "easy", game, ["greedy"] * 2, 3)
    b = game.board
    ghi = b.column_mask[6] | b.column_mask[7] | b.column_mask[8]
    want = first_roll_where(record, lambda sheets: all(s.crossed & ghi == ghi for s in sheets))
    assert result.won_on == want
    if want is None:
        assert game.rolls_done == mission.budget(2, "easy") and not result.won
    replayed = GameRecord.from_json(record.to_json())  # a plain record replays move by move too
    assert len(replayed.rolls) == len(record.rolls)


def test_in_progress_result():
    mission = load_mission("colour-fan")
    game = coop_game(mission, "normal", 2)
    game.apply_roll(nm.seeded_roll(1, 0, 3))
    game.apply_move(nm.PASS)
    game.apply_move(nm.PASS)
    result = mission_result(mission, game)
    assert not result.finished and not result.won and result.rolls_used == 1
    assert "in progress" in result.text()
