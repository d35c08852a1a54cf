"""Web app benchmark: page to first drawn sheet, tap latency, API latency under 20 clients.

Starts `nochmal serve` as its own process on a free loopback port (a fresh data folder),
then measures, bounded in count and time:

1. page to first drawn sheet: Chromium (Playwright) loads /puzzle/SEED until the sheet's
   cells are in the page (new puzzle game each time): up to 5 first visits (a new context
   each), then N loads in one context, under the service worker's control where the app has one;
2. tap latency over a scripted game: a whole seeded puzzle played by the greedy bot's
   moves, every move tapped cell by cell as the page does (POST /api/games/ID/tap with the
   selection so far), then sent; server time (the app's Server-Timing header) and round
   trip, p50/p95;
3. the main API calls under C concurrent clients (threads, one HTTP connection each) on
   loopback: state, tap, move, rolls, moves, health; each client makes R requests, the whole
   run stops after --max-seconds; p50/p95 per call, server time and round trip.

    nice python benchmarks/bench_web.py                  # defaults: 10 loads, 20 clients x 60 requests
    nice python benchmarks/bench_web.py --json-out web.json

Figures go to benchmarks/RESULTS.md (section Web) by hand, with the command and `uptime`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from nochmal.bots.registry import make_agent
from nochmal.board import load_board
from nochmal.dice import seeded_roll
from nochmal.game import Game


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def summary(values: list[float]) -> dict:
    return {"n": len(values), "p50_ms": round(pct(values, 0.5), 2), "p95_ms": round(pct(values, 0.95), 2),
            "max_ms": round(max(values), 2) if values else None}


def server_ms(resp: httpx.Response) -> float:
    head = resp.headers.get("server-timing", "")
    return float(head.split("dur=")[1]) if "dur=" in head else float("nan")


class Server:
    """`nochmal serve` in its own process on a free port."""

    def __init__(self, data: Path):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        exe = [sys.executable, "-c", "from nochmal.cli import main; main()"]
        self.proc = subprocess.Popen(exe + ["serve", "--port", str(self.port), "--data", str(data)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/api/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        self.stop()
        raise SystemExit("the server did not start within 60 s")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


# the page's own clock when the first sheet is whole in the document (performance.now(): ms from
# the navigation's start), for page_to_sheet's in_page figures; and when the browser showed it
# (Element Timing's renderTime of its score line), for its shown ones. The score line is the
# drawing's last element (nochmal/svg.py): a sheet in the page's markup is read in parts and
# may be painted in parts, one put in by a script comes whole. Its elementtiming is set as it
# comes, before any paint of it (a mutation's callback runs before the next frame).
SHEET_CLOCK = """
(() => {
  const seen = new MutationObserver(() => {
    const end = document.querySelector("#my-sheet text.score");
    if (end) {
      window.__sheetDrawn = performance.now(); seen.disconnect();
      end.setAttribute("elementtiming", "sheet");
    }
  });
  seen.observe(document, { subtree: true, childList: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if (e.identifier === "sheet" && window.__sheetShown === undefined) window.__sheetShown = e.renderTime || e.loadTime;
  }).observe({ type: "element", buffered: true });
})();
"""


def page_to_sheet(url: str, loads: int, max_seconds: float) -> dict:
    """Page loads to the first drawn sheet: ``first_visit``, each in a new browser context (no
    cache, no service worker yet: a phone opening the site for the first time), and
    ``page_to_first_sheet``, one context's later loads: once the app's service worker (if the
    app has one) controls the page, as for a player who comes back.

    Each time three ways: the round trip as Playwright sees it (``goto`` to the sheet found, which
    includes the wait for the page's ``load`` and Playwright's own polling), ``in_page``, the
    page's own clock from the navigation's start to the moment the whole sheet is in the
    document (a MutationObserver put in by an init script), free of Playwright's overhead, and
    ``shown``, the browser's own record of when it painted the sheet's last line (Element
    Timing), also from the navigation's start."""
    from playwright.sync_api import sync_playwright

    exe = shutil.which("chromium")
    if exe is None:
        return {"error": "chromium not installed"}
    first, times, first_in_page, in_page, first_shown, shown = [], [], [], [], [], []
    t_end = time.monotonic() + max_seconds

    def new_page(browser):
        context = browser.new_context(viewport={"width": 360, "height": 760})
        context.add_init_script(SHEET_CLOCK)
        return context.new_page()

    def timed_load(page, path: str, wall: list, own: list, painted: list) -> None:
        t0 = time.perf_counter()
        page.goto(url + path)
        page.wait_for_selector("#my-sheet rect.cell")
        wall.append((time.perf_counter() - t0) * 1000)
        page.wait_for_function("window.__sheetDrawn !== undefined", timeout=10_000)
        own.append(page.evaluate("window.__sheetDrawn"))
        page.wait_for_function("window.__sheetShown !== undefined", timeout=10_000)
        painted.append(page.evaluate("window.__sheetShown"))

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe)
        for k in range(min(loads, 5)):
            page = new_page(browser)
            timed_load(page, f"/puzzle/{900 + k}", first, first_in_page, first_shown)
            page.context.close()
        page = new_page(browser)
        page.goto(url + "/")  # warm the connection and the static files once
        worker = page.evaluate("fetch('/sw.js').then((r) => r.ok)")
        if worker:  # (a hang guard of 60 s: the worker registers a moment after the page's load)
            page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=60_000)
        for k in range(loads):
            if time.monotonic() > t_end:
                break
            timed_load(page, f"/puzzle/{1000 + k}", times, in_page, shown)
        browser.close()
    return {**summary(times), "in_page": summary(in_page), "shown": summary(shown), "service_worker": worker,
            "first_visit": {**summary(first), "in_page": summary(first_in_page), "shown": summary(first_shown)}}


def scripted_taps(url: str, seed: int) -> dict:
    """A whole puzzle by the greedy bot's moves, tapped cell by cell."""
    tap_server, tap_rtt, move_server, move_rtt = [], [], [], []
    board = load_board("classic")
    game = Game(board, 1, mode="solo")
    agent = make_agent("greedy")
    with httpx.Client(base_url=url, timeout=30) as client:
        gid = client.post("/api/games", json={"kind": "puzzle", "seed": seed}).json()["id"]
        for k in range(30):
            game.apply_roll(seeded_roll(seed, k, 2))
            move = agent.choose(game)
            if not move.is_pass:
                picks = {"colour": move.colour_face, "number": move.number_face}
                for n in range(len(move.cells) + 1):  # the pick of dice (no cell yet), then each tap
                    t0 = time.perf_counter()
                    resp = client.post(f"/api/games/{gid}/tap", json=picks | {"cells": list(move.cells[:n])})
                    tap_rtt.append((time.perf_counter() - t0) * 1000)
                    tap_server.append(server_ms(resp))
                    assert resp.json()["ok"], resp.text
            t0 = time.perf_counter()
            resp = client.post(f"/api/games/{gid}/move", json={"move": str(move)})
            move_rtt.append((time.perf_counter() - t0) * 1000)
            move_server.append(server_ms(resp))
            resp.raise_for_status()
            game.apply_move(move)
    return {"tap_server": summary(tap_server), "tap_round_trip": summary(tap_rtt),
            "move_server": summary(move_server), "move_round_trip": summary(move_rtt)}


def concurrent(url: str, clients: int, requests: int, max_seconds: float) -> dict:
    results: dict[str, list[tuple[float, float]]] = {}
    lock = threading.Lock()
    t_end = time.monotonic() + max_seconds
    errors = []

    def worker(k: int) -> None:
        rng_seed = 500 + k
        with httpx.Client(base_url=url, timeout=30) as client:
            state = client.post("/api/games", json={"kind": "puzzle", "seed": rng_seed}).json()
            gid = state["id"]
            game = Game(load_board("classic"), 1, mode="solo")
            agent = make_agent("greedy")
            game.apply_roll(seeded_roll(rng_seed, 0, 2))
            for i in range(requests):
                if time.monotonic() > t_end:
                    return
                kind = ("state", "tap", "tap", "move", "rolls", "moves", "health")[i % 7]
                t0 = time.perf_counter()
                if kind == "state":
                    resp = client.get(f"/api/games/{gid}")
                elif kind == "tap":
                    move = agent.choose(game) if not game.is_terminal() else None
                    cells = list(move.cells[:1]) if move and not move.is_pass else []
                    face = (move.colour_face, move.number_face) if move and not move.is_pass else (
                        game.roll.colours[0], game.roll.numbers[0]) if game.roll else ("y", "1")
                    resp = client.post(f"/api/games/{gid}/tap", json={"colour": face[0], "number": face[1], "cells": cells})
                elif kind == "move":
                    if game.is_terminal():
                        continue
                    move = agent.choose(game)
                    resp = client.post(f"/api/games/{gid}/move", json={"move": str(move)})
                    game.apply_move(move)
                    if not game.is_terminal():
                        game.apply_roll(seeded_roll(rng_seed, game.rolls_done, 2))
                elif kind == "rolls":
                    resp = client.get("/api/rolls", params={"seed": rng_seed, "count": 30, "solo": True})
                elif kind == "moves":
                    resp = client.post("/api/moves", json={"colour": "b", "count": 3})
                else:
                    resp = client.get("/api/health")
                rtt = (time.perf_counter() - t0) * 1000
                if resp.status_code >= 500 or (kind != "tap" and resp.status_code >= 400):
                    errors.append(f"{kind}: {resp.status_code} {resp.text[:100]}")
                with lock:
                    results.setdefault(kind, []).append((server_ms(resp), rtt))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(clients)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - t0
    out = {"clients": clients, "requests_per_client": requests, "wall_s": round(wall, 2),
           "total_requests": sum(len(v) for v in results.values()), "errors": errors[:5]}
    for kind, pairs in sorted(results.items()):
        out[kind] = {"server": summary([s for s, _ in pairs]), "round_trip": summary([r for _, r in pairs])}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--loads", type=int, default=10, help="page loads for the first-sheet figure")
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--requests", type=int, default=60, help="requests per client")
    ap.add_argument("--max-seconds", type=float, default=120.0, help="cap of each part")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--json-out", type=Path)
    args = ap.parse_args()
    if not 1 <= args.clients <= 200 or not 1 <= args.requests <= 10_000 or args.loads < 0:
        raise SystemExit("error: --clients 1..200, --requests 1..10000, --loads >= 0")
    with tempfile.TemporaryDirectory() as data:
        server = Server(Path(data))
        try:
            out = {"load": os.getloadavg(), "url": server.url}
            out["page_to_first_sheet"] = page_to_sheet(server.url, args.loads, args.max_seconds) if args.loads else None
            out["scripted_game"] = scripted_taps(server.url, args.seed)
            out["concurrent"] = concurrent(server.url, args.clients, args.requests, args.max_seconds)
            out["load_after"] = os.getloadavg()
        finally:
            server.stop()
    text = json.dumps(out, indent=1)
    print(text)
    if args.json_out:
        args.json_out.write_text(text + "\n")


if __name__ == "__main__":
    main()
