"""Rooms, seats and every edit in SQLite (one file in the data folder).

Durability: WAL journal (``SYNCHRONOUS`` below), and every write is its own transaction,
committed before the request that made it is answered; so a server killed at any moment
(SIGKILL) keeps every edit it acknowledged. One write connection behind a lock (SQLite
serialises writers anyway); each thread reads through its own connection, so reads never
wait for a commit. Seat tokens and handover secrets are stored
only as SHA-256 hashes. Crossed cells are stored as hex text (105 bits do not fit an
SQLite integer). Nothing a client sends becomes a path: the database file name is fixed.

A damaged database is the server's problem, not a client's: at start-up (a garbage or
truncated file, a folder in its place) it is one NochmalError line naming the file and what
to do, and the file is left as it is; while serving, a failed read or write is logged and
answered as a 5xx JSON body with the reason (docs/security.md).
"""

from __future__ import annotations

import hmac
import json
import logging
import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from nochmal.errors import StorageError
from nochmal.web.errors import WebError
from nochmal.web.rooms.model import MAX_SEATS, RoomSpec, SheetState, new_code, new_secret, secret_hash

log = logging.getLogger(__name__)
DB_NAME = "rooms.sqlite3"
FIX_HINT = "move it away to start with no rooms, or restore a backup"
# WAL with synchronous=NORMAL: a commit has reached the operating system before it returns,
# so it survives the server process dying at any moment (SIGKILL, a crash); only a power cut
# or an OS crash can lose the last commits. FULL would also fsync every commit: measured
# 9 ms a commit on this machine idle and far more under load (benchmarks/RESULTS.md).
SYNCHRONOUS = "NORMAL"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    code TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    rolls_used INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    touched REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    code TEXT NOT NULL REFERENCES rooms(code) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    handover_hash TEXT,
    crossed TEXT NOT NULL DEFAULT '0',
    jokers_used INTEGER NOT NULL DEFAULT 0,
    later_columns INTEGER NOT NULL DEFAULT 0,
    later_colours INTEGER NOT NULL DEFAULT 0,
    sheet_version INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (code, seat)
);
-- the room's log: every acknowledged change under its version (kept until the room
-- expires; the state itself is in rooms and seats, this is for audits and replays)
CREATE TABLE IF NOT EXISTS edits (
    code TEXT NOT NULL REFERENCES rooms(code) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    seat INTEGER,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (code, version)
);
CREATE INDEX IF NOT EXISTS rooms_touched ON rooms(touched);
"""


@dataclass(frozen=True)
class Seat:
    seat: int
    name: str
    state: SheetState
    sheet_version: int


@dataclass(frozen=True)
class Room:
    code: str
    spec: RoomSpec
    rolls_used: int
    version: int
    created: float
    touched: float
    seats: tuple[Seat, ...]

    def seat(self, k: int) -> Seat | None:
        return next((s for s in self.seats if s.seat == k), None)


class RoomStore:
    """All room data; every method is one transaction."""

    def __init__(self, data_dir: str | Path | None):
        """``data_dir`` None: an in-memory database (the app without a data folder; tests).
        A database that cannot be used is a StorageError naming the file (nothing written)."""
        if data_dir is None:
            self.path = None
            target = ":memory:"
        else:
            self.path = target = _database_path(Path(data_dir))
        self._lock = threading.Lock()
        self._target = target
        try:
            self._db = _open_checked(target)
        except sqlite3.Error as exc:
            raise StorageError(f"{target}: {_start_problem(exc)}") from None
        self._readers = threading.local()  # WAL: readers never wait for the writer

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
    def _tx(self):
        """``with store._tx() as db``: the lock, BEGIN IMMEDIATE, COMMIT (or ROLLBACK on error)."""
        with self._failures(), self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    @contextmanager
    def _read(self):
        """A read: this thread's own connection in WAL mode, one snapshot for all its reads;
        the shared one (locked) in memory."""
        with self._failures():
            if self.path is None:
                with self._lock:
                    yield self._db
                return
            conn = self._reader()
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                if conn.in_transaction:
                    conn.execute("COMMIT")

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
                           ("try again in a moment" if busy else f"the server's operator should check {DB_NAME}"),
                           None, 503 if busy else 500) from None

    # --- reading ---------------------------------------------------------------------------
    def room(self, code: str) -> Room:
        """The room, or WebError 404 (a wrong code and a missing room look the same)."""
        with self._read() as db:
            return self._room(code, db)

    def _room(self, code: str, db: sqlite3.Connection | None = None) -> Room:
        db = db or self._db
        row = db.execute("SELECT spec, rolls_used, version, created, touched FROM rooms WHERE code = ?",
                         (code,)).fetchone()
        if row is None:
            raise WebError("no room with this code (wrong code, or the room expired)", "id", 404)
        seats = tuple(
            Seat(k, name, SheetState(int(crossed, 16), jokers, lcols, lcolours), sv)
            for k, name, crossed, jokers, lcols, lcolours, sv in db.execute(
                "SELECT seat, name, crossed, jokers_used, later_columns, later_colours, sheet_version "
                "FROM seats WHERE code = ? ORDER BY seat", (code,)))
        return Room(code, RoomSpec(**json.loads(row[0])), row[1], row[2], row[3], row[4], seats)

    # --- writing ---------------------------------------------------------------------------
    def create_room(self, spec: RoomSpec, now: float | None = None) -> str:
        with self._tx() as db:
            return self._insert_room(db, spec, time.time() if now is None else now)

    def _insert_room(self, db, spec: RoomSpec, now: float) -> str:
        """A new room with a fresh code, inside the caller's transaction."""
        for _ in range(8):
            code = new_code()
            if db.execute("SELECT 1 FROM rooms WHERE code = ?", (code,)).fetchone() is None:
                break
        else:  # pragma: no cover - 8 collisions in 8e14 codes
            raise WebError("could not draw a free room code, try again", None, 503)
        db.execute("INSERT INTO rooms (code, spec, created, touched) VALUES (?, ?, ?, ?)",
                   (code, json.dumps(spec.to_dict()), now, now))
        return code

    def add_seat(self, code: str, name: str) -> tuple[int, str, int]:
        """The lowest free seat for ``name``: (seat, token, room version)."""
        token = new_secret()
        with self._tx() as db:
            room = self._room(code)
            taken = {s.seat for s in room.seats}
            limit = min(room.spec.players, MAX_SEATS)
            free = [k for k in range(limit) if k not in taken]
            if not free:
                raise WebError(f"the room is full ({limit} seat(s)); ask a player to hand a seat over", None, 409)
            seat = free[0]
            db.execute("INSERT INTO seats (code, seat, name, token_hash) VALUES (?, ?, ?, ?)",
                       (code, seat, name, secret_hash(token)))
            version = self._bump(db, code, seat, "join", {"name": name})
        return seat, token, version

    def check_token(self, code: str, seat: int, token: str | None) -> None:
        """401 without a token, 403 with a token that does not hold this seat."""
        if not token:
            raise WebError("a seat token is needed: send 'Authorization: Bearer TOKEN'", "authorization", 401)
        with self._read() as db:
            self._room(code, db)
            row = db.execute("SELECT token_hash FROM seats WHERE code = ? AND seat = ?", (code, seat)).fetchone()
        if row is None:
            raise WebError(f"seat {seat} is not taken in this room", "seat", 404)
        if not secrets_equal(row[0], secret_hash(token)):
            raise WebError(f"this token does not hold seat {seat}", "authorization", 403)

    def seat_of_token(self, code: str, token: str | None) -> int:
        """The seat a token holds in this room (401/403 otherwise)."""
        if not token:
            raise WebError("a seat token is needed: send 'Authorization: Bearer TOKEN'", "authorization", 401)
        with self._read() as db:
            self._room(code, db)
            row = db.execute("SELECT seat FROM seats WHERE code = ? AND token_hash = ?",
                             (code, secret_hash(token))).fetchone()
        if row is None:
            raise WebError("this token holds no seat in this room", "authorization", 403)
        return row[0]

    def set_sheet(self, code: str, seat: int, state: SheetState, seen_version: int | None) -> tuple[int, int]:
        """Store a seat's sheet; with ``seen_version`` refuse (409) when another phone on the
        same seat changed it meanwhile. Returns (room version, sheet version)."""
        with self._tx() as db:
            row = db.execute("SELECT sheet_version FROM seats WHERE code = ? AND seat = ?", (code, seat)).fetchone()
            if row is None:
                raise WebError(f"seat {seat} is not taken in this room", "seat", 404)
            if seen_version is not None and seen_version != row[0]:
                raise WebError(f"seat {seat}'s sheet changed on another device (version {row[0]}, you "
                               f"edited version {seen_version}); reload it and tap again", "version", 409)
            sheet_version = row[0] + 1
            db.execute("UPDATE seats SET crossed = ?, jokers_used = ?, later_columns = ?, later_colours = ?, "
                       "sheet_version = ? WHERE code = ? AND seat = ?",
                       (f"{state.crossed:x}", state.jokers_used, state.later_columns, state.later_colours,
                        sheet_version, code, seat))
            payload = {"crossed": f"{state.crossed:x}", "jokers_used": state.jokers_used,
                       "later_columns": state.later_columns, "later_colours": state.later_colours,
                       "sheet_version": sheet_version}
            version = self._bump(db, code, seat, "sheet", payload)
        return version, sheet_version

    def set_rolls(self, code: str, seat: int, rolls_used: int) -> int:
        with self._tx() as db:
            db.execute("UPDATE rooms SET rolls_used = ? WHERE code = ?", (rolls_used, code))
            return self._bump(db, code, seat, "rolls", {"rolls_used": rolls_used})

    def rename(self, code: str, seat: int, name: str) -> int:
        with self._tx() as db:
            db.execute("UPDATE seats SET name = ? WHERE code = ? AND seat = ?", (name, code, seat))
            return self._bump(db, code, seat, "rename", {"name": name})

    def start_handover(self, code: str, seat: int) -> str:
        """A one-time secret that lets another browser take the seat (the old token then dies)."""
        secret = new_secret()
        with self._tx() as db:
            db.execute("UPDATE seats SET handover_hash = ? WHERE code = ? AND seat = ?",
                       (secret_hash(secret), code, seat))
        return secret

    def claim_handover(self, code: str, seat: int, secret: str) -> tuple[str, int]:
        token = new_secret()
        with self._tx() as db:
            row = db.execute("SELECT handover_hash FROM seats WHERE code = ? AND seat = ?", (code, seat)).fetchone()
            if row is None:
                raise WebError(f"seat {seat} is not taken in this room", "seat", 404)
            if not row[0] or not secrets_equal(row[0], secret_hash(secret)):
                raise WebError("this handover link is not valid (already used, or replaced by a newer one)",
                               "handover", 403)
            db.execute("UPDATE seats SET token_hash = ?, handover_hash = NULL WHERE code = ? AND seat = ?",
                       (secret_hash(token), code, seat))
            version = self._bump(db, code, seat, "handover", {})
        return token, version

    def import_room(self, spec: RoomSpec, rolls_used: int,
                    seats: list[tuple[str, SheetState]]) -> tuple[str, list[str], list[str]]:
        """A new room holding exported sheets; returns the code, one fresh token per seat and
        one handover secret per seat (a browser takes its seat with the handover link, as
        from a player's phone). One transaction: a crash never leaves the room without its seats."""
        tokens, handovers = [], []
        with self._tx() as db:
            code = self._insert_room(db, spec, time.time())
            db.execute("UPDATE rooms SET rolls_used = ? WHERE code = ?", (rolls_used, code))
            for k, (name, state) in enumerate(seats):
                token, handover = new_secret(), new_secret()
                tokens.append(token)
                handovers.append(handover)
                db.execute("INSERT INTO seats (code, seat, name, token_hash, crossed, jokers_used, later_columns, "
                           "later_colours, sheet_version, handover_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?)",
                           (code, k, name, secret_hash(token), f"{state.crossed:x}", state.jokers_used,
                            state.later_columns, state.later_colours, secret_hash(handover)))
            self._bump(db, code, None, "import", {"seats": len(seats), "rolls_used": rolls_used})
        return code, tokens, handovers

    def expire(self, older_than_seconds: float, now: float | None = None) -> int:
        """Delete rooms untouched for longer than ``older_than_seconds``; how many went."""
        now = time.time() if now is None else now
        with self._tx() as db:
            cur = db.execute("DELETE FROM rooms WHERE touched < ?", (now - older_than_seconds,))
            return cur.rowcount

    def _bump(self, db, code: str, seat: int | None, kind: str, payload: dict) -> int:
        """Next room version, the edit logged under it, the room touched."""
        now = time.time()
        cur = db.execute("UPDATE rooms SET version = version + 1, touched = ? WHERE code = ? RETURNING version",
                         (now, code))
        row = cur.fetchone()
        if row is None:
            raise WebError("no room with this code (wrong code, or the room expired)", "id", 404)
        db.execute("INSERT INTO edits (code, version, seat, kind, payload, at) VALUES (?, ?, ?, ?, ?, ?)",
                   (code, row[0], seat, kind, json.dumps(payload), now))
        return row[0]


def secrets_equal(a: str, b: str) -> bool:
    """Constant-time comparison of two token hashes."""
    return hmac.compare_digest(a, b)


def _database_path(folder: Path) -> Path:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"{folder}: cannot make the data folder ({exc.strerror or exc})") from None
    path = folder / DB_NAME
    if path.is_dir():
        raise StorageError(f"{path}: a folder, not the rooms database; {FIX_HINT}")
    return path


def _open_checked(target) -> sqlite3.Connection:
    """The write connection, once SQLite's quick check found an existing file whole (a
    damaged page may otherwise be met only when a room on it is read, long after the start).
    The check runs on a read-only connection, so a damaged file is never written to; WAL
    mode and the tables are set up after it."""
    if target != ":memory:" and Path(target).exists():
        _quick_check(sqlite3.connect(Path(target).resolve().as_uri() + "?mode=ro", uri=True))
    db = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={SYNCHRONOUS}")
        db.execute("PRAGMA foreign_keys=ON")
        db.executescript(_SCHEMA)
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
