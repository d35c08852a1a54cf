"""Who may reach the server and change what (nochmal/web/hosts.py, docs/security.md): host
names (DNS rebinding), origins (cross-site pages), body types (no CORS-free JSON), proxy
headers only from a named proxy, and the address a server on every interface announces."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import threading
import time
from contextlib import contextmanager

import httpx
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from nochmal.cli import app as cli_app
from nochmal.record import GameRecord
from nochmal.web import create_app
from nochmal.web.hosts import Access, host_name, lan_address
from nochmal.web.limits import BodyCaps

CLI = [sys.executable, "-c", "from nochmal.cli import main; main()"]
ROOM = {"mode": "competitive", "board": "classic", "players": 2}
AS_JSON = {"content-type": "application/json"}


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def served(tmp_path, *options: str):
    """``nochmal serve`` in a subprocess on a free port; yields (base URL, port, stdout so far)."""
    port = free_port()
    proc = subprocess.Popen(CLI + ["serve", "--port", str(port), "--data", str(tmp_path / "data"), *options],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()  # printed once the port is bound
        assert "nochmal web app on" in first, first + proc.stderr.read()
        deadline = time.monotonic() + 60  # a hang guard, not a speed check
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2)
                break
            except httpx.HTTPError:
                assert proc.poll() is None, proc.stderr.read()
                assert time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}", port, first
    finally:
        proc.kill()
        proc.wait(10)


@pytest.fixture
def strict(tmp_path):
    """An app that knows only the localhost names (not the test client's 'testserver')."""
    with TestClient(create_app(tmp_path, access=Access(frozenset({"localhost", "127.0.0.1", "::1"}))),
                    base_url="http://localhost") as client:
        yield client


def refused(resp, status: int, field: str) -> str:
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert set(body) == {"error", "field"} and body["field"] == field, body
    return body["error"]


# --- Host ----------------------------------------------------------------------------------
def test_a_request_naming_another_host_is_refused_before_anything_runs(strict):
    """DNS rebinding: a page on attacker.example whose name now points here sends its own Host."""
    assert strict.get("/api/health").status_code == 200
    for host in ("attacker.example", "attacker.example:8000", "localhost.attacker.example", "", "[::2]:80"):
        reason = refused(strict.get("/api/health", headers={"host": host}), 400, "Host")
        assert "--allow-host" in reason
    refused(strict.post("/api/rooms", json=ROOM, headers={"host": "attacker.example"}), 400, "Host")
    assert strict.get("/", headers={"host": "attacker.example"}).status_code == 400
    assert strict.get("/api/health", headers={"host": "LOCALHOST:8000"}).status_code == 200
    assert strict.get("/api/health", headers={"host": "[::1]:8000"}).status_code == 200


def test_host_names_lose_their_port_and_brackets():
    assert host_name("Example.org:8000") == "example.org"
    assert host_name("[::1]:80") == "::1" and host_name("::1") == "::1" and host_name("[fe80::1]") == "fe80::1"
    access = Access.build(["laptop.local", "[fd00::5]"])
    assert access.host_allowed("laptop.local:8000") and access.host_allowed("[fd00::5]:80")
    assert access.host_allowed("localhost") and not access.host_allowed("other.local")
    assert not access.host_allowed(None)


# --- Origin --------------------------------------------------------------------------------
def _record_text() -> str:
    from nochmal.board import load_board
    from nochmal.game import Game
    from nochmal.modes import Mode

    return GameRecord.from_game(Game(load_board("classic"), 1, mode=Mode.SOLO), ["human"], 1).dumps()


def test_a_page_on_another_origin_can_neither_create_join_nor_upload(strict):
    code = strict.post("/api/rooms", json=ROOM).json()["id"]
    evil = {"origin": "http://evil.example"}
    refused(strict.post("/api/rooms", json=ROOM, headers=evil), 403, "Origin")
    refused(strict.post(f"/api/rooms/{code}/seats", json={"name": "Eve"}, headers=evil), 403, "Origin")
    refused(strict.post("/api/games", json={"kind": "puzzle", "seed": 1}, headers=evil), 403, "Origin")
    files = {"file": ("r.json", io.BytesIO(_record_text().encode()), "application/json")}
    refused(strict.post("/api/records", files=files, headers=evil), 403, "Origin")
    refused(strict.post("/api/rooms", json=ROOM, headers={"origin": "null"}), 403, "Origin")
    refused(strict.post("/api/rooms", json=ROOM, headers={"sec-fetch-site": "cross-site"}), 403, "Origin")
    # the server's own pages, and clients that are not browsers, may
    assert strict.post("/api/rooms", json=ROOM, headers={"origin": "http://localhost"}).status_code == 201
    assert strict.post("/api/rooms", json=ROOM, headers={"sec-fetch-site": "same-origin"}).status_code == 201
    assert strict.post(f"/api/rooms/{code}/seats", json={"name": "Ann"}).status_code == 201
    assert strict.get(f"/api/rooms/{code}", headers=evil).status_code == 200  # reading is not changing


def test_an_origin_named_by_the_server_may_change_state(tmp_path):
    access = Access.build(["nochmal.example.org"], ["https://nochmal.example.org"])
    with TestClient(create_app(tmp_path, access=access), base_url="http://nochmal.example.org") as client:
        ok = client.post("/api/rooms", json=ROOM, headers={"origin": "https://nochmal.example.org"})
        assert ok.status_code == 201, ok.text
        refused(client.post("/api/rooms", json=ROOM, headers={"origin": "https://other.example.org"}), 403, "Origin")


# --- Content-Type --------------------------------------------------------------------------
def test_json_bodies_must_say_json_and_uploads_their_type(strict):
    """A cross-site page may send text/plain, form or multipart bodies without a CORS preflight;
    JSON endpoints take only application/json, which needs one."""
    code = strict.post("/api/rooms", json=ROOM).json()["id"]
    body = json.dumps(ROOM).encode()
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None):
        headers = {"content-type": kind} if kind else {}
        reason = refused(strict.post("/api/rooms", content=body, headers=headers), 415, "Content-Type")
        assert "application/json" in reason
        refused(strict.post(f"/api/rooms/{code}/seats", content=b'{"name": "Eve"}', headers=headers), 415,
                "Content-Type")
    assert strict.post("/api/rooms", content=body, headers={"content-type": "application/json; charset=utf-8"}
                       ).status_code == 201
    refused(strict.post("/api/records", content=_record_text().encode(), headers=AS_JSON), 415, "Content-Type")
    refused(strict.post("/api/rooms/import", content=b"PK\x03\x04", headers={"content-type": "text/plain"}), 415,
            "Content-Type")
    assert strict.post(f"/api/games", json={"kind": "puzzle", "seed": 2}).status_code == 200


# --- serve: proxy headers, announced address, host names -----------------------------------
@pytest.mark.slow
def test_forwarded_for_is_ignored_unless_a_proxy_is_named(tmp_path):
    """uvicorn trusts X-Forwarded-For from 127.0.0.1 by default: any local client could then
    name a new address per request and step past the per-address limits (10 rooms a minute)."""
    def statuses(base):
        return [httpx.post(f"{base}/api/rooms", json=ROOM, headers={"x-forwarded-for": f"10.9.0.{i}"}).status_code
                for i in range(12)]

    with served(tmp_path / "a") as (base, _, _):
        got = statuses(base)
        assert got[:10] == [201] * 10 and got[10:] == [429, 429], got
    with served(tmp_path / "b", "--trusted-proxy", "127.0.0.1") as (base, _, _):
        assert statuses(base) == [201] * 12  # behind a named proxy each forwarded address counts alone


def test_trusted_proxy_and_origin_options_are_checked():
    runner = CliRunner()
    res = runner.invoke(cli_app, ["serve", "--trusted-proxy", "not-an-ip"])
    assert res.exit_code == 2 and "--trusted-proxy" in res.output and "not-an-ip" in res.output
    res = runner.invoke(cli_app, ["serve", "--allow-origin", "evil.example"])
    assert res.exit_code == 2 and "--allow-origin" in res.output


@pytest.mark.slow
def test_a_server_on_every_interface_announces_its_network_address_and_answers_to_it(tmp_path):
    lan = lan_address()
    if lan is None:
        pytest.fail("this machine has no local-network address to test with")
    with served(tmp_path, "--host", "0.0.0.0", "--allow-host", "laptop.local") as (base, port, first):
        assert f"http://{lan}:{port}/" in first and "0.0.0.0" not in first
        assert httpx.get(f"http://{lan}:{port}/api/health").status_code == 200
        assert httpx.get(f"{base}/api/health", headers={"host": f"laptop.local:{port}"}).status_code == 200
        assert httpx.get(f"{base}/api/health", headers={"host": "attacker.example"}).status_code == 400
        room = httpx.post(f"{base}/api/rooms", json=ROOM).json()
        assert room["url"].startswith(f"http://{lan}:{port}/r/"), room  # links the phones can open


# --- body caps -----------------------------------------------------------------------------
@pytest.mark.parametrize("path, cap", [("/api/score", "max_body"), ("/api/rooms", "max_room_body"),
                                       ("/api/rooms/import", "max_room_import")])
def test_a_body_one_byte_over_its_cap_is_a_413_naming_the_cap(tmp_path, path, cap):
    """Each cap of limits.py BodyCaps, at the main API and at the rooms, declared in
    Content-Length or streamed without it; a body of exactly the cap is not refused for its size."""
    limit = getattr(BodyCaps(), cap)
    with TestClient(create_app(tmp_path)) as client:
        over = b" " * (limit + 1)
        for content in (over, iter([over[:limit], over[limit:]])):
            reason = refused(client.post(path, content=content, headers=AS_JSON), 413, "body")
            assert cap in reason and str(limit) in reason, reason
        assert client.post(path, content=b" " * limit, headers=AS_JSON).status_code == 422  # blank: no JSON


def test_a_streamed_body_past_the_cap_is_a_413_not_a_hang(tmp_path):
    """A chunked body (no Content-Length) that passes the cap inside FastAPI's own read was
    turned into a 400 whose handler read the body again, and waited for ever."""
    def chunks():
        yield b'{"board": "classic", "sheet": "'
        for _ in range(30):
            yield b"x" * 100
        yield b'"}'

    answers = []
    with TestClient(create_app(tmp_path, max_body=2000)) as client:
        worker = threading.Thread(target=lambda: answers.append(client.post(
            "/api/score", content=chunks(), headers=AS_JSON)), daemon=True)
        worker.start()
        worker.join(60)  # a hang guard, not a speed check
    assert answers, "the request never got an answer"
    assert "2000" in refused(answers[0], 413, "body")
