"""Shared helpers of the rooms tests: the app, a live server in a thread, a server process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

ARTIFACTS = Path(__file__).resolve().parent / "artifacts" / "rooms"


def make_app(data_dir):
    """The web app as `nochmal serve` builds it (create_app installs the rooms)."""
    from nochmal.web.app import create_app

    return create_app(data_dir=data_dir)


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
        return self

    def __exit__(self, *exc):
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


def serve_process(data_dir, port: int, before: str = "") -> subprocess.Popen:
    """A real `nochmal serve` process on the data folder; ``before``: Python run in it first
    (a setting a test changes, e.g. a module constant)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    cmd = [sys.executable, "-c", f"{before}\nfrom nochmal.cli import main; main()", "serve", "--host", "127.0.0.1",
           "--port", str(port), "--data", str(data_dir)]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

