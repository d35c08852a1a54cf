"""Online rooms through the API (docs/rooms.md, online games): the server's dice under a seed
commitment, the dice each seat is offered, simultaneous passive choices, the end, the record
`nochmal replay --verify` accepts, bots, quiet seats and a restart on the same data folder.

The oracles are independent of the room's code: the rolls are checked against
``nochmal.dice.seeded_roll`` of the revealed seed and its SHA-256, the record by the CLI's
replay, the dice offered against the rules' text (rolls 1-3 all six, then the four the active
player leaves)."""

from __future__ import annotations

import hashlib
import json

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from nochmal.cli import app as cli
from nochmal.dice import Roll, seeded_roll
from nochmal.move import Move
from online_support import API, auth, biggest_move, choose, job_done, new_online, play_out, room, sit_all
from rooms_support import make_app

NAMES = ["Anna", "Ben", "Cleo"]


@pytest.fixture()
def three(client):
    """A competitive room of three people, all seated: (code, tokens)."""
    code = new_online(client)["id"]
    return code, sit_all(client, code, NAMES)


def dice_left(roll: Roll, move: str) -> Roll:
    m = Move.parse(move)
    return roll.without(m.colour_face, m.number_face)


def test_a_game_to_its_end_reveals_a_seed_that_checks(client, tmp_path):
    made = new_online(client)
    code = made["id"]
    before = room(client, code)
    assert not before["started"] and before["roll"] is None and before["seed"] is None
    tokens = sit_all(client, code, NAMES)
    first = room(client, code)
    assert first["started"] and first["roll"] == 1 and first["seed"] is None
    end = play_out(client, code, dict(enumerate(tokens)))
    assert end["over"] and end["winners"]
    seed = end["seed"]
    assert hashlib.sha256(str(seed).encode()).hexdigest() == made["commitment"] == end["commitment"]
    assert Roll.from_json(first["dice"]) == seeded_roll(seed, 0)
    record = client.get(f"{API}/{code}/record").json()
    assert [r["dice"] for r in record["rolls"]] == [seeded_roll(seed, i).to_json() for i in range(len(record["rolls"]))]
    assert record["seed"] == seed and record["players"] == [f"human:{n}" for n in NAMES]
    jokers = [8 - s["jokers_used"] for s in end["seats"]]  # the classic sheet's 8 jokers
    best = max(zip(end["scores"], jokers))
    assert end["winners"] == [k for k in range(3) if (end["scores"][k], jokers[k]) == best]
    path = tmp_path / "online.json"
    path.write_text(json.dumps(record))
    result = CliRunner().invoke(cli, ["replay", str(path), "--verify"])
    assert result.exit_code == 0, result.output
    rolls = CliRunner().invoke(cli, ["rolls", "--seed", str(seed), "--count", "3", "--json"])
    assert json.loads(rolls.output)["rolls"][0] == first["dice"]


def test_the_dice_each_seat_is_offered_follow_the_rules(client, three):
    code, tokens = three
    for _ in range(3):  # rolls 1-3: all six to everybody, everybody at once
        doc = room(client, code)
        for k, token in enumerate(tokens):
            offer = room(client, code, token)["you"]["offer"]
            assert offer["state"] == "choosing" and offer["dice"] == doc["dice"]
        for k in (2, 0, 1):  # any order
            choose(client, code, k, tokens[k], "pass")
    doc = room(client, code)
    assert doc["roll"] == 4 and doc["active"] == 0
    for k in (1, 2):  # roll 4: the others wait for the active player
        offer = room(client, code, tokens[k])["you"]["offer"]
        assert offer == {"state": "waiting", "dice": None, "move": None, "quiet_in": None}
        res = client.post(f"{API}/{code}/seats/{k}/move", json={"roll": 4, "move": "pass"}, headers=auth(tokens[k]))
        assert res.status_code == 409 and "active player" in res.json()["error"]
    active = choose(client, code, 0, tokens[0])
    left = dice_left(Roll.from_json(doc["dice"]), active["move"])
    for k in (1, 2):
        offer = room(client, code, tokens[k])["you"]["offer"]
        assert offer["state"] == "choosing" and Roll.from_json(offer["dice"]) == left
    # the later seat chooses first: kept, the roll goes on until the earlier one has chosen
    choose(client, code, 2, tokens[2])
    mid = room(client, code, tokens[2])
    assert mid["roll"] == 4 and mid["you"]["offer"]["state"] == "chosen"
    assert [s["state"] for s in mid["seats"]] == ["chosen", "choosing", "chosen"]
    assert mid["seats"][2]["cells"] == [], "a roll's moves show only when it ends"
    choose(client, code, 1, tokens[1])
    after = room(client, code)
    assert after["roll"] == 5 and after["active"] == 1
    assert [m["seat"] for m in after["last"]["moves"]] == [0, 1, 2]
    # an active pass leaves all six to the others
    choose(client, code, 1, tokens[1], "pass")
    assert room(client, code, tokens[2])["you"]["offer"]["dice"] == after["dice"]


def test_moves_refused_with_the_reason(client, three):
    code, tokens = three
    doc = room(client, code, tokens[0])
    url = f"{API}/{code}/seats/0/move"
    assert client.post(url, json={"roll": 1, "move": "pass"}).status_code == 401
    assert client.post(url, json={"roll": 1, "move": "pass"}, headers=auth(tokens[1])).status_code == 403
    res = client.post(url, json={"roll": 2, "move": "pass"}, headers=auth(tokens[0]))
    assert res.status_code == 409 and res.json()["field"] == "roll"
    res = client.post(url, json={"roll": 1, "move": "y5 A1 A2 A3 A4 A5"}, headers=auth(tokens[0]))
    assert res.status_code == 422 and res.json()["field"] == "move" and res.json()["error"]
    res = client.post(url, json={"roll": 1, "move": "zz"}, headers=auth(tokens[0]))
    assert res.status_code == 422 and res.json()["field"] == "move"
    choose(client, code, 0, tokens[0], biggest_move(doc, 0))
    res = client.post(url, json={"roll": 1, "move": "pass"}, headers=auth(tokens[0]))
    assert res.status_code == 409 and "already chosen" in res.json()["error"]
    assert client.get(f"{API}/{code}/record").status_code == 409
    assert client.post(f"{API}/{code}/seats", json={"name": "Dan"}).status_code == 409
    assert client.get(f"{API}/{code}/seats/9/move").status_code in (404, 405)
    assert client.post(f"{API}/{code}/seats/9/move", json={"roll": 1, "move": "pass"}).status_code == 404
    assert client.get(f"{API}/aaaaaaaaaa").status_code == 404


def test_bad_set_ups_name_the_field(client):
    cases = [({"seats": ["human", "nobot"]}, "seats.1"), ({"seats": []}, "seats"),
             ({"mission": "nosuch", "seats": ["human"]}, "mission"),
             ({"mission": "lockstep", "seats": ["human"] * 5}, "seats"),
             ({"seats": ["human"], "quiet": {"after": "bot", "bot": "nobot"}}, "quiet.bot"),
             ({"seats": ["human"], "quiet": {"after": "sometimes"}}, "quiet.after")]
    for body, field in cases:
        res = client.post(API, json=body)
        assert res.status_code == 422, body
        assert res.json()["field"] == field, (body, res.json())
    # a field sent as null is a field left out (the fuzzer's find: a null quiet was a 500)
    for body in ({"seats": ["human"], "quiet": None, "board": None, "mode": None},
                 {"mission": "lockstep", "seats": ["human"], "board": None, "difficulty": None, "quiet": None}):
        assert client.post(API, json=body).status_code == 201, body


def test_taps_answer_as_the_puzzle_page(client, three):
    code, tokens = three
    doc = room(client, code, tokens[0])
    dice = doc["dice"]
    url = f"{API}/{code}/seats/0/tap"
    res = client.post(url, json={"colour": dice["colours"][0], "number": dice["numbers"][0], "cells": ["A1"]},
                      headers=auth(tokens[0]))
    assert res.status_code == 200 and res.json()["ok"] is False and res.json()["reason"]
    # the engine's reason in the phone's language, as on the puzzle page
    german = client.post(url, json={"colour": dice["colours"][0], "number": dice["numbers"][0], "cells": ["A1"]},
                         headers={**auth(tokens[0]), "Accept-Language": "de-DE"}).json()["reason"]
    assert german != res.json()["reason"] and "A1" in german
    res = client.post(url, json={"colour": dice["colours"][0], "number": dice["numbers"][0], "cells": []},
                      headers=auth(tokens[1]))
    assert res.status_code == 403


def test_a_quiet_seat_is_passed_for(client):
    """The room's clock (the service's ``clock``) moves past the quiet minute: no real time waited."""
    online = client.app.state.online
    now = [1000.0]
    online.clock = lambda: now[0]
    code = new_online(client, mode="competitive", seats=["human", "human"],
                      quiet={"after": "pass", "seconds": 60})["id"]
    tokens = sit_all(client, code, NAMES[:2])
    choose(client, code, 0, tokens[0])  # seat 2 stays quiet
    table = online.table(code)
    assert room(client, code, tokens[1])["you"]["offer"]["quiet_in"] == 60
    now[0] += 59
    with online.changed:
        online.changed.notify_all()  # the driver looks again: a minute has not passed
    assert not online.wait_for(lambda: table.game.rolls_done >= 1, 0.5)
    now[0] += 2
    with online.changed:
        online.changed.notify_all()
    assert online.wait_for(lambda: table.game.rolls_done >= 1, 60), "the quiet seat was not passed for"
    last = room(client, code)["last"]
    assert last["moves"][1] == {"seat": 1, "move": "pass", "by": "quiet"}
    # the seat's phone is back: it chooses again from the next offer
    assert room(client, code, tokens[1])["you"]["offer"]["state"] == "choosing"


def test_a_mission_with_a_bot_teammate_and_a_restart(data_dir):
    client = TestClient(make_app(data_dir))
    made = new_online(client, mission="lockstep", difficulty="easy", seats=["human", "greedy"])
    code = made["id"]
    (token,) = sit_all(client, code, ["Anna"])
    online = client.app.state.online
    table = online.table(code)
    for roll in (1, 2):  # the bot chooses in rolls 1-2 beside the person (in the worker child)
        choose(client, code, 0, token)
        assert online.wait_for(lambda: table.game.rolls_done == roll, 120), "the bot did not choose"
    # roll 3 is everybody's at once too: the bot chooses it straight away, then the room waits for
    # Anna (read the room only then: the first server's bot must not move between it and the restart)
    assert online.wait_for(lambda: table.chosen(1) is not None, 120), "the bot did not choose roll 3"
    doc = room(client, code, token)
    assert {m["seat"]: m["by"] for m in doc["last"]["moves"]} == {0: "seat", 1: "bot"}, doc["last"]
    # a server started again on the same folder continues exactly: same dice, same turn
    again = TestClient(make_app(data_dir))
    assert {k: v for k, v in room(again, code, token).items() if k != "you"} == \
        {k: v for k, v in doc.items() if k != "you"}
    end = play_out(again, code, {0: token})
    assert end["over"] and end["outcome"]["mission"] == "lockstep"
    assert end["winners"] in ([], [0, 1])
    record = again.get(f"{API}/{code}/record").json()
    assert record["extra"] == {"mission": "lockstep", "difficulty": "easy"}
    assert record["players"] == ["human:Anna", "greedy"]


def analysis(client, code: str, seat: int, seconds: float) -> dict:
    """The result of the end's analysis job for ``seat`` (``seconds`` per solve), once done."""
    res = client.post(f"{API}/{code}/analyse", json={"seat": seat, "time_limit": seconds})
    assert res.status_code == 202, res.text
    done = job_done(client, res.json()["id"])
    assert done["state"] == "done", done
    return done["result"]


@pytest.mark.sqlite_only  # the planner's work; the end's storage: test_a_game_to_its_end_reveals_a_seed_that_checks
def test_the_end_analyses_a_seat_as_a_stoppable_job(client):
    code = new_online(client, mode="competitive", seats=["human", "greedy"])["id"]
    (token,) = sit_all(client, code, ["Anna"])
    res = client.post(f"{API}/{code}/analyse", json={"seat": 0, "time_limit": 0.05})
    assert res.status_code == 409, "no analysis before the end"
    end = play_out(client, code, {0: token})
    result = analysis(client, code, 1, 0.05)
    assert result["seat"] == 2 and result["actual_score"] == end["scores"][1]
    assert result["optimum"] >= result["actual_score"]
    # a second analysis is stopped on request
    started = client.post(f"{API}/{code}/analyse", json={"seat": 0, "time_limit": 5}).json()
    client.post(f"/api/jobs/{started['id']}/cancel")
    assert job_done(client, started["id"])["state"] == "cancelled"
    assert client.post(f"{API}/{code}/analyse", json={"seat": 7}).status_code == 422


@pytest.mark.slow  # one team planner solve a roll: some 20 s
@pytest.mark.sqlite_only  # the planner's work
def test_a_missions_end_analyses_the_team(client):
    code = new_online(client, mission="lockstep", difficulty="easy", seats=["human"])["id"]
    (token,) = sit_all(client, code, ["Anna"])
    end = play_out(client, code, {0: token})
    team = analysis(client, code, 0, 0.1)
    assert team["mission"] == "lockstep" and team["players"] == 1
    assert len(team["rolls"]) == end["outcome"]["rolls_used"]
    # the team can never need more rolls than it took: a won game bounds the fewest found
    if end["outcome"]["won"]:
        assert team["fewest"] <= end["outcome"]["won_on"]
    assert team["fewest_low"] <= team["fewest"]


def test_rooms_untouched_for_the_expiry_are_deleted(client):
    online = client.app.state.online
    old = new_online(client)["id"]
    online.expire_days = -1.0  # every room is older than that
    online._last_expiry = float("-inf")
    new_online(client)  # a room made: the expiry runs (at most hourly)
    assert client.get(f"{API}/{old}").status_code == 404
