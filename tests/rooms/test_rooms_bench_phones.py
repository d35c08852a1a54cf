"""benchmarks/room_phones.py: the benchmark's lean phones read what a real server sends as the
httpx phones do (the module is loaded by file path: benchmarks/ is tooling, not a package).
The oracles are the server's own answers (each acknowledged tap names the room version it
made, the room's GET its versions) and events built by the hub's own sse_message."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

from nochmal.web.rooms.hub import sse_message
from rooms_support import new_room, sit

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "room_phones.py"
TRIES = 600  # a hang guard: polls 0.05 s apart


def load_phones():
    spec = importlib.util.spec_from_file_location("room_phones", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def until(check) -> bool:
    for _ in range(TRIES):
        if check():
            return True
        await asyncio.sleep(0.05)
    return False


def test_lean_phones_see_what_the_httpx_phones_see(server):
    phones = load_phones()
    code = new_room(server.api)
    seat, token = sit(server.api, code, "Anna")

    async def run():
        seen = {kind: [] for kind in phones.PHONES}
        readers = {kind: kind_(server.url) for kind, kind_ in phones.PHONES.items()}
        streams = [asyncio.create_task(reader.stream(f"/api/rooms/{code}/events", None,
                                                     lambda event, ident, into=seen[kind]: into.append((event, ident))))
                   for kind, reader in readers.items()]
        assert await until(lambda: all(any(e == "sync" for e, _ in events) for events in seen.values()))
        lean = phones.LeanPhones(server.url).phone()
        made, sheet_version = [], 0
        for cell in ("H1", "H2", "H3"):
            status, doc, ms = await lean.call("PATCH", f"/api/rooms/{code}/seats/{seat}/sheet",
                                              {"cross": [cell], "version": sheet_version}, token, whole=False)
            assert status == 200 and ms is not None
            sheet_version = doc["sheet_version"]
            made.append(str(doc["version"]))
        status, room, _ = await lean.call("GET", f"/api/rooms/{code}")  # the whole answer, parsed
        assert status == 200 and str(room["version"]) == made[-1]
        assert room["seats"][seat]["sheet_version"] == sheet_version
        assert await until(lambda: all(made[-1] in [i for e, i in events if e == "sheet"] for events in seen.values()))
        for task in streams:
            task.cancel()
        await asyncio.gather(*streams, return_exceptions=True)
        for reader in [*readers.values(), lean]:
            await reader.aclose()
        return seen, made

    seen, made = asyncio.run(run())
    named = {kind: [(e, i) for e, i in events if e] for kind, events in seen.items()}  # (not the comments)
    assert named["lean"] == named["httpx"]
    assert [i for e, i in named["lean"] if e == "sheet"] == made  # every tap once, in the order made


def test_the_lean_stream_reader_takes_events_however_the_bytes_arrive():
    phones = load_phones()
    sent = [("sync", 3, {"a": "b\nc"}), ("sheet", 4, {"svgs": {"0": "<svg>" + "x" * 3000 + "</svg>"}}),
            ("status", None, {"version": 4}), ("resync", None, {})]
    body = b"".join(_chunk(text) for text in ["retry: 300\n\n", ": keep-alive\n\n"] +
                    [sse_message(e, d, i) for e, i, d in sent]) + b"0\r\n\r\n"
    answer = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n" + body
    expected = [(None, None), (None, None)] + [(e, None if i is None else str(i)) for e, i, _ in sent]
    for size in (1, 7, len(answer)):  # byte by byte, in odd pieces, at once

        async def feed():
            got = []
            done = asyncio.get_running_loop().create_future()
            reader = phones.EventReader(lambda event, ident: got.append((event, ident)), done)
            for at in range(0, len(answer), size):
                reader.data_received(answer[at:at + size])
            await done  # the last chunk ends the stream
            return got

        assert asyncio.run(feed()) == expected, size


def _chunk(text: str) -> bytes:
    data = text.encode()
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"
