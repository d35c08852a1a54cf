"""Live updates: one in-process fan-out of server-sent events per room.

Edits are stored by threadpool workers; :meth:`Hub.publish` hands each event to every
subscribed stream's asyncio queue on the event loop (``call_soon_threadsafe``). An event's
``id`` is the room version it describes, so a browser that reconnects sends
``Last-Event-ID`` and gets a full snapshot when it missed anything (api.py).

What streams may cost is bounded (docs/security.md, *Limits*): open streams per room, per
client address and in all (``StreamLimits``; one over is a 429), and each stream's backlog.
A stream whose client stops reading is dropped, not buffered for: its queue is emptied, it
ends, and the browser's EventSource reconnects and catches up from a snapshot.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import Counter
from dataclasses import dataclass, field

from nochmal.i18n import say
from nochmal.web.errors import WebError

QUEUE_SIZE = 64  # events a stream may fall behind before it is dropped (an edit is one or two)


def sse_message(event: str, data: dict, event_id: int | None = None) -> str:
    """One server-sent event as text (data is one JSON line)."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


@dataclass(frozen=True)
class StreamLimits:
    """How many event streams may be open at once. A room seats at most 6; each player may
    have it open on a phone and a second screen, and a reconnect may overlap the old stream
    for a moment: 32 a room leaves room for that and a few onlookers. One address is one
    device on a table's wifi (a few tabs at most): 16. In all: 256, forty full tables."""

    per_room: int = 32
    per_client: int = 16
    total: int = 256


@dataclass(eq=False)
class Subscription:
    """One open stream: its queue of messages, who opened it, and whether it was dropped."""

    code: str
    client: str
    queue: asyncio.Queue
    lang: str = "en"  # the phone's language: the words drawn into its sheets (docs/rooms.md, Languages)
    dropped: bool = False
    after: int = -1  # the version its snapshot showed (api.py): events up to it are not sent again
    ended: asyncio.Event = field(default_factory=asyncio.Event)  # set when dropped or closed
    released: bool = False


class Hub:
    def __init__(self, limits: StreamLimits | None = None, queue_size: int = QUEUE_SIZE) -> None:
        self.limits = limits or StreamLimits()
        self.queue_size = queue_size
        self.loop: asyncio.AbstractEventLoop | None = None
        self._rooms: dict[str, set[Subscription]] = {}  # the streams an event goes to
        self._open_rooms: Counter = Counter()  # open streams (dropped ones too, until closed)
        self._open_clients: Counter = Counter()
        self._open = 0
        self._lock = threading.Lock()

    def subscribe(self, code: str, client: str, lang: str = "en") -> Subscription:
        """A new stream of room ``code`` for address ``client`` in language ``lang``; 429 when a
        limit is reached. Call on the event loop; every subscription must be released
        (``unsubscribe``)."""
        self.loop = asyncio.get_running_loop()
        with self._lock:
            self._check_room_for(code, client)
            sub = Subscription(code, client, asyncio.Queue(maxsize=self.queue_size), lang)
            self._rooms.setdefault(code, set()).add(sub)
            self._open_rooms[code] += 1
            self._open_clients[client] += 1
            self._open += 1
        return sub

    def _check_room_for(self, code: str, client: str) -> None:
        limits = self.limits
        if self._open_rooms[code] >= limits.per_room:
            raise WebError(say("this room has %(n)s live streams open already (the most a room may have); close a "
                               "tab showing it, or try again shortly", n=limits.per_room), None, 429)
        if self._open_clients[client] >= limits.per_client:
            raise WebError(say("this address has %(n)s live streams open already (the most one address may have); "
                               "close some tabs showing rooms", n=limits.per_client), None, 429)
        if self._open >= limits.total:
            raise WebError(say("the server has %(n)s live streams open (its limit); try again shortly", n=limits.total),
                           None, 429)

    def unsubscribe(self, sub: Subscription) -> None:
        """The stream closed: it stops receiving and no longer counts (idempotent)."""
        with self._lock:
            self._stop_sending(sub)
            if sub.released:
                return
            sub.released = True
            for counter, key in ((self._open_rooms, sub.code), (self._open_clients, sub.client)):
                counter[key] -= 1
                if counter[key] <= 0:
                    del counter[key]
            self._open -= 1
        sub.ended.set()

    def _stop_sending(self, sub: Subscription) -> None:
        subs = self._rooms.get(sub.code)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self._rooms[sub.code]

    def listeners(self, code: str) -> int:
        """Streams of the room that still receive events."""
        with self._lock:
            return len(self._rooms.get(code, ()))

    def languages(self, code: str) -> set[str]:
        """The languages of the room's streams that receive events (none: an empty set)."""
        with self._lock:
            return {sub.lang for sub in self._rooms.get(code, ())}

    def open_streams(self, code: str | None = None, client: str | None = None) -> int:
        """Open streams (dropped ones count until they close): of a room, of an address, or all."""
        with self._lock:
            if code is not None:
                return self._open_rooms[code]
            if client is not None:
                return self._open_clients[client]
            return self._open

    def publish(self, code: str, event: str, data: dict, event_id: int | None = None,
                by_language: dict[str, dict] | None = None) -> None:
        """Send to every stream of the room (from any thread); ``by_language``: a stream whose
        language it holds gets that data instead (a sheet drawn in its words), each written
        once."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        messages = {lang: sse_message(event, value, event_id) for lang, value in (by_language or {}).items()}
        message = sse_message(event, data, event_id)
        with self._lock:
            subs = list(self._rooms.get(code, ()))
        if subs:  # one wake-up of the loop for all of them (docs/figures.md, PostgreSQL)
            loop.call_soon_threadsafe(self._offer_all, [(sub, messages.get(sub.lang, message)) for sub in subs],
                                      event_id)

    def _offer_all(self, offers: list, event_id: int | None) -> None:
        for sub, message in offers:
            self._offer(sub, message, event_id)

    def _offer(self, sub: Subscription, message: str, event_id: int | None = None) -> None:
        """On the loop: queue the message, or drop a stream that stopped reading."""
        if sub.dropped or (event_id is not None and event_id <= sub.after):
            return
        try:
            sub.queue.put_nowait(message)
        except asyncio.QueueFull:
            self.drop(sub)

    def drop(self, sub: Subscription) -> None:
        """End a stalled stream (on the loop): its backlog is freed and it gets no more events;
        the stream reads ``None`` and ends, the browser reconnects and resyncs."""
        sub.dropped = True
        with self._lock:
            self._stop_sending(sub)
        while not sub.queue.empty():
            sub.queue.get_nowait()
        sub.queue.put_nowait(None)
        sub.ended.set()
