"""The result store: one SQLite file per campaign.

Table ``meta`` says what the file is: ``format`` (always ``nochmal-batch``), the ``kind``
of campaign (``solve`` or ``bots``), the ``settings_version`` of that kind's task settings
and the campaign ``settings`` (JSON: what every task shares, e.g. the roll count and time
limit). Table ``tasks`` holds one row per finished task: its key (``seed=17``), its own
settings (JSON), ``status`` (``ok`` or ``failed``), the result (JSON) or the error message,
the seconds the task took on its worker, the worker's address and the CP-SAT threads.

A row is committed as soon as its task's result reaches the client, so a crash or Ctrl-C
loses only the tasks in flight; running the same command again skips the stored keys
(failed ones included: ``--retry-failed`` runs them again).

A file that is not a store, a store of another kind or settings version, or with other
campaign settings is refused before anything is written (StoreError).
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from nochmal.errors import NochmalError
from nochmal.fileio import write_target

FORMAT = "nochmal-batch"
# per kind: bump when a task's settings or result change meaning (old stores are refused)
SETTINGS_VERSIONS = {"solve": 1, "bots": 1, "calibrate": 1}
OK, FAILED = "ok", "failed"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (
    key TEXT PRIMARY KEY,
    settings TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    result TEXT,
    error TEXT,
    seconds REAL NOT NULL,
    worker TEXT NOT NULL,
    threads INTEGER NOT NULL,
    finished_at REAL NOT NULL
);
"""


class StoreError(NochmalError):
    """A store file that cannot be used for this campaign."""


@dataclass(frozen=True)
class Row:
    """One finished task as stored."""

    key: str
    settings: dict
    status: str
    result: dict | None
    error: str | None
    seconds: float
    worker: str
    threads: int


def _canonical(data: dict) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def _read_meta(path: Path) -> dict[str, str]:
    """The meta table of an existing file, or StoreError when it is not one of our stores."""
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = con.execute("SELECT key, value FROM meta").fetchall()
        finally:
            con.close()
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path}: not a nochmal batch store ({exc})") from None
    meta = dict(rows)
    if meta.get("format") != FORMAT:
        raise StoreError(f"{path}: not a nochmal batch store (no format {FORMAT!r})")
    return meta


def check_store(path: Path, kind: str, campaign: dict) -> None:
    """Refuse ``path`` for this campaign (StoreError) without writing anything; a missing
    file is fine (it will be created). A FIFO or device is refused before SQLite opens it (a
    FIFO would block the run until something writes to it)."""
    write_target(path)  # a missing folder, a FIFO, a device (through a link too): refused here
    if not path.exists():
        return
    meta = _read_meta(path)
    if meta.get("kind") != kind:
        raise StoreError(f"{path}: a {meta.get('kind')!r} store, not a {kind!r} one")
    version = str(SETTINGS_VERSIONS[kind])
    if meta.get("settings_version") != version:
        raise StoreError(f"{path}: settings version {meta.get('settings_version')}, this nochmal writes "
                         f"version {version}; use a new store")
    if meta.get("settings") != _canonical(campaign):
        raise StoreError(f"{path}: another campaign's settings ({meta.get('settings')}); "
                         f"this run has {_canonical(campaign)}; use a new store")


class Store:
    """An open store (see the module docstring). Use ``Store.open`` or ``Store.read``."""

    def __init__(self, path: Path, con: sqlite3.Connection, kind: str, campaign: dict):
        self.path, self.con, self.kind, self.campaign = path, con, kind, campaign

    @classmethod
    def open(cls, path: Path, kind: str, campaign: dict) -> "Store":
        """Open (or create) the store for this campaign; StoreError when it is another's."""
        check_store(path, kind, campaign)
        con = sqlite3.connect(path)
        con.execute("PRAGMA journal_mode=WAL")  # readers (a report) never block the runner
        # a commit per row without an fsync each: a killed process loses nothing committed,
        # only a power cut may lose the last rows (which the next run then redoes)
        con.execute("PRAGMA synchronous=NORMAL")
        with con:
            con.executescript(_SCHEMA)
            for key, value in (("format", FORMAT), ("kind", kind),
                               ("settings_version", str(SETTINGS_VERSIONS[kind])),
                               ("settings", _canonical(campaign))):
                con.execute("INSERT OR IGNORE INTO meta VALUES (?, ?)", (key, value))
        return cls(path, con, kind, campaign)

    @classmethod
    def read(cls, path: Path) -> "Store":
        """Open an existing store for reading (any kind); StoreError when it is not one."""
        if not path.is_file():
            raise StoreError(f"{path}: no such store file")
        meta = _read_meta(path)
        kind = meta.get("kind", "")
        if kind not in SETTINGS_VERSIONS:
            raise StoreError(f"{path}: unknown kind {kind!r}")
        if meta.get("settings_version") != str(SETTINGS_VERSIONS[kind]):
            raise StoreError(f"{path}: settings version {meta.get('settings_version')}, this nochmal reads "
                             f"version {SETTINGS_VERSIONS[kind]}")
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        return cls(path, con, kind, json.loads(meta["settings"]))

    def close(self) -> None:
        self.con.close()

    def done_keys(self, retry_failed: bool = False) -> Iterator[str]:
        """Keys already stored (without the failed ones when they are to be retried), one at a
        time: the runner keeps only those of its own tasks, compactly (nochmal/batch/runner.py)."""
        query = "SELECT key FROM tasks" + (" WHERE status = 'ok'" if retry_failed else "")
        for (key,) in self.con.execute(query):
            yield key

    def ok_results(self) -> Iterator[tuple[str, dict]]:
        """(key, result) of every row that finished (``--retry-unproven`` picks from them)."""
        for key, result in self.con.execute("SELECT key, result FROM tasks WHERE status = 'ok'"):
            yield key, json.loads(result)

    def record(self, key: str, settings: dict, status: str, result: dict | None, error: str | None,
               seconds: float, worker: str, threads: int) -> None:
        """Store one finished task, committed at once (a failed row is replaced by a retry)."""
        with self.con:
            self.con.execute("INSERT OR REPLACE INTO tasks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             (key, _canonical(settings), status,
                              None if result is None else _canonical(result), error, seconds, worker,
                              threads, time.time()))

    def rows(self) -> list[Row]:
        """All stored rows, in key order (seeds in numeric order: keys sort by their settings)."""
        out = [Row(key, json.loads(settings), status, None if result is None else json.loads(result), error,
                   seconds, worker, threads)
               for key, settings, status, result, error, seconds, worker, threads in self.con.execute(
                   "SELECT key, settings, status, result, error, seconds, worker, threads FROM tasks")]
        return sorted(out, key=lambda r: (r.settings.get("seed", 0), r.key))
