"""`nochmal serve`: starts, prints the URL, answers, stops cleanly on Ctrl-C; bad options."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time

import httpx
from typer.testing import CliRunner

from nochmal.cli import app
from nochmal.cli.web_cmds import is_local

CLI = [sys.executable, "-c", "from nochmal.cli import main; main()"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_prints_the_url_answers_and_stops_on_ctrl_c(tmp_path):
    port = free_port()
    proc = subprocess.Popen(CLI + ["serve", "--port", str(port), "--data", str(tmp_path / "data")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                resp = httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1)
                break
            except httpx.HTTPError:
                assert proc.poll() is None, proc.stderr.read()
                assert time.monotonic() < deadline, "the server did not answer within 60 s"
                time.sleep(0.2)
        assert resp.json()["ok"] is True
        game = httpx.post(f"http://127.0.0.1:{port}/api/games", json={"kind": "puzzle", "seed": 3}).json()
        assert (tmp_path / "data" / "games" / f"{game['id']}.json").is_file()  # kept on disk
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert f"http://127.0.0.1:{port}/" in out and "server stopped" in out
    assert "Traceback" not in err and "warning" not in err


def test_serve_bad_options_are_one_line_errors(tmp_path):
    runner = CliRunner()
    res = runner.invoke(app, ["serve", "--port", "70000"])
    assert res.exit_code == 2
    res = runner.invoke(app, ["serve", "--port", "abc"])
    assert res.exit_code == 2
    blocker = tmp_path / "file"
    blocker.write_text("x")
    res = runner.invoke(app, ["serve", "--data", str(blocker / "sub")])
    assert res.exit_code == 1 and "--data" in res.output and "Traceback" not in res.output
    assert "serve" in runner.invoke(app, ["--help"]).output


def test_local_hosts():
    assert is_local("127.0.0.1") and is_local("localhost") and is_local("::1")
    assert not is_local("0.0.0.0") and not is_local("192.168.1.5") and not is_local("example.org")


def test_serve_on_a_taken_port_is_one_line_and_prints_no_url(tmp_path):
    """uvicorn logged its own ERROR line and exited 3 after the URL was printed; the port is
    now bound before (nochmal/cli/web_cmds.py bind)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        res = CliRunner().invoke(app, ["serve", "--port", str(port), "--data", str(tmp_path / "data")])
    assert res.exit_code == 1, res.output
    assert res.stderr.startswith(f"error: cannot serve on 127.0.0.1:{port}") and len(res.stderr.splitlines()) == 1
    assert "http://" not in res.stdout
    res = CliRunner().invoke(app, ["serve", "--host", "no-such-host.invalid", "--data", str(tmp_path / "data")])
    assert res.exit_code == 1 and res.stderr.startswith("error: cannot serve on no-such-host.invalid")
