"""What a tap costs the rooms' database (docs/figures.md, PostgreSQL: what runs per tap), on
both databases: the statements the store sends are counted by a stand-in around its Database
(store_db.py), by their text. The oracle is the code's own contract, not a timing: a tap
reads its room whole only inside its own write transaction, and the status worker, once the
room's quiet time is over, asks only the room's version and computes the status of the room
the tap gave it."""

from __future__ import annotations

from collections import Counter
from contextlib import contextmanager

from rooms_support import auth, new_room, sit
from servers_support import until

WHOLE_ROOM = "FROM seats WHERE code = ? ORDER BY seat"  # the seats' query of RoomStore._room


class Counted:
    """A store_db.Database whose statements are counted by their text, each with where it ran:
    ``tx`` (in a write transaction), ``read`` (a read transaction) or ``fetch`` (one statement)."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.statements: Counter = Counter()

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def _counting(self, conn, where: str):
        statements = self.statements

        class Conn:
            def execute(self, sql, params=()):
                statements[where, sql] += 1
                return conn.execute(sql, params)

        return Conn()

    @contextmanager
    def tx(self, key=None):
        with self.inner.tx(key) as conn:
            yield self._counting(conn, "tx")

    @contextmanager
    def read(self):
        with self.inner.read() as conn:
            yield self._counting(conn, "read")

    def fetch(self, sql, params=()):
        self.statements["fetch", sql] += 1
        return self.inner.fetch(sql, params)

    def count(self, where: str, part: str = "") -> int:
        return sum(n for (w, sql), n in self.statements.items() if w == where and part in sql)


def status_done(rooms, code: str) -> bool:
    """Whether the worker has the full status of the room as it is now (read past the count)."""
    with rooms.store.db.inner.read() as conn:
        room = rooms.store._room(code, conn)
    status = rooms.worker.cached(room)
    return status is not None and status.get("complete", False)


def test_a_tap_reads_its_room_whole_only_in_its_transaction_and_its_status_asks_only_the_version(client):
    rooms = client.app.state.rooms
    code = new_room(client, mode="competitive", board="classic", players=2)
    (seat, token), _ = sit(client, code, "Anna"), sit(client, code, "Ben")
    counted = rooms.store.db = Counted(rooms.store.db)
    assert until(lambda: status_done(rooms, code))  # the joins' statuses are out of the way
    counted.statements.clear()
    res = client.patch(f"/api/rooms/{code}/seats/{seat}/sheet", json={"cross": ["H1"], "version": 1},
                       headers=auth(token))
    assert res.status_code == 200, res.text
    assert until(lambda: status_done(rooms, code))  # the worker's quiet time is over, the status computed
    # the room whole: twice, both in the tap's one write transaction (a competitive room: before
    # the tap, for the first values it changes, and after it, for the answer and the event)
    assert counted.count("tx", WHOLE_ROOM) == 2 and counted.count("read") == 0, counted.statements
    # outside it: the tap's checks (the spec and the seat's holder) and, on SQLite, the worker's
    # version (on PostgreSQL the worker asks it with its lock, fanout.py StatusGuard.now)
    assert counted.count("fetch", "token_hash") == 1
    assert counted.count("fetch") - counted.count("fetch", "token_hash") == counted.count("fetch", "SELECT version")
    assert counted.count("fetch", "SELECT version") <= 1


def test_a_tap_reads_the_seats_earlier_edits_only_when_its_phone_was_behind(client):
    """The conflict check (store_sheets.py tap_sheet) needs the edits since the tapping phone's
    sheet version: a phone that showed the latest reads none of them (a tap late in a game
    would parse every earlier edit of the seat), a phone that was behind reads them and its
    conflict is still found."""
    rooms = client.app.state.rooms
    code = new_room(client, mode="competitive", board="classic", players=2)
    seat, token = sit(client, code, "Anna")

    def tap(body, version):
        res = client.patch(f"/api/rooms/{code}/seats/{seat}/sheet", json={**body, "version": version}, headers=auth(token))
        return res.status_code, res.json()

    status, first = tap({"cross": ["H1"]}, 1)
    assert status == 200, first
    counted = rooms.store.db = Counted(rooms.store.db)
    status, second = tap({"cross": ["H2"]}, first["sheet_version"])  # the phone shows the latest
    assert status == 200 and counted.count("tx", "FROM edits") == 0, counted.statements
    status, third = tap({"uncross": ["H2"]}, second["sheet_version"])  # another phone undoes H2
    assert status == 200
    counted.statements.clear()
    # a phone still at the first version crosses H2 again: H2 was crossed and uncrossed since
    status, refused = tap({"cross": ["H2"]}, first["sheet_version"])
    assert status == 409 and refused["field"] == "cross", refused
    assert counted.count("tx", "FROM edits") == 1, counted.statements
