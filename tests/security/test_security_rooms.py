"""The table rooms against hostile input (docs/security.md): no 500, no traceback, no hang,
bounded memory, and no request field that names a file.

Oracles: the status codes and the ``{"error", "field"}`` shape of the app's refusals; the
damaged files' bytes before and after; the hub's own counts; tracemalloc's peak while a zip
is read.
"""

from __future__ import annotations

import asyncio
import builtins
import hashlib
import io
import json
import logging
import os
import shutil
import sqlite3
import struct
import subprocess
import sys
import threading
import tracemalloc
import zipfile
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from nochmal.web.app import create_app
from nochmal.web.errors import WebError
from nochmal.web.rooms import RoomSettings
from nochmal.web.limits import BodyCaps
from nochmal.web.rooms.api import parse_export
from nochmal.web.rooms.hub import Hub, StreamLimits
from nochmal.web.rooms.model import RoomSpec, board_of
from nochmal.web.rooms.store import RoomStore
import rooms_support
from rooms_support import ThreadServer, free_port, new_room

MAX_IMPORT = BodyCaps.max_room_import  # the import's cap, also the most of a zip ever unpacked

JSON = {"Content-Type": "application/json"}
ZIP = {"Content-Type": "application/zip"}
HUGE = "9" * 5000  # past int()'s 4300 digits


@pytest.fixture()
def client(tmp_path):
    return TestClient(create_app(tmp_path / "data"), raise_server_exceptions=False)


def sit(client, code, name="Anna") -> str:
    """The seat token of a new seat in room ``code``."""
    return rooms_support.sit(client, code, name)[1]


def refused(res, status: int, field: str | None = None) -> dict:
    """``res`` is the app's one-line refusal: ``status``, the error shape, the field named."""
    assert res.status_code == status, res.text
    body = res.json()
    assert set(body) == {"error", "field"} and body["error"], body
    if field is not None:
        assert body["field"] == field, body
    return body


# --- lone surrogates -------------------------------------------------------------------------
@pytest.mark.parametrize("raw", [
    b'{"name": "\\ud800"}', b'{"name": "Anna\\udfff"}', b'{"\\ud800": "x"}', b'{"name": "Anna", "\\udc00x": 1}',
])
def test_a_lone_surrogate_in_a_join_or_rename_is_422(client, raw):
    code = new_room(client)
    refused(client.post(f"/api/rooms/{code}/seats", content=raw, headers=JSON), 422)
    token = sit(client, code)
    refused(client.put(f"/api/rooms/{code}/seats/0/name", content=raw,
                       headers={**JSON, "Authorization": f"Bearer {token}"}), 422)
    assert client.get(f"/api/rooms/{code}").json()["seats"][0]["name"] == "Anna"


@pytest.mark.parametrize("raw", [
    b'{"mission": "lockstep\\ud800", "players": 2}', b'{"mode": "competitive", "players": 2, "\\ud800": 1}',
    b'{"mode": "competitive", "board": "\\udfff", "players": 2}',
])
def test_a_lone_surrogate_in_a_new_room_is_422(client, raw):
    refused(client.post("/api/rooms", content=raw, headers=JSON), 422)


def test_a_lone_surrogate_in_an_imported_seat_name_is_422(client):
    doc = {"format": "nochmal-room", "version": 1, "mode": "competitive", "board": "classic", "players": 1,
           "rolls_used": 0, "seats": [{"name": "Anna\ud800", "text": ""}]}
    raw = json.dumps(doc).encode()  # ensure_ascii: the surrogate travels as \ud800
    refused(client.post("/api/rooms/import", content=raw, headers=JSON), 422)


# --- room-export zips that zipfile cannot read ------------------------------------------------
def exported(client) -> bytes:
    code = new_room(client)
    sit(client, code)
    return client.get(f"/api/rooms/{code}/export").content


def headers_of(raw: bytes, name: bytes = b"room.json") -> tuple[int, int]:
    """Offsets of ``name``'s local header and central directory entry in a zip."""
    central = raw.index(b"PK\x01\x02")
    while raw[central + 46: central + 46 + len(name)] != name:
        central = raw.index(b"PK\x01\x02", central + 4)
    local = struct.unpack_from("<I", raw, central + 42)[0]
    return local, central


def patched(raw: bytes, *, flags: int | None = None, method: int | None = None) -> bytes:
    """The zip with room.json's flag bits or compression method changed in both its headers."""
    out = bytearray(raw)
    local, central = headers_of(raw)
    if flags is not None:
        struct.pack_into("<H", out, local + 6, flags)
        struct.pack_into("<H", out, central + 8, flags)
    if method is not None:
        struct.pack_into("<H", out, local + 8, method)
        struct.pack_into("<H", out, central + 10, method)
    return bytes(out)


def corrupt_deflate(raw: bytes) -> bytes:
    """room.json's compressed bytes overwritten with a deflate block of the reserved type."""
    out = bytearray(raw)
    local, _ = headers_of(raw)
    name_len, extra_len = struct.unpack_from("<HH", raw, local + 26)
    start = local + 30 + name_len + extra_len
    out[start:start + 16] = b"\xff" * 16
    return bytes(out)


@pytest.mark.parametrize("damage", ["encrypted", "strongly encrypted", "deflate64 (9)", "method 99",
                                    "corrupt deflate", "truncated"])
def test_a_zip_that_cannot_be_read_is_422_not_500(client, damage):
    raw = exported(client)
    body = {"encrypted": lambda: patched(raw, flags=0x01), "strongly encrypted": lambda: patched(raw, flags=0x41),
            "deflate64 (9)": lambda: patched(raw, method=9), "method 99": lambda: patched(raw, method=99),
            "corrupt deflate": lambda: corrupt_deflate(raw), "truncated": lambda: raw[: len(raw) * 2 // 3]}[damage]()
    problem = refused(client.post("/api/rooms/import", content=body, headers=ZIP), 422)
    assert problem["field"] in ("room.json", "body"), problem
    assert client.post("/api/rooms/import", content=raw, headers=ZIP).status_code == 201  # the undamaged one


def lying_zip(content: bytes, declared: int) -> bytes:
    """A zip whose room.json unpacks to ``content`` but whose headers declare ``declared`` bytes."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("room.json", content)
    out = bytearray(buf.getvalue())
    local, central = headers_of(bytes(out))
    struct.pack_into("<I", out, local + 22, declared)
    struct.pack_into("<I", out, central + 24, declared)
    return bytes(out)


def test_a_zip_bomb_with_a_lying_size_unpacks_no_more_than_the_cap():
    """room.json declared 1000 bytes, unpacking to 40 MB: at most MAX_IMPORT + 1 bytes of it are
    ever unpacked (the old reader unpacked all of it before it saw the size was wrong)."""
    bomb = lying_zip(b'{"format": "nochmal-room"' + b" " * 40_000_000 + b"}", declared=1000)
    assert len(bomb) < MAX_IMPORT
    tracemalloc.start()
    try:
        with pytest.raises(WebError) as err:
            parse_export(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert err.value.status in (413, 422)
    assert peak < 8 * MAX_IMPORT, f"{peak} bytes allocated while reading a {len(bomb)}-byte zip"


def test_a_zip_bomb_declaring_its_size_is_413(client):
    bomb = lying_zip(b" " * (MAX_IMPORT + 10), declared=MAX_IMPORT + 10)
    reason = refused(client.post("/api/rooms/import", content=bomb, headers=ZIP), 413, "room.json")["error"]
    assert "max_room_import" in reason and str(MAX_IMPORT) in reason


# --- numbers past int()'s digit limit --------------------------------------------------------
def test_a_seat_of_thousands_of_digits_is_404_on_every_seat_path(client):
    code = new_room(client)
    token = sit(client, code)
    auth = {**JSON, "Authorization": f"Bearer {token}"}
    for method, path, body in [("GET", "sheet.svg", None), ("PUT", "sheet", {"cells": [], "version": 1}),
                               ("PUT", "name", {"name": "Ben"}), ("POST", "handover", None),
                               ("POST", "claim", {"handover": "x"})]:
        for seat in (HUGE, "0" * 5000, "1" + "0" * 30):
            res = client.request(method, f"/api/rooms/{code}/seats/{seat}/{path}", json=body, headers=auth)
            refused(res, 404, "seat")


def test_a_last_event_id_of_thousands_of_digits_is_400(client):
    code = new_room(client)
    refused(client.get(f"/api/rooms/{code}/events", headers={"Last-Event-ID": HUGE}), 400, "last-event-id")
    refused(client.get(f"/api/rooms/{code}/events", headers={"Last-Event-ID": "12a"}), 400, "last-event-id")


# --- live streams ----------------------------------------------------------------------------
def test_the_hub_caps_streams_per_room_per_address_and_in_all():
    async def run():
        hub = Hub(StreamLimits(per_room=2, per_client=3, total=4))
        a1, a2 = hub.subscribe("room-a", "10.0.0.1"), hub.subscribe("room-a", "10.0.0.2")
        with pytest.raises(WebError) as err:
            hub.subscribe("room-a", "10.0.0.3")
        assert err.value.status == 429 and "this room" in str(err.value)
        hub.subscribe("room-b", "10.0.0.1")
        hub.subscribe("room-c", "10.0.0.1")
        with pytest.raises(WebError) as err:
            hub.subscribe("room-d", "10.0.0.1")
        assert err.value.status == 429 and "this address" in str(err.value)
        with pytest.raises(WebError) as err:
            hub.subscribe("room-d", "10.0.0.9")
        assert err.value.status == 429 and "the server" in str(err.value)
        hub.unsubscribe(a1)
        hub.unsubscribe(a1)  # twice: counted once
        assert hub.open_streams() == 3 and hub.open_streams(code="room-a") == 1
        hub.subscribe("room-a", "10.0.0.3")
        hub.unsubscribe(a2)
        assert hub.open_streams(client="10.0.0.2") == 0

    asyncio.run(run())


def test_a_stream_that_never_reads_is_dropped_and_its_backlog_freed():
    async def run():
        hub = Hub(queue_size=8)
        stalled = hub.subscribe("room", "10.0.0.1")
        reader = hub.subscribe("room", "10.0.0.2")
        got = []
        for k in range(20):  # the reader takes each event as it comes; the stalled stream never reads
            hub.publish("room", "sheet", {"n": k}, k)
            got.append(await asyncio.wait_for(reader.queue.get(), 10))
        await asyncio.wait_for(stalled.ended.wait(), 10)
        assert stalled.dropped and not reader.dropped
        assert stalled.queue.qsize() == 1 and stalled.queue.get_nowait() is None  # the backlog is gone
        assert len(got) == 20 and hub.listeners("room") == 1  # the reader still gets every event
        hub.publish("room", "sheet", {"n": 99}, 99)
        await asyncio.wait_for(reader.queue.get(), 10)
        assert stalled.queue.empty()  # no new backlog after the drop
        assert hub.open_streams(code="room") == 2  # its connection counts until it closes
        hub.unsubscribe(stalled)
        assert hub.open_streams(code="room") == 1

    asyncio.run(run())


def test_streams_past_a_cap_are_429_json(tmp_path):
    settings = RoomSettings(streams=StreamLimits(per_room=2, per_client=3, total=64))
    with ThreadServer(create_app(tmp_path / "data", room_settings=settings)) as srv, \
            httpx.Client(base_url=srv.url, timeout=30) as http:
        code = http.post("/api/rooms", json={"mission": "lockstep", "players": 2}).json()["id"]
        other = http.post("/api/rooms", json={"mission": "lockstep", "players": 2}).json()["id"]
        third = http.post("/api/rooms", json={"mission": "lockstep", "players": 2}).json()["id"]
        streams = []
        try:
            for room in (code, code):
                streams.append(http.send(http.build_request("GET", f"/api/rooms/{room}/events"), stream=True))
                assert streams[-1].status_code == 200
            res = http.get(f"/api/rooms/{code}/events")
            refused(res, 429)
            assert "this room" in res.json()["error"]
            streams.append(http.send(http.build_request("GET", f"/api/rooms/{other}/events"), stream=True))
            assert streams[-1].status_code == 200
            res = http.get(f"/api/rooms/{third}/events")
            refused(res, 429)
            assert "this address" in res.json()["error"]
        finally:
            for stream in streams:
                stream.close()


# --- a damaged rooms database ----------------------------------------------------------------
def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def filled_database(folder: Path) -> Path:
    """A rooms database with a few rooms, checkpointed (every page in the main file)."""
    store = RoomStore(folder)
    for k in range(20):
        store.add_seat(store.create_room(RoomSpec("competitive", "classic", 2)), f"P{k}")
    store.close()
    path = folder / "rooms.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


@pytest.mark.parametrize("damage", ["garbage", "truncated", "folder"])
def test_a_damaged_rooms_database_is_one_error_line_at_start_and_left_as_it_is(tmp_path, damage):
    data = tmp_path / "data"
    path = filled_database(data)
    size = path.stat().st_size
    if damage == "garbage":
        path.write_bytes(os.urandom(size))
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[: size // 2])
    else:
        path.unlink()
        (data / "rooms.sqlite3-wal").unlink(missing_ok=True)
        path.mkdir()
        (path / "x").write_text("kept")
    before = digest(path) if path.is_file() else sorted(p.name for p in path.iterdir())
    cmd = [sys.executable, "-c", "from nochmal.cli import main; main()", "serve", "--port", str(free_port()),
           "--data", str(data)]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert res.returncode == 1, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert str(path) in lines[0] and "move it away" in lines[0], lines[0]
    assert "Traceback" not in res.stderr + res.stdout
    after = digest(path) if path.is_file() else sorted(p.name for p in path.iterdir())
    assert after == before


def test_a_database_damaged_while_serving_is_a_logged_500_with_the_reason(tmp_path, caplog):
    data = tmp_path / "data"
    client = TestClient(create_app(data), raise_server_exceptions=False)
    code = new_room(client, mode="competitive", players=2)
    sit(client, code)
    path = data / "rooms.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page = 4096
    with open(path, "r+b") as fh:  # every page but the first (the header and the schema) overwritten
        fh.seek(page)
        fh.write(b"\xa5" * (path.stat().st_size - page))
    with caplog.at_level(logging.ERROR, logger="nochmal.web.rooms.store"):
        res = client.get(f"/api/rooms/{code}")
    problem = refused(res, 500)
    assert "database" in problem["error"] and "malformed" in problem["error"], problem
    assert any("malformed" in r.getMessage() for r in caplog.records if r.name == "nochmal.web.rooms.store")


# --- nothing in a room names a file ------------------------------------------------------------
@pytest.fixture()
def planted(tmp_path):
    """A mission file and a board file a request might name, and a FIFO (opening it for
    reading would hang until someone writes to it)."""
    from importlib import resources

    from nochmal.missions import loader

    folder = tmp_path / "planted"
    folder.mkdir()
    shutil.copy(Path(loader.__file__).parent / "lockstep.toml", folder / "x.toml")
    (folder / "board.toml").write_text(resources.files("nochmal.boards").joinpath("red.toml").read_text())
    fifo = folder / "fifo"
    os.mkfifo(fifo)
    return folder


@pytest.fixture()
def opened(monkeypatch, planted):
    """Every path under ``planted`` that anything tries to open."""
    seen: list[str] = []

    def spy(real):
        def wrapper(file, *args, **kwargs):
            if isinstance(file, (str, bytes, os.PathLike)) and str(planted) in os.fsdecode(file):
                seen.append(os.fsdecode(file))
                raise PermissionError(f"the test forbids opening {file}")
            return real(file, *args, **kwargs)
        return wrapper

    monkeypatch.setattr(builtins, "open", spy(builtins.open))
    monkeypatch.setattr(io, "open", spy(io.open))
    monkeypatch.setattr(os, "open", spy(os.open))
    return seen


def within(seconds: float, fn):
    """``fn()``'s result (or its exception); a hang (a FIFO opened) fails the test instead of
    stopping the suite."""
    out: list = []

    def run():
        try:
            out.append((fn(), None))
        except Exception as exc:  # handed to the test's thread
            out.append((None, exc))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert out, f"the request did not return within {seconds} s (a FIFO opened?)"
    result, exc = out[0]
    if exc is not None:
        raise exc
    return result


def test_no_room_field_names_a_file(tmp_path, planted, opened):
    client = TestClient(create_app(tmp_path / "data", room_settings=RoomSettings(rooms_per_minute=1000)),
                        raise_server_exceptions=False)
    names = ["../x.toml", "/etc/passwd", str(planted / "x.toml"), str(planted / "fifo"), str(planted)]
    for name in names:
        res = within(30, lambda: client.post("/api/rooms", json={"mission": name, "players": 2}))
        assert "one of" in refused(res, 422, "mission")["error"]  # lists the shipped missions
        res = within(30, lambda: client.post("/api/rooms", json={"mission": "lockstep", "players": 2, "board": name}))
        refused(res, 422, "board")
        res = within(30, lambda: client.post("/api/rooms", json={"mode": "competitive", "players": 2, "board": name}))
        refused(res, 422, "board")
        for key in ("mission", "board"):
            doc = {"format": "nochmal-room", "version": 1, "mode": "mission" if key == "mission" else "competitive",
                   "board": "classic", "players": 1, "rolls_used": 0, "seats": [{"name": "A", "text": ""}], key: name}
            res = within(30, lambda: client.post("/api/rooms/import", content=json.dumps(doc).encode(), headers=JSON))
            refused(res, 422, key)
    assert opened == []


def test_a_stored_room_naming_a_board_file_is_refused_unread(planted, opened):
    """A room's board is read by name from the built-in boards only, even when the stored
    room says otherwise (a database edited by hand)."""
    for name in (str(planted / "board.toml"), str(planted / "fifo")):
        with pytest.raises(WebError) as err:
            within(30, lambda: board_of(RoomSpec("competitive", name, 2)))
        assert err.value.field == "board"
    assert opened == []


# --- the request bodies in the OpenAPI document ------------------------------------------------
def test_every_room_body_is_described_in_the_openapi_document(client):
    paths = client.get("/openapi.json").json()["paths"]
    bodies = {("post", "/api/rooms"): {"players", "mission", "mode", "board", "difficulty"},
              ("post", "/api/rooms/{code}/seats"): {"name"},
              ("put", "/api/rooms/{code}/seats/{seat}/name"): {"name"},
              ("put", "/api/rooms/{code}/rolls"): {"roll", "undo", "rolls_used"},
              ("put", "/api/rooms/{code}/seats/{seat}/race"): {"item", "value"},
              ("post", "/api/rooms/{code}/reopen"): {"won_on"},
              ("post", "/api/rooms/{code}/seats/{seat}/claim"): {"handover"},
              ("put", "/api/rooms/{code}/seats/{seat}/sheet"): {"cells", "text", "version", "jokers_used"}}
    for (method, path), fields in bodies.items():
        schema = paths[path][method]["requestBody"]["content"]["application/json"]["schema"]
        assert fields <= set(schema["properties"]), (path, schema)
        assert schema.get("additionalProperties") is False, path
        assert "$ref" not in json.dumps(schema), path  # every schema stands on its own in the document
    content = paths["/api/rooms/import"]["post"]["requestBody"]["content"]
    assert set(content) == {"application/zip", "application/json"}
    assert {"format", "seats", "players"} <= set(content["application/json"]["schema"]["properties"])
    assert "$ref" not in json.dumps(content)
