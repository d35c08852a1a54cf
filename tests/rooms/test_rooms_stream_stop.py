"""Ctrl-C stops `nochmal serve` while a room's live stream is open: the stream ends at the
signal (nochmal/web/rooms/api.py ``server_exiting``, through the app's ``state.stopping`` that
the serve command sets), so the server stops cleanly instead of waiting STREAM_SECONDS for the
stream to time out. Here the server's streams would last an hour: a stop seen at all came
from the signal, not from a timeout (no stopwatch; the waits are hang guards)."""

from __future__ import annotations

import signal
import subprocess
import threading

import httpx
import pytest

from rooms_support import free_port, serve_process, wait_up


def test_ctrl_c_ends_open_streams_and_stops_the_server(tmp_path):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = serve_process(tmp_path / "data", port, before="import nochmal.web.rooms.api as a; a.STREAM_SECONDS = 3600.0")
    try:
        wait_up(url)
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
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(300)
        except subprocess.TimeoutExpired:
            pytest.fail("the server hung after Ctrl-C: it waited on the open stream")
        reader.join(60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert proc.returncode == 0, proc.stderr.read().decode()
    assert not reader.is_alive(), "the stream was still open after the server stopped"
    assert "Traceback" not in proc.stderr.read().decode()
