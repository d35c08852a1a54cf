"""Online rooms in the rooms' database (store_db.py: SQLite or PostgreSQL): the set-up, the
seed and its commitment, the seats' token hashes and every acknowledged move (docs/rooms.md,
online games). Nothing else is stored: the game is rebuilt by replaying the seed's rolls and the moves through the engine (online_table.py).

On SQLite its own file beside the rooms' (``online.sqlite3``); on PostgreSQL the rooms'
database. The same durability: every write one transaction committed before the request is
answered, so a server killed at any moment keeps every move it acknowledged.
"""

from __future__ import annotations

import hmac
import json
import time
from dataclasses import dataclass
from pathlib import Path

from nochmal.i18n import say
from nochmal.web.errors import WebError
from nochmal.web.rooms.model import new_code, new_secret, secret_hash
from nochmal.web.rooms.online_model import OnlineSetup, commitment
from nochmal.web.rooms.store_db import Database, Duplicate
from nochmal.web.rooms.store_open import open_database

DB_NAME = "online.sqlite3"  # the SQLite file in the data folder
PART = "online"  # its name in schema_version (store_db.py)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS online_rooms (
    code TEXT PRIMARY KEY,
    setup TEXT NOT NULL,
    seed BIGINT NOT NULL,
    commitment TEXT NOT NULL,
    creator_hash TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0,
    started INTEGER NOT NULL DEFAULT 0,
    created DOUBLE PRECISION NOT NULL,
    touched DOUBLE PRECISION NOT NULL
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
    at DOUBLE PRECISION NOT NULL,
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


def _tables(schema) -> None:
    schema.script(_SCHEMA)


STEPS = (_tables,)  # a new table or column: a new step at the end (store_db.py)


class OnlineStore:
    def __init__(self, data_dir: str | Path | None = None, url: str | None = None, database: Database | None = None):
        """On ``database``, else on PostgreSQL at ``url``, else on its SQLite file in ``data_dir``
        (None: in memory)."""
        self.db = database if database is not None else open_database(data_dir, url, DB_NAME)
        self.db.migrate(PART, STEPS)

    def close(self) -> None:
        self.db.close()

    def _tx(self, code: str | None = None):
        """A write transaction on online room ``code`` (None: one that makes or deletes rooms)."""
        return self.db.tx(code)

    # --- reading ---------------------------------------------------------------------------
    def load(self, code: str) -> OnlineRecord:
        with self.db.read() as db:
            row = db.execute("SELECT setup, seed, commitment, version, started FROM online_rooms WHERE code = ?",
                             (code,)).fetchone()
            if row is None:
                raise WebError(say("no online room with this code (wrong code, or the room expired)"), "id", 404)
            names = dict(db.execute("SELECT seat, name FROM online_seats WHERE code = ?", (code,)).fetchall())
            moves = tuple(KeptMove(*m) for m in db.execute(
                "SELECT roll, seat, move, by FROM online_moves WHERE code = ? ORDER BY n", (code,)))
        return OnlineRecord(code, OnlineSetup(**json.loads(row[0])), row[1], row[2], row[3], bool(row[4]),
                            names, moves)

    def version(self, code: str) -> int | None:
        """The room's version as stored (None: no such room); another server's move shows here."""
        with self.db.read() as db:
            row = db.execute("SELECT version FROM online_rooms WHERE code = ?", (code,)).fetchone()
        return None if row is None else row[0]

    def seat_of(self, code: str, token: str | None) -> int | None:
        """The seat ``token`` holds in room ``code``, or None."""
        if not token:
            return None
        digest = secret_hash(token)
        with self.db.read() as db:
            for seat, held in db.execute("SELECT seat, token_hash FROM online_seats WHERE code = ?", (code,)):
                if hmac.compare_digest(held, digest):
                    return seat
        return None

    def check_seat(self, code: str, seat: int, token: str | None) -> None:
        if not token:
            raise WebError(say("send the seat's token: Authorization: Bearer TOKEN"), "authorization", 401)
        if self.seat_of(code, token) != seat:
            raise WebError(say("this token does not hold seat %(seat)s", seat=seat + 1), "authorization", 403)

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
        with self._tx(code) as db:
            held = {k for (k,) in db.execute("SELECT seat FROM online_seats WHERE code = ?", (code,))}
            free = [k for k in setup.humans() if k not in held]
            if seat is None:
                if not free:
                    raise WebError(say("every seat of this game is taken; a player comes back by their own link"),
                                   None, 409)
                seat = free[0]
            elif seat >= len(setup.seats) or setup.seats[seat] != "human":
                raise WebError(say("seat %(seat)s is no person's seat in this game", seat=seat + 1), "seat", 404)
            elif seat in held:
                raise WebError(say("seat %(seat)s is taken; pick a free seat", seat=seat + 1), "seat", 409)
            db.execute("INSERT INTO online_seats (code, seat, name, token_hash) VALUES (?, ?, ?, ?)",
                       (code, seat, name, secret_hash(token)))
            starts = len(held) + 1 == len(setup.humans())
            version = self._bump(db, code, ", started = 1" if starts else "")
        return seat, token, version, starts

    def keep_move(self, code: str, move: KeptMove) -> int:
        """Keep an acknowledged move (committed before it is answered); the room's new version."""
        with self._tx(code) as db:
            n = db.execute("SELECT COALESCE(MAX(n), -1) + 1 FROM online_moves WHERE code = ?", (code,)).fetchone()[0]
            try:
                db.execute("INSERT INTO online_moves (code, n, roll, seat, move, by, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                           (code, n, move.roll, move.seat, move.move, move.by, time.time()))
            except Duplicate:
                raise WebError(say("seat %(seat)s has already chosen in roll %(roll)s", seat=move.seat + 1, roll=move.roll + 1),
                               "move", 409) from None
            return self._bump(db, code)

    @staticmethod
    def _bump(db, code: str, also: str = "") -> int:
        db.execute(f"UPDATE online_rooms SET version = version + 1, touched = ?{also} WHERE code = ?",
                   (time.time(), code))
        return db.execute("SELECT version FROM online_rooms WHERE code = ?", (code,)).fetchone()[0]

    def expire(self, seconds: float) -> int:
        with self._tx() as db:
            return db.execute("DELETE FROM online_rooms WHERE touched < ?", (time.time() - seconds,)).rowcount
