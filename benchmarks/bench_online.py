"""Online rooms under load (docs/rooms.md, online games): how fast a move and a roll's end reach
the phones. Prints figures, asserts nothing.

A real server process on loopback (``--pin``: on one core, its children too); ``--rooms``
competitive online rooms of 4 human seats, 4 phones each. Every phone holds its room's event
stream open and plays its seat: whenever its seat may choose, it waits a random pause of
``--pause-min``..``--pause-max`` seconds (a player looking at the dice) and sends the move that
crosses the most cells (``POST .../move``, worked out on the phone's side from the room it
was sent). Each room plays ``--rolls`` rolls. Measured:

- a move to the other phones: from sending the move to each OTHER phone of the room receiving
  the ``online`` event of the version the move's answer names;
- a roll's end to every phone: from sending the move that ends a roll to the LAST phone of
  the room receiving the room with the next roll (its dice, every seat choosing);
- the move's round trip, and the server process's CPU.

Usage:  nice -n 10 python benchmarks/bench_online.py [--rooms 50] [--rolls 8] [--pin]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_rooms import process_cpu, start_server, stop_server, summary  # noqa: E402  (the rooms' bench)
from online_support import API, biggest_move  # noqa: E402  (the tests' player: the biggest move)
from rooms_support import free_port, wait_up  # noqa: E402


async def play(url: str, n_rooms: int, rolls: int, pause: tuple[float, float], seed: int, limit: float) -> dict:
    rng = random.Random(seed)
    arrived: dict[tuple[str, int, int], float] = {}  # (room, version, phone) -> first arrival
    roll_seen: dict[tuple[str, int, int], float] = {}  # (room, roll, phone) -> first arrival of that roll
    sent, ends, trips, errors = [], [], [], []  # sent: (room, version, sender, time); ends: (room, next roll, time)
    limits = httpx.Limits(max_connections=1000, max_keepalive_connections=1000)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as http:
        rooms = []
        for _ in range(n_rooms):
            code = (await http.post(API, json={"mode": "competitive", "seats": ["human"] * 4})).json()["id"]
            tokens = [(await http.post(f"{API}/{code}/seats", json={"name": f"P{k}"})).json()["seat_token"]
                      for k in range(4)]
            rooms.append((code, tokens))
        latest: dict[tuple[str, int], dict] = {}
        changed: dict[tuple[str, int], asyncio.Event] = {(c, k): asyncio.Event() for c, _ in rooms for k in range(4)}
        ready = asyncio.Event()
        connected = 0
        stop = asyncio.Event()

        async def listen(code: str, phone: int) -> None:
            nonlocal connected
            last, first = None, True
            while not stop.is_set():
                headers = {"Last-Event-ID": str(last)} if last is not None else {}
                try:
                    async with http.stream("GET", f"{API}/{code}/events", headers=headers, timeout=None) as res:
                        data = None
                        async for line in res.aiter_lines():
                            if line.startswith("data:"):
                                data = line[5:].strip()
                            elif not line and data:
                                doc, now = json.loads(data), time.perf_counter()
                                data = None
                                # a snapshot after a reconnect brings every version up to its own
                                for v in range((last or doc["version"] - 1) + 1, doc["version"] + 1):
                                    arrived.setdefault((code, v, phone), now)
                                if doc["roll"] is not None:
                                    roll_seen.setdefault((code, doc["roll"], phone), now)
                                before = latest.get((code, phone))
                                if before is not None and "svgs" not in doc:
                                    doc["svgs"] = before.get("svgs")
                                latest[(code, phone)] = doc
                                changed[(code, phone)].set()
                                last = doc["version"]
                                if first:
                                    first = False
                                    connected += 1
                                    if connected == 4 * n_rooms:
                                        ready.set()
                            if stop.is_set():
                                return
                except httpx.HTTPError:
                    await asyncio.sleep(0.3)

        async def player(code: str, tokens: list[str], phone: int) -> None:
            await ready.wait()
            done_roll = 0
            while True:
                doc = latest[(code, phone)]
                if doc["over"] or (doc["roll"] or 0) > rolls:
                    return
                seat = doc["seats"][phone]
                if seat["state"] != "choosing" or doc["roll"] == done_roll:
                    changed[(code, phone)].clear()
                    await changed[(code, phone)].wait()
                    continue
                await asyncio.sleep(rng.uniform(*pause))
                roll = doc["roll"]
                move = biggest_move({**doc, "you": {"offer": {"dice": seat["dice"]}}}, phone)
                start = time.perf_counter()
                try:
                    res = await http.post(f"{API}/{code}/seats/{phone}/move", json={"roll": roll, "move": move},
                                          headers={"Authorization": f"Bearer {tokens[phone]}"})
                except httpx.HTTPError as exc:
                    errors.append(type(exc).__name__)
                    continue
                trips.append((time.perf_counter() - start) * 1000)
                if res.status_code != 200:
                    errors.append(str(res.status_code))
                    done_roll = roll
                    continue
                answer = res.json()
                done_roll = roll
                sent.append((code, answer["version"], phone, start))
                if answer["room"]["roll"] != roll:
                    ends.append((code, answer["room"]["roll"], start))

        cpu = time.process_time()
        listeners = [asyncio.create_task(listen(code, k)) for code, _ in rooms for k in range(4)]
        began = time.perf_counter()
        try:
            await asyncio.wait_for(asyncio.gather(*(player(code, tokens, k) for code, tokens in rooms
                                                    for k in range(4))), limit)
        except asyncio.TimeoutError:
            errors.append("time limit")
        elapsed = time.perf_counter() - began
        await asyncio.sleep(1.0)  # the last events on their way
        stop.set()
        for task in listeners:
            task.cancel()
    moves = [(arrived[(c, v, k)] - t) * 1000 for c, v, s, t in sent for k in range(4) if k != s and (c, v, k) in arrived]
    missing = sum(1 for c, v, s, t in sent for k in range(4) if k != s and (c, v, k) not in arrived)
    next_roll = []
    for c, r, t in ends:
        if r is None:
            continue
        seen = [roll_seen.get((c, r, k)) for k in range(4)]
        if all(x is not None for x in seen):
            next_roll.append((max(seen) - t) * 1000)
    return {"moves": moves, "missing": missing, "next_roll": next_roll, "trips": trips, "errors": errors,
            "sent": len(sent), "ends": len(ends), "elapsed": elapsed, "client_cpu": time.process_time() - cpu}


def _client_process(job: tuple) -> dict:
    return asyncio.run(play(*job))


def run_clients(url: str, args) -> dict:
    """The phones, spread over ``--client-procs`` processes (one Python process parsing 200
    streams would be the bottleneck itself, as in bench_rooms.py)."""
    import multiprocessing

    n = max(1, min(args.client_procs, args.rooms))
    shares = [args.rooms // n + (1 if i < args.rooms % n else 0) for i in range(n)]
    jobs = [(url, share, args.rolls, (args.pause_min, args.pause_max), args.seed + i, args.limit)
            for i, share in enumerate(shares)]
    with multiprocessing.get_context("spawn").Pool(n) as pool:
        parts = pool.map(_client_process, jobs)
    out = {key: [x for p in parts for x in p[key]] for key in ("moves", "next_roll", "trips", "errors")}
    for key in ("missing", "sent", "ends"):
        out[key] = sum(p[key] for p in parts)
    out["elapsed"] = max(p["elapsed"] for p in parts)
    out["client_cpu"] = sum(p["client_cpu"] for p in parts)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=50, help="rooms of 4 phones each (default 50)")
    parser.add_argument("--rolls", type=int, default=8, help="rolls each room plays (default 8)")
    parser.add_argument("--pause-min", type=float, default=0.5, help="least pause before a phone's move, s")
    parser.add_argument("--pause-max", type=float, default=3.0, help="longest pause before a phone's move, s")
    parser.add_argument("--limit", type=float, default=300.0, help="time limit of the run, seconds")
    parser.add_argument("--pin", action="store_true", help="the server (and its children) on core 0")
    parser.add_argument("--client-procs", type=int, default=4, help="processes the phones run in (default 4)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"load: {' '.join(f'{x:.2f}' for x in os.getloadavg())} (1/5/15 min), {os.cpu_count()} cores, "
          f"python {sys.version.split()[0]}")
    print(f"{args.rooms} online rooms x 4 phones, {args.rolls} rolls each, moves {args.pause_min:g}-{args.pause_max:g} s "
          f"after the offer, loopback{', server pinned to core 0' if args.pin else ''}, phones in {args.client_procs} "
          "process(es)")
    data = Path(tempfile.mkdtemp(prefix="bench-online-"))
    port = free_port()
    proc = start_server(data, port)
    try:
        if args.pin:
            os.sched_setaffinity(proc.pid, {0})
        wait_up(f"http://127.0.0.1:{port}")
        cpu = process_cpu(proc.pid)
        r = run_clients(f"http://127.0.0.1:{port}", args)
        cpu = process_cpu(proc.pid) - cpu
    finally:
        stop_server(proc)
    print(f"  {r['sent']} moves acknowledged, {r['ends']} rolls ended in {r['elapsed']:.1f} s; deliveries missing "
          f"{r['missing']}; errors {len(r['errors'])} {sorted(set(r['errors']))[:5]}")
    print(f"  CPU seconds: server {cpu:.1f} ({cpu / max(1, r['sent']) * 1000:.1f} ms per move), clients "
          f"{r['client_cpu']:.1f}")
    print(f"  move -> other phones:        {summary(r['moves'])}")
    print(f"  roll's end -> next roll on every phone: {summary(r['next_roll'])}")
    print(f"  move round trip:             {summary(r['trips'])}")


if __name__ == "__main__":
    main()
