"""Clever 4ever's seeded dice and records: a seed's throws never change, a full seeded
six-round solo game saves, loads and replays to the same result, and a forged record is
refused at its first bad step."""

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clever_oracle
from nochmal.clever import CleverRecord, CleverRules, Throw, replay, seeded_throw
from nochmal.clever.dice import DICE
from nochmal.clever.errors import CleverRecordError
from nochmal.errors import RecordError, SeedError


def test_seeded_throws_are_pinned_forever():
    """Changing the dice's hash would silently change every saved seed's game."""
    assert seeded_throw(1, "1.0.0", DICE).text() == "white=4 yellow=3 blue=1 grey=1 green=4 pink=1"
    assert seeded_throw(1, "1.0.1", ("blue", "pink")).text() == "blue=1 pink=4"
    assert seeded_throw(2**62, "6.0.p", DICE).text() == "white=2 yellow=4 blue=2 grey=3 green=5 pink=2"
    # a die's face does not depend on the other dice thrown with it
    assert seeded_throw(9, "2.1.3", ("grey",)).faces[0][1] == dict(seeded_throw(9, "2.1.3", DICE).faces)["grey"]
    for bad in (-1, 2**62 + 1, True, "1"):
        with pytest.raises(SeedError):
            seeded_throw(bad, "1.0.0", DICE)


def test_seeded_faces_are_uniform_enough():
    counts = [0] * 7
    for seed in range(600):
        for _, v in seeded_throw(seed, "1.0.0", DICE).faces:
            counts[v] += 1
    assert all(500 < c < 700 for c in counts[1:])  # 3600 faces, 600 expected each


def solo_record(seed=7, policy=3):
    game = clever_oracle.random_game(1, seed, policy, enter_bias=0.9)
    return game, CleverRecord.from_game(game, ["Anna"], seed)


def test_a_full_seeded_solo_game_replays_and_verifies(tmp_path):
    game, record = solo_record()
    assert game.is_terminal() and game.round == 6
    path = tmp_path / "g.json"
    record.save(path)
    loaded = CleverRecord.load(path)
    again = replay(loaded)
    assert again.scores() == game.scores() == loaded.result["scores"]
    assert again.sheets == game.sheets
    assert json.loads(path.read_text())["format"] == "clever4ever-record"
    # a prefix replays to the state in between
    half = replay(loaded, upto=len(loaded.steps) // 2)
    assert len(half.history) == len(loaded.steps) // 2


@settings(max_examples=15, deadline=None)
@given(players=st.integers(1, 4), seed=st.integers(0, 2**62), policy=st.integers(0, 10**6))
def test_records_round_trip(players, seed, policy):
    game = clever_oracle.random_game(players, seed, policy, enter_bias=0.5)
    record = CleverRecord.from_game(game, [f"p{i}" for i in range(players)], seed)
    again = replay(CleverRecord.loads(record.dumps()))
    assert again.sheets == game.sheets and again.history == game.history


def forged(record, edit):
    data = copy.deepcopy(record.to_json())
    edit(data)
    return CleverRecord.loads(json.dumps(data))


def first_action_step(data, after=0, kind=None):
    return next(i for i, s in enumerate(data["steps"]) if i >= after and "action" in s
                and (kind is None or s["action"].startswith(kind)))


def test_forged_records_are_refused_at_their_first_bad_step():
    _, record = solo_record()
    data = record.to_json()
    k = next(i for i, s in enumerate(data["steps"]) if i > 10 and "throw" in s)
    die = next(iter(data["steps"][k]["throw"]))

    def other_face(d):
        d["steps"][k]["throw"][die] = d["steps"][k]["throw"][die] % 6 + 1

    with pytest.raises(CleverRecordError, match=f"^step {k + 1}: the throw .* is not seed 7's"):
        replay(forged(record, other_face))

    a = first_action_step(data, 5)

    def wrong_player(d):
        d["steps"][a]["player"] = 1

    with pytest.raises(CleverRecordError, match=f"^step {a + 1}: player 1 acts"):
        replay(forged(record, wrong_player))

    t = first_action_step(data, 5, "take")

    def illegal(d):
        d["steps"][t]["action"] = "bonus ?pink 3 pink"

    with pytest.raises(CleverRecordError, match=f'^step {t + 1}: no "\\?" Pink bonus is pending'):
        replay(forged(record, illegal))

    def swapped(d):
        d["steps"][t], d["steps"][t - 1] = d["steps"][t - 1], d["steps"][t]

    with pytest.raises(CleverRecordError, match=f"^step {t}: "):
        replay(forged(record, swapped))

    def score(d):
        d["result"]["scores"][0] += 1

    with pytest.raises(CleverRecordError, match="^result: the record says scores"):
        replay(forged(record, score))

    def cut(d):
        d["steps"].pop()

    with pytest.raises(CleverRecordError, match="ends before the game does"):
        replay(forged(record, cut))


def test_unseeded_records_replay_any_throws_but_still_check_them():
    _, record = solo_record()
    record.seed = None
    data = record.to_json()
    k = next(i for i, s in enumerate(data["steps"]) if "throw" in s and len(s["throw"]) == 6)
    data["steps"][k]["throw"]["pink"] = 6 if data["steps"][k]["throw"]["pink"] != 6 else 5
    with pytest.raises(CleverRecordError, match="^step"):  # a later step no longer fits
        replay(CleverRecord.loads(json.dumps(data)))
    data["steps"][k]["throw"] = {"pink": 3}
    with pytest.raises(CleverRecordError, match=f"^step {k + 1}: this throw is of white yellow"):
        replay(CleverRecord.loads(json.dumps(data)))


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.update(format="nochmal-record"), "format must be 'clever4ever-record'"),
    (lambda d: d.update(version=2), "unknown version 2"),
    (lambda d: d.update(players=[]), "players must be 1-4"),
    (lambda d: d.update(seed=-3), "seed must be"),
    (lambda d: d.update(options={"rounds_1": "six"}), "rounds_1 must be int"),
    (lambda d: d.update(options={"fast": True}), "unknown setting"),
    (lambda d: d["steps"].insert(0, {"throw": {"red": 3}}), "step 1: a throw names distinct dice"),
    (lambda d: d["steps"].insert(0, {"player": 0, "action": "jump"}), "step 1: bad action 'jump'"),
    (lambda d: d["steps"].insert(0, {"move": 1}), "step 1: expected"),
])
def test_broken_records_are_refused_with_the_reason(edit, message):
    _, record = solo_record()
    with pytest.raises(RecordError, match=message):
        forged(record, edit)


def test_records_keep_their_options():
    game = clever_oracle.random_game(1, 1, 1)
    record = CleverRecord.from_game(game, ["x"], 1)
    record.options = CleverRules(rounds_1=2)
    with pytest.raises(CleverRecordError, match="step"):  # the game is over after round 2 under these rules
        replay(CleverRecord.loads(record.dumps()))
    assert CleverRecord.loads(record.dumps()).options.rounds_1 == 2
    assert Throw.parse("white=1 pink=6").text() == "white=1 pink=6"
