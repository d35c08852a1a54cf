"""This roll's advice through the API (docs/rooms.md, this roll's advice): any seat enters the
dice of the roll in play; every player gets a move with them.

Oracles independent of the room's code: each advised move is replayed through the engine
(``Game.apply_move`` refuses an illegal one) on a game the test sets up from the room's
document; its mission value is the best missions.tactics ranks for that sheet and those dice;
the dice a player may use are worked out here by hand from docs/rules.md §4 (rolls 1-3: all
six; then the active player's pick is gone for the others, unless the active player passes).
"""

from __future__ import annotations

from collections import Counter

import httpx
import pytest
from fastapi.testclient import TestClient

from nochmal.board import load_board
from nochmal.dice import Roll
from nochmal.game import Game
from nochmal.missions.loader import shipped_mission
from nochmal.missions.tactics import mission_value, rank_moves
from nochmal.modes import Mode
from nochmal.move import Move
from nochmal.position import Position
from nochmal.sheet import Sheet
from rooms_support import auth, make_app, new_room, put_cells, set_rolls, sit, sse_events

DICE = {"colours": ["y", "b", "x"], "numbers": ["3", "?", "5"]}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """One app for the module's tests (each makes its own room, more than the 10 a minute one
    address may: the limit raised): its child process, which works the advice out, starts once."""
    from nochmal.web.app import create_app
    from nochmal.web.rooms import RoomSettings

    return TestClient(create_app(data_dir=tmp_path_factory.mktemp("rooms-dice"),
                                 room_settings=RoomSettings(rooms_per_minute=1000)))


def enter(client, code: str, token: str, roll: int, dice: dict = DICE):
    return client.put(f"/api/rooms/{code}/dice", json={"roll": roll, "dice": dice}, headers=auth(token))


def table(client, names=("Anna", "Ben"), rolls_used: int = 4, **spec) -> tuple[str, list[str]]:
    """A room with every seat taken, a few crosses on the first sheet, ``rolls_used`` counted."""
    code = new_room(client, **spec)
    tokens = [sit(client, code, name)[1] for name in names]
    put_cells(client, code, 0, tokens[0], ["H1", "H2", "H3", "H4"])
    set_rolls(client, code, tokens[0], rolls_used)
    return code, tokens


def game_of(room: dict, dice: dict) -> Game:
    """The room's roll in play as an engine game, set up from the room's document."""
    board = load_board(room["board"])
    sheets = tuple(Sheet(board, board.mask_of(s["cells"]), s["jokers_used"]) for s in room["seats"])
    if room["mode"] == "mission":
        position = Position(Mode.COOP, sheets, room["rolls_used"], room["budget"])
    else:
        position = Position(Mode.COMPETITIVE, sheets, room["rolls_used"])
    game = Game.from_position(position)
    game.apply_roll(Roll.from_json(dice))
    return game


def left_over(dice: dict, move: Move) -> dict:
    """The dice the others pick from once the active player has taken ``move``'s pair."""
    colours, numbers = Counter(dice["colours"]), Counter(dice["numbers"])
    colours[move.colour_face] -= 1
    numbers[move.number_face] -= 1
    return {"colours": sorted(colours.elements()), "numbers": sorted(numbers.elements())}


def check_advice(room: dict, advice: dict, mission: str | None) -> None:
    """Every advised move legal for that player with those dice, in turn order (the active
    player first), from the dice the rules give that player, and (a mission) the best the
    mission's tactics rank."""
    game = game_of(room, advice["dice"])
    players = len(room["seats"])
    active = room["rolls_used"] % players
    assert advice["active"] == active and advice["moves"][0]["seat"] == active
    assert [m["seat"] for m in advice["moves"]] == [(active + k) % players for k in range(players)]
    first = Move.parse(advice["moves"][0]["move"])
    for entry in advice["moves"]:
        move = Move.parse(entry["move"])
        free = entry["seat"] == active or room["rolls_used"] < 3 or first.is_pass
        want = advice["dice"] if free else left_over(advice["dice"], first)
        assert sorted(entry["dice"]["colours"]) == sorted(want["colours"]), entry
        assert sorted(entry["dice"]["numbers"]) == sorted(want["numbers"]), entry
        if not move.is_pass:
            assert move.colour_face in entry["dice"]["colours"] and move.number_face in entry["dice"]["numbers"]
            assert entry["cells"] == list(move.cells)
        if mission is not None:
            best = rank_moves(shipped_mission(mission), game)[0][0]
            assert mission_value(shipped_mission(mission), game, move) == pytest.approx(best), entry
        game.apply_move(move)  # IllegalMoveError if the advice is not a legal move
    assert game.current_player() < 0  # everybody decided: the roll is over


# --- entering, replacing, refusing ---------------------------------------------------------------
def test_a_seat_enters_the_dice_and_every_player_gets_a_move(client):
    code, tokens = table(client)
    res = enter(client, code, tokens[1], 5)
    assert res.status_code == 200, res.text
    advice = res.json()
    assert advice["title"] == "This roll (Roll 5, Anna rolls)"  # roll 5 of a 2-seat room: seat 1 rolls
    assert advice["entered_by"] == "Ben" and advice["dice"] == DICE
    anna, ben = advice["moves"]
    assert anna["dice_from"] == "all six dice"
    assert ben["dice_from"].startswith("what Anna leaves: ")
    for entry in advice["moves"]:
        words = f"{entry['name']}: pass" if entry["move"] == "pass" else f"{entry['name']}: "
        assert entry["text"].startswith(words) and ", ".join(entry["cells"]) in entry["text"]
    room = client.get(f"/api/rooms/{code}").json()
    check_advice(room, advice, "lockstep")
    assert client.get(f"/api/rooms/{code}/dice").json()["advice"] == advice  # what every phone loads


def test_entering_again_replaces_the_dice_and_says_who(client):
    code, tokens = table(client)
    first = enter(client, code, tokens[1], 5).json()
    again = enter(client, code, tokens[0], 5, {"colours": ["g", "g", "r"], "numbers": ["1", "2", "2"]}).json()
    assert again["version"] > first["version"] and again["entered_by"] == "Anna"
    kept = client.get(f"/api/rooms/{code}/dice").json()["advice"]
    assert kept["dice"] == {"colours": ["g", "g", "r"], "numbers": ["1", "2", "2"]} and kept["entered_by"] == "Anna"
    check_advice(client.get(f"/api/rooms/{code}").json(), kept, "lockstep")


def test_dice_for_another_roll_are_refused_and_a_counted_roll_clears_them(client):
    code, tokens = table(client)
    for roll in (4, 6):
        res = enter(client, code, tokens[0], roll)
        assert res.status_code == 409 and res.json()["field"] == "roll"
        assert res.json()["error"] == f"roll 5 is in play, not roll {roll}: these dice are for another roll"
    assert enter(client, code, tokens[0], 5).status_code == 200
    assert client.put(f"/api/rooms/{code}/rolls", json={"roll": 5}, headers=auth(tokens[0])).status_code == 200
    assert client.get(f"/api/rooms/{code}/dice").json() == {"advice": None, "dice_per_kind": 3}  # roll 6: none yet
    assert enter(client, code, tokens[0], 5).status_code == 409
    client.put(f"/api/rooms/{code}/rolls", json={"undo": 5}, headers=auth(tokens[0]))
    assert client.get(f"/api/rooms/{code}/dice").json()["advice"]["roll"] == 5  # roll 5 is in play again


@pytest.mark.parametrize("dice, field", [
    ({"colours": ["y", "b", "z"], "numbers": ["3", "?", "5"]}, "dice.colours.2"),
    ({"colours": ["y", "b", "x"], "numbers": ["3", "6", "5"]}, "dice.numbers.1"),
    ({"colours": ["y", "b", "x"], "numbers": ["3", "?"]}, "dice"),  # 3 colour dice, 2 number dice
    ({"colours": ["y", "b"], "numbers": ["3", "?"]}, "dice"),  # 2 + 2: a one-player mission's dice
    ({"colours": ["y", "b", "x", "r"], "numbers": ["3", "?", "5", "1"]}, "dice.colours"),
    ({"colours": ["y", "b", "x"]}, "dice.numbers"),
])
def test_bad_dice_are_a_422_naming_the_field(client, dice, field):
    code, tokens = table(client)
    res = enter(client, code, tokens[0], 5, dice)
    assert res.status_code == 422 and res.json()["field"] == field, res.text
    assert client.get(f"/api/rooms/{code}/dice").json()["advice"] is None


def test_a_won_mission_has_no_roll_to_advise(client):
    code, tokens = table(client, rolls_used=20)
    for k, token in enumerate(tokens):  # lockstep's columns G, H and I on both sheets
        put_cells(client, code, k, token, [f"{c}{r}" for c in "GHI" for r in range(1, 8)])
    assert client.get(f"/api/rooms/{code}").json()["won_on"] == 21
    res = enter(client, code, tokens[0], 21)
    assert res.status_code == 409 and res.json()["field"] == "roll" and "won on roll 21" in res.json()["error"]


def test_only_a_seated_phone_enters_dice(client):
    code, tokens = table(client)
    res = client.put(f"/api/rooms/{code}/dice", json={"roll": 5, "dice": DICE})
    assert res.status_code == 401
    assert enter(client, code, "not-a-token", 5).status_code == 403
    assert client.put(f"/api/rooms/{code}/dice", json={"roll": "5", "dice": DICE},
                      headers=auth(tokens[0])).json()["field"] == "roll"


# --- who may use which dice ------------------------------------------------------------------------
def test_in_the_first_three_rolls_everybody_picks_from_all_six(client):
    code, tokens = table(client, names=("Anna", "Ben", "Cleo"), rolls_used=1,
                         mission="star-hunt", difficulty="normal", players=3)
    advice = enter(client, code, tokens[2], 2).json()
    assert advice["title"] == "This roll (Roll 2, Ben rolls)"
    assert [m["dice_from"] for m in advice["moves"]] == ["all six dice"] * 3
    check_advice(client.get(f"/api/rooms/{code}").json(), advice, "star-hunt")


def test_a_one_player_mission_rolls_two_and_two(client):
    code, tokens = table(client, names=("Anna",), rolls_used=4, mission="lockstep", difficulty="normal", players=1)
    assert enter(client, code, tokens[0], 5).json()["field"] == "dice"  # 3 + 3: not this game's dice
    assert client.get(f"/api/rooms/{code}/dice").json()["dice_per_kind"] == 2
    advice = enter(client, code, tokens[0], 5, {"colours": ["y", "x"], "numbers": ["3", "5"]}).json()
    assert advice["moves"][0]["dice_from"] == "all the dice"
    check_advice(client.get(f"/api/rooms/{code}").json(), advice, "lockstep")


def test_a_competitive_room_advises_every_seat_with_the_heuristic_bot(client):
    code, tokens = table(client, names=("Anna", "Ben", "Cleo", "Dan"), rolls_used=6,
                         mode="competitive", board="classic", players=4)
    advice = enter(client, code, tokens[3], 7).json()
    assert advice["title"] == "This roll (Roll 7, Cleo rolls)"
    check_advice(client.get(f"/api/rooms/{code}").json(), advice, None)


# --- live and kept ---------------------------------------------------------------------------------
def test_the_advice_is_kept_across_a_restart(data_dir):
    client = TestClient(make_app(data_dir))
    code, tokens = table(client)
    advice = enter(client, code, tokens[1], 5).json()
    again = TestClient(make_app(data_dir))
    assert again.get(f"/api/rooms/{code}/dice").json()["advice"] == advice


def test_every_phone_hears_the_advice_on_the_rooms_stream(server):
    code, tokens = table(server.api)
    # 300 s: hang guards, not a pace (the first advice starts the server's child process)
    with httpx.Client(base_url=server.url, timeout=300) as phone, httpx.Client(base_url=server.url, timeout=300) as api:
        enter(api, code, tokens[0], 5)  # the child started before the stream opens (a stream lasts 15 s)
        with phone.stream("GET", f"/api/rooms/{code}/events") as stream:
            events = sse_events(stream.iter_lines())
            assert next(events)[0] == "sync"
            advice = enter(api, code, tokens[1], 5).json()
            name, ident, data = next(e for e in events if e[0] == "dice")
    assert ident == str(advice["version"]) and data == advice


def test_dice_that_do_not_fit_the_game_are_refused_in_the_phones_language(client):
    """Two and two dice at a table of two: the engine's RollError, said in German."""
    from nochmal.errors import RollError
    from nochmal.i18n import said, say

    code, tokens = table(client)
    dice = {"colours": ["y", "b"], "numbers": ["3", "?"]}
    game = Game.from_position(Position(Mode.COMPETITIVE, (Sheet(load_board("classic")),) * 2, 4))
    with pytest.raises(RollError) as caught:
        game.apply_roll(Roll(tuple(dice["colours"]), tuple(dice["numbers"])))
    message = say("dice: %(why)s", why=caught.value.message)
    de = client.put(f"/api/rooms/{code}/dice", json={"roll": 5, "dice": dice},
                    headers={**auth(tokens[0]), "Accept-Language": "de"})
    assert de.status_code == 422 and de.json() == {"error": said(message, "de"), "field": "dice"}
    assert said(message, "de") != str(message) == enter(client, code, tokens[0], 5, dice).json()["error"]
