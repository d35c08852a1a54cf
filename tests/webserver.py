"""A live nochmal web app on a free loopback port, in a thread (for browser tests and benchmarks)."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import pytest

import uvicorn

from nochmal.web import create_app


class LiveServer:
    def __init__(self, data_dir: Path | None, **app_options):
        self.app = create_app(data_dir, **app_options)
        self.seen = Counter()  # (method, path?query) -> how many such requests reached the server
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(self._counted, log_level="warning", lifespan="on",
                                                    interface="asgi3"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    async def _counted(self, scope, receive, send):
        if scope["type"] == "http":
            query = scope.get("query_string", b"").decode()
            self.seen[scope["method"], scope["path"] + ("?" + query if query else "")] += 1
        await self.app(scope, receive, send)

    def __enter__(self) -> "LiveServer":
        self.thread.start()
        deadline = time.monotonic() + 300  # a hang guard: it starts in well under a second
        while not self.server.started:
            if not self.thread.is_alive():
                raise RuntimeError("the test server did not start (its error is printed above)")
            if time.monotonic() > deadline:
                raise RuntimeError("the test server hung: not started")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


# Contexts of the browser tests keep the app's service worker out (Playwright's
# ``service_workers="block"``): a request the worker answers never reaches page.route, and its
# install adds some 35 requests to every page. Only the app shell and offline tests let it run.
NO_WORKER = {"service_workers": "block"}


@contextmanager
def chromium(*args: str):
    """Debian's Chromium through Playwright, launched with ``args`` (the README's test command
    installs it; a missing one fails the test, it never skips)."""
    from playwright.sync_api import sync_playwright

    exe = shutil.which("chromium")
    if exe is None:
        pytest.fail("Chromium is not installed: apt-get install -y chromium (see the README's test command)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=list(args))
        try:
            yield browser
        finally:
            browser.close()
