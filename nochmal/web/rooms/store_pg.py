"""The rooms' shared database: PostgreSQL through psycopg 3 (store_db.py the interface), for
several server processes on one or more machines (``nochmal serve --database
postgresql://...``, docs/deploy.md).

Writes: every transaction first takes one transaction-scoped advisory lock, the room's own
(``room_key("write", code)``; ``WRITE_LOCK`` for a write that names no room: a new room, the
expiry, the leaderboards), so the writes of one room are serialised across every process on
the database as SQLite serialises all writes in one, while two servers write two rooms at
once: a room's version (its stream's event id) grows by one per edit in commit order, and the
stores' read-then-write steps (a sheet version checked, then bumped) need no retry, since each
reads and writes only its own room's rows (READ COMMITTED: a statement after the lock sees the
previous holder's commit). A write holds it for a few statements, never across a request's
other work. Reads: a REPEATABLE READ
READ ONLY transaction, one snapshot for all its statements, never waiting for a writer.

Connections: a small pool per process, each connection used by one thread at a time; one
that broke (the server restarted) is dropped, the next request opens a new one. A failure of
the database while serving is logged and answered 503 (unreachable) or 500, never a
traceback; the URL's password is never logged or shown (store_db.py ``redacted``)."""

from __future__ import annotations

import logging
import os
import queue
from collections.abc import Sequence
from contextlib import contextmanager

import psycopg

from nochmal.errors import StorageError
from nochmal.web.errors import WebError
from nochmal.web.rooms.store_db import Duplicate, Step, redacted, room_key, run_steps

log = logging.getLogger("nochmal.web.rooms.store")  # one log for the rooms store on either database
WRITE_LOCK = 0x6E6F63  # pg_advisory_xact_lock key of a write transaction that names no room ("noc")
MIGRATE_LOCK = 0x6E6F64  # ... of a migration (two servers starting at once migrate one after the other)
# one lock for every write, as before the per-room locks: only for benchmarks/bench_rooms.py's
# before/after comparison (docs/figures.md, PostgreSQL), never for a server
ONE_WRITE_LOCK = os.environ.get("NOCHMAL_PG_ONE_WRITE_LOCK") == "1"
CONNECT_SECONDS = 10
IDLE_KEPT = 16  # idle connections a process keeps for the next requests


class _Conn:
    """A store's SQL (``?`` placeholders) on a psycopg connection (``%s``)."""

    def __init__(self, conn: psycopg.Connection):
        self._conn = conn

    def execute(self, sql: str, params=()):
        try:
            return self._conn.execute(sql.replace("?", "%s"), params)
        except psycopg.errors.UniqueViolation as exc:
            raise Duplicate(str(exc)) from None


class _Schema:
    def __init__(self, conn: psycopg.Connection):
        self._conn = conn

    def script(self, sql: str) -> None:
        self._conn.execute(sql)  # no parameters: several statements in one go

    def add_column(self, table: str, column: str, kind: str) -> None:
        self._conn.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column} {kind}")


class PostgresDatabase:
    """The database at ``url``; a server that cannot be reached, or a URL libpq cannot read,
    is one StorageError line naming ``--database`` (the password left out)."""

    path = None  # no file

    def __init__(self, url: str):
        self.url = url
        self.name = redacted(url)
        self._idle: queue.LifoQueue[psycopg.Connection] = queue.LifoQueue()
        self._closed = False  # closed: a connection still in use is closed when given back
        self._give(self._connect(starting=True))

    def _connect(self, starting: bool = False) -> psycopg.Connection:
        try:
            return psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_SECONDS,
                                   application_name="nochmal")
        except psycopg.Error as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            if starting:
                raise StorageError(f"--database {self.name}: cannot connect ({reason})") from None
            raise

    def _take(self) -> psycopg.Connection:
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            return self._connect()

    def _give(self, conn: psycopg.Connection) -> None:
        if self._closed or conn.broken or conn.closed or self._idle.qsize() >= IDLE_KEPT:
            conn.close()
        else:
            self._idle.put(conn)

    @contextmanager
    def _connection(self):
        """A connection of this thread's own for the block; back to the pool after."""
        with self._failures():
            conn = self._take()
            try:
                yield conn
            finally:
                self._give(conn)

    @contextmanager
    def tx(self, key: str | None = None):
        with self._connection() as conn:
            conn.isolation_level, conn.read_only = None, False  # (a read may have used it last)
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)",
                             (WRITE_LOCK if key is None or ONE_WRITE_LOCK else room_key("write", key),))
                yield _Conn(conn)

    @contextmanager
    def read(self):
        with self._connection() as conn:
            # said in the BEGIN itself (psycopg): no round trip of its own
            conn.isolation_level, conn.read_only = psycopg.IsolationLevel.REPEATABLE_READ, True
            with conn.transaction():
                yield _Conn(conn)

    def fetch(self, sql: str, params=()) -> list[tuple]:
        with self._connection() as conn:  # autocommit: the statement is its own transaction
            return _Conn(conn).execute(sql, params).fetchall()

    def migrate(self, part: str, steps: Sequence[Step]) -> None:
        try:
            conn = self._take()
            try:
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATE_LOCK,))
                    run_steps(_Conn(conn), _Schema(conn), self.name, part, steps)
            finally:
                self._give(conn)
        except psycopg.Error as exc:
            raise StorageError(f"--database {self.name}: cannot set up the {part} tables ({exc})") from None

    def close(self) -> None:
        self._closed = True
        self._drain()

    def _drain(self) -> None:
        while True:
            try:
                self._idle.get_nowait().close()
            except queue.Empty:
                return

    @contextmanager
    def _failures(self):
        """The database failing while serving (unreachable, restarted, out of space) is the
        server's problem: logged, answered 503 when it may pass (a lost connection), else 500."""
        try:
            yield
        except psycopg.Error as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            log.error("rooms database %s failed: %s", self.name, reason)
            lost = isinstance(exc, psycopg.OperationalError)
            if lost:  # the server restarted or went away: the idle connections are dead as well
                self._drain()
            raise WebError(f"the rooms' database failed ({reason}); " +
                           ("try again in a moment" if lost else "the server's operator should check it"),
                           None, 503 if lost else 500) from None
