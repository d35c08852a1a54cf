"""Live updates: one in-process fan-out of server-sent events per room.

Edits are stored by threadpool workers; :meth:`Hub.publish` hands each event to every
subscribed stream's asyncio queue on the event loop (``call_soon_threadsafe``). An event's
``id`` is the room version it describes, so a browser that reconnects sends
``Last-Event-ID`` and gets a full snapshot when it missed anything (api.py).
"""

from __future__ import annotations

import asyncio
import json
import threading


def sse_message(event: str, data: dict, event_id: int | None = None) -> str:
    """One server-sent event as text (data is one JSON line)."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class Hub:
    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self._rooms: dict[str, set[asyncio.Queue]] = {}
        self._lock = threading.Lock()

    def subscribe(self, code: str) -> asyncio.Queue:
        self.loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue(maxsize=1000)
        with self._lock:
            self._rooms.setdefault(code, set()).add(queue)
        return queue

    def unsubscribe(self, code: str, queue: asyncio.Queue) -> None:
        with self._lock:
            subs = self._rooms.get(code)
            if subs is not None:
                subs.discard(queue)
                if not subs:
                    del self._rooms[code]

    def listeners(self, code: str) -> int:
        with self._lock:
            return len(self._rooms.get(code, ()))

    def publish(self, code: str, event: str, data: dict, event_id: int | None = None) -> None:
        """Send to every stream of the room (from any thread); a stream too far behind gets
        ``resync`` instead and catches up with a snapshot."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        message = sse_message(event, data, event_id)
        with self._lock:
            queues = list(self._rooms.get(code, ()))
        for queue in queues:
            loop.call_soon_threadsafe(_offer, queue, message)


def _offer(queue: asyncio.Queue, message: str) -> None:
    try:
        queue.put_nowait(message)
    except asyncio.QueueFull:  # a stalled phone: drop its backlog, it resyncs from a snapshot
        while not queue.empty():
            queue.get_nowait()
        queue.put_nowait(sse_message("resync", {}))
