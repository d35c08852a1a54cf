"""Game records: round trip, step-by-step replay, tampered records rejected at the right
turn with a RecordError, atomic saving."""

from __future__ import annotations

import copy
import json
import os
import re

import pytest

import nochmal as nm
from nochmal.bots import make_agent
from nochmal.dice import seeded_roll
from nochmal.game import Game
from nochmal.move import Move
from nochmal.record import GameRecord

CLASSIC = nm.load_board("classic")


@pytest.fixture(scope="module")
def solo_record() -> GameRecord:
    return nm.play_solo(CLASSIC, make_agent("greedy"), seed=11)


@pytest.fixture(scope="module")
def duel_record() -> GameRecord:
    return nm.play_competitive(CLASSIC, [make_agent("greedy"), make_agent("random", 4)], seed=5)


def test_round_trip_solo(tmp_path, solo_record):
    path = tmp_path / "game.json"
    solo_record.save(path)
    loaded = GameRecord.load(path)
    game = loaded.verify(str(path))
    assert game.is_terminal() and game.rolls_done == 30
    assert [s.text() for s in game.sheets] == solo_record.result["sheets"]
    assert game.scores() == solo_record.result["scores"]
    assert loaded.to_json() == solo_record.to_json()
    data = json.loads(path.read_text())
    assert data["format"] == "nochmal-record" and data["version"] == 1
    assert data["board"] == "classic" and data["seed"] == 11 and data["mode"] == "solo"
    assert data["rules"] == {"bridging": False, "solo_ends_on_second_colour": False, "solo_rolls": 30}
    # every roll is the seed's, in the JSON form of a roll
    for t, entry in enumerate(data["rolls"]):
        assert entry["dice"] == seeded_roll(11, t, 2).to_json()
        assert set(entry["dice"]) == {"colours", "numbers"}


def test_round_trip_competitive_replays_identical_sheets(tmp_path, duel_record):
    path = tmp_path / "duel.json"
    duel_record.save(path)
    loaded = GameRecord.load(path)
    # step by step, the replay applies exactly the recorded moves through a fresh game
    manual = Game(CLASSIC, 2)
    for (t, game), (roll, moves) in zip(loaded.replay(), duel_record.rolls):
        manual.apply_roll(roll)
        for _, move in moves:
            manual.apply_move(move)
        assert game.sheets == manual.sheets and game.rolls_done == t
    final = loaded.verify()
    assert final.sheets == manual.sheets
    assert final.winners() == duel_record.result["winners"]


def _tamper(record: GameRecord, fn) -> str:
    data = copy.deepcopy(record.to_json())
    fn(data)
    return json.dumps(data)


def _first_real_move(data, player=None) -> tuple[int, int]:
    for t, entry in enumerate(data["rolls"]):
        for k, m in enumerate(entry["moves"]):
            if m["move"] != "pass" and (player is None or m["player"] == player):
                return t, k
    raise AssertionError("no move")


def _change_roll(data):
    dice = data["rolls"][6]["dice"]
    dice["colours"][0] = "y" if dice["colours"][0] != "y" else "g"


def _illegal_move(data):
    t, k = _first_real_move(data)
    data["rolls"][t]["moves"][k]["move"] = "y1 A7"  # far from column H: never anchored early
    data["_turn"] = t + 1


def _wrong_player(data):
    data["rolls"][3]["moves"][0]["player"] = 1 - data["rolls"][3]["moves"][0]["player"]


def _wrong_result(data):
    data["result"]["scores"][0] += 1


def _missing_decision(data):
    data["rolls"][8]["moves"].pop()


def _extra_roll(data):
    data["rolls"].append(copy.deepcopy(data["rolls"][-1]))
    data["_turn"] = len(data["rolls"])


CASES = [
    ("changed roll", _change_roll, 7, r"roll \S+ is not roll 7 of seed 5"),
    ("illegal move", _illegal_move, None, r"illegal move 'y1 A7'"),
    ("wrong player", _wrong_player, 4, r"seat \d moved but seat \d was to decide"),
    ("missing decision", _missing_decision, 9, r"1 decision recorded, the roll needs 2"),
    ("extra roll", _extra_roll, None, r"the game was already over"),
]


@pytest.mark.parametrize("what,fn,turn,pattern", CASES, ids=[c[0] for c in CASES])
def test_tampered_record_is_rejected_at_the_right_turn(tmp_path, duel_record, what, fn, turn, pattern):
    data = copy.deepcopy(duel_record.to_json())
    fn(data)
    turn = data.pop("_turn", turn)
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(data))
    with pytest.raises(nm.RecordError) as info:
        GameRecord.load(path).verify(str(path))
    msg = str(info.value)
    assert msg.startswith(f"{path}: turn {turn}"), msg
    assert re.search(pattern, msg), msg


def test_wrong_result_is_rejected(duel_record):
    text = _tamper(duel_record, _wrong_result)
    with pytest.raises(nm.RecordError, match=r"recorded scores .* but the replay gives"):
        GameRecord.loads(text).verify()


def test_tampered_move_cells_in_solo(solo_record):
    data = copy.deepcopy(solo_record.to_json())
    t, k = _first_real_move(data)
    move = Move.parse(data["rolls"][t]["moves"][k]["move"])
    data["rolls"][t]["moves"][k]["move"] = str(Move.of(move.colour, move.count + 1 if move.count < 5 else 4,
                                                       move.cells, move.colour_joker, move.number_joker))
    with pytest.raises(nm.RecordError, match=rf"turn {t + 1}, seat 1: illegal move"):
        GameRecord.loads(json.dumps(data)).verify()


@pytest.mark.parametrize("text,pattern", [
    ('{"format": "nochmal-record", "version": 1, ', r"broken JSON at line 1"),
    ("[1, 2]", r"not a nochmal game record"),
    ('{"format": "nochmal-record", "version": 99}', r"record version 99 is not supported"),
])
def test_unreadable_records(text, pattern):
    with pytest.raises(nm.RecordError, match=pattern):
        GameRecord.loads(text, "x.json")


def test_bad_fields(solo_record):
    for key, value, pattern in (("board", "checkers", "unknown board 'checkers'"),
                                ("seed", -3, "key 'seed' must be"),
                                ("rules", {"bridging": "yes"}, "setting bridging must be bool"),
                                ("rules", {"gravity": True}, "unknown setting"),
                                ("mode", "chess", "unknown mode")):
        data = copy.deepcopy(solo_record.to_json())
        data[key] = value
        with pytest.raises(nm.RecordError, match=pattern):
            GameRecord.loads(json.dumps(data), "x.json")
    data = copy.deepcopy(solo_record.to_json())
    data["rolls"][2]["moves"][0]["move"] = "q9 H1"
    with pytest.raises(nm.RecordError, match="x.json: turn 3: bad choice"):
        GameRecord.loads(json.dumps(data), "x.json")
    data = copy.deepcopy(solo_record.to_json())
    data["rolls"][4]["dice"]["numbers"] = ["7", "1"]
    with pytest.raises(nm.RecordError, match="x.json: turn 5: roll: '7' is not a number face"):
        GameRecord.loads(json.dumps(data), "x.json")


def test_missing_file():
    with pytest.raises(nm.RecordError, match="no/such.json: cannot read file"):
        GameRecord.load("no/such.json")


def test_custom_board_is_stored_whole(tmp_path):
    board = nm.Board.from_grid(["yyb", "ygb"], name="tiny", start_column="B")
    game = Game(board, 1, nm.RuleSettings(solo_rolls=4), mode="solo")
    nm.play_game(game, [make_agent("greedy")], seed=2)
    record = GameRecord.from_game(game, ["greedy"], 2)
    assert isinstance(record.to_json()["board"], dict)
    record.save(tmp_path / "tiny.json")
    again = GameRecord.load(tmp_path / "tiny.json").verify()
    assert again.sheets[0].crossed == game.sheets[0].crossed


# --- atomic saving ------------------------------------------------------------------------

def test_save_is_atomic(tmp_path, solo_record, duel_record, monkeypatch):
    path = tmp_path / "game.json"
    solo_record.save(path)
    before = path.read_text()

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(nm.NochmalError, match=r"game\.json: cannot write file \(disk full\)"):
        duel_record.save(path)
    monkeypatch.undo()
    assert path.read_text() == before  # the old file is untouched...
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]  # ...and no temp file is left


def test_save_into_missing_folder(tmp_path, solo_record):
    with pytest.raises(nm.NochmalError, match="does not exist"):
        solo_record.save(tmp_path / "nope" / "game.json")
    assert not (tmp_path / "nope").exists()


def test_save_onto_a_directory_is_a_clean_error(tmp_path, solo_record):
    target = tmp_path / "adir"
    target.mkdir()
    with pytest.raises(nm.NochmalError, match="adir: cannot write file"):
        solo_record.save(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir"]  # no temp file left
    assert list(target.iterdir()) == []


def test_rule_settings_travel_with_the_record():
    """A bridging move verifies under the record's own rules and is rejected without them."""
    from nochmal.dice import Roll

    game = Game(CLASSIC, 1, nm.RuleSettings(bridging=True), mode="solo")
    for text in ("y1 H7", "y2 H6 I7"):  # H6 and I7 touch only through the crossed H7
        game.apply_roll(Roll(("y", "b"), ("1", "2")))
        game.apply_move(Move.parse(text))
    record = GameRecord.from_game(game, ["me"], seed=None)
    data = json.loads(record.dumps())
    assert data["rules"]["bridging"] is True and data["result"] is None
    again = GameRecord.loads(record.dumps()).verify()
    assert again.sheets[0].crossed == CLASSIC.mask_of(["H6", "H7", "I7"])
    data["rules"]["bridging"] = False
    with pytest.raises(nm.RecordError, match=r"turn 2, seat 1: illegal move 'y2 H6 I7': not connected"):
        GameRecord.loads(json.dumps(data)).verify()
