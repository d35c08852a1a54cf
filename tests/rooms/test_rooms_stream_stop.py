"""Ctrl-C stops `nochmal serve` while a room's live stream is open: the stream ends within a
second of the signal (nochmal/web/rooms/api.py ``server_exiting``, through the app's
``state.stopping`` that the serve command sets), so the server stops cleanly instead of
waiting STREAM_SECONDS for the stream to time out."""

from __future__ import annotations

import signal
import threading
import time

import httpx
import pytest

from nochmal.web.rooms.api import STREAM_SECONDS
from rooms_support import free_port, serve_process, wait_up


@pytest.mark.slow
def test_ctrl_c_ends_open_streams_and_stops_the_server(tmp_path):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = serve_process(tmp_path / "data", port)
    try:
        wait_up(url, 60)
        code = httpx.post(f"{url}/api/rooms", json={"mode": "competitive", "board": "classic", "players": 2}).json()["id"]
        opened = threading.Event()
        lines: list[str] = []

        def listen():
            with httpx.stream("GET", f"{url}/api/rooms/{code}/events", timeout=60) as res:
                for line in res.iter_lines():
                    lines.append(line)
                    if line.startswith("event: sync"):
                        opened.set()

        reader = threading.Thread(target=listen, daemon=True)
        reader.start()
        assert opened.wait(30), "the stream sent no snapshot"
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        proc.wait(60)
        stopped = time.monotonic() - start
        reader.join(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert proc.returncode == 0, proc.stderr.read().decode()
    assert not reader.is_alive(), "the stream was still open after the server stopped"
    assert stopped < STREAM_SECONDS - 5, f"the server took {stopped:.1f} s: it waited for the stream to time out"
    assert "Traceback" not in proc.stderr.read().decode()
