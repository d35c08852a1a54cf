"""The simulated phones of benchmarks/bench_rooms.py part 1: 4 a room, each holding the room's
event stream open and tapping its sheet, timed from the tap to every other phone's event.

The phones stand for phones that in real life run elsewhere: on the benchmark's machine their
CPU competes with the servers' for the same cores, an artifact of the benchmark. Two kinds,
``--phones``, doing the same (every tap acknowledged, every delivery to the other phones of
the room timed, missing ones counted, reconnects as a browser):

- ``httpx``: the first phones, httpx for the taps and the streams, every answer parsed as JSON;
- ``lean`` (the default): plain asyncio streams, one kept-alive connection per phone for its
  taps with the request written by hand, and a stream reader that takes only an event's
  ``id:`` and ``event:`` lines (and a tap's answer only its two versions), a tenth of the CPU.

The room setup (rooms, seats, tokens, the warm-up) is httpx for both: it is not timed."""

from __future__ import annotations

import asyncio
import json
import re
import time
from urllib.parse import urlsplit

import httpx

CELLS = [f"{c}{r}" for c in "HGIJFKE" for r in range(1, 8)]  # a growing sheet: column H first
ROLL_IN_PLAY = 21  # the rooms are set to 20 rolls counted (lockstep's 4-seat budget is 56)
TIMING = re.compile(r"app;dur=([0-9.]+)")
VERSIONS = re.compile(rb'\{"version":(\d+),"sheet_version":(\d+),')  # a tap's answer starts so (bodies.py SheetSaved)


def server_ms(res: httpx.Response) -> float | None:
    """The app's own time (the web app's ServerTiming middleware, nochmal/web/app.py)."""
    return timing_ms(res.headers.get("server-timing", ""))


def timing_ms(header: str) -> float | None:
    match = TIMING.search(header)
    return float(match.group(1)) if match else None


def random_dice(rng) -> dict:
    """Six dice as a table rolls them (nochmal.dice's faces, joker faces included)."""
    from nochmal.dice import COLOUR_FACES, NUMBER_FACES

    return {"colours": [rng.choice(COLOUR_FACES) for _ in range(3)],
            "numbers": [rng.choice(NUMBER_FACES) for _ in range(3)]}


class HttpxPhones:
    """The first phones: an httpx client (one connection pool) for a server's phones."""

    errors = (httpx.HTTPError,)

    def __init__(self, url: str):
        limits = httpx.Limits(max_connections=400, max_keepalive_connections=400)
        self.http = httpx.AsyncClient(base_url=url, timeout=30, limits=limits)

    def phone(self) -> "HttpxPhones":
        return self  # the pool is shared

    async def call(self, method: str, path: str, body: dict | None = None, token: str | None = None,
                   whole: bool = True) -> tuple[int, dict | None, float | None]:
        """(status, the answer's JSON when 200, the server's time)."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        res = await self.http.request(method, path, json=body, headers=headers)
        return res.status_code, res.json() if res.status_code == 200 else None, server_ms(res)

    async def stream(self, path: str, last: int | None, on_event) -> None:
        """The stream's events, each as ``on_event(event, id)``, until the server ends the
        stream or ``on_event`` answers True."""
        headers = {"Last-Event-ID": str(last)} if last is not None else {}
        async with self.http.stream("GET", path, headers=headers, timeout=None) as res:
            fields: dict[str, str] = {}
            async for line in res.aiter_lines():
                if line:
                    name, _, value = line.partition(":")
                    fields[name] = value.strip()
                    continue
                if on_event(fields.get("event"), fields.get("id")):
                    return
                fields = {}

    async def aclose(self) -> None:
        await self.http.aclose()


class LeanPhones:
    """The lean phones of a server: a connection per phone for its requests (HTTP/1.1 kept
    alive, written by hand), a connection per stream read chunk by chunk."""

    errors = (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError)

    def __init__(self, url: str):
        parts = urlsplit(url)
        self.host, self.port = parts.hostname, parts.port
        self.reader = self.writer = None

    def phone(self) -> "LeanPhones":
        return LeanPhones(f"http://{self.host}:{self.port}")  # its own connection

    async def _connect(self):
        return await asyncio.open_connection(self.host, self.port)

    def _head(self, method: str, path: str, extra: str = "") -> str:
        return f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n{extra}"

    async def call(self, method: str, path: str, body: dict | None = None, token: str | None = None,
                   whole: bool = True) -> tuple[int, dict | None, float | None]:
        """As :meth:`HttpxPhones.call`; ``whole=False``: of a tap's answer only its versions
        (of another answer nothing)."""
        if self.writer is None or self.reader.at_eof():  # (the server closes an idle connection)
            await self.aclose()
            self.reader, self.writer = await self._connect()
        data = json.dumps(body, separators=(",", ":")).encode() if body is not None else b""
        extra = f"Authorization: Bearer {token}\r\n" if token else ""
        if body is not None:
            extra += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
        try:
            self.writer.write(self._head(method, path, extra).encode() + b"\r\n" + data)
            status, headers, close = await read_head(self.reader)
            answer = await read_body(self.reader, headers)
        except BaseException:
            await self.aclose()
            raise
        if close:
            await self.aclose()
        if status != 200:
            return status, None, timing_ms(headers.get("server-timing", ""))
        if whole:
            return status, json.loads(answer), timing_ms(headers.get("server-timing", ""))
        fast = VERSIONS.match(answer)  # (None: an answer without them, e.g. the room's GET)
        doc = {"version": int(fast.group(1)), "sheet_version": int(fast.group(2))} if fast else None
        return status, doc, timing_ms(headers.get("server-timing", ""))

    async def stream(self, path: str, last: int | None, on_event) -> None:
        """As :meth:`HttpxPhones.stream`, read by an :class:`EventReader` (no task wakes up
        for an event)."""
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        transport, _ = await loop.create_connection(lambda: EventReader(on_event, done), self.host, self.port)
        try:
            extra = f"Last-Event-ID: {last}\r\n" if last is not None else ""
            transport.write(self._head("GET", path, extra + "Accept: text/event-stream\r\n").encode() + b"\r\n")
            await done
        finally:
            transport.close()

    async def aclose(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


class EventReader(asyncio.Protocol):
    """A room's event stream parsed as its bytes arrive: the answer's head, the chunks
    (uvicorn sends a streamed answer chunked), and of each event only its ``event:`` and
    ``id:`` lines (the data line is the last field: hub.py sse_message)."""

    def __init__(self, on_event, done: asyncio.Future):
        self.on_event, self.done = on_event, done
        self.raw = bytearray()  # bytes not parsed yet
        self.text = bytearray()  # the chunks' payload not split into events yet
        self.head = True

    def data_received(self, data: bytes) -> None:
        raw = self.raw
        raw += data
        if self.head:
            end = raw.find(b"\r\n\r\n")
            if end < 0:
                return
            head, self.head = bytes(raw[:end]), False
            del raw[:end + 4]
            if head[9:12] != b"200" or b"chunked" not in head.lower():
                return self._end(ValueError(f"stream {head[9:12].decode()}"))
        at, last = 0, False
        while (line := raw.find(b"\r\n", at)) >= 0:
            size = int(raw[at:line].split(b";")[0], 16)
            if size == 0:  # the stream's end (after the events before it)
                last = True
                break
            if len(raw) < line + 4 + size:
                break
            self.text += raw[line + 2:line + 2 + size]
            at = line + 4 + size
        del raw[:at]
        text, at = self.text, 0
        while (end := text.find(b"\n\n", at)) >= 0:  # (the JSON data holds no line break)
            data = text.find(b"data:", at, end)  # the last field; only the fields before it are read
            event = ident = None
            for field in bytes(text[at:data if data >= 0 else end]).split(b"\n"):
                if field.startswith(b"event:"):
                    event = field[6:].strip().decode()
                elif field.startswith(b"id:"):
                    ident = field[3:].strip().decode()
            at = end + 2
            if self.on_event(event, ident):
                return self._end()
        del text[:at]
        if last:
            self._end()

    def connection_lost(self, exc) -> None:
        self._end(exc or ConnectionResetError("the stream's connection closed"))

    def _end(self, exc: BaseException | None = None) -> None:
        if not self.done.done():
            if exc is None:
                self.done.set_result(None)
            else:
                self.done.set_exception(exc)


async def read_head(reader) -> tuple[int, dict, bool]:
    """An answer's status, headers (lower-case names) and whether the server closes after it."""
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    headers = {}
    for line in head[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(head[0].split(" ", 2)[1]), headers, headers.get("connection", "").lower() == "close"


async def read_body(reader, headers: dict) -> bytes:
    if "content-length" in headers:
        return await reader.readexactly(int(headers["content-length"]))
    parts = []  # chunked
    while size := int((await reader.readuntil(b"\r\n"))[:-2].split(b";")[0], 16):
        parts.append((await reader.readexactly(size + 2))[:-2])
    await reader.readuntil(b"\r\n")
    return b"".join(parts)


PHONES = {"httpx": HttpxPhones, "lean": LeanPhones}


async def status_complete(http, code: str) -> None:
    """Ask for the room until its full status is in (hang guard: 120 s)."""
    end = time.monotonic() + 120
    while time.monotonic() < end:
        if (await http.get(f"/api/rooms/{code}")).json()["status"]["complete"]:
            return
        await asyncio.sleep(0.2)


async def propagation(url: str, n_rooms: int, edits: int, limit: float, seed: int, pause: tuple[float, float],
                      dice_rounds: int, kind: str = "lean", sync=None) -> dict:
    """One process's rooms (bench_rooms.py part 1) with phones of ``kind``; ``sync(step)``
    is awaited with "ready" when every stream is open (the taps start when it returns) and
    "done" when the last tap is answered and its events had a second to arrive (the bench
    reads every process's CPU at both)."""
    import random

    rng = random.Random(seed)
    received: dict[tuple[str, int, int], float] = {}  # (room, version, client) -> arrival of a sheet / dice event
    sent: dict[tuple[str, int], tuple[float, int]] = {}  # (room, version) -> (send time, sender): taps
    dice_sent: dict[tuple[str, int], float] = {}  # (room, version) -> send time: dice entered
    taps, put_server, get_server, dice_answers, dice_server, errors = [], [], [], [], [], []
    urls = url.split(",")  # --servers: phone c of room i on server (i + c) mod N, a room on all of them
    servers = [PHONES[kind](u) for u in urls]
    async with httpx.AsyncClient(base_url=urls[0], timeout=30) as http:  # the setup, untimed
        on = {}  # (room, client) -> its server's index
        rooms = []
        for _ in range(n_rooms):
            code = (await http.post("/api/rooms", json={"mission": "lockstep", "difficulty": "normal",
                                                        "players": 4})).json()["id"]
            tokens = []
            for k in range(4):
                tokens.append((await http.post(f"/api/rooms/{code}/seats", json={"name": f"P{k}"})).json()["seat_token"])
            await http.put(f"/api/rooms/{code}/rolls", json={"rolls_used": ROLL_IN_PLAY - 1},
                           headers={"Authorization": f"Bearer {tokens[0]}"})
            rooms.append((code, tokens))
            for c in range(4):
                on[(code, c)] = (len(rooms) + c) % len(urls)
        for code, _ in rooms:  # warm-up: the status child started and every room's status computed once
            await status_complete(http, code)
        for other in urls[1:]:  # and every other server's status child, by a room of its own (the
            # rooms above were worked out by the first server: another takes a status published
            # for the same version, so its child would start, a second of CPU, in the timed part)
            async with httpx.AsyncClient(base_url=other, timeout=30) as there:
                await status_complete(there, (await there.post("/api/rooms", json={
                    "mission": "lockstep", "difficulty": "normal", "players": 4})).json()["id"])
        if dice_rounds:  # warm-up: the advice child started (by one entry, untimed)
            code, tokens = rooms[0]
            await http.put(f"/api/rooms/{code}/dice", json={"roll": ROLL_IN_PLAY, "dice": random_dice(rng)},
                           headers={"Authorization": f"Bearer {tokens[0]}"}, timeout=120)
    phones = {key: servers[index].phone() for key, index in on.items()}  # a tapping phone's connection
    dialers = {key: servers[index].phone() for key, index in on.items()} if dice_rounds else {}  # its dice's
    ready, go = asyncio.Event(), asyncio.Event()
    connected = 0

    async def listen(code: str, client: int) -> None:
        """One phone's stream; it reconnects like a browser (Last-Event-ID) and a snapshot
        delivers every version up to its own (a browser then loads the dice too)."""
        last = None
        first = True
        server = servers[on[(code, client)]]

        def seen(event: str | None, ident: str | None) -> bool:
            nonlocal connected, first, last
            if event == "resync":  # as the page: a new stream, from a snapshot
                last = None
                return True
            if ident is None or not ident.isdigit():
                return False
            version, now = int(ident), time.perf_counter()
            if event == "sync":
                for v in range(1, version + 1):  # (a snapshot after a resync: earlier ones too)
                    received.setdefault((code, v, client), now)
                if first:
                    first = False
                    connected += 1
                    if connected == 4 * n_rooms:
                        ready.set()
            elif event in ("sheet", "dice"):
                received.setdefault((code, version, client), now)
            if event in ("sync", "sheet", "rolls", "dice"):
                last = max(last or 0, version)
            return False

        while True:
            try:
                await server.stream(f"/api/rooms/{code}/events", last, seen)
            except server.errors:
                await asyncio.sleep(0.3)

    async def tap(code: str, tokens: list[str], client: int) -> None:
        """A player crossing one cell more each time: the tap the room page sends (PATCH)."""
        await go.wait()
        phone = phones[(code, client)]
        seen = 0  # the seat's sheet version the phone shows (a real conflict is refused)
        for k in range(edits):
            await asyncio.sleep(rng.uniform(*pause))
            start = time.perf_counter()
            try:
                status, doc, ms = await phone.call("PATCH", f"/api/rooms/{code}/seats/{client}/sheet",
                                                   {"cross": [CELLS[k]], "version": seen}, tokens[client], whole=False)
            except phone.errors as exc:  # e.g. a kept-alive connection the server had closed
                errors.append(type(exc).__name__)
                try:  # the tap may have landed: read the version again
                    seen = (await phone.call("GET", f"/api/rooms/{code}"))[1]["seats"][client]["sheet_version"]
                except phone.errors:
                    pass
                continue
            taps.append((time.perf_counter() - start) * 1000)
            if status == 200:
                if doc is None:
                    raise RuntimeError("a tap's answer no longer starts with its versions (bodies.py SheetSaved)")
                seen = doc["sheet_version"]
                sent[(code, doc["version"])] = (start, client)
                if ms is not None:
                    put_server.append(ms)
            else:
                errors.append(f"tap {status}")
            if client == 0 and k % 3 == 0:
                try:
                    status, _, ms = await phone.call("GET", f"/api/rooms/{code}", whole=False)
                except phone.errors as exc:
                    errors.append(type(exc).__name__)
                    continue
                if ms is not None:
                    get_server.append(ms)

    async def roll(code: str, tokens: list[str]) -> None:
        """The dice of the roll in play entered ``dice_rounds`` times (a later entry replaces
        the earlier), by a phone of the room taken in turn, while the others tap."""
        await go.wait()
        for k in range(dice_rounds):
            await asyncio.sleep(rng.uniform(*pause) * 2)
            phone = dialers[(code, k % 4)]
            start = time.perf_counter()
            try:
                status, doc, ms = await phone.call("PUT", f"/api/rooms/{code}/dice",
                                                   {"roll": ROLL_IN_PLAY, "dice": random_dice(rng)}, tokens[k % 4])
            except phone.errors as exc:
                errors.append(type(exc).__name__)
                continue
            if status != 200:
                errors.append(f"dice {status}")
                continue
            dice_answers.append((time.perf_counter() - start) * 1000)
            dice_sent[(code, doc["version"])] = start
            if ms is not None:
                dice_server.append(ms)

    listeners = [asyncio.create_task(listen(code, c)) for code, _ in rooms for c in range(4)]
    players = [tap(code, tokens, c) for code, tokens in rooms for c in range(4)]
    rollers = [roll(code, tokens) for code, tokens in rooms]

    async def start() -> None:
        await ready.wait()
        if sync is not None:
            await sync("ready")
        go.set()

    started = time.perf_counter()
    try:
        await asyncio.wait_for(start(), limit)
        started = time.perf_counter()
        await asyncio.wait_for(asyncio.gather(*players, *rollers), limit)
    except asyncio.TimeoutError:
        print(f"  (stopped at the {limit:g} s limit)")
    elapsed = time.perf_counter() - started  # from the first tap to the last one answered
    await asyncio.sleep(1.0)  # let the last events arrive
    if sync is not None:
        await sync("done")
    for task in listeners:
        task.cancel()
    await asyncio.gather(*listeners, return_exceptions=True)
    for server in {id(p): p for p in [*servers, *phones.values(), *dialers.values()]}.values():
        await server.aclose()
    delays, cross, missing = [], [], 0
    for (code, version), (start_, sender) in sent.items():
        for client in range(4):
            if client == sender:
                continue
            arrival = received.get((code, version, client))
            if arrival is None:
                missing += 1
            else:
                delays.append((arrival - start_) * 1000)
                if on[(code, client)] != on[(code, sender)]:  # made through one server, seen on another
                    cross.append(delays[-1])
    advice, dice_missing = [], 0  # per entry: until EVERY phone of the room has the advice event
    for (code, version), start_ in dice_sent.items():
        arrivals = [received.get((code, version, client)) for client in range(4)]
        if None in arrivals:
            dice_missing += 1
        else:
            advice.append((max(arrivals) - start_) * 1000)
    return {"delays": delays, "cross": cross, "missing": missing, "taps": taps, "put_server": put_server,
            "get_server": get_server, "edits": len(sent), "elapsed": elapsed, "errors": errors,
            "advice": advice, "dice_answers": dice_answers, "dice_server": dice_server,
            "dice": len(dice_sent), "dice_missing": dice_missing}


def _phones_process(job: tuple, barrier, results) -> None:
    """A process of phones; at "ready" and "done" it meets the bench at ``barrier`` twice
    (the bench reads the CPU times between the two meetings)."""
    async def sync(step: str) -> None:
        await asyncio.to_thread(barrier.wait)
        await asyncio.to_thread(barrier.wait)

    url, rooms, edits, limit, seed, pause, dice_rounds, kind = job
    try:
        results.put(asyncio.run(propagation(url, rooms, edits, limit, seed, pause, dice_rounds, kind, sync)))
    except BaseException as exc:
        barrier.abort()
        results.put({"failed": repr(exc)})


def run_phones(url: str, args, sample) -> dict:
    """The phones, spread over ``--client-procs`` processes (one Python process cannot
    parse 80 streams and time them without becoming the bottleneck itself); ``sample(step,
    pids)`` is called with "ready" once every phone's stream is open, before the first tap,
    and with "done" after the last tap's events (``pids``: the phones' processes)."""
    import multiprocessing
    import threading

    ctx = multiprocessing.get_context("spawn")
    n = max(1, min(args.client_procs, args.rooms))
    shares = [args.rooms // n + (1 if i < args.rooms % n else 0) for i in range(n)]
    barrier, results = ctx.Barrier(n + 1, timeout=args.limit + 300), ctx.Queue()
    procs = [ctx.Process(target=_phones_process, args=((url, share, args.edits, args.limit, args.seed + i,
                                                        (args.pause_min, args.pause_max), args.dice, args.phones),
                                                       barrier, results), daemon=True)
             for i, share in enumerate(shares)]
    for proc in procs:
        proc.start()
    pids = [proc.pid for proc in procs]
    try:
        for step in ("ready", "done"):
            barrier.wait()  # every process there
            sample(step, pids)
            barrier.wait()  # let them go on
    except threading.BrokenBarrierError:  # a process failed: say why
        raise RuntimeError(f"a phones' process failed: {results.get(timeout=30)}") from None
    parts = [results.get(timeout=120) for _ in procs]
    for proc in procs:
        proc.join(30)
    failed = [p["failed"] for p in parts if "failed" in p]
    if failed:
        raise RuntimeError(f"a phones' process failed: {failed}")
    out = {key: [] for key in ("delays", "cross", "taps", "put_server", "get_server", "errors", "advice", "dice_answers",
                               "dice_server")}
    for part in parts:
        for key in out:
            out[key] += part[key]
    for key in ("missing", "edits", "dice", "dice_missing"):
        out[key] = sum(p[key] for p in parts)
    out["elapsed"] = max(p["elapsed"] for p in parts)
    return out
