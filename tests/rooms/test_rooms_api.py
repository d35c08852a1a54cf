"""The rooms' JSON API (docs/rooms.md), its refusals and its security.

Oracles: the CLI's `nochmal mission status --json` on the room's exported sheet files gives
the same objectives as the room; tokens are checked against each other, not against
hard-coded strings.
"""

from __future__ import annotations

import io
import json
import threading
import time
import zipfile
from collections import Counter

import httpx
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from nochmal.cli import app as cli_app
from nochmal.web.rooms import RoomSettings
from nochmal.web.rooms.model import CODE_ALPHABET, CODE_LENGTH
from rooms_support import ThreadServer, make_app, new_room, sit



def fresh(client, code, seat, body, base=""):
    """``body`` with the seat's current sheet_version (a PUT of a sheet requires it);
    ``client`` may be the httpx module with the server's ``base`` URL."""
    room = client.get(f"{base}/api/rooms/{code}").json()
    return {**body, "version": room["seats"][seat]["sheet_version"]}


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def test_create_join_edit_read(client):
    res = client.post("/api/rooms", json={"mission": "lockstep", "difficulty": "normal", "players": 2})
    assert res.status_code == 201
    body = res.json()
    code = body["id"]
    assert body["url"].endswith(f"/r/{code}")
    assert sit(client, code, "Anna")[0] == 0
    seat, token = sit(client, code, "Ben")
    assert seat == 1
    assert client.put(f"/api/rooms/{code}/rolls", json={"rolls_used": 2}, headers=auth(token)).status_code == 200
    res = client.put(f"/api/rooms/{code}/seats/1/sheet", json=fresh(client, code, 1, {"cells": ["H4", "h5"], "jokers_used": 1}),
                     headers=auth(token))
    assert res.status_code == 200, res.text
    room = client.get(f"/api/rooms/{code}").json()
    assert room["seats"][1]["cells"] == ["H4", "H5"] and room["seats"][1]["jokers_used"] == 1
    assert room["seats"][0]["cells"] == [] and room["rolls_used"] == 2
    assert room["status"]["objectives"][0]["progress"] == 0
    # the typed-sheet form of the same edit
    rows = ["." * 15] * 7
    rows[3] = "......." + "x" + "......."
    res = client.put(f"/api/rooms/{code}/seats/1/sheet", json=fresh(client, code, 1, {"text": "\n".join(rows) + "\njokers_used: 2\n"}),
                     headers=auth(token))
    assert res.status_code == 200
    assert res.json()["seat"]["cells"] == ["H4"] and res.json()["seat"]["jokers_used"] == 2
    competitive = client.post("/api/rooms", json={"mode": "competitive", "board": "classic", "players": 3})
    assert competitive.status_code == 201


@pytest.mark.parametrize("spec, field", [
    ({"mission": "nope", "players": 2}, "mission"),
    ({"mission": "lockstep", "difficulty": "brutal", "players": 2}, "difficulty"),
    ({"mission": "lockstep", "players": 5}, "players"),
    ({"mission": "lockstep", "players": "2"}, "players"),
    ({"mode": "competitive", "board": "../../etc/passwd", "players": 2}, "board"),
    ({"mode": "competitive", "players": 7}, "players"),
    ({"mode": "competitive", "players": 2, "colour": "x"}, "colour"),
    ({"mode": "tennis", "players": 2}, "mode"),
    ([1, 2], "body"),
])
def test_bad_room_specs_are_422_naming_the_field(client, spec, field):
    res = client.post("/api/rooms", json=spec)
    assert res.status_code == 422
    assert res.json()["field"] == field and res.json()["error"]


def test_malformed_and_oversized_bodies(client):
    code = new_room(client)
    _, token = sit(client, code)
    url = f"/api/rooms/{code}/seats/0/sheet"
    for body, field in [(b"{not json", "body"), (b"", "body"), (b'{"cells": "H4"}', "cells"),
                        (b'{"cells": ["H4", 5]}', "cells.1"), (b'{"cells": ["Q9"]}', "cells.0"),
                        (b'{"cells": [], "jokers_used": 9}', "jokers_used"),
                        (b'{"cells": [], "later_columns": ["H"]}', "later_columns"),
                        (b'{"text": "xx"}', "text"), (b'{"cells": [], "version": -1}', "version"),
                        (b'{"cells": ["H4"]}', "version"), (b'{"text": "' + b"." * 15 + b'"}', "text")]:
        res = client.put(url, content=body, headers={**auth(token), "Content-Type": "application/json"})
        assert res.status_code == 422, (body, res.text)
        assert res.json()["field"] == field, (body, res.json())
    big = json.dumps({"cells": ["H4"] * 20000}).encode()
    assert len(big) > 64 * 1024
    res = client.put(url, content=big, headers={**auth(token), "Content-Type": "application/json"})
    assert res.status_code == 413 and res.json()["field"] == "body"

    def chunks():  # no Content-Length: the cap holds while streaming
        for _ in range(100):
            yield b" " * 1024

    res = client.put(url, content=chunks(), headers={**auth(token), "Content-Type": "application/json"})
    assert res.status_code == 413
    res = client.post("/api/rooms", content=b"[" * 70000, headers={"Content-Type": "application/json"})
    assert res.status_code == 413


def test_wrong_code_is_404(client):
    code = new_room(client)
    other = code[:-1] + ("2" if code[-1] != "2" else "3")
    for path in (f"/api/rooms/{other}", f"/api/rooms/{other}/events", "/api/rooms/short",
                 "/api/rooms/..%2F..%2Fetc", f"/api/rooms/{other}/export", f"/api/rooms/{other}/qr.svg"):
        res = client.get(path)
        assert res.status_code == 404, path
    assert client.post(f"/api/rooms/{other}/seats", json={"name": "x"}).status_code == 404
    assert client.get(f"/r/{other}").status_code == 404


def test_tokens_guard_the_seats(client):
    code = new_room(client)
    _, anna = sit(client, code, "Anna")
    _, ben = sit(client, code, "Ben")
    url = f"/api/rooms/{code}/seats/0/sheet"
    edit = {"cells": ["H4"]}
    assert client.put(url, json=edit).status_code == 401
    assert client.put(url, json=edit, headers={"Authorization": "Basic abc"}).status_code == 401
    assert client.put(url, json=edit, headers=auth("x" * 32)).status_code == 403
    assert client.put(url, json=edit, headers=auth(ben)).status_code == 403  # Ben's token, Anna's seat
    other_room = new_room(client)
    assert client.put(f"/api/rooms/{other_room}/rolls", json={"rolls_used": 1}, headers=auth(anna)).status_code == 403
    assert client.put(f"/api/rooms/{code}/rolls", json={"rolls_used": 1}).status_code == 401
    assert client.get(f"/api/rooms/{code}").json()["seats"][0]["cells"] == []
    assert client.put(url, json=fresh(client, code, 0, edit), headers=auth(anna)).status_code == 200
    assert anna != ben and len(anna) >= 30
    assert client.put(f"/api/rooms/{code}/seats/7/sheet", json=edit, headers=auth(anna)).status_code == 404


def test_full_room_and_seat_limit(client):
    code = new_room(client)
    sit(client, code, "A")
    sit(client, code, "B")
    res = client.post(f"/api/rooms/{code}/seats", json={"name": "C"})
    assert res.status_code == 409 and "full" in res.json()["error"]
    # the app's one error shape (nochmal/web/errors.py): "field" is there, null when no field is at fault
    assert res.json() == {"error": res.json()["error"], "field": None}
    big = new_room(client, mode="competitive", players=6)
    for k in range(6):
        assert sit(client, big, f"P{k}")[0] == k
    assert client.post(f"/api/rooms/{big}/seats", json={"name": "G"}).status_code == 409
    for name, field in (("", "name"), ("x" * 41, "name"), (5, "name")):
        res = client.post(f"/api/rooms/{code}/seats", json={"name": name})
        assert res.status_code == 422 and res.json()["field"] == field


def test_codes_are_not_guessable_from_one_another(client):
    codes = [new_room(TestClient(client.app), mode="competitive", players=1) for _ in range(1)]
    # the rate limit is per client address; the store makes the codes, so draw many there
    store = client.app.state.rooms.store
    from nochmal.web.rooms.model import RoomSpec

    codes += [store.create_room(RoomSpec("competitive", "classic", 1)) for _ in range(300)]
    assert len(set(codes)) == len(codes)
    assert all(len(c) == CODE_LENGTH and set(c) <= set(CODE_ALPHABET) for c in codes)
    # neighbours in creation order share no more characters in place than chance (1/31 each)
    same = [sum(a == b for a, b in zip(x, y)) for x, y in zip(codes, codes[1:])]
    assert max(same) <= 4 and sum(same) / len(same) < 1.0
    assert codes != sorted(codes)
    # every symbol is used at every position over 300 codes: no fixed prefix or counter part
    for pos in range(CODE_LENGTH):
        counts = Counter(c[pos] for c in codes)
        assert len(counts) >= 25, (pos, counts)


def test_rate_limit_on_room_creation(data_dir):
    from fastapi import FastAPI

    from nochmal.web.rooms import install

    app = FastAPI()
    install(app, data_dir, RoomSettings(rooms_per_minute=3))
    client = TestClient(app)
    for _ in range(3):
        new_room(client)
    res = client.post("/api/rooms", json={"mission": "lockstep", "players": 2})
    assert res.status_code == 429 and "a minute" in res.json()["error"]


def test_version_check_refuses_a_stale_edit(client):
    code = new_room(client)
    _, token = sit(client, code)
    url = f"/api/rooms/{code}/seats/0/sheet"
    v = client.get(f"/api/rooms/{code}").json()["seats"][0]["sheet_version"]
    assert client.put(url, json={"cells": ["H4"], "version": v}, headers=auth(token)).status_code == 200
    res = client.put(url, json={"cells": ["H5"], "version": v}, headers=auth(token))  # the other phone, stale
    assert res.status_code == 409 and res.json()["field"] == "version"
    assert client.get(f"/api/rooms/{code}").json()["seats"][0]["cells"] == ["H4"]


def test_handover_moves_the_seat(client):
    code = new_room(client)
    _, old = sit(client, code)
    res = client.post(f"/api/rooms/{code}/seats/0/handover", headers=auth(old))
    secret = res.json()["handover"]
    assert f"#seat=0&handover={secret}" in res.json()["url"]
    assert client.post(f"/api/rooms/{code}/seats/0/claim", json={"handover": "wrong"}).status_code == 403
    res = client.post(f"/api/rooms/{code}/seats/0/claim", json={"handover": secret})
    new = res.json()["seat_token"]
    url = f"/api/rooms/{code}/seats/0/sheet"
    assert client.put(url, json={"cells": ["H4"]}, headers=auth(old)).status_code == 403
    assert client.put(url, json=fresh(client, code, 0, {"cells": ["H4"]}), headers=auth(new)).status_code == 200
    assert client.post(f"/api/rooms/{code}/seats/0/claim", json={"handover": secret}).status_code == 403


@pytest.mark.sqlite_only  # the status' and the CLI's work; export and import run on both in test_rooms_seats.py
def test_status_matches_the_cli_on_the_exported_sheets(client, tmp_path):
    code = new_room(client, mission="lockstep", difficulty="easy", players=2)
    _, anna = sit(client, code, "Anna")
    _, ben = sit(client, code, "Ben")
    # Anna's five cells lie in five blocks: 5 rolls at least (nochmal/impossible.py)
    client.put(f"/api/rooms/{code}/rolls", json={"rolls_used": 5}, headers=auth(anna))
    client.put(f"/api/rooms/{code}/seats/0/sheet", json=fresh(client, code, 0, {"cells": ["H1", "H2", "H3", "G3", "H4"]}),
               headers=auth(anna))
    client.put(f"/api/rooms/{code}/seats/1/sheet", json=fresh(client, code, 1, {"cells": ["H6", "I6"]}), headers=auth(ben))
    rooms = client.app.state.rooms
    deadline = time.monotonic() + 180  # lockstep: the full status takes well under a second idle
    while time.monotonic() < deadline:  # the background worker computes the full status
        status = client.get(f"/api/rooms/{code}").json()["status"]
        crosses = [c and c["upper"] for c in status["objectives"][0]["fewest_crosses"]] if status["complete"] else None
        if status["rolls_used"] == 5 and crosses == [16, 19]:  # both edits in: 21 - 5 and 21 - 2 cells of G, H, I
            break
        time.sleep(0.2)
    assert status["complete"], "the full status did not arrive"
    zipped = zipfile.ZipFile(io.BytesIO(client.get(f"/api/rooms/{code}/export").content))
    doc = json.loads(zipped.read("room.json"))
    files = []
    for seat in doc["seats"]:
        path = tmp_path / seat["file"]
        path.write_text(zipped.read(seat["file"]).decode())
        files.append(str(path))
    assert "nochmal mission status lockstep -d easy -k 5" in zipped.read("README.txt").decode()
    res = CliRunner().invoke(cli_app, ["mission", "status", "lockstep", "-d", "easy", "-k", "5", *files, "--json"])
    cli = json.loads(res.stdout)
    assert set(cli) <= set(status)
    for key in ("budget", "rolls_used", "rolls_left", "state", "all_met"):
        assert status[key] == cli[key], key
    # the same objectives; the room names the seats where the CLI numbers its files
    named = [{**o, "missing": [m.replace("sheet 1:", "Anna:").replace("sheet 2:", "Ben:") for m in o["missing"]]}
             for o in cli["objectives"]]
    # (beside them, the words as data for each phone's language: docs/rooms.md, Languages)
    assert [{k: v for k, v in o.items() if not k.endswith("_said")} for o in status["objectives"]] == named
    assert status["team"]["split"]["rolls_lower"] == cli["team"]["split"]["rolls_lower"]
    assert status["sheets"] == ["Anna", "Ben"]
    # import gives a new room with the same sheets and fresh tokens
    res = client.post("/api/rooms/import", content=client.get(f"/api/rooms/{code}/export").content,
                      headers={"Content-Type": "application/zip"})
    assert res.status_code == 201
    copy = client.get(f"/api/rooms/{res.json()['id']}").json()
    original = client.get(f"/api/rooms/{code}").json()
    assert [s["cells"] for s in copy["seats"]] == [s["cells"] for s in original["seats"]]
    assert copy["rolls_used"] == 5 and copy["mission"] == "lockstep"
    new_token = res.json()["seats"][0]["seat_token"]
    assert client.put(f"/api/rooms/{copy['id']}/seats/0/sheet", json=fresh(client, copy["id"], 0, {"cells": []}),
                      headers=auth(new_token)).status_code == 200
    # a browser gets its seat from a handover link per seat (the tokens are for scripts)
    links = res.json()["seats"]
    assert [s["name"] for s in links] == ["Anna", "Ben"]
    secret = links[1]["handover_url"].split("#", 1)[1]
    assert links[1]["handover_url"].startswith(res.json()["url"] + "#") and secret.startswith("seat=1&handover=")
    claimed = client.post(f"/api/rooms/{copy['id']}/seats/1/claim", json={"handover": secret.split("handover=")[1]})
    assert claimed.status_code == 200, claimed.text
    ben_put = client.put(f"/api/rooms/{copy['id']}/seats/1/sheet", json=fresh(client, copy["id"], 1, {"cells": ["H6"]}),
                         headers=auth(claimed.json()["seat_token"]))
    assert ben_put.status_code == 200
    assert client.post(f"/api/rooms/{copy['id']}/seats/1/claim",
                       json={"handover": secret.split("handover=")[1]}).status_code == 403  # once
    assert client.post("/api/rooms/import", content=b"PK\x03\x04junk", headers={"Content-Type": "application/zip"}).status_code == 422
    assert client.post("/api/rooms/import", content=json.dumps({"format": "x"}).encode(),
                       headers={"Content-Type": "application/json"}).json()["field"] == "format"


def test_impossible_sheet_is_flagged_not_refused(client):
    code = new_room(client)
    _, token = sit(client, code)
    res = client.put(f"/api/rooms/{code}/seats/0/sheet", json=fresh(client, code, 0, {"cells": ["A1", "H4"]}),
                     headers=auth(token))
    assert res.status_code == 200
    status = res.json()["status"]
    assert status["state"] == "in progress"  # the team status stays, on the sheet without A1 (checks.py)
    reasons = status["impossible"][0]["reasons"]
    assert any("A1" in r and "not connected" in r for r in reasons)
    assert any("after 1 roll(s)" in r for r in reasons)  # the roll in play counts (docs/rooms.md)


def test_competitive_scores_and_race(client):
    code = new_room(client, mode="competitive", board="classic", players=2)
    _, a = sit(client, code, "A")
    _, b = sit(client, code, "B")
    column_h = [f"H{r}" for r in range(1, 8)]
    client.put(f"/api/rooms/{code}/rolls", json={"rolls_used": 2}, headers=auth(a))
    client.put(f"/api/rooms/{code}/seats/0/sheet", json=fresh(client, code, 0, {"cells": column_h}), headers=auth(a))
    res = client.put(f"/api/rooms/{code}/seats/1/sheet", json=fresh(client, code, 1, {"cells": column_h, "later_columns": ["H"]}),
                     headers=auth(b))
    status = res.json()["status"]
    h = status["race"]["columns"]["H"]  # a tie in roll 3, but B set "later" by hand
    assert (h["first"], h["later"], h["by_hand"]) == ([0], [1], {"1": "later"})
    from nochmal.board import load_board

    board = load_board("classic")
    first, later = board.column_points_first[7], board.column_points_later[7]
    scores = [s["score"] for s in status["scores"]]
    assert scores[0] - scores[1] == first - later
    assert status["race_problems"] == []
    res = client.put(f"/api/rooms/{code}/seats/0/sheet", json=fresh(client, code, 0, {"cells": ["H4"]}), headers=auth(a))
    assert "nobody scored it first" in res.json()["status"]["race_problems"][0]


def test_expiry_and_no_client_paths(client, data_dir):
    code = new_room(client)
    sit(client, code, "../../../../tmp/evil")
    store = client.app.state.rooms.store
    assert store.expire(30 * 86400) == 0
    assert store.expire(60, now=time.time() + 3600) >= 1
    assert client.get(f"/api/rooms/{code}").status_code == 404
    everything = [p for p in data_dir.rglob("*")]
    assert not any("evil" in str(p) for p in everything)
    rooms_files = {p.name for p in data_dir.iterdir() if p.name.startswith("rooms")}
    assert rooms_files <= {"rooms.sqlite3", "rooms.sqlite3-wal", "rooms.sqlite3-shm"}, rooms_files
    assert not (data_dir.parent / "evil").exists() and not (data_dir.parent.parent / "evil").exists()


def test_live_stream_and_catch_up(data_dir):
    with ThreadServer(make_app(data_dir)) as srv:
        code = httpx.post(srv.url + "/api/rooms", json={"mission": "lockstep", "players": 2}).json()["id"]
        token = httpx.post(f"{srv.url}/api/rooms/{code}/seats", json={"name": "A"}).json()["seat_token"]
        got: list[tuple[str, str]] = []
        subscribed = threading.Event()

        def listen(headers):
            with httpx.stream("GET", f"{srv.url}/api/rooms/{code}/events", headers=headers, timeout=30) as r:
                event = None
                for line in r.iter_lines():
                    if line.startswith("retry:"):  # sent once the stream is subscribed
                        subscribed.set()
                    elif line.startswith("event:"):
                        event = line.split(":", 1)[1].strip()
                    elif line.startswith("id:"):
                        got.append((event, line.split(":", 1)[1].strip()))
                    elif line.startswith("data:"):
                        got.append((event, "data"))
                        if event == "sheet":
                            return

        t = threading.Thread(target=listen, args=({},), daemon=True)
        t.start()
        assert subscribed.wait(20)
        httpx.put(f"{srv.url}/api/rooms/{code}/seats/0/sheet", json=fresh(httpx, code, 0, {"cells": ["H4"]}, srv.url),
                  headers={"Authorization": f"Bearer {token}"})
        t.join(30)
        events = [e for e, kind in got if kind == "data"]
        assert events[0] == "sync" and "sheet" in events
        version = httpx.get(f"{srv.url}/api/rooms/{code}").json()["version"]
        # reconnecting up to date: no snapshot; behind: a snapshot first
        for last, expect_sync in ((str(version), False), (str(version - 1), True)):
            got.clear()
            subscribed.clear()
            t = threading.Thread(target=listen, args=({"Last-Event-ID": last},), daemon=True)
            t.start()
            assert subscribed.wait(20)
            body = {"cells": ["H4", "H5"] if expect_sync else ["H4"]}
            httpx.put(f"{srv.url}/api/rooms/{code}/seats/0/sheet", json=fresh(httpx, code, 0, body, srv.url),
                      headers={"Authorization": f"Bearer {token}"})
            t.join(30)
            events = [e for e, kind in got if kind == "data"]
            assert (events[0] == "sync") == expect_sync, events
            version = httpx.get(f"{srv.url}/api/rooms/{code}").json()["version"]


def test_serve_on_the_network_warns_about_room_codes(tmp_path, monkeypatch):
    import uvicorn

    from rooms_support import free_port

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)  # only the start-up text
    port = str(free_port())
    res = CliRunner().invoke(cli_app, ["serve", "--host", "0.0.0.0", "--port", port, "--data", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "anyone on the network with a room's code can open that room" in " ".join(res.output.split())
    res = CliRunner().invoke(cli_app, ["serve", "--port", port, "--data", str(tmp_path)])
    assert "room's code" not in res.output


def test_import_refuses_race_markers_in_a_mission_room_as_an_edit_does(client):
    """An imported mission room once kept later_columns (a mission has no race) that a sheet
    edit refuses; both now read a typed sheet through one function (model.typed_sheet_state)."""
    from nochmal.board import load_board
    from nochmal.sheet import Sheet, format_typed_sheet

    board = load_board("classic")
    column_h = board.mask_of([f"H{r}" for r in range(1, board.rows + 1)])
    text = format_typed_sheet(Sheet(board, column_h)) + "\nlater_columns: H\n"
    code = new_room(client, mission="lockstep", difficulty="normal", players=1)
    _, token = sit(client, code)
    edit = client.put(f"/api/rooms/{code}/seats/0/sheet", json={"text": text}, headers=auth(token))
    assert edit.status_code == 422 and edit.json()["field"] == "text"
    doc = {"format": "nochmal-room", "version": 1, "mode": "mission", "mission": "lockstep", "difficulty": "normal",
           "board": "classic", "players": 1, "rolls_used": 3, "seats": [{"name": "Anna", "text": text}]}
    res = client.post("/api/rooms/import", content=json.dumps(doc).encode(), headers={"Content-Type": "application/json"})
    assert res.status_code == 422 and res.json()["field"] == "seats.0.text", res.text
    doc["seats"][0]["text"] = format_typed_sheet(Sheet(board, column_h))
    assert client.post("/api/rooms/import", content=json.dumps(doc).encode(), headers={"Content-Type": "application/json"}).status_code == 201
    competitive = {**doc, "mode": "competitive", "seats": [{"name": "Anna", "text": text}]}
    del competitive["mission"], competitive["difficulty"]
    res = client.post("/api/rooms/import", content=json.dumps(competitive).encode(), headers={"Content-Type": "application/json"})
    assert res.status_code == 201, res.text
    assert client.get(f"/api/rooms/{res.json()['id']}").json()["seats"][0]["later_columns"] == ["H"]


def test_rate_limit_forgets_quiet_addresses():
    """Every address that ever created a room stayed in memory; past max_clients the ones
    quiet for a minute are dropped, and the limit still holds for the busy ones."""
    from nochmal.web.errors import WebError
    from nochmal.web.limits import RateLimit

    limit = RateLimit(per_minute=2, max_clients=5)
    for k in range(5):
        limit.check(f"10.0.0.{k}", now=0.0)
    limit.check("busy", now=50.0)
    limit.check("busy", now=100.0)
    assert len(limit) <= 2  # the five quiet ones went; "busy" stays
    with pytest.raises(WebError) as err:
        limit.check("busy", now=101.0)
    assert err.value.status == 429


def test_a_non_ascii_digit_seat_is_a_404_not_a_500(client):
    """'²'.isdigit() is True but int('²') raises: a seat path '²' was a 500."""
    code = new_room(client)
    for path in (f"/api/rooms/{code}/seats/\u00b2/sheet.svg",):
        res = client.get(path)
        assert res.status_code == 404 and res.json()["field"] == "seat", res.text
    res = client.put(f"/api/rooms/{code}/seats/\u00b2/sheet", json={"cells": []})
    assert res.status_code == 404 and res.json()["field"] == "seat", res.text


def test_a_handover_is_announced_on_the_stream(data_dir):
    """The old phone learns at once that its seat went to another browser (a 'handover'
    event naming the seat, with the claim's version), instead of its next tap failing."""
    with ThreadServer(make_app(data_dir)) as srv:
        code = httpx.post(srv.url + "/api/rooms", json={"mission": "lockstep", "players": 2}).json()["id"]
        token = httpx.post(f"{srv.url}/api/rooms/{code}/seats", json={"name": "A"}).json()["seat_token"]
        got: list[tuple[str, dict]] = []
        subscribed = threading.Event()

        def listen():
            with httpx.stream("GET", f"{srv.url}/api/rooms/{code}/events", timeout=30) as r:
                event = None
                for line in r.iter_lines():
                    if line.startswith("retry:"):
                        subscribed.set()
                    elif line.startswith("event:"):
                        event = line.split(":", 1)[1].strip()
                    elif line.startswith("data:"):
                        got.append((event, json.loads(line.split(":", 1)[1])))
                        if event == "handover":
                            return

        t = threading.Thread(target=listen, daemon=True)
        t.start()
        assert subscribed.wait(20)
        secret = httpx.post(f"{srv.url}/api/rooms/{code}/seats/0/handover",
                            headers={"Authorization": f"Bearer {token}"}).json()["handover"]
        claim = httpx.post(f"{srv.url}/api/rooms/{code}/seats/0/claim", json={"handover": secret}).json()
        t.join(30)
        handovers = [d for e, d in got if e == "handover"]
        assert handovers == [{"version": claim["version"], "seat": 0}]
