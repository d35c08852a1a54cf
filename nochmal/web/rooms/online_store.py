"""Online rooms in SQLite: the set-up, the seed and its commitment, the seats' token hashes
and every acknowledged move (docs/rooms.md, online games). Nothing else is stored: the game
is rebuilt by replaying the seed's rolls and the moves through the engine (online_table.py).

Its own file beside the rooms' (``online.sqlite3``), with the same durability: WAL, every
write one transaction committed before the request is answered (store_schema.py), so a
server killed at any moment keeps every move it acknowledged.
"""

from __future__ import annotations

import hmac
import json
import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from nochmal.errors import StorageError
from nochmal.web.errors import WebError
from nochmal.web.rooms.model import new_code, new_secret, secret_hash
from nochmal.web.rooms.online_model import OnlineSetup, commitment
from nochmal.web.rooms.store_schema import SYNCHRONOUS, _quick_check

DB_NAME = "online.sqlite3"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS online_rooms (
    code TEXT PRIMARY KEY,
    setup TEXT NOT NULL,
    seed INTEGER NOT NULL,
    commitment TEXT NOT NULL,
    creator_hash TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0,
    started INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    touched REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS online_seats (
    code TEXT NOT NULL REFERENCES online_rooms(code) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    PRIMARY KEY (code, seat)
);
-- every acknowledged move, in the order acknowledged (n); roll 0-based
CREATE TABLE IF NOT EXISTS online_moves (
    code TEXT NOT NULL REFERENCES online_rooms(code) ON DELETE CASCADE,
    n INTEGER NOT NULL,
    roll INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    move TEXT NOT NULL,
    by TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (code, n),
    UNIQUE (code, roll, seat)
);
CREATE INDEX IF NOT EXISTS online_touched ON online_rooms(touched);
"""


@dataclass(frozen=True)
class KeptMove:
    roll: int  # 0-based
    seat: int
    move: str
    by: str  # "seat", "quiet" (passed for a quiet seat), "bot" (a bot seat, or one standing in)


@dataclass(frozen=True)
class OnlineRecord:
    """One online room as stored."""

    code: str
    setup: OnlineSetup
    seed: int
    commitment: str
    version: int
    started: bool
    names: dict[int, str]
    moves: tuple[KeptMove, ...]


class OnlineStore:
    def __init__(self, data_dir: str | Path | None):
        if data_dir is None:
            target = ":memory:"
        else:
            folder = Path(data_dir)
            folder.mkdir(parents=True, exist_ok=True)
            target = str(folder / DB_NAME)
            if Path(target).exists():
                try:
                    _quick_check(sqlite3.connect(Path(target).resolve().as_uri() + "?mode=ro", uri=True))
                except sqlite3.Error as exc:
                    raise StorageError(f"{target}: not a usable online rooms database ({exc}); move it away "
                                       "to start with no online rooms, or restore a backup") from None
        self._lock = threading.Lock()
        self._db = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={SYNCHRONOUS}")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _tx(self):
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    yield self._db
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
            except sqlite3.DatabaseError as exc:
                raise WebError(f"the online rooms' database failed ({exc}); the server's operator should check "
                               f"{DB_NAME}", None, 500) from None

    # --- reading ---------------------------------------------------------------------------
    def load(self, code: str) -> OnlineRecord:
        with self._tx() as db:
            row = db.execute("SELECT setup, seed, commitment, version, started FROM online_rooms WHERE code = ?",
                             (code,)).fetchone()
            if row is None:
                raise WebError("no online room with this code (wrong code, or the room expired)", "id", 404)
            names = dict(db.execute("SELECT seat, name FROM online_seats WHERE code = ?", (code,)).fetchall())
            moves = tuple(KeptMove(*m) for m in db.execute(
                "SELECT roll, seat, move, by FROM online_moves WHERE code = ? ORDER BY n", (code,)))
        return OnlineRecord(code, OnlineSetup(**json.loads(row[0])), row[1], row[2], row[3], bool(row[4]),
                            names, moves)

    def seat_of(self, code: str, token: str | None) -> int | None:
        """The seat ``token`` holds in room ``code``, or None."""
        if not token:
            return None
        digest = secret_hash(token)
        with self._tx() as db:
            for seat, held in db.execute("SELECT seat, token_hash FROM online_seats WHERE code = ?", (code,)):
                if hmac.compare_digest(held, digest):
                    return seat
        return None

    def check_seat(self, code: str, seat: int, token: str | None) -> None:
        if not token:
            raise WebError("send the seat's token: Authorization: Bearer TOKEN", "authorization", 401)
        if self.seat_of(code, token) != seat:
            raise WebError(f"this token does not hold seat {seat + 1}", "authorization", 403)

    # --- writing ---------------------------------------------------------------------------
    def create(self, setup: OnlineSetup, seed: int, creator: str) -> str:
        now = time.time()
        with self._tx() as db:
            for _ in range(8):
                code = new_code()
                if db.execute("SELECT 1 FROM online_rooms WHERE code = ?", (code,)).fetchone() is None:
                    break
            db.execute("INSERT INTO online_rooms (code, setup, seed, commitment, creator_hash, started, created, "
                       "touched) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (code, json.dumps(setup.to_dict()), seed, commitment(seed), secret_hash(creator),
                        int(not setup.humans()), now, now))
        return code

    def sit(self, code: str, setup: OnlineSetup, name: str, seat: int | None) -> tuple[int, str, int, bool]:
        """A free human seat for ``name``: (seat, token, version, whether the game starts now:
        every human seat has a phone)."""
        token = new_secret()
        with self._tx() as db:
            held = {k for (k,) in db.execute("SELECT seat FROM online_seats WHERE code = ?", (code,))}
            free = [k for k in setup.humans() if k not in held]
            if seat is None:
                if not free:
                    raise WebError("every seat of this game is taken; a player comes back by their own link",
                                   None, 409)
                seat = free[0]
            elif seat >= len(setup.seats) or setup.seats[seat] != "human":
                raise WebError(f"seat {seat + 1} is no person's seat in this game", "seat", 404)
            elif seat in held:
                raise WebError(f"seat {seat + 1} is taken; pick a free seat", "seat", 409)
            db.execute("INSERT INTO online_seats (code, seat, name, token_hash) VALUES (?, ?, ?, ?)",
                       (code, seat, name, secret_hash(token)))
            starts = len(held) + 1 == len(setup.humans())
            version = self._bump(db, code, ", started = 1" if starts else "")
        return seat, token, version, starts

    def keep_move(self, code: str, move: KeptMove) -> int:
        """Keep an acknowledged move (committed before it is answered); the room's new version."""
        with self._tx() as db:
            n = db.execute("SELECT COALESCE(MAX(n), -1) + 1 FROM online_moves WHERE code = ?", (code,)).fetchone()[0]
            try:
                db.execute("INSERT INTO online_moves (code, n, roll, seat, move, by, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                           (code, n, move.roll, move.seat, move.move, move.by, time.time()))
            except sqlite3.IntegrityError:
                raise WebError(f"seat {move.seat + 1} has already chosen in roll {move.roll + 1}", "move", 409) from None
            return self._bump(db, code)

    @staticmethod
    def _bump(db, code: str, also: str = "") -> int:
        db.execute(f"UPDATE online_rooms SET version = version + 1, touched = ?{also} WHERE code = ?",
                   (time.time(), code))
        return db.execute("SELECT version FROM online_rooms WHERE code = ?", (code,)).fetchone()[0]

    def expire(self, seconds: float) -> int:
        with self._tx() as db:
            return db.execute("DELETE FROM online_rooms WHERE touched < ?", (time.time() - seconds,)).rowcount
