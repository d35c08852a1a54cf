"""The rooms' two databases (docs/rooms.md "Storage", nochmal/web/rooms/store_db.py): versioned
migrations on both, writes serialised across processes on PostgreSQL (no lost tap, room
versions without gaps or repeats), and `nochmal serve --database` refusing a bad URL or an
unreachable server in one line without the password. The rooms' API tests run on both
databases through the ``client`` fixture (tests/rooms/conftest.py)."""

from __future__ import annotations

import json
import sqlite3
import threading

import psycopg
import pytest
from typer.testing import CliRunner

from nochmal.board import load_board
from nochmal.cli import app as cli_app
from nochmal.errors import StorageError
from nochmal.web.rooms.model import RoomSpec
from nochmal.web.rooms.records import SheetTap
from nochmal.web.rooms.store import RoomStore
from nochmal.web.rooms.store_db import redacted, schema_version
from nochmal.web.rooms.store_open import open_database
from nochmal.web.rooms.store_schema import DB_NAME, PART, STEPS
from rooms_support import auth, close_rooms, free_port, make_app, new_room, sit, stored
from servers_support import until

SPEC = RoomSpec("competitive", "classic", 2)


def raw(url: str, sql: str, params=()) -> list[tuple]:
    """A statement on the database itself, past the store (an independent reader)."""
    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute(sql, params)
        return cur.fetchall() if cur.description else []


def test_an_older_postgresql_database_is_migrated_and_keeps_its_rooms(postgres_cluster):
    url = postgres_cluster.new_database()
    old = open_database(None, url, DB_NAME)
    old.migrate(PART, STEPS[:1])  # as the first release left it: no creators, no free seats, no wins
    old.close()
    raw(url, "INSERT INTO rooms (code, spec, created, touched) VALUES (%s, %s, 0, 0)",
        ("abcdefghjk", '{"mode": "competitive", "board": "classic", "players": 2}'))
    raw(url, "INSERT INTO seats (code, seat, name, token_hash) VALUES ('abcdefghjk', 0, 'Anna', 'x')")
    assert raw(url, "SELECT version FROM schema_version WHERE part = 'rooms'") == [(1,)]
    store = RoomStore(url=url)
    columns = {c for (c,) in raw(url, "SELECT column_name FROM information_schema.columns WHERE table_name = 'seats'")}
    assert {"free", "handover_by", "handover_used"} <= columns
    assert schema_version(store.db, PART) == len(STEPS) == 2
    room = store.room("abcdefghjk")
    assert room.seats[0].name == "Anna" and not room.seats[0].free and room.won_on is None
    assert store.record_win("abcdefghjk", 7) is not None and store.room("abcdefghjk").won_on == 7
    store.close()


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_database_of_a_newer_version_is_refused_in_one_line(kind, tmp_path, postgres_cluster):
    url = postgres_cluster.new_database() if kind == "postgresql" else None
    RoomStore(tmp_path, url).close()
    if url:
        raw(url, "UPDATE schema_version SET version = 99 WHERE part = 'rooms'")
    else:
        with sqlite3.connect(tmp_path / DB_NAME) as db:
            db.execute("UPDATE schema_version SET version = 99 WHERE part = 'rooms'")
    with pytest.raises(StorageError, match="schema version 99, this nochmal knows 2") as caught:
        RoomStore(tmp_path, url)
    assert "\n" not in str(caught.value)


def test_a_sqlite_file_made_before_versioning_is_marked_with_its_version(tmp_path):
    RoomStore(tmp_path).close()
    with sqlite3.connect(tmp_path / DB_NAME) as db:
        db.execute("DROP TABLE schema_version")
    store = RoomStore(tmp_path)
    assert schema_version(store.db, PART) == len(STEPS)
    store.close()


def test_taps_through_two_servers_at_once_lose_nothing_and_versions_never_repeat(postgres_cluster):
    """Two stores (two pools: as two server processes) tap one seat from many threads at once:
    every tap is on the sheet, and the room's versions (its stream's event ids) are 1, 2, ...
    in the order of the log, none twice, none missing."""
    url = postgres_cluster.new_database()
    stores = [RoomStore(url=url), RoomStore(url=url)]
    code = stores[0].create_room(SPEC)
    seat, _, joined = stores[1].add_seat(code, "Anna")
    board = load_board("classic")
    cells = [f"{col}{row}" for col in "ABCDEFGH" for row in range(1, 8)][:40]
    versions, errors = [], []

    def tap(k: int) -> None:
        try:
            done = stores[k % 2].tap_sheet(code, seat, board, SheetTap(cross=board.mask_of([cells[k]])), 0)
            versions.append(done.version)
        except Exception as exc:  # noqa: BLE001 - the assertion below shows it
            errors.append(exc)

    threads = [threading.Thread(target=tap, args=(k,)) for k in range(len(cells))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(versions) == list(range(joined + 1, joined + 1 + len(cells)))
    room = stores[0].room(code)
    assert set(board.cells_of(room.seats[0].state.crossed)) == set(cells)
    logged = [v for (v,) in raw(url, "SELECT version FROM edits WHERE code = %s ORDER BY version", (code,))]
    assert logged == list(range(1, room.version + 1))
    for store in stores:
        store.close()


def waiting_for_a_lock(url: str) -> int:
    """How many advisory locks some session of the database waits for (pg_locks: not granted)."""
    return raw(url, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")[0][0]


def test_a_write_on_one_room_waits_only_for_writes_on_that_room(postgres_cluster):
    """One lock per room (store_pg.py): while a transaction holds room A's write lock, a tap
    on room B through another store (another server's pool) is committed, and a tap on room A
    waits (PostgreSQL says it waits for an advisory lock) until A's transaction ends."""
    url = postgres_cluster.new_database()
    stores = [RoomStore(url=url), RoomStore(url=url)]
    board = load_board("classic")
    codes = [stores[0].create_room(SPEC) for _ in range(2)]
    for code in codes:
        stores[0].add_seat(code, "Anna")
    done = {code: threading.Event() for code in codes}

    def tap(code: str) -> None:
        stores[1].tap_sheet(code, 0, board, SheetTap(cross=board.mask_of(["H4"])), 0)
        done[code].set()

    with stores[0].db.tx(codes[0]):  # room A's lock held by this test
        other = threading.Thread(target=tap, args=(codes[1],))
        other.start()
        assert done[codes[1]].wait(60), "a tap on room B waited for room A's lock"
        same = threading.Thread(target=tap, args=(codes[0],))
        same.start()
        assert until(lambda: waiting_for_a_lock(url) == 1), "the tap on room A did not wait for its lock"
        assert not done[codes[0]].is_set()
    assert done[codes[0]].wait(60), "the tap on room A did not go on after the lock was let go"
    for t in (other, same):
        t.join()
    assert [stores[0].room(code).version for code in codes] == [2, 2]
    for store in stores:
        store.close()


def test_racing_taps_on_two_seats_are_each_answered_with_their_own_version(client, store_url):
    """Two phones tap two seats of one room at once, many times: each answer's version is the
    one its own edit carries in the room's log (the seat and the cell of that version's
    edit), never a later edit's, and so is its event's; on both databases."""
    code = new_room(client, mode="competitive", players=2)
    tokens = [sit(client, code, name)[1] for name in ("Anna", "Ben")]
    cells = {0: ["H1", "H2", "H3", "G1", "G2", "G3", "I1", "I2"], 1: ["H4", "H5", "H6", "G4", "G5", "G6", "I3", "I4"]}
    answers, errors = [], []

    def taps(k: int) -> None:
        for cell in cells[k]:
            res = client.patch(f"/api/rooms/{code}/seats/{k}/sheet", json={"cross": [cell], "version": 0},
                               headers=auth(tokens[k]))
            if res.status_code != 200:
                errors.append(res.text)
            else:
                answers.append((res.json()["version"], k, cell))

    threads = [threading.Thread(target=taps, args=(k,)) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    logged = {v: (seat, json.loads(payload)["tap"]["cross"]) for v, seat, payload in
              stored(client, "SELECT version, seat, payload FROM edits WHERE code = ? AND kind = 'sheet'", (code,))}
    assert sorted(answers) == sorted((v, k, cell) for v, (k, (cell,)) in logged.items())
    assert len({v for v, _, _ in answers}) == len(answers) == 16
    if store_url:  # on PostgreSQL the events went through the database (fanout.py): each under its own version
        hub = client.app.state.rooms.hub
        assert hub.flush()
        events = {event_id: json.loads(data)["data"] for event_id, data in stored(
            client, "SELECT event_id, data FROM room_events WHERE code = ? AND event = 'sheet'", (code,))}
        for v, k, cell in answers:
            assert events[v]["seat"] == k and events[v]["version"] == v and cell in events[v]["sheet"]["cells"]


def test_the_api_on_postgresql_keeps_its_rooms_in_the_database(postgres_cluster, tmp_path):
    """What the app acknowledges is in PostgreSQL, not in a SQLite file of the data folder."""
    from fastapi.testclient import TestClient

    url = postgres_cluster.new_database()
    app = make_app(tmp_path / "data", url)
    client = TestClient(app)
    code = new_room(client)
    sit(client, code, "Anna")
    assert raw(url, "SELECT name FROM seats WHERE code = %s", (code,)) == [("Anna",)]
    assert not (tmp_path / "data" / DB_NAME).exists()
    close_rooms(app)


def test_serve_with_a_bad_or_unreachable_database_is_one_line_without_the_password(tmp_path):
    runner = CliRunner()
    for url, says in (("mysql://anna:s3cret@db/rooms", "not a readable PostgreSQL URL"),
                      ("postgresql://anna:s3cret@[db/rooms", "not a readable PostgreSQL URL"),
                      ("postgresql://anna:s3cret@127.0.0.1:1/rooms", "cannot connect")):
        res = runner.invoke(cli_app, ["serve", "--port", str(free_port()), "--data", str(tmp_path), "--database", url])
        assert res.exit_code == 1, res.output
        assert res.stderr.startswith("error: --database ") and says in res.stderr, res.stderr
        assert len(res.stderr.strip().splitlines()) == 1 and "s3cret" not in res.output + res.stderr
        assert "Traceback" not in res.output + res.stderr


def test_redacted_hides_a_password_wherever_the_url_holds_it():
    assert redacted("postgresql://anna:pw@db:5432/rooms?sslmode=require") == \
        "postgresql://anna:***@db:5432/rooms?sslmode=require"
    assert redacted("postgresql:///rooms?host=/run/pg&password=pw") == "postgresql:///rooms?host=/run/pg&password=***"
    assert redacted("postgresql://anna@db/rooms") == "postgresql://anna@db/rooms"


def test_a_missing_postgresql_fails_its_tests_with_the_command_to_install_it(monkeypatch):
    """Tests that need the database never skip: without Debian's package they fail, saying what to run."""
    import pg_support

    monkeypatch.setattr(pg_support, "bin_dir", lambda: None)
    with pytest.raises(pytest.fail.Exception, match=r"apt-get install -y postgresql"):
        pg_support.PostgresCluster()


def test_postgresql_gone_while_serving_is_a_503_with_the_reason_and_back_when_it_is():
    """The database server stopping under a running app is the server's problem: a JSON 503
    saying so (no traceback), logged; once it is back, the next request is served again
    (the dead connections are dropped, a new one made)."""
    from fastapi.testclient import TestClient

    from pg_support import PostgresCluster

    with PostgresCluster() as cluster:
        url = cluster.new_database()
        app = make_app(None, url)
        client = TestClient(app, raise_server_exceptions=False)
        code = new_room(client)
        db = app.state.rooms.store.db
        with db.read(), db.read(), db.read():  # three connections idle in the pool after: all die with the server
            pass
        cluster.halt()
        res = client.get(f"/api/rooms/{code}")
        assert res.status_code == 503 and res.headers["content-type"].startswith("application/json"), res.text
        assert "the rooms' database failed" in res.json()["error"] and "Traceback" not in res.text
        cluster.resume()
        assert client.get(f"/api/rooms/{code}").status_code == 200
        close_rooms(app)


def test_a_cluster_left_by_a_killed_run_is_stopped_and_removed_by_the_next():
    """A test run killed before its fixture stopped its PostgreSQL server leaves the server
    running in /tmp/nochmal-pg-*: the next cluster's start stops and removes it (its owner
    process is gone), and leaves a live run's cluster alone."""
    import subprocess

    from pg_support import OWNER, PostgresCluster, stop_orphans

    dead = subprocess.Popen(["true"])
    dead.wait()
    left, live = PostgresCluster().start(), PostgresCluster()
    try:
        url = left.new_database()
        (left.folder / OWNER).write_text(str(dead.pid))  # as a run killed with SIGKILL leaves it
        removed = stop_orphans()
        assert left.folder in removed and not left.folder.exists()
        assert live.folder not in removed and live.folder.exists()
        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(url, connect_timeout=5).close()
    finally:
        if left.folder.exists():
            left.stop()
        import shutil

        shutil.rmtree(live.folder, ignore_errors=True)
