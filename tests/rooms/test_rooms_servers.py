"""Two `nochmal serve` processes on one PostgreSQL database (docs/rooms.md, Several servers):
an edit made through one reaches the live streams of the other, ids in order, no event twice
or missing after a reconnect; a status is computed by one process at a time; SIGKILL of one
server loses no acknowledged edit and its phones go on with the other.

The oracle of a stream is the servers' own answers: each acknowledged tap names the room
version it made, and the stream must carry exactly those ids, in order."""

from __future__ import annotations

import json

import httpx
import psycopg
import pytest

from rooms_support import auth, crash
from servers_support import Stream, Tappers, shared_servers, until

CELLS = [f"{c}{r}" for c in "HGIJFKE" for r in range(1, 8)]


@pytest.fixture(scope="module")
def two(tmp_path_factory, postgres_url):
    with shared_servers(tmp_path_factory.mktemp("shared"), postgres_url) as (urls, procs):
        yield urls


def room_with_seats(url: str, players: int = 2, **spec) -> tuple[str, list[str]]:
    body = {"players": players, **(spec or {"mission": "lockstep", "difficulty": "normal"})}
    code = httpx.post(url + "/api/rooms", json=body).json()["id"]
    tokens = [httpx.post(f"{url}/api/rooms/{code}/seats", json={"name": f"P{k}"}).json()["seat_token"]
              for k in range(players)]
    return code, tokens


def tap(url: str, code: str, seat: int, token: str, cell: str, sheet_version: int) -> dict:
    res = httpx.patch(f"{url}/api/rooms/{code}/seats/{seat}/sheet", json={"cross": [cell], "version": sheet_version},
                      headers=auth(token), timeout=30)
    assert res.status_code == 200, res.text
    return res.json()


def sheets(stream: Stream) -> list[int]:
    return [event_id for event, event_id, _ in stream.events if event == "sheet"]


def test_an_edit_through_one_server_reaches_the_others_streams_in_order(two, postgres_url):
    a, b = two
    code, tokens = room_with_seats(a)
    on_a = Stream(a, code)
    assert on_a.wait_for(lambda events: any(e == "sync" for e, _, _ in events))
    start = on_a.events[0][1]
    acked, version_of = [], {0: 0, 1: 0}  # the rooms' versions answered; each seat's sheet version
    for k in range(4):  # seat 1 through B, seat 0 through A: both servers' events, one order
        url, seat = (b, 1) if k % 2 == 0 else (a, 0)
        answer = tap(url, code, seat, tokens[seat], CELLS[k], version_of[seat])
        version_of[seat] = answer["sheet_version"]
        acked.append(answer["version"])
    assert on_a.wait_for(lambda events: acked[-1] in sheets(on_a))
    assert sheets(on_a) == acked  # every acknowledged tap once, in the order made
    assert all(v > start for v in acked)
    # a mission's full status is computed once (one server) and reaches this stream too, though
    # both servers are asked for the room (each GET wants the status of this version)
    assert httpx.get(f"{a}/api/rooms/{code}").status_code == httpx.get(f"{b}/api/rooms/{code}").status_code == 200
    assert on_a.wait_for(lambda events: any(e == "status" and d["version"] == acked[-1] for e, _, d in events))
    on_a.close()
    for url in (a, b):  # both have it now: one computed it, the other took it from the database
        assert until(lambda: httpx.get(f"{url}/api/rooms/{code}").json()["status"]["complete"])
    with psycopg.connect(postgres_url) as db:  # every status published: each room version's once
        versions = [json.loads(data)["data"]["version"] for (data,) in db.execute(
            "SELECT data FROM room_events WHERE code = %s AND event = 'status'", (code,))]
    assert acked[-1] in versions and len(versions) == len(set(versions)), versions

    # the phone reconnects to the OTHER server with the last id it had, edits went on meanwhile
    last = on_a.ids()[-1]
    later = [tap(b, code, 1, tokens[1], CELLS[10 + k], version_of[1] + k)["version"] for k in range(2)]
    on_b = Stream(b, code, last_id=last)
    assert on_b.wait_for(lambda events: bool(events))
    event, snapshot, doc = on_b.events[0]
    assert (event, snapshot) == ("sync", later[-1])  # behind: a snapshot with both edits
    assert set(CELLS[10:12]) <= set(doc["seats"][1]["cells"])
    more = tap(a, code, 0, tokens[0], CELLS[20], version_of[0])["version"]
    assert on_b.wait_for(lambda events: more in sheets(on_b))
    ids = on_b.ids()
    assert ids == sorted(set(ids)) and ids[0] == later[-1] and ids[-1] == more  # no repeat, no gap
    on_b.close()


def test_one_status_computation_per_room_at_a_time(postgres_url):
    from nochmal.web.rooms.fanout import SharedHub, StatusGuard
    from nochmal.web.rooms.hub import StreamLimits
    from nochmal.web.rooms.model import RoomSpec
    from nochmal.web.rooms.store import RoomStore

    first, second = StatusGuard(postgres_url), StatusGuard(postgres_url)  # two processes' workers
    assert first.hold("ABCDEF")
    assert not second.hold("ABCDEF")  # busy in the other process
    assert second.hold("GHJKLM")  # another room is not
    first.release("ABCDEF")
    assert second.hold("ABCDEF")
    second.release("ABCDEF")
    # what the worker reads when its room's quiet time ends: the version now and the last
    # status published (status.py: the room is read again only when the version moved)
    store, hub = RoomStore(url=postgres_url), SharedHub(postgres_url, StreamLimits())
    code = store.create_room(RoomSpec("competitive", "classic", 2))
    seat, _, version = store.add_seat(code, "Anna")
    assert second.now(code) == (version, None)  # no status published yet
    hub.publish(code, "status", {"version": version, "status": {"state": "open"}})
    assert until(lambda: second.now(code)[1] is not None)  # once the writer committed it
    assert second.now(code) == (version, {"version": version, "status": {"state": "open"}})
    moved = store.rename(code, seat, "Ben")
    assert moved == version + 1 and second.now(code)[0] == moved  # an edit since: another version to compute
    assert second.now("ZZZZZZ") == (None, None)  # no such room (expired meanwhile)
    hub.stop()
    store.close()


@pytest.mark.slow
def test_sigkill_of_one_server_loses_no_acknowledged_edit(tmp_path, postgres_cluster):
    database = postgres_cluster.new_database()
    with shared_servers(tmp_path / "data", database) as (urls, procs):
        a, b = urls
        code, tokens = room_with_seats(a, players=4, mode="competitive")
        phone = Stream(a, code)  # a phone on server A
        assert phone.wait_for(lambda events: bool(events))
        tappers = Tappers(a, code, tokens, CELLS)  # 4 seats tapping through A as fast as answered
        assert phone.wait_for(lambda events: len(sheets(phone)) >= 8)
        crash(procs[0])
        tappers.stop()
        assert phone.done.wait(30)  # A's stream ended with A
        last = phone.ids()[-1]
        # the page's reconnect, to the other address: behind, it gets the snapshot
        room = httpx.get(f"{b}/api/rooms/{code}").json()
        again = Stream(b, code, last_id=last)
        if last < room["version"]:  # behind (edits acknowledged after A's last event): the snapshot
            assert again.wait_for(lambda events: bool(events))
            assert again.events[0][:2] == ("sync", room["version"])
        for seat in range(4):
            crossed = set(room["seats"][seat]["cells"])
            assert set(CELLS[: tappers.acked[seat] + 1]) <= crossed, (seat, tappers.acked[seat])
        again.close()


def test_an_online_games_bot_is_played_by_one_server_and_the_other_takes_over(tmp_path, postgres_url, caplog):
    """Two apps on one PostgreSQL database (two servers) both hold an online game with a bot
    seat: one server plays the bot (PostgreSQL shows one claim on the game), one bot move per
    roll and none refused; when that server stops, the other plays the bot's next roll."""
    import logging

    from fastapi.testclient import TestClient

    from nochmal.web.rooms.store_db import room_key
    from online_support import choose, new_online, room as online_room, sit_all
    from rooms_support import close_rooms, make_app

    caplog.set_level(logging.INFO, logger="nochmal.web.rooms.online_service")
    apps = [make_app(tmp_path / name, postgres_url) for name in ("a", "b")]
    a, b = (TestClient(app) for app in apps)
    code = new_online(a, mode="competitive", seats=["human", "greedy"])["id"]
    (token,) = sit_all(b, code, ["Anna"])
    online_room(a, code)  # both servers hold the game in memory, both drivers see the bot's seat

    def bot_moves() -> list[tuple]:
        with apps[1].state.online.store.db.read() as db:
            return db.execute("SELECT roll, by FROM online_moves WHERE code = ? AND seat = 1 ORDER BY n",
                              (code,)).fetchall()

    def claims() -> list[tuple]:
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            return conn.execute("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = %s",
                                (room_key("bots", code),)).fetchall()

    for roll in (1, 2):
        assert until(lambda: len(bot_moves()) == roll), f"the bot did not choose roll {roll}"
        choose(b if roll == 1 else a, code, 0, token)
    assert until(lambda: len(bot_moves()) == 3), "the bot did not choose roll 3"
    assert bot_moves() == [(0, "bot"), (1, "bot"), (2, "bot")]
    assert len(claims()) == 1  # one server drives the game
    driver = 0 if apps[0].state.online.claims.drives(code) else 1
    other = 1 - driver
    close_rooms(apps[driver])  # that server stops: its claim goes with its connection
    choose((a, b)[other], code, 0, token)  # roll 3 ends through the server still running
    assert until(lambda: len(bot_moves()) == 4), "the other server did not take the bot over"
    assert bot_moves()[3] == (3, "bot")
    assert online_room((a, b)[other], code)["roll"] >= 4
    refused = [r.getMessage() for r in caplog.records if "not kept" in r.getMessage()]
    assert refused == [], refused
    close_rooms(apps[other])


def test_an_app_on_postgresql_ends_its_threads_when_it_stops(tmp_path, postgres_url):
    """The app's shutdown (the server stopping) ends the threads that listen to and write into
    PostgreSQL and the online games' driver, as it ends the status worker: none is left trying a
    database that went away."""
    import threading

    from fastapi.testclient import TestClient

    from rooms_support import make_app

    names = ("room-events-in", "room-events-out", "online-rooms")
    before = {t for t in threading.enumerate() if t.name in names}
    with TestClient(make_app(tmp_path, postgres_url)) as client:
        assert client.get("/api/health").status_code == 200
        mine = {t for t in threading.enumerate() if t.name in names} - before
        assert {t.name for t in mine} == set(names)
    for thread in mine:
        thread.join(30)  # a hang guard: each ends within a fraction of a second
        assert not thread.is_alive(), thread.name


def test_a_notice_it_cannot_read_resyncs_its_room_and_the_listener_goes_on(postgres_url, caplog):
    """A notice of another release (docs/deploy.md: servers of two releases must not share a
    database) is said once in the log, the room it names takes a snapshot here, and the listener
    keeps listening: an event written after it still arrives, without a reconnect."""
    import asyncio
    import logging

    from nochmal.web.rooms.fanout import SharedHub

    caplog.set_level(logging.WARNING)
    hub = SharedHub(postgres_url, channel="notices_test")

    async def run():
        sub = hub.subscribe("ROOM", "127.0.0.1")
        with psycopg.connect(postgres_url, autocommit=True) as db:
            db.execute("NOTIFY notices_test, 'ROOM 12 1.0 mark extra-field'")
            db.execute("NOTIFY notices_test, 'ROOM twelve 1.0 mark'")
        first = await asyncio.wait_for(sub.queue.get(), 30)
        hub.publish("ROOM", "note", {"text": "after"}, 1)
        later = [await asyncio.wait_for(sub.queue.get(), 30) for _ in range(2)]
        hub.unsubscribe(sub)
        return first, later

    try:
        first, later = asyncio.run(run())
    finally:
        hub.stop()
    assert "event: resync" in first
    assert any("event: note" in m and '"after"' in m for m in later), later
    said = [r.getMessage() for r in caplog.records if r.name.startswith("nochmal")]
    assert sum("cannot read" in m for m in said) == 1, said
    assert not any("listening for room events failed" in m for m in said), said
