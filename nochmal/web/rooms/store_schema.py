"""The rooms' SQLite file: its tables, the columns added since the first release (an older
file gains them on start), and opening it: a damaged file is one StorageError line naming it
and what to do, the file left as it is (docs/security.md)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from nochmal.errors import StorageError

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
