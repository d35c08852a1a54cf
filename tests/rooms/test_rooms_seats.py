"""Seats a table can get back (docs/rooms.md, *Seats*): the room's creator frees a seat or
makes a new link for it, a joiner picks a seat, a used hand-over link says why it no longer
works; and taps from two phones on one seat merge (a tap is an edit relative to the sheet).

Oracles: tokens are checked against one another (an old token refused after a re-issue), a
freed seat's sheet against the sheet before it was freed, merged taps against the union of
the cells tapped; the database file is read as another process would.
"""

from __future__ import annotations

import sqlite3

import pytest
from fastapi.testclient import TestClient

from nochmal.web.rooms.model import secret_hash
from rooms_support import make_app, sit, store_write, stored


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def created(client, **spec) -> tuple[str, str]:
    """A room made through the API: (code, creator token)."""
    res = client.post("/api/rooms", json=spec or {"mission": "lockstep", "difficulty": "normal", "players": 2})
    assert res.status_code == 201, res.text
    return res.json()["id"], res.json()["creator_token"]


def version_of(client, code, seat) -> int:
    return client.get(f"/api/rooms/{code}").json()["seats"][seat]["sheet_version"]


def tap(client, code, seat, token, version, **change):
    return client.patch(f"/api/rooms/{code}/seats/{seat}/sheet", json={**change, "version": version},
                        headers=auth(token))


def count_rolls(client, code, token, n):
    for k in range(1, n + 1):
        assert client.put(f"/api/rooms/{code}/rolls", json={"roll": k}, headers=auth(token)).status_code == 200


# --- the creator ---------------------------------------------------------------------------------
def test_the_creator_token_is_stored_only_as_its_hash(client):
    code, creator = created(client)
    [(kept,)] = stored(client, "SELECT creator_hash FROM rooms WHERE code = ?", (code,))
    assert kept == secret_hash(creator) and creator not in kept
    assert client.get(f"/api/rooms/{code}").json()["has_creator"] is True


def test_the_creator_frees_a_seat_and_its_sheet_waits_for_the_next_phone(client):
    code, creator = created(client)
    anna, anna_token = sit(client, code, "Anna")
    _, ben_token = sit(client, code, "Ben")
    count_rolls(client, code, ben_token, 2)
    assert tap(client, code, anna, anna_token, 0, cross=["H4", "H3"]).status_code == 200
    # a seat token is not the creator's: Ben cannot free Anna's seat in a room with a creator
    refused = client.delete(f"/api/rooms/{code}/seats/0", headers=auth(ben_token))
    assert refused.status_code == 403 and refused.json()["field"] == "authorization"
    assert "the phone that made the room" in refused.json()["error"]
    res = client.delete(f"/api/rooms/{code}/seats/0", headers=auth(creator))
    assert res.status_code == 200, res.text
    assert res.json()["name"] == "Anna" and res.json()["seat"] == 0
    # the lost phone's token no longer edits; the sheet stays, under its name, for whoever sits
    gone = tap(client, code, anna, anna_token, 1, cross=["H2"])
    assert gone.status_code == 403 and "Anna" in gone.json()["error"]
    seat = client.get(f"/api/rooms/{code}").json()["seats"][0]
    assert (seat["taken"], seat["name"], seat["cells"]) == (False, "Anna", ["H3", "H4"])
    back = client.post(f"/api/rooms/{code}/seats", json={"name": "Anna", "seat": 0})
    assert back.status_code == 201 and back.json()["seat"] == 0
    seat = client.get(f"/api/rooms/{code}").json()["seats"][0]
    assert (seat["taken"], seat["cells"]) == (True, ["H3", "H4"])
    assert tap(client, code, 0, back.json()["seat_token"], seat["sheet_version"], cross=["H2"]).status_code == 200
    # a free seat cannot be freed again; a wrong seat is 404
    assert client.delete(f"/api/rooms/{code}/seats/1", headers=auth(creator)).status_code == 200
    again = client.delete(f"/api/rooms/{code}/seats/1", headers=auth(creator))
    assert again.status_code == 409 and "already free" in again.json()["error"]
    assert client.delete(f"/api/rooms/{code}/seats/5", headers=auth(creator)).status_code == 404


def test_the_creator_makes_a_new_link_and_the_lost_phone_stops_at_once(client):
    code, creator = created(client)
    _, anna_token = sit(client, code, "Anna")
    res = client.post(f"/api/rooms/{code}/seats/0/handover", headers=auth(creator))
    assert res.status_code == 200, res.text
    link = res.json()
    assert link["url"].endswith(f"#seat=0&handover={link['handover']}") and link["qr_svg"].startswith("<svg")
    # the old token stops working now, not when the link is used
    assert tap(client, code, 0, anna_token, 0, cross=["H4"]).status_code == 403
    assert client.get(f"/api/rooms/{code}").json()["seats"][0]["taken"] is True  # kept for the link
    new = client.post(f"/api/rooms/{code}/seats/0/claim", json={"handover": link["handover"]})
    assert new.status_code == 200
    assert tap(client, code, 0, new.json()["seat_token"], 0, cross=["H4"]).status_code == 200


def test_a_used_handover_link_says_who_to_ask(client):
    code, creator = created(client)
    _, anna_token = sit(client, code, "Anna")
    secret = client.post(f"/api/rooms/{code}/seats/0/handover", headers=auth(anna_token)).json()["handover"]
    assert client.post(f"/api/rooms/{code}/seats/0/claim", json={"handover": secret}).status_code == 200
    res = client.post(f"/api/rooms/{code}/seats/0/claim", json={"handover": secret})
    assert res.status_code == 403 and res.json()["field"] == "handover"
    assert res.json()["error"] == ("This hand-over link was already used on another phone; "
                                   "ask Anna to make a new one.")
    # a link the creator made, whose phone holds no seat, names the creator
    sit(client, code, "Ben")
    link = client.post(f"/api/rooms/{code}/seats/1/handover", headers=auth(creator)).json()["handover"]
    assert client.post(f"/api/rooms/{code}/seats/1/claim", json={"handover": link}).status_code == 200
    used = client.post(f"/api/rooms/{code}/seats/1/claim", json={"handover": link}).json()["error"]
    assert used == "This hand-over link was already used on another phone; ask the room's creator to make a new one."


def test_a_replaced_handover_link_says_so(client):
    code, _ = created(client)
    _, anna_token = sit(client, code, "Anna")
    first = client.post(f"/api/rooms/{code}/seats/0/handover", headers=auth(anna_token)).json()["handover"]
    client.post(f"/api/rooms/{code}/seats/0/handover", headers=auth(anna_token))
    res = client.post(f"/api/rooms/{code}/seats/0/claim", json={"handover": first})
    assert res.status_code == 403 and "replaced by a newer one" in res.json()["error"] and "Anna" in res.json()["error"]


def test_the_creators_seat_is_named_in_a_used_link(client):
    code, creator = created(client)
    sit(client, code, "Anna")
    cleo = client.post(f"/api/rooms/{code}/seats", json={"name": "Cleo"}, headers=auth(creator))
    assert cleo.status_code == 201
    link = client.post(f"/api/rooms/{code}/seats/0/handover", headers=auth(creator)).json()["handover"]
    client.post(f"/api/rooms/{code}/seats/0/claim", json={"handover": link})
    used = client.post(f"/api/rooms/{code}/seats/0/claim", json={"handover": link}).json()["error"]
    assert used == "This hand-over link was already used on another phone; ask Cleo to make a new one."


def test_a_freed_seats_old_link_says_the_seat_was_freed(client):
    """Used or not, a link of a seat freed since says so (not "already used"), and how to sit in it."""
    code, creator = created(client)
    sit(client, code, "Anna")
    used = client.post(f"/api/rooms/{code}/seats/0/handover", headers=auth(creator)).json()["handover"]
    assert client.post(f"/api/rooms/{code}/seats/0/claim", json={"handover": used}).status_code == 200
    unused = client.post(f"/api/rooms/{code}/seats/0/handover", headers=auth(creator)).json()["handover"]
    assert client.delete(f"/api/rooms/{code}/seats/0", headers=auth(creator)).status_code == 200
    for link in (used, unused):
        res = client.post(f"/api/rooms/{code}/seats/0/claim", json={"handover": link})
        assert res.status_code == 403
        assert res.json()["error"] == ("This hand-over link no longer works: Anna's seat was freed; sit down in it "
                                       "here and its sheet comes with it.")


def test_a_room_without_a_creator_lets_any_seated_phone_free_a_seat(client):
    """A room made before rooms had creators: any seated phone may free or re-issue a seat."""
    code, creator = created(client)
    _, anna_token = sit(client, code, "Anna")
    _, ben_token = sit(client, code, "Ben")
    store_write(client, "UPDATE rooms SET creator_hash = NULL WHERE code = ?", (code,))
    assert client.get(f"/api/rooms/{code}").json()["has_creator"] is False
    assert client.delete(f"/api/rooms/{code}/seats/0", headers=auth("not-a-token")).status_code == 403
    assert client.delete(f"/api/rooms/{code}/seats/0").status_code == 401
    assert client.delete(f"/api/rooms/{code}/seats/0", headers=auth(ben_token)).status_code == 200
    link = client.post(f"/api/rooms/{code}/seats/1/handover", headers=auth(ben_token))
    assert link.status_code == 200  # a seat's own token: its hand-over, as before


# --- picking a seat ------------------------------------------------------------------------------
def test_a_joiner_picks_a_free_seat(client):
    code, _ = created(client, mode="competitive", players=3)
    res = client.post(f"/api/rooms/{code}/seats", json={"name": "Cleo", "seat": 2})
    assert res.status_code == 201 and res.json()["seat"] == 2
    taken = client.post(f"/api/rooms/{code}/seats", json={"name": "Dan", "seat": 2})
    assert taken.status_code == 409 and taken.json() == {"error": "seat 3 is taken by Cleo; pick a free seat",
                                                         "field": "seat"}
    assert sit(client, code, "Anna")[0] == 0  # no seat named: the lowest free one
    for bad in (3, -1, "1"):
        res = client.post(f"/api/rooms/{code}/seats", json={"name": "Dan", "seat": bad})
        assert res.status_code in (404, 422) and res.json()["field"] == "seat", res.text


# --- taps merge ----------------------------------------------------------------------------------
def test_taps_on_different_cells_from_two_phones_merge(client):
    code, _ = created(client)
    _, token = sit(client, code, "Anna")
    count_rolls(client, code, token, 3)
    # two tabs on the same seat, both showing sheet version 0, tap within a moment
    first = tap(client, code, 0, token, 0, cross=["H4"])
    second = tap(client, code, 0, token, 0, cross=["H3"])
    assert first.status_code == second.status_code == 200, second.text
    assert second.json()["seat"]["cells"] == ["H3", "H4"] and second.json()["sheet_version"] == 2
    # the same tap twice (a double tap, the other tab): the sheet already says so
    again = tap(client, code, 0, token, 0, cross=["H4"])
    assert again.status_code == 200 and again.json()["seat"]["cells"] == ["H3", "H4"]
    assert again.json()["sheet_version"] == 2 and again.json()["message"] == "H4 was already crossed"
    jokers = tap(client, code, 0, token, 2, jokers=1)
    assert jokers.json()["seat"]["jokers_used"] == 1
    assert tap(client, code, 0, token, 2, jokers=1).json()["seat"]["jokers_used"] == 2  # a joker each tap


def test_the_same_cell_toggled_both_ways_asks_in_the_seats_name(client):
    code, _ = created(client)
    _, token = sit(client, code, "Anna")
    count_rolls(client, code, token, 2)
    assert tap(client, code, 0, token, 0, cross=["H4"]).status_code == 200      # tab 1: version 1
    assert tap(client, code, 0, token, 1, uncross=["H4"]).status_code == 200    # tab 1 again: version 2
    stale = tap(client, code, 0, token, 0, cross=["H4"])                         # tab 2 still shows version 0
    assert stale.status_code == 409 and stale.json() == {
        "error": "Anna's sheet: H4 was just uncrossed on another phone; tap it again to cross it", "field": "cross"}
    assert client.get(f"/api/rooms/{code}").json()["seats"][0]["cells"] == []


@pytest.mark.parametrize("change, field", [
    ({"cross": ["Z9"]}, "cross.0"),
    ({"uncross": ["H4", "nope"]}, "uncross.1"),
    ({"cross": ["H4"], "uncross": ["h4"]}, "uncross"),
    ({"jokers": 2}, "jokers"),
    ({}, "cross"),
])
def test_a_bad_tap_is_refused_naming_the_field(client, change, field):
    code, _ = created(client)
    _, token = sit(client, code, "Anna")
    res = tap(client, code, 0, token, 0, **change)
    assert res.status_code == 422 and res.json()["field"] == field, res.text


def test_a_tap_needs_the_version_and_keeps_the_jokers_in_range(client):
    code, _ = created(client)
    _, token = sit(client, code, "Anna")
    res = client.patch(f"/api/rooms/{code}/seats/0/sheet", json={"cross": ["H4"]}, headers=auth(token))
    assert res.status_code == 422 and res.json()["field"] == "version"
    res = tap(client, code, 0, token, 0, jokers=-1)
    assert res.status_code == 409 and res.json() == {"error": "Anna has no joker crossed off to take back",
                                                     "field": "jokers"}


def test_a_stale_whole_sheet_names_the_seat(client):
    code, _ = created(client)
    _, token = sit(client, code, "Anna")
    tap(client, code, 0, token, 0, cross=["H4"])
    res = client.put(f"/api/rooms/{code}/seats/0/sheet", json={"cells": [], "version": 0}, headers=auth(token))
    assert res.status_code == 409
    reason = res.json()["error"]
    assert reason.startswith("Anna's sheet changed on another phone") and "seat 0" not in reason


# --- an older data folder --------------------------------------------------------------------------
OLD_SCHEMA = """
CREATE TABLE rooms (code TEXT PRIMARY KEY, spec TEXT NOT NULL, rolls_used INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL DEFAULT 0, created REAL NOT NULL, touched REAL NOT NULL);
CREATE TABLE seats (code TEXT NOT NULL REFERENCES rooms(code) ON DELETE CASCADE, seat INTEGER NOT NULL,
    name TEXT NOT NULL, token_hash TEXT NOT NULL, handover_hash TEXT, crossed TEXT NOT NULL DEFAULT '0',
    jokers_used INTEGER NOT NULL DEFAULT 0, later_columns INTEGER NOT NULL DEFAULT 0,
    later_colours INTEGER NOT NULL DEFAULT 0, sheet_version INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (code, seat));
CREATE TABLE edits (code TEXT NOT NULL REFERENCES rooms(code) ON DELETE CASCADE, version INTEGER NOT NULL,
    seat INTEGER, kind TEXT NOT NULL, payload TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (code, version));
"""


def test_an_older_data_folder_keeps_its_rooms_and_gains_seats_without_a_creator(data_dir):
    """A rooms.sqlite3 written before creators and freed seats: its room opens, its seats keep
    their tokens and sheets, and (no creator) a seated phone may free a seat."""
    import json
    import time

    data_dir.mkdir(parents=True)
    db = sqlite3.connect(data_dir / "rooms.sqlite3")
    db.executescript(OLD_SCHEMA)
    code = "abcdefghjk"
    spec = {"mode": "mission", "board": "classic", "players": 2, "mission": "lockstep", "difficulty": "normal"}
    db.execute("INSERT INTO rooms VALUES (?, ?, 2, 3, ?, ?)", (code, json.dumps(spec), time.time(), time.time()))
    for k, (name, token) in enumerate((("Anna", "anna-token"), ("Ben", "ben-token"))):
        db.execute("INSERT INTO seats (code, seat, name, token_hash, crossed, sheet_version) VALUES (?, ?, ?, ?, ?, 1)",
                   (code, k, name, secret_hash(token), "0"))
    db.commit()
    db.close()
    client = TestClient(make_app(data_dir))
    room = client.get(f"/api/rooms/{code}").json()
    assert [s["name"] for s in room["seats"]] == ["Anna", "Ben"] and room["has_creator"] is False
    assert tap(client, code, 0, "anna-token", 1, cross=["H4"]).status_code == 200
    assert client.delete(f"/api/rooms/{code}/seats/0", headers=auth("ben-token")).status_code == 200
    assert client.get(f"/api/rooms/{code}").json()["seats"][0]["cells"] == ["H4"]


def test_an_imported_room_has_the_importing_phone_as_its_creator(client):
    code, _ = created(client)
    sit(client, code, "Anna")
    sit(client, code, "Ben")
    res = client.post("/api/rooms/import", content=client.get(f"/api/rooms/{code}/export").content,
                      headers={"Content-Type": "application/zip"})
    assert res.status_code == 201, res.text
    copy = res.json()
    assert client.get(f"/api/rooms/{copy['id']}").json()["has_creator"] is True
    assert client.delete(f"/api/rooms/{copy['id']}/seats/1", headers=auth(copy["creator_token"])).status_code == 200


def test_the_new_seat_paths_refuse_a_seat_that_is_no_number_and_show_their_bodies(client):
    code, creator = created(client)
    _, token = sit(client, code, "Anna")
    for method, path, body, who in (("PATCH", "/sheet", {"cross": ["H4"], "version": 0}, token),
                                    ("DELETE", "", None, creator)):
        for seat in ("9" * 5000, "1" + "0" * 30, "x"):
            res = client.request(method, f"/api/rooms/{code}/seats/{seat}{path}", json=body, headers=auth(who))
            assert res.status_code == 404 and res.json()["field"] == "seat", (method, res.text)
    paths = client.get("/openapi.json").json()["paths"]
    for (method, path), fields in {("patch", "/api/rooms/{code}/seats/{seat}/sheet"): {"cross", "uncross", "jokers",
                                                                                        "version"},
                                   ("post", "/api/rooms/{code}/seats"): {"name", "seat"}}.items():
        schema = paths[path][method]["requestBody"]["content"]["application/json"]["schema"]
        assert fields <= set(schema["properties"]) and schema.get("additionalProperties") is False, path
    assert "creator_token" in json_schema(client, "RoomCreated")["properties"]


def json_schema(client, name):
    return client.get("/openapi.json").json()["components"]["schemas"][name]
