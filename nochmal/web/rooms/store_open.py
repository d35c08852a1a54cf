"""Which database a store runs on (store_db.py the interface): PostgreSQL for a
``postgresql://`` URL (``nochmal serve --database``), else the SQLite file in the data folder.
psycopg is imported only here, when a URL asks for it: a SQLite-only server starts without it."""

from __future__ import annotations

from pathlib import Path

from nochmal.errors import StorageError
from nochmal.web.rooms.store_db import Database, is_database_url, redacted


def open_database(data_dir: str | Path | None, url: str | None, file_name: str) -> Database:
    """The database a store runs on: PostgreSQL at ``url`` if given, else the SQLite file
    ``file_name`` in ``data_dir`` (in memory when ``data_dir`` is None). A URL of another kind
    is a StorageError naming ``--database``; psycopg is imported only here, when asked."""
    if url:
        if not is_database_url(url):
            raise StorageError(f"--database {redacted(url)}: not a readable PostgreSQL URL "
                               "(postgresql://USER:PASSWORD@HOST:PORT/DATABASE; leave it out for SQLite in --data)")
        from nochmal.web.rooms.store_pg import PostgresDatabase

        return PostgresDatabase(url)
    from nochmal.web.rooms.store_sqlite import SqliteDatabase

    return SqliteDatabase(None if data_dir is None else Path(data_dir), file_name)
