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
    """The web app with the rooms installed (the rooms alone when the app is not there yet)."""
    try:
        from nochmal.web.app import create_app
    except ImportError:
        create_app = None
    if create_app is not None:
        app = create_app(data_dir=data_dir)
        if not hasattr(app.state, "rooms"):
            from nochmal.web.rooms import install

            install(app, data_dir)
        return app
    from fastapi import FastAPI

    from nochmal.web.rooms import install

    app = FastAPI()
    install(app, data_dir)
    return app


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


def wait_up(url: str, seconds: float = 20) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            if httpx.get(url + "/api/rooms/options", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"server at {url} did not come up")


def serve_process(data_dir, port: int) -> subprocess.Popen:
    """A real server process on the data folder: ``nochmal serve`` when the web app has it,
    else uvicorn on the rooms alone (same store code)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    if serve_has_rooms():
        cmd = [sys.executable, "-c", "from nochmal.cli import main; main()", "serve", "--host", "127.0.0.1",
               "--port", str(port), "--data", str(data_dir)]
    else:
        code = ("import sys, uvicorn; sys.path.insert(0, %r); from rooms_support import make_app; "
                "uvicorn.run(make_app(sys.argv[1]), host='127.0.0.1', port=int(sys.argv[2]), log_level='warning')"
                % str(Path(__file__).parent))
        cmd = [sys.executable, "-c", code, str(data_dir), str(port)]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def serve_has_rooms() -> bool:
    """Whether `nochmal serve`'s app has the rooms wired in (create_app calls install)."""
    try:
        from nochmal.web.app import create_app
    except ImportError:
        return False
    app = create_app(None)
    return hasattr(app.state, "rooms")
