"""Shared helpers of the rooms tests: the app, a live server in a thread, a server process, the
API calls a test makes to set a room up, and a phone (a Playwright page) at the table."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import httpx

from webserver import NO_WORKER

ARTIFACTS = Path(__file__).resolve().parent / "artifacts" / "rooms"


def make_app(data_dir, database: str | None = None):
    """The web app as `nochmal serve` builds it (create_app installs the rooms); ``database``
    a postgresql:// URL as `nochmal serve --database` takes (None: SQLite in ``data_dir``)."""
    from nochmal.web.app import create_app
    from nochmal.web.rooms import RoomSettings

    return create_app(data_dir=data_dir, room_settings=RoomSettings(database=database) if database else None)


def stored(client, sql: str, params=()) -> list[tuple]:
    """Rows as the app's rooms database holds them (SQLite or PostgreSQL, its ``?`` SQL)."""
    with client.app.state.rooms.store.db.read() as db:
        return db.execute(sql, params).fetchall()


def store_write(client, sql: str, params=()) -> None:
    """A change made straight in the app's rooms database (a room as an older version left it)."""
    with client.app.state.rooms.store.db.tx() as db:
        db.execute(sql, params)


def close_rooms(app) -> None:
    """What the app's rooms hold open (their databases' connections, the live hub's threads, the
    status worker's child) closed, as the server's shutdown would: a test that made the app ends it."""
    rooms = app.state.rooms
    rooms.worker.stop()
    stop_hub = getattr(rooms.hub, "stop", None)  # the hub shared through PostgreSQL (fanout.py)
    if stop_hub is not None:
        stop_hub()
    rooms.store.close()
    app.state.online.stop()  # its driver thread ends before its database closes
    app.state.online.store.close()


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def new_room(client, **spec) -> str:
    """A room made through the API (a two-seat lockstep mission unless ``spec`` says otherwise); its code."""
    res = client.post("/api/rooms", json=spec or {"mission": "lockstep", "difficulty": "normal", "players": 2})
    assert res.status_code == 201, res.text
    return res.json()["id"]


def sit(client, code: str, name: str = "Anna") -> tuple[int, str]:
    """Take the next free seat of room ``code`` as ``name``: (seat, seat token)."""
    res = client.post(f"/api/rooms/{code}/seats", json={"name": name})
    assert res.status_code == 201, res.text
    return res.json()["seat"], res.json()["seat_token"]


def put_cells(client, code: str, seat: int, token: str, cells: list[str]) -> dict:
    """Seat ``seat``'s whole sheet set to ``cells`` (PUT .../sheet at its current version); the answer.
    ``client``: a TestClient or the live server's ``api`` (an httpx client on its URL)."""
    version = client.get(f"/api/rooms/{code}").json()["seats"][seat]["sheet_version"]
    res = client.put(f"/api/rooms/{code}/seats/{seat}/sheet", json={"cells": cells, "version": version},
                     headers=auth(token))
    assert res.status_code == 200, res.text
    return res.json()


def set_rolls(client, code: str, token: str, rolls_used: int) -> dict:
    """The room's count of rolls set outright (later in the game)."""
    res = client.put(f"/api/rooms/{code}/rolls", json={"rolls_used": rolls_used}, headers=auth(token))
    assert res.status_code == 200, res.text
    return res.json()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ThreadServer:
    """uvicorn serving ``app`` on a free loopback port, in a thread (browser tests)."""

    def __init__(self, app):
        import uvicorn

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning",
                                                    timeout_graceful_shutdown=1))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self):
        self.thread.start()
        wait_up(self.url)
        self.api = httpx.Client(base_url=self.url)  # the API calls a test makes, as a TestClient's
        return self

    def __exit__(self, *exc):
        self.api.close()
        self.server.should_exit = True
        self.thread.join(10)


def wait_up(url: str, seconds: float = 300) -> None:
    """Poll until the server answers; ``seconds`` is a hang guard, not a pace."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            if httpx.get(url + "/api/rooms/options", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"server at {url} hung: it did not come up")


@contextmanager
def serving(data_dir, port: int, before: str = ""):
    """A `nochmal serve` process on the data folder (see serve_process), up; at the end of the
    block asked to stop as by Ctrl-C unless it died in it (see crash), killed if that hangs."""
    proc = serve_process(data_dir, port, before)
    try:
        wait_up(f"http://127.0.0.1:{port}")
        yield proc
    finally:
        if proc.poll() is None:
            stop(proc)


def stop(proc: subprocess.Popen, seconds: float = 15) -> None:
    """Ask a server process to stop as by Ctrl-C; killed if it has not within ``seconds`` (a
    hang guard). benchmarks/bench_rooms.py stops its servers so too."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def crash(proc: subprocess.Popen) -> None:
    """The server process killed at once (SIGKILL), as by a crash or a power cut of the process."""
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)


def serve_process(data_dir, port: int, before: str = "") -> subprocess.Popen:
    """A real `nochmal serve` process on the data folder; ``before``: Python run in it first
    (a setting a test changes, e.g. a module constant)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    cmd = [sys.executable, "-c", f"{before}\nfrom nochmal.cli import main; main()", "serve", "--host", "127.0.0.1",
           "--port", str(port), "--data", str(data_dir)]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)



# keeps the page's live streams within reach, so that a test can end them (EventSource is the
# browser's own class; the page's script is unchanged)
KEEP_STREAMS = """
window.liveStreams = [];
const BrowserEventSource = window.EventSource;
window.EventSource = function (url, options) {
  const stream = new BrowserEventSource(url, options);
  window.liveStreams.push(stream);
  return stream;
};
"""


# --- phones at the table (Playwright pages in one Chromium, a context each) ---------------------
def phone(browser, width: int = 360, height: int = 780, code: str | None = None,
          seat: tuple[int, str] | None = None, touch: bool = False, locale: str = "en-GB"):
    """A new phone (its own context: its own storage) at ``width`` x ``height``; with ``seat``
    (seat, token), it holds that seat of room ``code`` as if it had sat down; ``touch``: a touch
    screen (taps by ``page.tap``); ``locale``: its language (the pages follow Accept-Language)."""
    ctx = browser.new_context(viewport={"width": width, "height": height}, has_touch=touch, locale=locale,
                              **NO_WORKER)
    if seat is not None:
        held = json.dumps({"seat": seat[0], "token": seat[1]})
        ctx.add_init_script(f"localStorage.setItem('nochmal-room-{code}', {json.dumps(held)})")
    page = ctx.new_page()
    page.touch = touch
    page.js_errors = []
    page.on("pageerror", lambda exc: page.js_errors.append(str(exc)))
    return page


def room_phone(browser, server, code: str, seat: tuple[int, str], locale: str = "en-GB"):
    """A phone at 360 x 780 holding ``seat`` of room ``code``, the room's page open and live."""
    page = phone(browser, 360, 780, code, seat, locale=locale)
    page.goto(f"{server.url}/r/{code}")
    page.wait_for_selector("#live.on")
    return page


def join(page, url: str, name: str) -> None:
    """Open the room link, take the seat the page picks, named ``name``; live once it returns."""
    page.goto(url)
    page.wait_for_selector("#live.on")
    page.fill("#seat-name", name)
    (page.tap if getattr(page, "touch", False) else page.click)("#seat-form button[type=submit]")
    page.wait_for_selector("#mine svg rect[data-cell]")


def token_of(page, code: str) -> str:
    """The seat token the phone keeps for room ``code``."""
    return json.loads(page.evaluate(f"() => localStorage.getItem('nochmal-room-{code}')"))["token"]


def crossed(page, where: str, cell: str):
    return page.locator(f'{where} rect[data-cell="{cell}"][data-crossed="1"]')


def tap_cells(page, cells) -> None:
    """Tap ``cells`` on the phone's own sheet, one after another, each seen crossed before the next."""
    for cell in cells:
        page.click(f'#mine rect[data-cell="{cell}"]')
        page.wait_for_selector(f'#mine rect[data-cell="{cell}"][data-crossed="1"]')


def shot(page, name: str, also_1280: bool = False) -> Path:
    """A full-page screenshot into artifacts/rooms/ (git-ignored), named by its width; with
    ``also_1280`` the same state at laptop width too (the phone's size restored after)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    path = ARTIFACTS / f"{name}-{width}.png"
    page.evaluate("() => window.scrollTo(0, 0)")  # (a sticky banner drawn where the page was scrolled to)
    page.screenshot(path=str(path), full_page=True)
    if also_1280:
        page.set_viewport_size({"width": 1280, "height": 900})
        page.screenshot(path=str(ARTIFACTS / f"{name}-1280.png"), full_page=True)
        page.set_viewport_size({"width": width, "height": height})
    return path


def seated_phones(server, browser, code: str, names, widths=None, touch: bool = False) -> list:
    """One phone per name (at ``widths``, 360 px by default), each sat down by the room's link, in order."""
    pages = []
    for k, name in enumerate(names):
        page = phone(browser, widths[k] if widths else 360, touch=touch)
        join(page, f"{server.url}/r/{code}", name)
        pages.append(page)
    return pages


def close(*pages) -> None:
    for page in pages:
        page.context.close()


def sse_events(lines):
    """(event, id, data) per server-sent event of a stream's lines."""
    fields = {}
    for line in lines:
        if line:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
        elif "event" in fields:
            yield fields["event"], fields.get("id"), json.loads(fields.get("data", "null"))
            fields = {}
