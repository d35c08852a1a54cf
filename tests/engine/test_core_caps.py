"""Issue 17: every number a game record or a rule setting holds is capped, so no file can
ask for an unbounded game; a refusal is one line naming the key."""

from __future__ import annotations

import copy
import json

import pytest
from typer.testing import CliRunner

import nochmal as nm
from nochmal.bots import make_agent
from nochmal.cli import app
from nochmal.record import GameRecord
from nochmal.rules import MAX_GAME_ROLLS, MAX_SEED, RuleSettings

CLASSIC = nm.load_board("classic")


@pytest.fixture(scope="module")
def duel() -> dict:
    return nm.play_competitive(CLASSIC, [make_agent("greedy"), make_agent("random", 4)], seed=5).to_json()


@pytest.mark.parametrize("key, value, pattern", [
    ("roll_limit", 10**12, r"key 'roll_limit' must be an integer 1\.\.1000 or null, got 1000000000000"),
    ("roll_limit", MAX_GAME_ROLLS + 1, r"key 'roll_limit' must be an integer 1\.\.1000"),
    ("roll_limit", 0, r"key 'roll_limit' must be"),
    ("roll_limit", True, r"key 'roll_limit' must be"),
    ("seed", MAX_SEED + 1, r"key 'seed' must be an integer 0\.\."),
    ("seed", 10**4000, r"key 'seed' must be .* got a 13288-bit number"),
    ("rules", {"solo_rolls": 10**9}, r"setting solo_rolls must be 1\.\.1000, got 1000000000"),
    ("rules", {"solo_rolls": 0}, r"setting solo_rolls must be 1\.\.1000, got 0"),
])
def test_a_number_beyond_its_cap_is_refused_naming_the_key(duel, key, value, pattern):
    data = copy.deepcopy(duel)
    data[key] = value
    with pytest.raises(nm.RecordError, match=pattern) as err:
        GameRecord.loads(json.dumps(data), "x.json")
    assert "\n" not in str(err.value) and str(err.value).startswith("x.json: ")


def test_the_caps_themselves_are_accepted(duel):
    data = copy.deepcopy(duel)
    data["roll_limit"], data["seed"] = MAX_GAME_ROLLS, None
    assert GameRecord.loads(json.dumps(data)).roll_limit == MAX_GAME_ROLLS
    assert RuleSettings.from_dict({"solo_rolls": MAX_GAME_ROLLS}).solo_rolls == MAX_GAME_ROLLS


def test_a_record_with_more_rolls_than_any_game_is_refused(duel):
    data = copy.deepcopy(duel)
    data["rolls"] = data["rolls"] * (MAX_GAME_ROLLS // len(data["rolls"]) + 1)
    with pytest.raises(nm.RecordError, match=rf"key 'rolls' holds \d+ rolls, a record holds at most {MAX_GAME_ROLLS}"):
        GameRecord.loads(json.dumps(data), "x.json")


@pytest.mark.parametrize("player", [True, -1, 7, 10**30])
def test_a_move_names_a_seat_index(duel, player):
    data = copy.deepcopy(duel)
    data["rolls"][0]["moves"][0]["player"] = player
    with pytest.raises(nm.RecordError, match=r"turn 1: each move needs an integer 'player'"):
        GameRecord.loads(json.dumps(data), "x.json")


def test_replay_verify_refuses_a_huge_roll_limit(tmp_path, duel):
    """The issue's case: `nochmal replay --verify` said "verified" for roll_limit 10**12."""
    data = copy.deepcopy(duel)
    data["roll_limit"] = 10**12
    path = tmp_path / "big.json"
    path.write_text(json.dumps(data))
    res = CliRunner().invoke(app, ["replay", str(path), "--verify"])
    assert res.exit_code == 1, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "roll_limit" in lines[0] and "verified" not in res.stdout
