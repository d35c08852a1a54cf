"""Leaderboard benchmark: a seed's board with 10,000 entries, read and added to over HTTP.

Fills a fresh data folder's leaderboards (nochmal/web/leaderboards.py, SQLite) with N entries
on one seed (each with a real verified record's text, scores and jokers spread as players'
are), starts `nochmal serve` on it as its own process (benchmarks/bench_web.py Server), then
measures, bounded in count:

1. GET /api/puzzles/SEED/leaderboard (the top 50, what the pages ask for): R requests one
   after another, and the same from C concurrent clients;
2. the same board from place 9,001 (``offset``: a deep page);
3. S submissions of real records under new names (the replay in a worker thread, the
   insert, the rank and the board's top ten in the answer).

Each: p50/p95/max of the server's time (the app's Server-Timing header) and of the round trip.

    nice -n 10 python benchmarks/bench_leaderboard.py              # 10,000 entries, 300 reads
    nice -n 10 python benchmarks/bench_leaderboard.py --entries 100000 --json-out lb.json

Figures: docs/figures.md (section Leaderboards), dated in benchmarks/log/.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
from bench_web import Server, server_ms, summary  # noqa: E402  (the one server starter and figures)
from leaderboard_support import human_record  # noqa: E402  (a bot's finished puzzle as a human's record)

from nochmal.web.leaderboards import open_store  # noqa: E402

SEED = 20261204


def fill(data: Path, entries: int, text: str) -> float:
    """``entries`` entries on SEED's closed board; seconds taken."""
    store = open_store(data)
    rng = random.Random(1)
    t0 = time.perf_counter()
    with store.db.tx() as conn:  # one transaction, straight into the table (no replay per entry)
        for k in range(entries):
            conn.execute("INSERT INTO entries VALUES (?,?,?,?,?,?,?,?,?,?)", (
                f"bench{k:011d}", SEED, 0, f"player {k}", f"player {k}", max(-30, min(49, round(rng.gauss(22, 8)))),
                rng.randint(0, 8), 1.7e9 + k, text, "x"))
    store.close()
    return time.perf_counter() - t0


def reads(url: str, path: str, n: int) -> dict:
    server, trip = [], []
    with httpx.Client(base_url=url, timeout=30) as client:
        client.get(path).raise_for_status()  # warm
        for _ in range(n):
            t0 = time.perf_counter()
            resp = client.get(path)
            trip.append((time.perf_counter() - t0) * 1000)
            resp.raise_for_status()
            server.append(server_ms(resp))
    return {"server": summary(server), "round_trip": summary(trip)}


def concurrent_reads(url: str, path: str, clients: int, n: int) -> dict:
    server, trip, lock = [], [], threading.Lock()

    def worker():
        with httpx.Client(base_url=url, timeout=30) as client:
            for _ in range(n):
                t0 = time.perf_counter()
                resp = client.get(path)
                ms = (time.perf_counter() - t0) * 1000
                with lock:
                    trip.append(ms)
                    server.append(server_ms(resp))

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"clients": clients, "server": summary(server), "round_trip": summary(trip)}


def submissions(url: str, records: list[dict]) -> dict:
    server, trip = [], []
    with httpx.Client(base_url=url, timeout=60) as client:
        for k, record in enumerate(records):
            t0 = time.perf_counter()
            resp = client.post(f"/api/puzzles/{SEED}/leaderboard", json={"name": f"new {k}", "record": record})
            trip.append((time.perf_counter() - t0) * 1000)
            resp.raise_for_status()
            server.append(server_ms(resp))
    return {"server": summary(server), "round_trip": summary(trip)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--entries", type=int, default=10_000)
    ap.add_argument("--reads", type=int, default=300, help="sequential reads of each board page")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--submissions", type=int, default=8, help="at most 10: the server's per-address limit a minute")
    ap.add_argument("--json-out", type=Path)
    args = ap.parse_args()
    if not 1 <= args.entries <= 1_000_000 or not 1 <= args.reads <= 10_000 or not 0 <= args.submissions <= 10:
        raise SystemExit("error: --entries 1..1000000, --reads 1..10000, --submissions 0..10")
    bots = ["greedy", "random", "heuristic"]
    records = [human_record(SEED, bots[k % 3]) for k in range(args.submissions)]
    with tempfile.TemporaryDirectory() as data:
        out = {"load": os.getloadavg(), "entries": args.entries}
        out["fill_seconds"] = round(fill(Path(data), args.entries, json.dumps(human_record(SEED, "greedy"))), 2)
        server = Server(Path(data))
        try:
            top = f"/api/puzzles/{SEED}/leaderboard"
            out["top_50"] = reads(server.url, top, args.reads)
            out["top_50_concurrent"] = concurrent_reads(server.url, top, args.clients, max(1, args.reads // args.clients))
            out["from_9001"] = reads(server.url, top + "?offset=9000", args.reads)
            out["submit"] = submissions(server.url, records) if records else None
            out["load_after"] = os.getloadavg()
        finally:
            server.stop()
    text = json.dumps(out, indent=1)
    print(text)
    if args.json_out:
        args.json_out.write_text(text + "\n")


if __name__ == "__main__":
    main()
