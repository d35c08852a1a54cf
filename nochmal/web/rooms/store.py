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
from nochmal.web.rooms.model import (MAX_SEATS, RoomMode, RoomSpec, SheetState, board_of, new_code, new_secret,
                                     secret_hash)
from nochmal.web.rooms.race import completed_items, item_label, later_items, later_masks, scored_later

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
-- who counted each roll (docs/rooms.md, the rolls): an undo says whose count it takes back
CREATE TABLE IF NOT EXISTS counted_rolls (
    code TEXT NOT NULL REFERENCES rooms(code) ON DELETE CASCADE,
    roll INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    PRIMARY KEY (code, roll)
);
-- competitive: the roll on which a seat completed a column (its letter) or a colour (its
-- name), and the seat's manual first/later override (docs/rooms.md, the race)
CREATE TABLE IF NOT EXISTS race (
    code TEXT NOT NULL REFERENCES rooms(code) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    item TEXT NOT NULL,
    roll INTEGER NOT NULL,
    override TEXT,
    PRIMARY KEY (code, seat, item)
);
"""
# columns added to a table after its first release: an older rooms.sqlite3 gains them on start
_ADDED_COLUMNS = (("rooms", "won_on", "INTEGER"),
                  # seats a table can get back (docs/rooms.md, seats): the creator's token (hashed; a
                  # room made before has none), the seat the creator's phone sat in, a seat no phone
                  # holds (freed, its sheet kept), who made a seat's hand-over link and the last one used
                  ("rooms", "creator_hash", "TEXT"), ("rooms", "creator_seat", "INTEGER"),
                  ("seats", "free", "INTEGER NOT NULL DEFAULT 0"), ("seats", "handover_by", "TEXT"),
                  ("seats", "handover_used", "TEXT"))


@dataclass(frozen=True)
class Seat:
    seat: int
    name: str
    state: SheetState
    sheet_version: int
    free: bool = False  # freed: no phone holds it; the sheet and the name wait for the next one to sit


@dataclass(frozen=True)
class RaceMark:
    """A seat completed ``item`` (a column letter or a colour name) on roll ``roll``;
    ``override`` "first" / "later" when the seat set it by hand, else None."""

    seat: int
    item: str
    roll: int
    override: str | None = None


@dataclass(frozen=True)
class RollStep:
    """What a roll counted or undone did: ``changed`` False when it was already so
    (another phone was quicker); ``counter`` the seat that counted ``roll``, if known."""

    version: int
    rolls_used: int
    roll: int
    changed: bool
    counter: int | None


@dataclass(frozen=True)
class SheetTap:
    """An edit relative to a seat's sheet (a sheet is a set of cells): cells to cross, cells to
    uncross (board masks), jokers one more or fewer."""

    cross: int = 0
    uncross: int = 0
    jokers: int = 0


@dataclass(frozen=True)
class TapDone:
    """What a tap did: ``changed`` False when the sheet already showed it; ``message`` says
    which cells were already so ("H4 was already crossed"), else empty."""

    version: int
    sheet_version: int
    changed: bool
    message: str = ""


@dataclass(frozen=True)
class Room:
    code: str
    spec: RoomSpec
    rolls_used: int
    version: int
    created: float
    touched: float
    seats: tuple[Seat, ...]
    won_on: int | None = None  # the roll the mission was won on, kept until a seat reopens it
    last_counter: int | None = None  # the seat that counted roll ``rolls_used``, if known
    race: tuple[RaceMark, ...] = ()
    has_creator: bool = False  # False: a room made before rooms had creators (any seated phone keeps it)
    creator_seat: int | None = None  # the seat the creator's phone sat down in, if it did

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
        row = db.execute("SELECT spec, rolls_used, version, created, touched, won_on, creator_hash IS NOT NULL, "
                         "creator_seat FROM rooms WHERE code = ?", (code,)).fetchone()
        if row is None:
            raise WebError("no room with this code (wrong code, or the room expired)", "id", 404)
        seats = tuple(
            Seat(k, name, SheetState(int(crossed, 16), jokers, lcols, lcolours), sv, bool(free))
            for k, name, crossed, jokers, lcols, lcolours, sv, free in db.execute(
                "SELECT seat, name, crossed, jokers_used, later_columns, later_colours, sheet_version, free "
                "FROM seats WHERE code = ? ORDER BY seat", (code,)))
        counter = db.execute("SELECT seat FROM counted_rolls WHERE code = ? AND roll = ?", (code, row[1])).fetchone()
        race = tuple(RaceMark(*mark) for mark in db.execute(
            "SELECT seat, item, roll, override FROM race WHERE code = ? ORDER BY seat, item", (code,)))
        return Room(code, RoomSpec(**json.loads(row[0])), row[1], row[2], row[3], row[4], seats, row[5],
                    counter[0] if counter else None, race, bool(row[6]), row[7])

    # --- writing ---------------------------------------------------------------------------
    def create_room(self, spec: RoomSpec, now: float | None = None, creator: str | None = None) -> str:
        """A new room; ``creator`` the token of the phone that made it (kept as its hash: it
        may free a seat or make a new link for it, docs/rooms.md, seats)."""
        with self._tx() as db:
            code = self._insert_room(db, spec, time.time() if now is None else now)
            if creator is not None:
                db.execute("UPDATE rooms SET creator_hash = ? WHERE code = ?", (secret_hash(creator), code))
            return code

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

    def add_seat(self, code: str, name: str, seat: int | None = None,
                 creator: str | None = None) -> tuple[int, str, int]:
        """``seat`` (the lowest free one when None) for ``name``: (seat, token, room version).
        A freed seat's sheet goes to the phone that sits in it (docs/rooms.md, seats: the paper
        stays on the table). ``creator``: the token this phone made the room with, if it sent
        one; the room then knows the creator's seat, and a used link names it."""
        token = new_secret()
        with self._tx() as db:
            room = self._room(code)
            limit = min(room.spec.players, MAX_SEATS)
            seat = self._seat_to_take({s.seat: s for s in room.seats if not s.free}, limit, seat)
            if room.seat(seat) is None:
                db.execute("INSERT INTO seats (code, seat, name, token_hash) VALUES (?, ?, ?, ?)",
                           (code, seat, name, secret_hash(token)))
            else:  # "sit", not "join": an undo goes back through the sheet's edits, not to an empty sheet
                db.execute("UPDATE seats SET name = ?, token_hash = ?, free = 0, handover_hash = NULL "
                           "WHERE code = ? AND seat = ?", (name, secret_hash(token), code, seat))
            if creator and self._is_creator(db, code, creator):
                db.execute("UPDATE rooms SET creator_seat = ? WHERE code = ?", (seat, code))
            version = self._bump(db, code, seat, "join" if room.seat(seat) is None else "sit", {"name": name})
        return seat, token, version

    @staticmethod
    def _seat_to_take(held: dict[int, Seat], limit: int, seat: int | None) -> int:
        """The seat a joiner gets: the one picked if no phone holds it, else the lowest free."""
        if seat is None:
            free = [k for k in range(limit) if k not in held]
            if not free:
                raise WebError(f"the room is full ({limit} seat(s)); ask a player to hand a seat over, "
                               "or the room's creator to free one", None, 409)
            return free[0]
        if not 0 <= seat < limit:
            raise WebError(f"there is no seat {seat + 1} in this room (seats 1 to {limit})", "seat", 404)
        if seat in held:
            raise WebError(f"seat {seat + 1} is taken by {held[seat].name}; pick a free seat", "seat", 409)
        return seat

    @staticmethod
    def _is_creator(db, code: str, token: str) -> bool:
        row = db.execute("SELECT creator_hash FROM rooms WHERE code = ?", (code,)).fetchone()
        return bool(row and row[0] and secrets_equal(row[0], secret_hash(token)))

    def keeper(self, code: str, token: str | None) -> str:
        """Who may free a seat or make a new link for it (docs/rooms.md, seats): the phone that
        made the room; in a room made before rooms had creators, any seated phone. Their name
        as a used link says it ("ask Anna"); 401 without a token, 403 with another one."""
        if not token:
            raise WebError("a token is needed: send 'Authorization: Bearer TOKEN'", "authorization", 401)
        with self._read() as db:
            room = self._room(code, db)
            if room.has_creator:
                if not self._is_creator(db, code, token):
                    raise WebError("only the phone that made the room can free a seat or make a new link for it",
                                   "authorization", 403)
                seat = room.seat(room.creator_seat) if room.creator_seat is not None else None
                return seat.name if seat is not None else "the room's creator"
            row = db.execute("SELECT name FROM seats WHERE code = ? AND token_hash = ? AND free = 0",
                             (code, secret_hash(token))).fetchone()
        if row is None:
            raise WebError("only a phone holding a seat of this room can free a seat or make a new link for it",
                           "authorization", 403)
        return row[0]

    def holds(self, code: str, seat: int, token: str | None) -> bool:
        """Whether ``token`` holds ``seat`` (no refusal: a hand-over then asks who else may act)."""
        if not token:
            return False
        with self._read() as db:
            row = db.execute("SELECT token_hash FROM seats WHERE code = ? AND seat = ?", (code, seat)).fetchone()
        return row is not None and secrets_equal(row[0], secret_hash(token))

    def free_seat(self, code: str, seat: int, by: str) -> tuple[str, int]:
        """No phone holds the seat any more (its token and any hand-over link die); its sheet and
        name stay for the next phone to sit in it. Returns (its name, room version)."""
        with self._tx() as db:
            row = db.execute("SELECT name, free FROM seats WHERE code = ? AND seat = ?", (code, seat)).fetchone()
            if row is None or row[1]:
                raise WebError(f"seat {seat + 1} is already free", "seat", 409)
            db.execute("UPDATE seats SET free = 1, token_hash = ?, handover_hash = NULL WHERE code = ? AND seat = ?",
                       (secret_hash(new_secret()), code, seat))
            return row[0], self._bump(db, code, seat, "free", {"by": by})

    def check_token(self, code: str, seat: int, token: str | None) -> None:
        """401 without a token, 403 with a token that does not hold this seat."""
        if not token:
            raise WebError("a seat token is needed: send 'Authorization: Bearer TOKEN'", "authorization", 401)
        with self._read() as db:
            self._room(code, db)
            row = db.execute("SELECT token_hash, name FROM seats WHERE code = ? AND seat = ?", (code, seat)).fetchone()
        if row is None:
            raise WebError(f"seat {seat + 1} is not taken in this room", "seat", 404)
        if not secrets_equal(row[0], secret_hash(token)):
            raise WebError(f"this phone no longer holds {row[1]}'s seat (seat {seat + 1}): it was handed over, "
                           "freed or given a new link", "authorization", 403)

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

    def set_sheet(self, code: str, seat: int, state: SheetState, seen_version: int | None,
                  overrides: dict[str, str | None] | None = None) -> tuple[int, int]:
        """Store a seat's sheet; with ``seen_version`` refuse (409) when another phone on the
        same seat changed it meanwhile. ``overrides`` (a competitive room's, else None): the
        race is marked in the same transaction (_mark_race). Returns (room version, sheet version)."""
        with self._tx() as db:
            row = db.execute("SELECT sheet_version, name FROM seats WHERE code = ? AND seat = ?",
                             (code, seat)).fetchone()
            if row is None:
                raise WebError(f"seat {seat + 1} is not taken in this room", "seat", 404)
            if seen_version is not None and seen_version != row[0]:
                raise WebError(f"{row[1]}'s sheet changed on another phone (sheet version {row[0]}, yours was made "
                               f"on version {seen_version}): read it again before replacing it", "version", 409)
            sheet_version = row[0] + 1
            db.execute("UPDATE seats SET crossed = ?, jokers_used = ?, later_columns = ?, later_colours = ?, "
                       "sheet_version = ? WHERE code = ? AND seat = ?",
                       (f"{state.crossed:x}", state.jokers_used, state.later_columns, state.later_colours,
                        sheet_version, code, seat))
            if overrides is not None:
                self._mark_race(db, code, seat, state, overrides)
            payload = {"crossed": f"{state.crossed:x}", "jokers_used": state.jokers_used,
                       "later_columns": state.later_columns, "later_colours": state.later_colours,
                       "sheet_version": sheet_version}
            version = self._bump(db, code, seat, "sheet", payload)
        return version, sheet_version

    def tap_sheet(self, code: str, seat: int, board, tap: SheetTap, seen_version: int) -> TapDone:
        """A tap applied to the seat's sheet as it is now, in one transaction (docs/rooms.md, two
        phones on one seat): taps on other cells from another phone meanwhile are kept, a tap
        the sheet already shows changes nothing. Refused (409, in the seat's name) only for a
        real conflict: a cell the tap changes that another phone changed the other way since
        the sheet version the tapping phone showed."""
        with self._tx() as db:
            row = db.execute("SELECT crossed, jokers_used, later_columns, later_colours, sheet_version, name "
                             "FROM seats WHERE code = ? AND seat = ?", (code, seat)).fetchone()
            if row is None:
                raise WebError(f"seat {seat + 1} is not taken in this room", "seat", 404)
            now = SheetState(int(row[0], 16), row[1], row[2], row[3])
            _refuse_conflict(board, row[5], now.crossed, tap, _states_since(db, code, seat, seen_version))
            jokers = now.jokers_used + tap.jokers
            if not 0 <= jokers <= board.jokers:
                raise WebError(f"{row[5]} has no joker crossed off to take back" if jokers < 0 else
                               f"{row[5]} has crossed off all {board.jokers} jokers", "jokers", 409)
            after = SheetState((now.crossed | tap.cross) & ~tap.uncross, jokers, now.later_columns, now.later_colours)
            already = _already_words(board, now.crossed, tap)
            if after == now:
                version = db.execute("SELECT version FROM rooms WHERE code = ?", (code,)).fetchone()[0]
                return TapDone(version, row[4], False, already)
            sheet_version = row[4] + 1
            db.execute("UPDATE seats SET crossed = ?, jokers_used = ?, sheet_version = ? WHERE code = ? AND seat = ?",
                       (f"{after.crossed:x}", after.jokers_used, sheet_version, code, seat))
            self._mark_race(db, code, seat, after, {})
            payload = {"crossed": f"{after.crossed:x}", "jokers_used": after.jokers_used,
                       "later_columns": after.later_columns, "later_colours": after.later_colours,
                       "sheet_version": sheet_version,
                       "tap": {"cross": board.cells_of(tap.cross), "uncross": board.cells_of(tap.uncross),
                               "jokers": tap.jokers}}
            version = self._bump(db, code, seat, "sheet", payload)
        return TapDone(version, sheet_version, True, already)

    def undo_sheet(self, code: str, seat: int, seen_version: int) -> tuple[int, int, SheetState, SheetState]:
        """Take back the seat's last sheet edit still in effect (docs/rooms.md, *A mis-tap*):
        the sheet as it was before it, stored as an edit of its own (logged, durable); a
        second undo goes one edit further back, it never redoes. 409 when the phone saw
        another sheet version or nothing is left to take back. Returns (room version, sheet
        version, the sheet before the undo, after it)."""
        with self._tx() as db:
            row = db.execute("SELECT crossed, jokers_used, later_columns, later_colours, sheet_version FROM seats "
                             "WHERE code = ? AND seat = ?", (code, seat)).fetchone()
            if row is None:
                raise WebError(f"seat {seat + 1} is not taken in this room", "seat", 404)
            if seen_version != row[4]:
                raise WebError("this sheet changed on another phone meanwhile: look at it again, then undo",
                               "version", 409)
            found = _before_last_edit(db, code, seat)
            if found is None:
                raise WebError("nothing to undo on this sheet", "undo", 409)
            undone, before = found
            sheet_version = row[4] + 1
            db.execute("UPDATE seats SET crossed = ?, jokers_used = ?, later_columns = ?, later_colours = ?, "
                       "sheet_version = ? WHERE code = ? AND seat = ?",
                       (f"{before.crossed:x}", before.jokers_used, before.later_columns, before.later_colours,
                        sheet_version, code, seat))
            self._mark_race(db, code, seat, before, {})  # a completion undone leaves the race
            payload = {"crossed": f"{before.crossed:x}", "jokers_used": before.jokers_used,
                       "later_columns": before.later_columns, "later_colours": before.later_colours,
                       "sheet_version": sheet_version, "undoes": undone}
            version = self._bump(db, code, seat, "undo", payload)
        return version, sheet_version, SheetState(int(row[0], 16), row[1], row[2], row[3]), before

    def _mark_race(self, db, code: str, seat: int, state: SheetState, overrides: dict[str, str | None]) -> None:
        """Competitive: the seat's completions marked with the roll in play (one more than the
        rolls counted: docs/rooms.md, the roll in play), the ones it no longer has dropped,
        ``overrides`` set by hand, then every seat's first/later values derived again. Nothing
        in a mission room (no race): any change of a sheet may call it."""
        spec_text, rolls_used = db.execute("SELECT spec, rolls_used FROM rooms WHERE code = ?", (code,)).fetchone()
        spec = RoomSpec(**json.loads(spec_text))
        if spec.mode is not RoomMode.COMPETITIVE:
            return
        board = board_of(spec)
        done = completed_items(board, state.crossed)
        marked = {item for (item,) in db.execute("SELECT item FROM race WHERE code = ? AND seat = ?", (code, seat))}
        for item in marked - done:
            db.execute("DELETE FROM race WHERE code = ? AND seat = ? AND item = ?", (code, seat, item))
        for item in sorted(done - marked):
            db.execute("INSERT INTO race (code, seat, item, roll) VALUES (?, ?, ?, ?)", (code, seat, item, rolls_used + 1))
        for item, value in overrides.items():
            db.execute("UPDATE race SET override = ? WHERE code = ? AND seat = ? AND item = ?", (value, code, seat, item))
        self._derive_later(db, code, board)

    def _derive_later(self, db, code: str, board) -> None:
        """Every seat's later columns and colours as the race marks give them (race.py)."""
        marks = [RaceMark(*m) for m in db.execute("SELECT seat, item, roll, override FROM race WHERE code = ?", (code,))]
        later = scored_later(marks)
        for (k,) in db.execute("SELECT seat FROM seats WHERE code = ?", (code,)).fetchall():
            cols, colours = later_masks(later.get(k, set()), board)
            db.execute("UPDATE seats SET later_columns = ?, later_colours = ? WHERE code = ? AND seat = ?",
                       (cols, colours, code, k))

    def _import_race(self, db, code: str, seat: int, state: SheetState, spec: RoomSpec, rolls_used: int) -> None:
        """An imported competitive sheet's completions marked on the imported count (their
        rolls are not in the export), its later values kept by hand."""
        if spec.mode is not RoomMode.COMPETITIVE:
            return
        board = board_of(spec)
        later = later_items(board, state.later_columns, state.later_colours)
        for item in sorted(completed_items(board, state.crossed)):
            db.execute("INSERT INTO race (code, seat, item, roll, override) VALUES (?, ?, ?, ?, ?)",
                       (code, seat, item, max(rolls_used, 1), "later" if item in later else None))

    def set_race_override(self, code: str, seat: int, item: str, value: str | None) -> int:
        """A seat's hand-set first / later (None: as the rolls say) for an item it completed."""
        with self._tx() as db:
            row = db.execute("SELECT 1 FROM race WHERE code = ? AND seat = ? AND item = ?", (code, seat, item)).fetchone()
            if row is None:
                raise WebError(f"{item_label(item)} is not complete on this sheet", "item", 409)
            db.execute("UPDATE race SET override = ? WHERE code = ? AND seat = ? AND item = ?", (value, code, seat, item))
            spec_text = db.execute("SELECT spec FROM rooms WHERE code = ?", (code,)).fetchone()[0]
            self._derive_later(db, code, board_of(RoomSpec(**json.loads(spec_text))))
            return self._bump(db, code, seat, "race", {"item": item, "override": value})

    def step_roll(self, code: str, seat: int, roll: int, undo: bool) -> RollStep:
        """Count roll ``roll`` as done (``undo`` False) or take it back (True), by its number:
        asked twice (two phones, a double tap), the second is a no-op, never a second count."""
        with self._tx() as db:
            used = db.execute("SELECT rolls_used FROM rooms WHERE code = ?", (code,)).fetchone()[0]
            counter = db.execute("SELECT seat FROM counted_rolls WHERE code = ? AND roll = ?", (code, roll)).fetchone()
            counter = counter[0] if counter else None
            target = roll - 1 if undo else roll
            if used == target or (not undo and used > roll) or (undo and used < roll):
                version = db.execute("SELECT version FROM rooms WHERE code = ?", (code,)).fetchone()[0]
                return RollStep(version, used, roll, False, counter)
            if undo and used > roll:
                raise WebError(f"roll {used} was counted after roll {roll}: take that back first", "undo", 409)
            if not undo and used < roll - 1:
                raise WebError(f"roll {used + 1} is being played, not roll {roll}: count that first", "roll", 409)
            db.execute("UPDATE rooms SET rolls_used = ? WHERE code = ?", (target, code))
            if undo:
                db.execute("DELETE FROM counted_rolls WHERE code = ? AND roll >= ?", (code, roll))
            else:
                db.execute("INSERT OR REPLACE INTO counted_rolls (code, roll, seat) VALUES (?, ?, ?)", (code, roll, seat))
                counter = seat
            version = self._bump(db, code, seat, "rolls", {"rolls_used": target, "undo" if undo else "roll": roll})
        return RollStep(version, target, roll, True, counter)

    def record_win(self, code: str, roll: int) -> int | None:
        """Keep "won on roll N" (once: a room already won keeps its roll); the new version, or
        None when it was already recorded."""
        with self._tx() as db:
            if db.execute("UPDATE rooms SET won_on = ? WHERE code = ? AND won_on IS NULL", (roll, code)).rowcount == 0:
                return None
            return self._bump(db, code, None, "won", {"won_on": roll})

    def reopen(self, code: str, seat: int) -> int:
        """Forget the recorded win: a seat asked for it on purpose (the page confirms first)."""
        with self._tx() as db:
            db.execute("UPDATE rooms SET won_on = NULL WHERE code = ?", (code,))
            return self._bump(db, code, seat, "reopen", {})

    def set_rolls(self, code: str, seat: int, rolls_used: int) -> int:
        """The rolls used set outright (the older API body; phones count by number: step_roll)."""
        with self._tx() as db:
            db.execute("UPDATE rooms SET rolls_used = ? WHERE code = ?", (rolls_used, code))
            db.execute("DELETE FROM counted_rolls WHERE code = ? AND roll > ?", (code, rolls_used))
            return self._bump(db, code, seat, "rolls", {"rolls_used": rolls_used})

    def rename(self, code: str, seat: int, name: str) -> int:
        with self._tx() as db:
            db.execute("UPDATE seats SET name = ? WHERE code = ? AND seat = ?", (name, code, seat))
            return self._bump(db, code, seat, "rename", {"name": name})

    def start_handover(self, code: str, seat: int, by: str, reissue: bool = False) -> tuple[str, int | None]:
        """A one-time secret that lets another phone take the seat; ``by`` who made it (a used
        link says whom to ask). The seat's own phone hands it over: its token dies when the link
        is used. ``reissue`` (the room's creator, for a lost phone): the old token dies now, and
        the room's version moves (the old phone is told). Returns (secret, room version or None)."""
        secret = new_secret()
        with self._tx() as db:
            sets = "handover_hash = ?, handover_by = ?" + (", token_hash = ?" if reissue else "")
            args = (secret_hash(secret), by) + ((secret_hash(new_secret()),) if reissue else ())
            if db.execute(f"UPDATE seats SET {sets} WHERE code = ? AND seat = ? AND free = 0",
                          (*args, code, seat)).rowcount == 0:
                raise WebError(f"seat {seat + 1} is free: a phone takes it by sitting down, no link needed",
                               "seat", 409)
            version = self._bump(db, code, seat, "reissue", {"by": by}) if reissue else None
        return secret, version

    def claim_handover(self, code: str, seat: int, secret: str) -> tuple[str, int]:
        """The seat for the phone that opened its hand-over link: a new token, the old one dead.
        A link used before, or replaced, says so and whom to ask (docs/rooms.md, seats)."""
        token = new_secret()
        with self._tx() as db:
            row = db.execute("SELECT handover_hash, handover_used, handover_by, name, free FROM seats "
                             "WHERE code = ? AND seat = ?", (code, seat)).fetchone()
            if row is None:
                raise WebError(f"seat {seat + 1} is not taken in this room", "seat", 404)
            if row[4]:  # freed since the link was made (used or not): the seat waits for any phone
                raise WebError(freed_link_reason(row[3]), "handover", 403)
            if not row[0] or not secrets_equal(row[0], secret_hash(secret)):
                raise WebError(used_link_reason(row[1] is not None and secrets_equal(row[1], secret_hash(secret)),
                                                row[0] is not None, row[2] or row[3]), "handover", 403)
            db.execute("UPDATE seats SET token_hash = ?, handover_hash = NULL, handover_used = ?, free = 0 "
                       "WHERE code = ? AND seat = ?", (secret_hash(token), row[0], code, seat))
            version = self._bump(db, code, seat, "handover", {})
        return token, version

    def import_room(self, spec: RoomSpec, rolls_used: int, seats: list[tuple[str, SheetState]],
                    creator: str | None = None) -> tuple[str, list[str], list[str]]:
        """A new room holding exported sheets; returns the code, one fresh token per seat and
        one handover secret per seat (a browser takes its seat with the handover link, as
        from a player's phone). One transaction: a crash never leaves the room without its seats."""
        tokens, handovers = [], []
        with self._tx() as db:
            code = self._insert_room(db, spec, time.time())
            db.execute("UPDATE rooms SET rolls_used = ?, creator_hash = ? WHERE code = ?",
                       (rolls_used, secret_hash(creator) if creator else None, code))
            for k, (name, state) in enumerate(seats):
                token, handover = new_secret(), new_secret()
                tokens.append(token)
                handovers.append(handover)
                db.execute("INSERT INTO seats (code, seat, name, token_hash, crossed, jokers_used, later_columns, "
                           "later_colours, sheet_version, handover_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?)",
                           (code, k, name, secret_hash(token), f"{state.crossed:x}", state.jokers_used,
                            state.later_columns, state.later_colours, secret_hash(handover)))
                self._import_race(db, code, k, state, spec, rolls_used)
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


def _states_since(db, code: str, seat: int, seen_version: int) -> list[int]:
    """The seat's crossed cells after each sheet edit since sheet version ``seen_version``
    (every edit logs the whole sheet)."""
    rows = db.execute("SELECT payload FROM edits WHERE code = ? AND seat = ? AND kind IN ('sheet', 'undo') "
                      "ORDER BY version", (code, seat))
    states = (json.loads(payload) for (payload,) in rows)
    return [int(data["crossed"], 16) for data in states if data.get("sheet_version", 0) > seen_version]


def _refuse_conflict(board, name: str, crossed: int, tap: SheetTap, since: list[int]) -> None:
    """409 when a cell the tap would change was changed the other way on another phone since the
    tapping phone's version: crossed there and uncrossed again, or the reverse."""
    ever_crossed = ever_clear = 0
    for state in since:
        ever_crossed |= state
        ever_clear |= ~state
    undone = tap.cross & ~crossed & ever_crossed  # the other phone crossed it, then uncrossed it
    redone = tap.uncross & crossed & ever_clear   # the other phone uncrossed it, then crossed it again
    if undone or redone:
        cells = board.cells_of(undone or redone)
        what, again = ("uncrossed", "cross") if undone else ("crossed again", "uncross")
        field = "cross" if undone else "uncross"
        raise WebError(f"{name}'s sheet: {', '.join(cells)} {'was' if len(cells) == 1 else 'were'} just {what} on "
                       f"another phone; tap {'it' if len(cells) == 1 else 'them'} again to {again} "
                       f"{'it' if len(cells) == 1 else 'them'}", field, 409)


def _already_words(board, crossed: int, tap: SheetTap) -> str:
    """The cells a tap asked for that the sheet already showed: "H4 was already crossed"."""
    parts = []
    for mask, what in ((tap.cross & crossed, "crossed"), (tap.uncross & ~crossed, "uncrossed")):
        cells = board.cells_of(mask)
        if cells:
            parts.append(f"{', '.join(cells)} {'was' if len(cells) == 1 else 'were'} already {what}")
    return "; ".join(parts)


def _before_last_edit(db, code: str, seat: int) -> tuple[int, SheetState] | None:
    """The version of the seat's last sheet edit not yet undone, and the sheet before it
    (every edit logs the whole sheet; a join starts from an empty one); None when there is
    none, or the sheet before it is not in the log (an imported seat's first edit)."""
    rows = db.execute("SELECT version, kind, payload FROM edits WHERE code = ? AND seat = ? "
                      "AND kind IN ('join', 'sheet', 'undo') ORDER BY version DESC", (code, seat))
    undone: set[int] = set()
    target = None
    for version, kind, payload in rows:
        data = json.loads(payload)
        if kind == "join":
            return None if target is None else (target, SheetState())
        if target is not None:
            return target, SheetState(int(data["crossed"], 16), data["jokers_used"], data["later_columns"],
                                      data["later_colours"])
        if kind == "undo":
            undone.add(data["undoes"])
        elif version not in undone:
            target = version
    return None


def used_link_reason(used: bool, replaced: bool, by: str) -> str:
    """Why a hand-over link no longer works, in plain words with whom to ask."""
    if used:
        return f"This hand-over link was already used on another phone; ask {by} to make a new one."
    if replaced:
        return f"This hand-over link was replaced by a newer one; ask {by} for the newest."
    return f"This hand-over link no longer works (the seat was freed or handed over since); ask {by} for a new one."


def freed_link_reason(name: str) -> str:
    """A hand-over link of a seat freed since: any phone may sit in it (docs/rooms.md, seats)."""
    return f"This hand-over link no longer works: {name}'s seat was freed; sit down in it here and its sheet comes with it."


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
        _add_columns(db)
    except BaseException:
        db.close()
        raise
    return db


def _add_columns(db: sqlite3.Connection) -> None:
    """An older rooms.sqlite3 gains the columns added since (_ADDED_COLUMNS), its rooms kept."""
    for table, column, kind in _ADDED_COLUMNS:
        have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        if column not in have:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")


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
