"""Several `nochmal serve` processes on one PostgreSQL database (docs/rooms.md, Several
servers): the processes, and a room's live stream read in a thread. Used by
tests/rooms/test_rooms_servers*.py and benchmarks/bench_rooms.py --servers."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import threading
from contextlib import contextmanager

import httpx

from rooms_support import free_port, sse_events, stop, wait_up

SERVE = (
    "import sys, uvicorn\n"
    "from nochmal.web.app import create_app\n"
    "from nochmal.web.rooms import RoomSettings\n"
    "from nochmal.web.rooms.hub import StreamLimits\n"
    "limits = StreamLimits(per_client=10_000, total=10_000)\n"
    "settings = RoomSettings(rooms_per_minute=10_000, streams=limits, database=sys.argv[3])\n"
    "app = create_app(sys.argv[1], room_settings=settings)\n"
    "uvicorn.run(app, host='127.0.0.1', port=int(sys.argv[2]), log_level='warning')\n"
)


def shared_server(data_dir, port: int, database: str = "") -> subprocess.Popen:
    """A server process whose rooms live in ``database`` and whose live updates go through it
    ("": SQLite in ``data_dir``, the hub in the process), without the room-creation rate limit
    and the per-address stream cap (every phone is 127.0.0.1); its log in a temporary file."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    log = tempfile.NamedTemporaryFile(prefix=f"nochmal-server-{port}-", suffix=".log", delete=False)
    return subprocess.Popen([sys.executable, "-c", SERVE, str(data_dir), str(port), database], env=env,
                            stdout=subprocess.DEVNULL, stderr=log)


def until(check, tries: int = 600) -> bool:
    """Ask ``check`` again until it holds (a hang guard of ``tries`` asks, a tenth of a second apart)."""
    for _ in range(tries):
        if check():
            return True
        threading.Event().wait(0.1)
    return False


@contextmanager
def shared_servers(data_dir, database: str, count: int = 2):
    """``count`` servers on one data folder and database, up; their URLs and processes."""
    ports = [free_port() for _ in range(count)]
    procs = [shared_server(data_dir, port, database) for port in ports]
    try:
        urls = [f"http://127.0.0.1:{port}" for port in ports]
        for url in urls:
            wait_up(url)
        yield urls, procs
    finally:
        for proc in procs:
            if proc.poll() is None:
                stop(proc)


class Stream:
    """A room's live stream read in a thread: ``events`` is every (event, id, data) so far,
    ``seen`` is set on each one. ``last_id``: sent as Last-Event-ID (a reconnect). When the
    server ends the stream (after api.py STREAM_SECONDS) it reconnects with the last id it
    has, as the page does; a broken connection (the server died) ends it: ``done``."""

    def __init__(self, url: str, code: str, last_id: int | None = None):
        self.events: list[tuple[str, int | None, dict]] = []
        self.seen = threading.Condition()
        self.error: BaseException | None = None
        self.done = threading.Event()
        self._close = threading.Event()
        self._thread = threading.Thread(target=self._read, args=(f"{url}/api/rooms/{code}/events", last_id),
                                        daemon=True)
        self._thread.start()

    def _read(self, url: str, last_id: int | None) -> None:
        try:
            while not self._close.is_set():
                headers = {"Last-Event-ID": str(last_id)} if last_id is not None else {}
                with httpx.stream("GET", url, headers=headers, timeout=httpx.Timeout(60, connect=10)) as res:
                    for event, event_id, data in sse_events(res.iter_lines()):
                        if self._close.is_set():
                            return
                        with self.seen:
                            self.events.append((event, int(event_id) if event_id is not None else None, data))
                            self.seen.notify_all()
                        last_id = int(event_id) if event_id is not None else last_id
        except BaseException as exc:  # the server died: the test decides what that means
            self.error = exc
        finally:
            self.done.set()
            with self.seen:
                self.seen.notify_all()

    def wait_for(self, predicate, seconds: float = 60) -> bool:
        """Until ``predicate(events)`` holds (``seconds``: a hang guard, not a pace)."""
        with self.seen:
            return self.seen.wait_for(lambda: predicate(self.events) or self.done.is_set(), seconds) and \
                predicate(self.events)

    def ids(self) -> list[int]:
        return [event_id for _, event_id, _ in self.events if event_id is not None]

    def close(self) -> None:
        self._close.set()


class Tappers:
    """Seats tapping one cell more each time (``cells`` in order) through ``url`` as fast as
    they are answered, a thread each, until :meth:`stop` or a request fails (the server died):
    ``acked[seat]`` is the index of the last cell answered 200 (-1: none)."""

    def __init__(self, url: str, code: str, tokens: list[str], cells: list[str]):
        self.url, self.code, self.tokens, self.cells = url, code, tokens, cells
        self.acked = [-1] * len(tokens)
        self.stopped = threading.Event()
        self.threads = [threading.Thread(target=self._tap, args=(seat,), daemon=True) for seat in range(len(tokens))]
        for thread in self.threads:
            thread.start()

    def _answer(self, http: httpx.Client, seat: int, cell: str, sheet_version: int) -> dict | None:
        try:
            res = http.patch(f"{self.url}/api/rooms/{self.code}/seats/{seat}/sheet", json={"cross": [cell],
                             "version": sheet_version}, headers={"Authorization": f"Bearer {self.tokens[seat]}"})
        except httpx.HTTPError:  # the server died mid-request: not acknowledged
            return None
        return res.json() if res.status_code == 200 else None

    def _tap(self, seat: int) -> None:
        sheet_version = 0
        with httpx.Client(timeout=10) as http:
            for k, cell in enumerate(self.cells):
                answer = None if self.stopped.is_set() else self._answer(http, seat, cell, sheet_version)
                if answer is None:
                    return
                sheet_version, self.acked[seat] = answer["sheet_version"], k

    def stop(self) -> None:
        self.stopped.set()
        for thread in self.threads:
            thread.join(30)


class FailoverProxy:
    """A tiny TCP proxy in a thread, what a reverse proxy in front of several servers does
    (docs/rooms.md, Several servers): each new connection goes to the first of ``upstreams``
    (ports) that accepts it, so when one server dies its phones' next requests and
    reconnects reach the other. ``url``: where phones connect."""

    def __init__(self, upstreams: list[int]):
        self.upstreams = upstreams
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.loop = asyncio.new_event_loop()
        started = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(started,), daemon=True)
        self._thread.start()
        started.wait(30)

    def _run(self, started: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        server = self.loop.run_until_complete(asyncio.start_server(self._pass, "127.0.0.1", self.port))
        started.set()
        self.loop.run_forever()
        server.close()

    async def _pass(self, reader, writer) -> None:
        for port in self.upstreams:
            try:
                up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:  # that server is down: the next one
                continue
        else:
            writer.close()
            return

        async def pipe(src, dst) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


__all__ = ["FailoverProxy", "Stream", "Tappers", "free_port", "port_of", "shared_server", "shared_servers"]
