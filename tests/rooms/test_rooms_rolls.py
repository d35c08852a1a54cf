"""The rolls, the roll in play, the win and the race of a room through its API (docs/rooms.md).

A table counts each physical roll once whoever presses and however often; crosses for the
roll being played are legal before it is counted; a win is recorded and holds; a seat taken
is named in the status at once; a competitive room knows who completed what on which roll,
and the end. Oracles: counts made by threads at once against the room's own log; first and
later against rules.md §4 (ties in one roll are all first).
"""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from nochmal.board import load_board
from nochmal.missions.loader import shipped_mission
from rooms_support import auth, make_app, new_room, put_cells, sit

COLUMN_H = [f"H{r}" for r in range(1, 8)]


def at_once(calls):
    """Run the calls in threads released together; their answers in order."""
    gate = threading.Barrier(len(calls))
    out = [None] * len(calls)

    def run(k, call):
        gate.wait()
        out[k] = call()

    threads = [threading.Thread(target=run, args=(k, c)) for k, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


# --- rolls counted once ------------------------------------------------------------------------
def test_two_phones_counting_one_roll_count_it_once(client):
    code = new_room(client)
    _, anna = sit(client, code, "Anna")
    _, ben = sit(client, code, "Ben")
    for roll in range(1, 6):
        answers = at_once([lambda t=t: client.put(f"/api/rooms/{code}/rolls", json={"roll": roll}, headers=auth(t))
                           for t in (anna, ben)])
        assert [a.status_code for a in answers] == [200, 200]
        messages = sorted(a.json()["message"] for a in answers)
        counted = [m for m in messages if m.endswith(f"counted roll {roll}") and "already" not in m]
        again = [m for m in messages if "already counted roll" in m]
        assert len(counted) == 1 and len(again) == 1, messages
        assert again[0] == counted[0].replace("counted", "already counted")  # "Anna already counted roll 5"
    room = client.get(f"/api/rooms/{code}").json()
    assert room["rolls_used"] == 5
    assert room["in_play"]["roll"] == 6 and room["in_play"]["name"] == "Ben"  # roll 6: seat 2 (seat order from seat 1)
    # a repeat long after changes nothing either
    res = client.put(f"/api/rooms/{code}/rolls", json={"roll": 3}, headers=auth(anna))
    assert res.status_code == 200 and res.json()["rolls_used"] == 5 and "already counted roll 3" in res.json()["message"]


def test_the_active_player_goes_round_the_seats_from_seat_1(client):
    code = new_room(client, mission="lockstep", difficulty="normal", players=3)
    names = ["Anna", "Ben", "Cleo"]
    tokens = [sit(client, code, n)[1] for n in names]
    rollers = []
    for roll in range(1, 7):
        play = client.get(f"/api/rooms/{code}").json()["in_play"]
        assert play["roll"] == roll
        rollers.append(play["name"])
        client.put(f"/api/rooms/{code}/rolls", json={"roll": roll}, headers=auth(tokens[0]))
    assert rollers == names * 2


def test_undo_says_what_it_undoes_and_counts_each_tap(client):
    code = new_room(client)
    _, anna = sit(client, code, "Anna")
    _, ben = sit(client, code, "Ben")
    for roll in range(1, 6):
        client.put(f"/api/rooms/{code}/rolls", json={"roll": roll}, headers=auth(anna if roll % 2 else ben))
    play = client.get(f"/api/rooms/{code}").json()["in_play"]
    assert play["last"] == {"roll": 5, "counted_by": "Anna"}
    res = client.put(f"/api/rooms/{code}/rolls", json={"undo": 5}, headers=auth(ben))
    assert res.json()["message"] == "Undid roll 5 (counted by Anna)" and res.json()["rolls_used"] == 4
    assert res.json()["in_play"]["last"] == {"roll": 4, "counted_by": "Ben"}
    # the same undo again (a second phone, a double tap) takes back nothing more
    res = client.put(f"/api/rooms/{code}/rolls", json={"undo": 5}, headers=auth(anna))
    assert res.status_code == 200 and res.json()["rolls_used"] == 4 and "already taken back" in res.json()["message"]
    # an undo of an older roll while a later one is counted is refused in words
    res = client.put(f"/api/rooms/{code}/rolls", json={"undo": 2}, headers=auth(anna))
    assert res.status_code == 409 and res.json()["field"] == "undo" and "roll 4" in res.json()["error"]
    # so is counting a roll ahead of the one being played
    res = client.put(f"/api/rooms/{code}/rolls", json={"roll": 9}, headers=auth(anna))
    assert res.status_code == 409 and res.json()["field"] == "roll" and "roll 5 is being played" in res.json()["error"]
    # four taps in a row, each on the count the one before left: four rolls back
    for roll in (4, 3, 2, 1):
        assert client.put(f"/api/rooms/{code}/rolls", json={"undo": roll}, headers=auth(anna)).json()["rolls_used"] == roll - 1
    assert client.get(f"/api/rooms/{code}").json()["in_play"] == {"roll": 1, "seat": 0, "name": "Anna", "last": None}


def test_a_roll_body_is_one_of_roll_undo_rolls_used(client):
    code = new_room(client)
    _, anna = sit(client, code, "Anna")
    for body, field in (({"roll": 1, "undo": 1}, "undo"), ({}, "roll"), ({"roll": 0}, "roll"), ({"roll": "1"}, "roll"),
                        ({"undo": True}, "undo"), ({"rolls": 1}, "rolls")):
        res = client.put(f"/api/rooms/{code}/rolls", json=body, headers=auth(anna))
        assert res.status_code == 422 and res.json()["field"] == field, (body, res.text)
    # the older body still sets the count outright
    assert client.put(f"/api/rooms/{code}/rolls", json={"rolls_used": 3}, headers=auth(anna)).json()["rolls_used"] == 3


# --- the roll in play -------------------------------------------------------------------------
def test_crosses_for_the_roll_being_played_are_legal_before_it_is_counted(client):
    code = new_room(client)
    _, anna = sit(client, code, "Anna")
    _, ben = sit(client, code, "Ben")
    # roll 1 in the natural order: both cross, then the roller counts it
    status = put_cells(client, code, 0, anna, ["H4"])["status"]
    assert status["impossible"] == [] and status["state"] == "in progress"
    status = put_cells(client, code, 1, ben, ["H4", "H5"])["status"]  # one block (blue)
    assert status["impossible"] == [] and status["objectives"]
    assert client.put(f"/api/rooms/{code}/rolls", json={"roll": 1}, headers=auth(ben)).json()["status"]["impossible"] == []
    # roll 2 is in play: a second block (red H3) is fine, a third (orange H2) is not
    assert put_cells(client, code, 0, anna, ["H4", "H3"])["status"]["impossible"] == []
    bad = put_cells(client, code, 0, anna, ["H4", "H3", "H2"])["status"]["impossible"]
    assert bad and bad[0]["seat"] == 0 and any("after 2 roll(s)" in r for r in bad[0]["reasons"])


def test_a_missions_last_roll_is_the_budget(client):
    code = new_room(client, mission="lockstep", difficulty="easy", players=1)
    _, anna = sit(client, code, "Anna")
    budget = shipped_mission("lockstep").budget(1, "easy")
    client.put(f"/api/rooms/{code}/rolls", json={"rolls_used": budget}, headers=auth(anna))
    room = client.get(f"/api/rooms/{code}").json()
    assert room["in_play"]["roll"] is None  # no roll in play once the budget is counted
    assert client.put(f"/api/rooms/{code}/rolls", json={"undo": budget}, headers=auth(anna)).json()["in_play"]["roll"] == budget


# --- the win holds ----------------------------------------------------------------------------
def lockstep_win(client):
    """A one-seat lockstep room won on its last roll: (code, token, the roll)."""
    code = new_room(client, mission="lockstep", difficulty="easy", players=1)
    _, anna = sit(client, code, "Anna")
    budget = shipped_mission("lockstep").budget(1, "easy")
    client.put(f"/api/rooms/{code}/rolls", json={"rolls_used": budget - 1}, headers=auth(anna))
    cells = [f"{c}{r}" for c in "GHI" for r in range(1, 8)]
    answer = put_cells(client, code, 0, anna, cells)
    assert answer["status"]["state"] == "won", answer["status"]
    return code, anna, budget


def test_the_win_is_recorded_and_a_later_tap_does_not_undo_it(client):
    code, anna, roll = lockstep_win(client)
    room = client.get(f"/api/rooms/{code}").json()
    assert room["won_on"] == roll
    put_cells(client, code, 0, anna, [f"{c}{r}" for c in "GHI" for r in range(2, 8)])  # a tap uncrosses three
    room = client.get(f"/api/rooms/{code}").json()
    assert room["status"]["state"] != "won" and room["won_on"] == roll
    # only a seat reopening it on purpose (naming the win it saw) forgets it
    res = client.post(f"/api/rooms/{code}/reopen", json={"won_on": roll + 1}, headers=auth(anna))
    assert res.status_code == 409 and res.json()["field"] == "won_on"
    assert client.post(f"/api/rooms/{code}/reopen", json={"won_on": roll}).status_code == 401
    res = client.post(f"/api/rooms/{code}/reopen", json={"won_on": roll}, headers=auth(anna))
    assert res.status_code == 200 and res.json()["won_on"] is None
    assert client.get(f"/api/rooms/{code}").json()["won_on"] is None


@pytest.mark.parametrize("tapped_on, won_on", [(15, 15), (None, 16), (30, 16)])
def test_the_win_is_recorded_on_the_roll_its_last_cross_was_tapped_on(client, tapped_on, won_on):
    """Roll 15 counted before its last cross (the table's slowest player): the tap names the
    roll its phone showed, and the win is that roll's, not the one in play; a tap naming no
    roll wins on the roll in play, and one naming a later roll on the roll in play too."""
    code = new_room(client, mission="lockstep", difficulty="easy", players=1)
    _, anna = sit(client, code, "Anna")
    client.put(f"/api/rooms/{code}/rolls", json={"rolls_used": 15}, headers=auth(anna))
    put_cells(client, code, 0, anna, [f"{c}{r}" for c in "GHI" for r in range(1, 8)][:-1])
    version = client.get(f"/api/rooms/{code}").json()["seats"][0]["sheet_version"]
    tap = {"cross": ["I7"], "version": version} | ({"roll": tapped_on} if tapped_on else {})
    res = client.patch(f"/api/rooms/{code}/seats/0/sheet", json=tap, headers=auth(anna))
    assert res.status_code == 200 and res.json()["status"]["state"] == "won", res.text
    assert client.get(f"/api/rooms/{code}").json()["won_on"] == won_on


def test_the_win_survives_a_restart(data_dir):
    from fastapi.testclient import TestClient

    code, _, roll = lockstep_win(TestClient(make_app(data_dir)))
    assert TestClient(make_app(data_dir)).get(f"/api/rooms/{code}").json()["won_on"] == roll


def test_an_older_data_folder_gains_the_new_columns(data_dir):
    """A rooms.sqlite3 written before the win was recorded (no won_on column) and before the
    schema was versioned (no schema_version table) opens, keeps its room and records a win."""
    from fastapi.testclient import TestClient

    client = TestClient(make_app(data_dir))
    code = new_room(client, mission="lockstep", difficulty="easy", players=1)
    sit(client, code, "Anna")
    client.app.state.rooms.store.close()
    db = sqlite3.connect(data_dir / "rooms.sqlite3")
    db.execute("ALTER TABLE rooms DROP COLUMN won_on")
    db.execute("DROP TABLE counted_rolls")
    db.execute("DROP TABLE race")
    db.execute("DROP TABLE schema_version")
    db.commit()
    db.close()
    client = TestClient(make_app(data_dir))
    room = client.get(f"/api/rooms/{code}").json()
    assert room["seats"][0]["name"] == "Anna" and room["won_on"] is None
    code2, _, roll = lockstep_win(client)
    assert client.get(f"/api/rooms/{code2}").json()["won_on"] == roll


# --- names in the status at once ------------------------------------------------------------
def wait_complete(client, code, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status = client.get(f"/api/rooms/{code}").json()["status"]
        if status["complete"]:
            return status
        time.sleep(0.1)
    raise AssertionError("the full status did not arrive")


@pytest.mark.sqlite_only  # the status' work; sitting down is stored in test_rooms_seats.py on both
@pytest.mark.parametrize("mission", ["lockstep", "colour-fan"])
def test_a_seat_taken_is_named_in_the_status_at_once(client, mission):
    code = new_room(client, mission=mission, difficulty="normal", players=2)
    sit(client, code, "Anna")
    assert wait_complete(client, code)["sheets"] == ["Anna", "seat 2 (free)"]
    _, ben = sit(client, code, "Ben")
    assert client.get(f"/api/rooms/{code}").json()["status"]["sheets"] == ["Anna", "Ben"]
    assert wait_complete(client, code)["sheets"] == ["Anna", "Ben"]
    client.put(f"/api/rooms/{code}/seats/1/name", json={"name": "Benno"}, headers=auth(ben))
    assert client.get(f"/api/rooms/{code}").json()["status"]["sheets"] == ["Anna", "Benno"]


# --- the race and the end --------------------------------------------------------------------
def test_first_and_later_follow_from_the_rolls_of_the_completions(client):
    code = new_room(client, mode="competitive", board="classic", players=3)
    (_, anna), (_, ben), (_, cleo) = (sit(client, code, n) for n in ("Anna", "Ben", "Cleo"))
    client.put(f"/api/rooms/{code}/rolls", json={"rolls_used": 4}, headers=auth(anna))
    put_cells(client, code, 0, anna, COLUMN_H)  # roll 5 in play
    put_cells(client, code, 2, cleo, COLUMN_H)  # the same roll: a tie, both first
    client.put(f"/api/rooms/{code}/rolls", json={"roll": 5}, headers=auth(anna))
    status = put_cells(client, code, 1, ben, COLUMN_H)["status"]  # roll 6
    h = status["race"]["columns"]["H"]
    assert h["first"] == [0, 2] and h["later"] == [1] and h["rolls"] == {"0": 5, "1": 6, "2": 5}
    board = load_board("classic")
    seats = client.get(f"/api/rooms/{code}").json()["seats"]
    assert seats[1]["later_columns"] == ["H"] and seats[0]["later_columns"] == [] == seats[2]["later_columns"]
    assert seats[0]["score"] - seats[1]["score"] == board.column_points_first[7] - board.column_points_later[7]
    # a seat sets its own value by hand, and back to what the rolls say
    res = client.put(f"/api/rooms/{code}/seats/1/race", json={"item": "H", "value": "first"}, headers=auth(ben))
    assert res.status_code == 200 and res.json()["status"]["race"]["columns"]["H"]["first"] == [0, 1, 2]
    assert res.json()["status"]["race"]["columns"]["H"]["by_hand"] == {"1": "first"}
    res = client.put(f"/api/rooms/{code}/seats/1/race", json={"item": "h", "value": "auto"}, headers=auth(ben))
    assert res.json()["status"]["race"]["columns"]["H"]["later"] == [1]
    # refusals name the field, in words
    res = client.put(f"/api/rooms/{code}/seats/1/race", json={"item": "green", "value": "first"}, headers=auth(ben))
    assert res.status_code == 409 and res.json()["error"] == "green is not complete on this sheet"
    res = client.put(f"/api/rooms/{code}/seats/1/race", json={"item": "Z", "value": "first"}, headers=auth(ben))
    assert res.status_code == 422 and res.json()["field"] == "item"
    assert client.put(f"/api/rooms/{code}/seats/1/race", json={"item": "H", "value": "first"},
                      headers=auth(anna)).status_code == 403
    # Anna uncrosses a cell: her mark goes, Cleo alone is first
    status = put_cells(client, code, 0, anna, COLUMN_H[1:])["status"]
    assert status["race"]["columns"]["H"]["first"] == [2]


def test_a_mission_room_has_no_race_to_set(client):
    code = new_room(client)
    _, anna = sit(client, code, "Anna")
    res = client.put(f"/api/rooms/{code}/seats/0/race", json={"item": "H", "value": "first"}, headers=auth(anna))
    assert res.status_code == 422 and res.json()["field"] == "item"


def test_a_second_colour_ends_the_game_with_the_winner(client):
    code = new_room(client, mode="competitive", board="classic", players=2)
    _, anna = sit(client, code, "Anna")
    _, ben = sit(client, code, "Ben")
    board = load_board("classic")
    client.put(f"/api/rooms/{code}/rolls", json={"rolls_used": 40}, headers=auth(anna))
    green = [c for c in board.cells_of(board.colour_mask["g"])]
    blue = [c for c in board.cells_of(board.colour_mask["b"])]
    status = put_cells(client, code, 1, ben, green)["status"]  # roll 41: one colour, no end
    assert status["end"] is None and status["race"]["colours"]["green"]["first"] == [1]
    client.put(f"/api/rooms/{code}/rolls", json={"roll": 41}, headers=auth(anna))
    status = put_cells(client, code, 0, anna, green + blue)["status"]  # roll 42: her second colour
    end = status["end"]
    assert end["roll"] == 42 and end["seats"] == [0] and not end["final"]
    assert "Anna completed a second colour on roll 42" in end["text"] and "last roll" in end["text"]
    assert status["race"]["colours"]["green"]["later"] == [0]  # Ben was first, on roll 41
    status = client.put(f"/api/rooms/{code}/rolls", json={"roll": 42}, headers=auth(ben)).json()["status"]
    end = status["end"]
    scores = {s["name"]: s["score"] for s in status["scores"]}
    assert end["final"] and end["winners"] == [0 if scores["Anna"] > scores["Ben"] else 1]
    assert f"Game over after roll 42" in end["text"] and str(max(scores.values())) + " points" in end["text"]
    assert end["record"] is None and "cannot make a record for nochmal replay" in end["record_note"]


class _Sheet:
    def __init__(self, score, jokers_used):
        self._score, self.jokers_used = score, jokers_used
        self.board = load_board("classic")

    def score(self):
        return self._score


def test_a_tie_goes_to_more_unused_jokers_then_is_shared():
    from nochmal.web.rooms.race import winners

    assert winners([_Sheet(30, 2), _Sheet(30, 1), _Sheet(29, 0)]) == [1]
    assert winners([_Sheet(30, 1), _Sheet(30, 1), _Sheet(31, 5)]) == [2]
    assert winners([_Sheet(30, 1), _Sheet(30, 1)]) == [0, 1]


# --- a crash keeps the counts, the win and the race -----------------------------------------
def test_sigkill_keeps_the_counted_rolls_the_win_and_the_race(tmp_path):
    import httpx

    from rooms_support import crash, free_port, serving

    data, port = tmp_path / "data", free_port()
    url = f"http://127.0.0.1:{port}"
    with serving(data, port) as proc:
        code = httpx.post(url + "/api/rooms", json={"mission": "lockstep", "difficulty": "easy", "players": 1}).json()["id"]
        anna = httpx.post(f"{url}/api/rooms/{code}/seats", json={"name": "Anna"}).json()["seat_token"]
        res = httpx.post(url + "/api/rooms", json={"mode": "competitive", "players": 2})
        assert res.status_code == 201, res.text
        race = res.json()["id"]
        cleo = httpx.post(f"{url}/api/rooms/{race}/seats", json={"name": "Cleo"}).json()["seat_token"]
        budget = shipped_mission("lockstep").budget(1, "easy")
        for roll in range(1, budget):
            assert httpx.put(f"{url}/api/rooms/{code}/rolls", json={"roll": roll}, headers=auth(anna)).status_code == 200
        res = httpx.put(f"{url}/api/rooms/{code}/seats/0/sheet", headers=auth(anna),
                        json={"cells": [f"{c}{r}" for c in "GHI" for r in range(1, 8)], "version": 0})
        assert res.status_code == 200 and res.json()["status"]["state"] == "won"
        httpx.put(f"{url}/api/rooms/{race}/rolls", json={"roll": 1}, headers=auth(cleo))
        res = httpx.put(f"{url}/api/rooms/{race}/seats/0/sheet", json={"cells": COLUMN_H, "version": 0}, headers=auth(cleo))
        assert res.status_code == 200
        crash(proc)
    with serving(data, port):
        room = httpx.get(f"{url}/api/rooms/{code}").json()
        assert room["rolls_used"] == budget - 1 and room["won_on"] == budget
        assert room["in_play"]["last"] == {"roll": budget - 1, "counted_by": "Anna"}
        status = httpx.get(f"{url}/api/rooms/{race}").json()["status"]
        assert status["race"]["columns"]["H"]["rolls"] == {"0": 2}


def test_an_imported_competitive_room_keeps_its_later_values(client):
    """A competitive room's typed sheets carry later columns; imported, the room marks the
    completions on the imported count and keeps those values by hand, so that the next edit's
    race does not call them first."""
    import io
    import json
    import zipfile

    code = new_room(client, mode="competitive", board="classic", players=2)
    _, anna = sit(client, code, "Anna")
    _, ben = sit(client, code, "Ben")
    put_cells(client, code, 0, anna, COLUMN_H)
    client.put(f"/api/rooms/{code}/rolls", json={"roll": 1}, headers=auth(anna))
    put_cells(client, code, 1, ben, COLUMN_H)
    exported = client.get(f"/api/rooms/{code}/export").content
    doc = json.loads(zipfile.ZipFile(io.BytesIO(exported)).read("room.json"))
    assert "later_columns: H" in doc["seats"][1]["text"]
    res = client.post("/api/rooms/import", content=exported, headers={"Content-Type": "application/zip"})
    copy, tokens = res.json()["id"], [s["seat_token"] for s in res.json()["seats"]]
    put_cells(client, copy, 0, tokens[0], COLUMN_H + ["G4"])  # an edit: the race derived again
    room = client.get(f"/api/rooms/{copy}").json()
    assert room["seats"][1]["later_columns"] == ["H"] and room["seats"][0]["later_columns"] == []
    assert room["status"]["race"]["columns"]["H"]["later"] == [1]


def test_a_completion_undone_leaves_the_race(client):
    """Anna completes column H on roll 1 and undoes the tap; Ben completing it on roll 2 is first."""
    code = new_room(client, mode="competitive", board="classic", players=2)
    _, anna = sit(client, code, "Anna")
    _, ben = sit(client, code, "Ben")
    version = put_cells(client, code, 0, anna, COLUMN_H)["sheet_version"]
    res = client.post(f"/api/rooms/{code}/seats/0/undo", json={"version": version}, headers=auth(anna))
    assert res.status_code == 200, res.text
    client.put(f"/api/rooms/{code}/rolls", json={"roll": 1}, headers=auth(ben))
    h = put_cells(client, code, 1, ben, COLUMN_H)["status"]["race"]["columns"]["H"]
    assert (h["first"], h["later"], h["rolls"]) == ([1], [], {"1": 2})


def test_a_counts_answer_has_the_rooms_status_model(client):
    """PUT .../rolls answers the status as GET /api/rooms/ID does: one model, in the schema too."""
    schema = client.get("/openapi.json").json()["components"]["schemas"]
    assert schema["RollsSet"]["properties"]["status"]["$ref"] == "#/components/schemas/RoomStatus"
    code = new_room(client)
    _, anna = sit(client, code, "Anna")
    status = client.put(f"/api/rooms/{code}/rolls", json={"roll": 1}, headers=auth(anna)).json()["status"]
    assert {"mode", "complete", "impossible"} <= set(status) and status["mode"] == "mission"
