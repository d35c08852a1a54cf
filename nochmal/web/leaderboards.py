"""Puzzle leaderboards (docs/web.md "Leaderboards"): every entry is a game record the server
replayed through the engine (``verified_entry``), so no score on a leaderboard can be typed in.

The store is an interface of five calls (``LeaderboardStore``) with one implementation,
``Leaderboards``, on the rooms' database interface (nochmal/web/rooms/store_db.py): the
SQLite file DATA/leaderboards.sqlite3 by default, the rooms' PostgreSQL database when the
server has one (``nochmal serve --database``, docs/deploy.md). A leaderboard is one puzzle seed, closed or open (a game
that showed every roll is ranked apart); one entry per name on each, a better game replaces it.
Ranking: higher score, then fewer jokers used, then the earlier submission.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from nochmal.board import load_board
from nochmal.errors import NochmalError, SeatNameError
from nochmal.game import Mode
from nochmal.i18n import say
from nochmal.record import GameRecord
from nochmal.rules import RuleSettings
from nochmal.seats import is_human, player_name
from nochmal.web.errors import WebError
from nochmal.web.rooms.store_db import Database
from nochmal.web.rooms.store_open import open_database

DB_NAME = "leaderboards.sqlite3"
PUZZLE_BOARD = "classic"  # the puzzle's sheet (nochmal puzzle, /puzzle): the optima table's too
MAX_RECORD_BYTES = 64 * 1024  # a 30-roll solo record is about 4 kB as the page sends it
MAX_SHOWN = 200  # entries one answer lists at most
LEADERBOARD_SUBMISSIONS = 10  # submissions a minute from one address (docs/security.md "Limits")


@dataclass(frozen=True)
class Entry:
    """One ranked game: who, what it scored, when it came, and its record (the proof)."""

    id: str
    seed: int
    open: bool
    name: str
    score: int
    jokers: int
    submitted: float  # seconds since the epoch
    record: str = ""  # the record's text, read only when asked for (a replay)

    def key(self) -> tuple:
        """Sorts best first: higher score, fewer jokers, earlier."""
        return (-self.score, self.jokers, self.submitted)


@dataclass(frozen=True)
class Outcome:
    """What a submission did: ``entry`` is the name's entry on the leaderboard now (the new one, or
    the better one it already had), ``rank`` its place from 1; ``token`` the secret that lets
    this name submit again (answered only when the name is new on the leaderboard)."""

    entry: Entry
    rank: int
    stored: bool  # the submission is the entry now (new, or better than the name's old one)
    replaced: bool  # it replaced an older, worse entry of the same name
    token: str | None


class LeaderboardStore(Protocol):
    """The store's calls (a second backend implements these)."""

    def submit(self, entry: Entry, token: str | None) -> Outcome: ...

    def ranked(self, seed: int, open_: bool, limit: int, offset: int = 0) -> tuple[int, list[Entry]]: ...

    def entry(self, entry_id: str) -> Entry: ...

    def entries(self, seed: int | None = None) -> list[Entry]: ...

    def remove(self, seed: int, name: str, open_: bool | None = None) -> int: ...


def name_key(name: str) -> str:
    """The form two names are the same in ("Anna" and "anna ")."""
    return player_name(name).casefold()


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


PART = "leaderboards"  # its schema's part in schema_version (store_db.py)
# the steps of its schema (each idempotent: a file made before versioning gains only what it lacks)
STEPS = (lambda schema: schema.script("""
CREATE TABLE IF NOT EXISTS entries (
    id TEXT PRIMARY KEY, seed BIGINT NOT NULL, open INTEGER NOT NULL, name TEXT NOT NULL,
    name_key TEXT NOT NULL, score INTEGER NOT NULL, jokers INTEGER NOT NULL,
    submitted DOUBLE PRECISION NOT NULL, record TEXT NOT NULL, token_hash TEXT NOT NULL,
    UNIQUE (seed, open, name_key));
CREATE INDEX IF NOT EXISTS ranked ON entries (seed, open, score DESC, jokers, submitted)"""),)
_COLUMNS = "id, seed, open, name, score, jokers, submitted"


def _entry(row, record: str = "") -> Entry:
    return Entry(row[0], row[1], bool(row[2]), row[3], row[4], row[5], row[6], record)


class Leaderboards:
    """The leaderboards on a rooms database (SQLite or PostgreSQL: the same SQL). Each call is
    one short transaction (an indexed page of a leaderboard)."""

    def __init__(self, database: Database):
        self.db = database
        database.migrate(PART, STEPS)

    def close(self) -> None:
        self.db.close()

    def submit(self, entry: Entry, token: str | None) -> Outcome:
        key = name_key(entry.name)
        with self.db.tx() as conn:
            old = conn.execute(f"SELECT {_COLUMNS}, token_hash FROM entries WHERE seed=? AND open=? AND name_key=?",
                               (entry.seed, int(entry.open), key)).fetchone()
            if old is not None and (token is None or _hash(token) != old[7]):
                raise WebError(say("the name %(name)s is taken on this leaderboard; choose another",
                                   name=old[3]), "name", 409)
            new_token = secrets.token_urlsafe(16) if old is None else None
            better = old is None or entry.key() < _entry(old).key()
            if better:
                if old is not None:
                    conn.execute("DELETE FROM entries WHERE id=?", (old[0],))
                conn.execute("INSERT INTO entries (id, seed, open, name, name_key, score, jokers, submitted, record, "
                             "token_hash) VALUES (?,?,?,?,?,?,?,?,?,?)",
                             (entry.id, entry.seed, int(entry.open), entry.name, key, entry.score,
                              entry.jokers, entry.submitted, entry.record,
                              _hash(new_token) if new_token else old[7]))
            kept = entry if better else _entry(old)
            rank = self._rank(conn, kept)
        return Outcome(kept, rank, better, better and old is not None, new_token)

    @staticmethod
    def _rank(conn, e: Entry) -> int:
        (ahead,) = conn.execute(
            "SELECT COUNT(*) FROM entries WHERE seed=? AND open=? AND (score>? OR (score=? AND "
            "(jokers<? OR (jokers=? AND submitted<?))))",
            (e.seed, int(e.open), e.score, e.score, e.jokers, e.jokers, e.submitted)).fetchone()
        return ahead + 1

    def ranked(self, seed: int, open_: bool, limit: int, offset: int = 0) -> tuple[int, list[Entry]]:
        """How many entries the leaderboard holds, and ``limit`` of them from place ``offset + 1``."""
        with self.db.read() as conn:
            (count,) = conn.execute("SELECT COUNT(*) FROM entries WHERE seed=? AND open=?",
                                    (seed, int(open_))).fetchone()
            rows = conn.execute(f"SELECT {_COLUMNS} FROM entries WHERE seed=? AND open=? "
                                "ORDER BY score DESC, jokers, submitted LIMIT ? OFFSET ?",
                                (seed, int(open_), limit, offset)).fetchall()
        return count, [_entry(r) for r in rows]

    def entry(self, entry_id: str) -> Entry:
        with self.db.read() as conn:
            row = conn.execute(f"SELECT {_COLUMNS}, record FROM entries WHERE id=?", (entry_id,)).fetchone()
        if row is None:
            raise WebError(say("no leaderboard entry %(id)s", id=repr(entry_id)), "entry", 404)
        return _entry(row, row[7])

    def entries(self, seed: int | None = None) -> list[Entry]:
        """Every entry (of one seed), by seed, closed before open, then ranked."""
        where, args = ("WHERE seed=?", (seed,)) if seed is not None else ("", ())
        with self.db.read() as conn:
            rows = conn.execute(f"SELECT {_COLUMNS} FROM entries {where} "
                                "ORDER BY seed, open, score DESC, jokers, submitted", args).fetchall()
        return [_entry(r) for r in rows]

    def remove(self, seed: int, name: str, open_: bool | None = None) -> int:
        """Delete the name's entry of the seed (both leaderboards unless ``open_`` says which); how many went."""
        key = name_key(name)
        which, args = ("", ()) if open_ is None else (" AND open=?", (int(open_),))
        with self.db.tx() as conn:
            return conn.execute(f"DELETE FROM entries WHERE seed=? AND name_key=?{which}", (seed, key, *args)).rowcount


def open_store(data_dir: Path | None, url: str | None = None) -> Leaderboards:
    """The leaderboards of a server: on the PostgreSQL database at ``url`` (the rooms' one),
    else in the data folder's SQLite file (created when missing), or in memory without one."""
    return Leaderboards(open_database(data_dir, url, DB_NAME))


# --- verification -------------------------------------------------------------------------------
def verified_entry(seed: int, name: str, record_data, now: float | None = None) -> Entry:
    """The entry a submitted record earns on the leaderboard of ``seed``, after the replay; a
    WebError naming the field otherwise (runs in a worker thread: the replay takes a few ms
    to a second). The record must be a finished solo game of that seed as the puzzle plays it
    (the classic sheet, the standard rules), by a human seat."""
    try:
        name = player_name(name if isinstance(name, str) else "")
    except SeatNameError as exc:
        raise WebError(exc.message, "name", 422) from None
    if not isinstance(record_data, dict):
        raise WebError(say("record: expected a game record (a JSON object)"), "record", 422)
    try:
        record = GameRecord.from_json(record_data, "record")
    except NochmalError as exc:
        raise WebError(exc.message, "record", 422) from None
    if record.mode is not Mode.SOLO or len(record.players) != 1:
        raise WebError(say("record: not a solo game; a leaderboard ranks puzzles"), "record.mode", 422)
    if record.seed != seed:
        raise WebError(say("record: a game of seed %(got)s, not of puzzle %(seed)s", got=record.seed, seed=seed),
                       "record.seed", 422)
    if record.board is not load_board(PUZZLE_BOARD) and not record.board.same_layout(load_board(PUZZLE_BOARD)):
        raise WebError(say("record: the puzzle is played on the classic sheet"), "record.board", 422)
    if record.rules != RuleSettings():
        raise WebError(say("record: the puzzle is played by the standard rules"), "record.rules", 422)
    if not is_human(record.players[0]):
        raise WebError(say("record: a bot's game; a leaderboard ranks players"), "record.players", 422)
    try:
        game = record.verify("record")
    except NochmalError as exc:
        raise WebError(exc.message, "record", 422) from None
    if not game.is_terminal():
        raise WebError(say("record: the game is not over; finish the puzzle first"), "record", 422)
    sheet = game.sheets[0]
    return Entry(secrets.token_urlsafe(12), seed, bool(record.extra.get("open")), name, game.scores()[0],
                 sheet.jokers_used, time.time() if now is None else now, record.dumps())
