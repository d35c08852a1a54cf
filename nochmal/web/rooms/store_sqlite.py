"""The rooms' embedded database: one SQLite file in the data folder (store_db.py the interface).

Durability: WAL journal (``SYNCHRONOUS`` below), and every write is its own transaction,
committed before the request that made it is answered; so a server killed at any moment
(SIGKILL) keeps every edit it acknowledged. One write connection behind a lock (SQLite
serialises writers anyway); each thread reads through its own connection, so reads never
wait for a commit. Nothing a client sends becomes a path: the file name is fixed.

A damaged file is the server's problem, not a client's: at start-up (a garbage or truncated
file, a folder in its place) it is one StorageError line naming the file and what to do, and
the file is left as it is; while serving, a failed read or write is logged and answered as a
5xx JSON body with the reason (docs/security.md)."""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path

from nochmal.errors import StorageError
from nochmal.web.errors import WebError
from nochmal.web.rooms.store_db import Duplicate, Step, run_steps

log = logging.getLogger("nochmal.web.rooms.store")  # one log for the rooms store on either database
FIX_HINT = "move it away to start with no rooms, or restore a backup"
# WAL with synchronous=NORMAL: a commit has reached the operating system before it returns,
# so it survives the server process dying at any moment (SIGKILL, a crash); only a power cut
# or an OS crash can lose the last commits. FULL would also fsync every commit: measured
# 9 ms a commit on this machine idle and far more under load (benchmarks/RESULTS.md).
SYNCHRONOUS = "NORMAL"


class _Conn:
    """A store's SQL on a SQLite connection; a duplicate key is ``Duplicate`` on both databases."""

    def __init__(self, db: sqlite3.Connection):
        self._db = db

    def execute(self, sql: str, params=()):
        try:
            return self._db.execute(sql, params)
        except sqlite3.IntegrityError as exc:
            if "UNIQUE" in str(exc) or "PRIMARY KEY" in str(exc):
                raise Duplicate(str(exc)) from None
            raise


class _Schema:
    def __init__(self, db: sqlite3.Connection):
        self._db = db

    def script(self, sql: str) -> None:
        for statement in sql.split(";\n"):  # executescript would commit the open transaction
            if statement.strip():
                self._db.execute(statement)

    def add_column(self, table: str, column: str, kind: str) -> None:
        if column not in {row[1] for row in self._db.execute(f"PRAGMA table_info({table})")}:
            self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")


class SqliteDatabase:
    """The file ``file_name`` in ``folder`` (None: in memory, the app without a data folder; tests).
    A file that cannot be used is a StorageError naming it (nothing written)."""

    def __init__(self, folder: Path | None, file_name: str):
        if folder is None:
            self.path = None
            target = ":memory:"
        else:
            self.path = target = database_path(folder, file_name)
        self.name = str(target)
        self._target = target
        self._lock = threading.Lock()
        try:
            self._db = _open_checked(target)
        except sqlite3.Error as exc:
            raise StorageError(f"{target}: {_start_problem(exc)}") from None
        self._readers = threading.local()  # WAL: readers never wait for the writer

    def migrate(self, part: str, steps: Sequence[Step]) -> None:
        try:
            if self._version(part) == len(steps):
                return  # up to date: no write lock taken at start
            with self._lock:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    run_steps(_Conn(self._db), _Schema(self._db), self.name, part, steps)
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            raise StorageError(f"{self._target}: {_start_problem(exc)}") from None

    def _version(self, part: str) -> int | None:
        """``part``'s schema version as the file says, None without a ``schema_version`` table."""
        if self._db.execute("SELECT 1 FROM sqlite_master WHERE name = 'schema_version'").fetchone() is None:
            return None
        row = self._db.execute("SELECT version FROM schema_version WHERE part = ?", (part,)).fetchone()
        return row[0] if row else 0

    def _reader(self) -> sqlite3.Connection:
        """This thread's read connection (the writer's own one for an in-memory database)."""
        if self.path is None:
            return self._db
        conn = getattr(self._readers, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self._target, check_same_thread=False, isolation_level=None)
            conn.execute("PRAGMA query_only=ON")
            self._readers.conn = conn
        return conn

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def tx(self, key: str | None = None):
        """The lock, BEGIN IMMEDIATE, COMMIT (or ROLLBACK on error); one writer for every
        ``key`` (SQLite writes one transaction at a time anyway)."""
        with self._failures(), self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield _Conn(self._db)
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    @contextmanager
    def read(self):
        """This thread's own connection in WAL mode, one snapshot for all its reads; the shared
        one (locked) in memory."""
        with self._failures():
            if self.path is None:
                with self._lock:
                    yield _Conn(self._db)
                return
            conn = self._reader()
            conn.execute("BEGIN")
            try:
                yield _Conn(conn)
            finally:
                if conn.in_transaction:
                    conn.execute("COMMIT")

    def fetch(self, sql: str, params=()) -> list[tuple]:
        """One statement on this thread's read connection (no BEGIN: SQLite's autocommit gives
        the statement its own snapshot); the shared one (locked) in memory."""
        with self._failures():
            if self.path is None:
                with self._lock:
                    return self._db.execute(sql, params).fetchall()
            return self._reader().execute(sql, params).fetchall()

    @contextmanager
    def _failures(self):
        """A database that fails while serving (damaged on disk, the disk full, locked for
        long) is logged and answered 500 (503 while locked) with the reason: not a request's
        fault, and no traceback page."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            log.error("rooms database %s failed: %s", self._target, exc)
            busy = isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc))
            raise WebError(f"the rooms' database failed ({exc}); " +
                           ("try again in a moment" if busy else
                            f"the server's operator should check {Path(self.name).name}"),
                           None, 503 if busy else 500) from None


def database_path(folder: Path, file_name: str) -> Path:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"{folder}: cannot make the data folder ({exc.strerror or exc})") from None
    path = folder / file_name
    if path.is_dir():
        raise StorageError(f"{path}: a folder, not the rooms database; {FIX_HINT}")
    return path


def _open_checked(target) -> sqlite3.Connection:
    """The write connection, once SQLite's quick check found an existing file whole (a
    damaged page may otherwise be met only when a room on it is read, long after the start).
    The check runs on a read-only connection, so a damaged file is never written to; WAL
    mode is set up after it (the tables by the stores' migrations)."""
    if target != ":memory:" and Path(target).exists():
        _quick_check(sqlite3.connect(Path(target).resolve().as_uri() + "?mode=ro", uri=True))
    db = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={SYNCHRONOUS}")
        db.execute("PRAGMA foreign_keys=ON")
    except BaseException:
        db.close()
        raise
    return db


def _quick_check(db: sqlite3.Connection) -> None:
    try:
        found = [row[0] for row in db.execute("PRAGMA quick_check")]
    finally:
        db.close()
    if found != ["ok"]:
        lines = [line for text in found for line in str(text).splitlines() if not line.startswith("***")]
        raise sqlite3.DatabaseError("damaged: " + "; ".join(lines[:3]))


def _start_problem(exc: sqlite3.Error) -> str:
    """Why the rooms' database cannot be opened, and what to do: one line."""
    if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
        return f"the rooms database is in use by another process ({exc}); stop the other server on this data folder"
    return f"not a usable rooms database ({exc}); {FIX_HINT}"
