"""The one storage interface of the rooms and the online games (docs/rooms.md, storage): a
``Database`` gives write transactions, consistent reads and versioned migrations; the stores
(store.py, online_store.py) write their SQL once, in the part SQLite and PostgreSQL share
(``?`` placeholders, ``INSERT ... ON CONFLICT``, ``RETURNING``), and run on either database:

- SQLite (store_sqlite.py): a file in the data folder, the embedded default;
- PostgreSQL (store_pg.py): ``nochmal serve --database postgresql://...``, one database for
  several server processes (docs/deploy.md).

Every write transaction on a room is serialised with every other write on that room (SQLite
serialises all writes; PostgreSQL takes one lock per room, so two servers write two rooms at
once) and committed before the request that made it is answered; so a room's version (the
event id of its live stream, hub.py) grows by one per edit in commit order, without gaps or
repeats. A write that names no room (a new room, the expiry) is serialised with the others
of its kind.

Schema: each store is a ``part`` with a list of migration steps; ``schema_version`` keeps the
steps a database has had, and opening it runs the missing ones (each one idempotent, so a
file made before versioning, which has no row there, gains only what it lacks)."""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol
from urllib.parse import urlsplit

from nochmal.errors import StorageError


class Duplicate(Exception):
    """An insert met a row with the same key (either database's integrity error)."""


class Cursor(Protocol):
    rowcount: int

    def fetchone(self) -> tuple | None: ...
    def fetchall(self) -> list[tuple]: ...
    def __iter__(self) -> Iterator[tuple]: ...


class Connection(Protocol):
    """What a store's SQL runs on inside a transaction: ``?`` placeholders on both databases."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor: ...


class Schema(Protocol):
    """What a migration step may do: run DDL both databases read, add a column if missing."""

    def script(self, sql: str) -> None: ...
    def add_column(self, table: str, column: str, kind: str) -> None: ...


Step = Callable[[Schema], None]


class Database(Protocol):
    """A rooms database; ``name`` says which in errors and logs (a file, or a URL without its
    password)."""

    name: str

    def tx(self, key: str | None = None) -> AbstractContextManager[Connection]:
        """A write transaction: serialised with every other write of the same ``key`` (the
        code of the room it writes; None: a write that names no room), committed on leaving
        (rolled back on an exception); a failure of the database is a WebError 500/503."""

    def read(self) -> AbstractContextManager[Connection]:
        """A read: one snapshot for all its statements, never waiting for a writer."""

    def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        """The rows of one read statement, outside any transaction (it is its own snapshot):
        on PostgreSQL no BEGIN and COMMIT of its own, i.e. one statement instead of three
        (docs/figures.md, PostgreSQL: what runs per tap)."""

    def migrate(self, part: str, steps: Sequence[Step]) -> None:
        """The steps of ``part`` the database lacks, in one transaction with its new version;
        a StorageError when the database is of a newer version than ``steps`` knows."""

    def close(self) -> None: ...


SCHEMA_VERSION = """
CREATE TABLE IF NOT EXISTS schema_version (
    part TEXT PRIMARY KEY,
    version INTEGER NOT NULL
)"""


def run_steps(conn: Connection, schema: Schema, name: str, part: str, steps: Sequence[Step]) -> None:
    """The shared half of ``Database.migrate``: read ``part``'s version, run the missing steps,
    write the new version; inside the caller's transaction."""
    schema.script(SCHEMA_VERSION)
    row = conn.execute("SELECT version FROM schema_version WHERE part = ?", (part,)).fetchone()
    have = row[0] if row else 0
    if have > len(steps):
        raise StorageError(f"{name}: its {part} tables are of schema version {have}, this nochmal knows "
                           f"{len(steps)}; run a newer nochmal on it")
    for step in steps[have:]:
        step(schema)
    if have < len(steps):
        conn.execute("INSERT INTO schema_version (part, version) VALUES (?, ?) "
                     "ON CONFLICT (part) DO UPDATE SET version = excluded.version", (part, len(steps)))


def schema_version(database: Database, part: str) -> int:
    """The schema version ``part`` has in ``database`` (0: none yet)."""
    with database.read() as conn:
        row = conn.execute("SELECT version FROM schema_version WHERE part = ?", (part,)).fetchone()
    return row[0] if row else 0


def room_key(kind: str, code: str) -> int:
    """A 32-bit lock key of one room for one purpose (``write``, ``status``, ``bots``): the
    same in every process, so PostgreSQL's advisory locks on it exclude across servers (two
    rooms sharing a key only wait for each other)."""
    return zlib.crc32(f"{kind}:{code}".encode())


def _split(url: str):
    """``url``'s parts, or None when it cannot be read as a URL at all."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a port that is no number raises here
        return parts
    except ValueError:
        return None


def is_database_url(text: str | None) -> bool:
    parts = _split(text) if text else None
    return parts is not None and parts.scheme in ("postgresql", "postgres")


def redacted(url: str) -> str:
    """``url`` without its password (for messages and logs); all of it hidden past the
    scheme when it cannot be read as a URL."""
    parts = _split(url)
    if parts is None:
        return url.split("://", 1)[0] + "://..." if "://" in url else "..."
    query = re.sub(r"(^|&)password=[^&]*", r"\1password=***", parts.query)
    userinfo, at, hostport = parts.netloc.rpartition("@")
    if ":" in userinfo:
        userinfo = userinfo.split(":", 1)[0] + ":***"
    return f"{parts.scheme}://{userinfo}{at}{hostport}{parts.path}" + (f"?{query}" if query else "")
