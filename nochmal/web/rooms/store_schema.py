"""The rooms' tables, as migration steps both databases run (store_db.py): step 1 the tables
of the first release, step 2 the columns added since (a file made before versioning gains
only what it lacks). A new column or table is a new step at the end, never an edit of an old
one (a database remembers how many steps it has had: ``schema_version``).

The SQL is the part SQLite and PostgreSQL share: DOUBLE PRECISION and INTEGER, TEXT keys,
crossed cells as hex text (105 bits fit neither database's integer)."""

from __future__ import annotations

DB_NAME = "rooms.sqlite3"  # the SQLite file in the data folder
PART = "rooms"  # its name in schema_version

_TABLES = """
CREATE TABLE IF NOT EXISTS rooms (
    code TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    rolls_used INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL DEFAULT 0,
    created DOUBLE PRECISION NOT NULL,
    touched DOUBLE PRECISION NOT NULL
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
    at DOUBLE PRECISION NOT NULL,
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
# columns added to a table after its first release (migration step 2)
_ADDED_COLUMNS = (("rooms", "won_on", "INTEGER"),
                  # seats a table can get back (docs/rooms.md, seats): the creator's token (hashed; a
                  # room made before has none), the seat the creator's phone sat in, a seat no phone
                  # holds (freed, its sheet kept), who made a seat's hand-over link and the last one used
                  ("rooms", "creator_hash", "TEXT"), ("rooms", "creator_seat", "INTEGER"),
                  ("seats", "free", "INTEGER NOT NULL DEFAULT 0"), ("seats", "handover_by", "TEXT"),
                  ("seats", "handover_used", "TEXT"))


def _first_tables(schema) -> None:
    schema.script(_TABLES)


def _added_columns(schema) -> None:
    for table, column, kind in _ADDED_COLUMNS:
        schema.add_column(table, column, kind)


STEPS = (_first_tables, _added_columns)
