"""Live updates past one process (docs/rooms.md, Several servers): the hub's events through
PostgreSQL, so that a phone on server A sees an edit made through server B.

A published event is written to the ``room_events`` table and announced with ``NOTIFY`` (the
payload is the room code, the row's number and the writing server's mark, never the state);
every server ``LISTEN``s on one connection in a thread of its own and sends the rows it is
told of to its local streams,
the server that made the event too (from memory: its own rows are not read back), so that
every server sends a room's events in one order:
by event id (the room version), a row that arrives early waits up to ``GRACE`` for the ones
before it (a version no event describes, e.g. a win recorded after a tap, never comes: the
wait ends). A row that comes later than that, or a lost listening connection, makes the
room's phones reconnect (``resync``): their stream starts with a snapshot. Nothing here runs on
the event loop: a publish is queued for a writer thread.

The status of a room (status.py) is computed by one process at a time: ``StatusGuard`` holds a
session advisory lock on the room while it computes, and finds a status another process
published for the same version.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
import uuid
from collections import deque
from contextlib import nullcontext
from dataclasses import dataclass, field

from nochmal.web.rooms.hub import QUEUE_SIZE, Hub, StreamLimits
from nochmal.web.rooms.store_db import is_database_url, room_key

log = logging.getLogger(__name__)
CHANNEL = "nochmal_rooms"
GRACE = 0.25  # seconds an event waits for an earlier one still being written by another server (or never: a version no event describes)
KEEP_SECONDS = 600  # events older than this are deleted (a phone behind by more gets a snapshot)
SCHEMA_LOCK = 4_015_001  # advisory lock of the table's creation (two servers starting at once)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS room_events (
    seq BIGSERIAL PRIMARY KEY,
    code TEXT NOT NULL,
    event_id BIGINT,
    event TEXT NOT NULL,
    data TEXT NOT NULL,
    origin TEXT NOT NULL,
    at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS room_events_status ON room_events (code, event, seq);
"""


def connect(url: str):
    import psycopg  # lazily: a SQLite-only server never loads it

    return psycopg.connect(url, autocommit=True)


@dataclass
class RoomOrder:
    """One room's events on this server: the last id sent, rows waiting for an earlier one."""

    sent: int
    waiting: dict[int, list[tuple[str, dict]]] = field(default_factory=dict)
    since: float = 0.0


class SharedHub(Hub):
    """The hub of a server among several on one PostgreSQL database."""

    def __init__(self, url: str, limits: StreamLimits | None = None, queue_size: int = QUEUE_SIZE,
                 channel: str = CHANNEL) -> None:
        super().__init__(limits, queue_size)
        self.url, self.channel = url, channel
        self.origin = uuid.uuid4().hex[:12]
        self.redraw = None  # (code, data, lang) -> data drawn in lang (the service sets it: Rooms.redraw)
        self.noticed: list = []  # (code) -> None each: told of every event of a room, from any server (online_service.py, status.py)
        self.delays: deque[float] = deque(maxlen=10_000)  # seconds from a publish here until the database told of it (benchmarks)
        self._orders: dict[str, RoomOrder] = {}
        self._mine: dict[str, tuple] = {}  # its mark -> an event written here, until the database tells of it
        self._written = 0  # events written here: their marks (origin-number) in the notices
        self._warned_unreadable = False
        self._out: queue.Queue = queue.Queue()
        self._stop = threading.Event()
        with connect(url) as db, db.transaction():
            db.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            db.execute(_SCHEMA)
        self._listening = threading.Event()
        threading.Thread(target=self._write, name="room-events-out", daemon=True).start()
        threading.Thread(target=self._listen, name="room-events-in", daemon=True).start()
        self._listening.wait(10)

    def publish(self, code: str, event: str, data: dict, event_id: int | None = None,
                by_language: dict[str, dict] | None = None) -> None:
        """Queued for the database (from any thread, the event loop too): every server sends
        it to its streams when the database tells it (this one too)."""
        langs = {lang: value for lang, value in (by_language or {}).items() if value is not data}
        drawn = [lang for lang, value in (by_language or {}).items() if value is data]  # the language of data
        stored = {"data": data, "langs": langs, "drawn": by_language is not None, "in": drawn[:1]}
        self._out.put((code, event, event_id, json.dumps(stored, separators=(",", ":")), time.monotonic(), stored))

    def stop(self) -> None:
        self._stop.set()
        self._out.put(None)

    # --- out: the writer thread ---------------------------------------------------------------
    def _write(self) -> None:
        db = None
        while not self._stop.is_set():
            batch = [self._out.get()]
            while not self._out.empty() and len(batch) < 64:
                batch.append(self._out.get_nowait())
            if None in batch:  # stopped
                if db is not None:
                    db.close()
                return
            written = [item for item in batch if isinstance(item, threading.Event)]  # flush() waits on these
            batch = [item for item in batch if not isinstance(item, threading.Event)]
            mine = []
            try:
                db = db or connect(self.url)
                # the notifications go out when the rows are committed; one row is a statement
                # of its own (autocommit: no BEGIN and COMMIT, docs/figures.md, PostgreSQL)
                with db.transaction() if len(batch) > 1 else nullcontext():
                    for code, event, event_id, data, at, stored in batch:  # the row and its notice: one statement
                        self._written += 1
                        mark = f"{self.origin}-{self._written}"  # (known before the row: the notice may come first)
                        self._mine[mark] = (event_id, event, stored)
                        mine.append(mark)
                        db.execute("WITH row AS (INSERT INTO room_events (code, event_id, event, data, origin) "
                                   "VALUES (%s, %s, %s, %s, %s) RETURNING seq) "
                                   "SELECT pg_notify(%s, %s || ' ' || seq || ' ' || %s) FROM row",
                                   (code, event_id, event, data, self.origin, self.channel, code,
                                    f"{at:.6f} {mark}")).fetchone()
            except Exception:  # the database went away: these events are lost, the phones resync
                for mark in mine:
                    self._mine.pop(mark, None)
                log.exception("room events could not be written")
                db = None
                self._resync_all()
                time.sleep(0.5)
            for done in written:
                done.set()

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until what was published before is in the database (whether it is)."""
        done = threading.Event()
        self._out.put(done)
        return done.wait(timeout)

    # --- in: the listener thread --------------------------------------------------------------
    def _listen(self) -> None:
        import psycopg  # (lazily, as connect)

        last_prune = 0.0
        while not self._stop.is_set():
            try:
                with connect(self.url) as listener, connect(self.url) as reader:
                    listener.execute(f"LISTEN {self.channel}")
                    self._listening.set()
                    self._resync_all()  # (re)connected: events may have been missed meanwhile
                    while not self._stop.is_set():
                        for note in listener.notifies(timeout=GRACE / 3, stop_after=1):
                            self._told(reader, note.payload)
                        self._end_waits(time.monotonic() - GRACE)
                        if time.monotonic() - last_prune > 60:
                            last_prune = time.monotonic()
                            reader.execute("DELETE FROM room_events WHERE at < now() - make_interval(secs => %s)",
                                           (KEEP_SECONDS,))
            except psycopg.OperationalError as exc:  # the database is away (restarted, stopped): one line a try
                log.warning("listening for room events failed (%s); listening again", str(exc).splitlines()[0])
                time.sleep(0.5)
            except Exception:
                log.exception("listening for room events failed; listening again")
                time.sleep(0.5)

    def _told(self, reader, payload: str) -> None:
        parts = payload.split(" ")
        if len(parts) != 4 or not parts[1].isdigit():  # another release's notice (docs/deploy.md: upgrade all together)
            self._unreadable(payload)
            return
        code, seq, at, mark = parts
        mine = self._mine.pop(mark, None)  # (event id, event, stored) written here: not read back
        for noticed in self.noticed:  # (before the streams: a room with no phone here may still change here)
            noticed(code)
        if self.listeners(code) == 0:  # no phone of the room here: nothing to send, nothing to order
            self._orders.pop(code, None)
            return
        if mine is not None:
            self.delays.append(time.monotonic() - float(at))
            self._in_order(code, *mine)
            return
        row = reader.execute("SELECT event_id, event, data FROM room_events WHERE seq = %s", (int(seq),)).fetchone()
        if row is None:
            return
        event_id, event, text = row
        self._in_order(code, event_id, event, json.loads(text))

    def _unreadable(self, payload: str) -> None:
        """A notice this server cannot read: said once, and the room it names (its first word)
        takes a snapshot on this server's phones; the listener goes on (listening again would
        lose the other rooms' events and resync every phone)."""
        if not self._warned_unreadable:
            self._warned_unreadable = True
            log.warning("a room event notice this server cannot read (%r): is another release of nochmal using "
                        "this database? (docs/deploy.md)", payload[:80])
        code = payload.split(" ", 1)[0]
        if code and self.listeners(code):
            self._resync(code)

    def _in_order(self, code: str, event_id: int | None, event: str, stored: dict) -> None:
        if event_id is None:  # a status: no id (its data has the version it describes)
            self._send(code, event, None, stored)
            return
        order = self._orders.get(code)
        if order is None:  # the room's first event here: its streams' snapshots say where the order starts
            order = self._orders[code] = RoomOrder(min([event_id - 1] + self._snapshots(code)))
        if event_id < order.sent:  # later than the wait: the room's phones take a snapshot
            self._resync(code)
            return
        if event_id > order.sent + 1:
            if not order.waiting:
                order.since = time.monotonic()
            order.waiting.setdefault(event_id, []).append((event, stored))
            return
        self._send(code, event, event_id, stored)
        order.sent = event_id
        self._flush(code, order, False)

    def _snapshots(self, code: str) -> list[int]:
        """The versions the room's streams here started from (their snapshots; -1: not yet
        known): an event written late by another server (its tap answered first, its row
        committed after a later tap's) is waited for, not taken as sent."""
        with self._lock:
            return [sub.after for sub in self._rooms.get(code, ()) if sub.after >= 0]

    def _flush(self, code: str, order: RoomOrder, ended: bool) -> None:
        """Send the waiting rows that are next in order, or all of them when the wait ended."""
        sent = order.sent
        while order.waiting:
            first = min(order.waiting)
            if first > order.sent + 1 and not ended:
                if order.sent != sent:  # a new wait, for the next gap
                    order.since = time.monotonic()
                return
            for event, stored in order.waiting.pop(first):
                self._send(code, event, first, stored)
            order.sent = first

    def _end_waits(self, before: float) -> None:
        for code, order in list(self._orders.items()):
            if order.waiting and order.since <= before:
                self._flush(code, order, True)

    def _send(self, code: str, event: str, event_id: int | None, stored: dict) -> None:
        data, langs = stored["data"], stored["langs"]
        if stored.get("drawn") and self.redraw is not None:
            for lang in self.languages(code) - set(langs) - set(stored["in"]):  # no phone on the editing server spoke it
                langs[lang] = self.redraw(code, data, lang)
        Hub.publish(self, code, event, data, event_id, langs or None)

    def _resync(self, code: str) -> None:
        Hub.publish(self, code, "resync", {})

    def _resync_all(self) -> None:
        with self._lock:
            codes = list(self._rooms)
        self._orders.clear()
        self._mine.clear()  # (notices lost while listening again never come: a row told of later is read)
        for code in codes:
            self._resync(code)


def shared_hub(database: str | None, limits: StreamLimits) -> tuple[Hub, "StatusGuard | None"]:
    """The rooms' hub and status guard: in-process for SQLite (no database round trip added),
    through PostgreSQL for ``database`` a postgresql:// URL."""
    if not is_database_url(database):
        return Hub(limits), None
    hub = SharedHub(database, limits)
    return hub, StatusGuard(database, hub)


class StatusGuard:
    """One status computation per room among all servers (status.py StatusWorker): a session
    advisory lock on the room while one computes; the status another server published for
    the same room version is taken instead of computing it again. Used by the worker's one
    thread (its own connection)."""

    def __init__(self, url: str, hub: SharedHub | None = None) -> None:
        self.url = url
        self.hub = hub  # its published statuses are written before the lock is let go
        self._db = None

    def _conn(self):
        if self._db is None or self._db.closed:
            self._db = connect(self.url)
        return self._db

    def hold(self, code: str) -> bool:
        """Whether this process may compute the room's status now (then :meth:`release` it)."""
        return bool(self._conn().execute("SELECT pg_try_advisory_lock(%s)", (room_key("status", code),)).fetchone()[0])

    def release(self, code: str) -> None:
        if self.hub is not None and not self.hub.flush():  # the next holder finds this one's status (now())
            log.warning("room %s: its status was not in the database within 10 s; another server may compute "
                        "it again", code)
        self._conn().execute("SELECT pg_advisory_unlock(%s)", (room_key("status", code),))

    def close(self) -> None:
        if self._db is not None:
            self._db.close()

    def now(self, code: str) -> tuple[int | None, dict | None]:
        """The room's version now (None: no such room) and the last status a server published
        for it (``{"version", "status"}``, None: none yet), in one statement: the worker reads
        the room again only when an edit came since its request (status.py)."""
        row = self._conn().execute("SELECT r.version, (SELECT data FROM room_events e WHERE e.code = r.code AND "
                                   "e.event = 'status' ORDER BY seq DESC LIMIT 1) FROM rooms r WHERE r.code = %s",
                                   (code,)).fetchone()
        if row is None:
            return None, None
        return row[0], json.loads(row[1])["data"] if row[1] is not None else None
