"""Upload benchmark: what a large uploaded record costs the server, and whether uploads stall it.

Builds the largest record the reader accepts in seats and rolls: a competitive game of 6
seats with a roll limit of 1000 (nochmal.rules.MAX_GAME_ROLLS), every seat passing every
roll (a pass is always legal, so the game runs to its limit), written as compact JSON
(about 260 kB). Starts `nochmal serve` as its own process on a free loopback port with a
fresh data folder, uploads that record N times in a row (POST /api/records) while another
thread polls GET /api/health every ~20 ms, and prints:

- the server's resident memory (VmRSS of /proc/PID/status) before and after the uploads,
  and the growth per upload;
- the round trip of each upload (p50 / max);
- then, as the replay page does, the last turn of the last upload (its replay cursor is
  built) and the turn before it (one step back), round trips;
- the health round trips during the uploads: p50 / p95 / max and how many exceeded 100 ms,
  and the same for IDLE_SECONDS of health alone before them (what the machine's load adds).

    nice python benchmarks/bench_uploads.py                 # 20 uploads
    nice python benchmarks/bench_uploads.py --uploads 20 --json-out uploads.json

N stays within the server's limits (60 uploads a minute, 20 MB a day from one address),
so nothing is refused. Figures go to benchmarks/RESULTS.md (section Web) by hand, with the
command and `uptime`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path

import httpx

from nochmal.board import load_board
from nochmal.game import Game, Mode
from nochmal.move import Move
from nochmal.play import play_game
from nochmal.record import GameRecord
from nochmal.rules import MAX_GAME_ROLLS

from bench_web import Server, pct  # benchmarks/ is the script's folder: one server starter

SEATS = 6
HEALTH_EVERY = 0.02  # seconds between health polls
IDLE_SECONDS = 3.0  # health polled alone first, for comparison


class Passer:
    """An agent that passes every decision (always legal): the game lasts its roll limit."""

    name = "passer"

    def choose(self, game: Game) -> Move:
        return Move.parse("pass")


def big_record(rolls: int = MAX_GAME_ROLLS, seats: int = SEATS, seed: int = 1) -> bytes:
    """The record of ``rolls`` rolls and ``seats`` passing seats, as compact JSON."""
    game = Game(load_board("classic"), seats, mode=Mode.COMPETITIVE, roll_limit=rolls)
    play_game(game, [Passer()] * seats, seed)
    record = GameRecord.from_game(game, [f"human:P{p + 1}" for p in range(seats)], seed)
    return json.dumps(record.to_json()).encode()


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise SystemExit(f"no VmRSS for process {pid}")


def poll_health(url: str, stop: threading.Event, out: list[float]) -> None:
    """Round trips of GET /api/health, one every HEALTH_EVERY seconds until ``stop``."""
    with httpx.Client(base_url=url, timeout=60) as client:
        while not stop.is_set():
            t0 = time.perf_counter()
            client.get("/api/health").raise_for_status()
            out.append((time.perf_counter() - t0) * 1000)
            stop.wait(HEALTH_EVERY)


def health_alone(url: str, seconds: float) -> list[float]:
    """Health round trips with nothing else asked of the server: the machine's own noise."""
    out: list[float] = []
    stop = threading.Event()
    poller = threading.Thread(target=poll_health, args=(url, stop, out), daemon=True)
    poller.start()
    time.sleep(seconds)
    stop.set()
    poller.join(60)
    return out


def latency(values: list[float]) -> dict:
    return {"n": len(values), "p50": round(pct(values, 0.5), 1), "p95": round(pct(values, 0.95), 1),
            "max": round(max(values), 1) if values else None, "over_100ms": sum(v > 100 for v in values)}


def run(uploads: int) -> dict:
    data = big_record()
    with tempfile.TemporaryDirectory(prefix="nochmal-bench-uploads-") as tmp:
        server = Server(Path(tmp))
        try:
            with httpx.Client(base_url=server.url, timeout=120) as client:
                client.get("/api/records/AAAAAAAAAAAAAAAAAAAAAA")  # the records code imported and warm
                idle = health_alone(server.url, IDLE_SECONDS)
                before = rss_kib(server.proc.pid)
                health: list[float] = []
                stop = threading.Event()
                poller = threading.Thread(target=poll_health, args=(server.url, stop, health), daemon=True)
                poller.start()
                times, statuses = [], []
                for _ in range(uploads):
                    t0 = time.perf_counter()
                    resp = client.post("/api/records", files={"file": ("big.json", data, "application/json")})
                    times.append((time.perf_counter() - t0) * 1000)
                    statuses.append(resp.status_code)
                stop.set()
                poller.join(60)
                after = rss_kib(server.proc.pid)
                views = {}
                for name, turn in (("last_turn", MAX_GAME_ROLLS), ("one_back", MAX_GAME_ROLLS - 1)):
                    t0 = time.perf_counter()
                    client.get(f"/api/records/{resp.json()['id']}/turns/{turn}").raise_for_status()
                    views[name] = round((time.perf_counter() - t0) * 1000, 1)
        finally:
            server.stop()
    return {"record_bytes": len(data), "seats": SEATS, "rolls": MAX_GAME_ROLLS, "uploads": uploads,
            "statuses": sorted(set(statuses)),
            "rss_before_mib": round(before / 1024, 1), "rss_after_mib": round(after / 1024, 1),
            "rss_growth_per_upload_mib": round((after - before) / 1024 / uploads, 2),
            "upload_ms": {"p50": round(statistics.median(times), 1), "max": round(max(times), 1)},
            "view_ms": views,
            "health_ms": latency(health), "health_alone_ms": latency(idle)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--uploads", type=int, default=20, help="uploads in a row (at most 60: the rate limit)")
    parser.add_argument("--json-out", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args()
    if not 1 <= args.uploads <= 60:
        raise SystemExit("error: --uploads must be 1..60 (the server takes 60 uploads a minute from one address)")
    result = run(args.uploads)
    print(f"record: {result['seats']} seats, {result['rolls']} rolls, {result['record_bytes']} bytes; "
          f"{result['uploads']} uploads, answers {result['statuses']}")
    print(f"server RSS: {result['rss_before_mib']} MiB before, {result['rss_after_mib']} MiB after, "
          f"{result['rss_growth_per_upload_mib']} MiB per upload")
    print(f"upload round trip: p50 {result['upload_ms']['p50']} ms, max {result['upload_ms']['max']} ms")
    print(f"viewing the last upload: turn {MAX_GAME_ROLLS} {result['view_ms']['last_turn']} ms, "
          f"turn {MAX_GAME_ROLLS - 1} {result['view_ms']['one_back']} ms")
    for key, when in (("health_alone_ms", f"alone ({IDLE_SECONDS:g} s before the uploads)"),
                      ("health_ms", "during the uploads")):
        h = result[key]
        print(f"/api/health {when} (n = {h['n']}): p50 {h['p50']} ms, p95 {h['p95']} ms, "
              f"max {h['max']} ms, {h['over_100ms']} over 100 ms")
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
