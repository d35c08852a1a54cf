"""Pages on other origins, in a real browser (Debian's Chromium through Playwright): a page a
player happens to open while the server runs on the table's wifi can neither create a room,
nor take a seat, nor upload a record; a DNS-rebinding page (another name resolving to the
server) is refused outright (nochmal/web/hosts.py, docs/security.md)."""

from __future__ import annotations

import http.server
import json
import sqlite3
import threading
from contextlib import contextmanager

import httpx
import pytest

from webserver import NO_WORKER, LiveServer, chromium

pytestmark = pytest.mark.slow

ATTACK = """<!doctype html><meta charset="utf-8"><title>a game site</title><body><script>
const target = %(target)s, code = %(code)s, record = %(record)s;
const room = JSON.stringify({mode: "competitive", board: "classic", players: 2});
const results = {};
async function attempt(name, run) {
  try { const r = await run(); results[name] = "status " + r.status + " " + r.type; }
  catch (e) { results[name] = "refused: " + e; }
}
window.attack = (async () => {
  // simple requests (no preflight): text/plain and form bodies, no-cors
  await attempt("room-text", () => fetch(target + "/api/rooms", {method: "POST", mode: "no-cors",
      headers: {"Content-Type": "text/plain"}, body: room}));
  await attempt("seat-text", () => fetch(target + "/api/rooms/" + code + "/seats", {method: "POST", mode: "no-cors",
      headers: {"Content-Type": "text/plain"}, body: JSON.stringify({name: "Mallory"})}));
  const form = new FormData();
  form.append("file", new Blob([record], {type: "application/json"}), "r.json");
  await attempt("upload", () => fetch(target + "/api/records", {method: "POST", mode: "no-cors", body: form}));
  // a request that needs a CORS preflight: the server grants none
  await attempt("room-json", () => fetch(target + "/api/rooms", {method: "POST",
      headers: {"Content-Type": "application/json"}, body: room}));
  return results;
})();
</script>"""


@contextmanager
def page_server(html: str):
    """One HTML page on its own origin (http://localhost:PORT/, another site than 127.0.0.1)."""
    body = html.encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://localhost:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser():
    # attacker.example resolves to this machine, as a DNS-rebinding attacker arranges it
    with chromium("--host-resolver-rules=MAP attacker.example 127.0.0.1") as b:
        yield b


def _counts(srv: LiveServer, data) -> tuple[int, int]:
    with sqlite3.connect(data / "rooms.sqlite3") as db:
        rooms = db.execute("SELECT COUNT(*) FROM rooms").fetchone()[0]
    records = len(list((data / "records").glob("*.json"))) if (data / "records").is_dir() else 0
    return rooms, records


def test_a_page_on_another_origin_changes_nothing(browser, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    with LiveServer(data) as srv:
        code = httpx.post(f"{srv.url}/api/rooms", json={"mode": "competitive", "board": "classic", "players": 2}
                          ).json()["id"]
        puzzle = httpx.post(f"{srv.url}/api/games", json={"kind": "puzzle", "seed": 4}).json()
        record = httpx.get(f"{srv.url}/api/games/{puzzle['id']}/record").text
        before = _counts(srv, data)
        html = ATTACK % {"target": json.dumps(srv.url), "code": json.dumps(code), "record": json.dumps(record)}
        with page_server(html) as attacker:
            page = browser.new_page(**NO_WORKER)
            page.goto(attacker)
            results = page.evaluate("window.attack")
            page.close()
        assert set(results) == {"room-text", "seat-text", "upload", "room-json"}, results
        assert results["room-json"].startswith("refused"), results  # no CORS grant: the browser blocks it
        assert _counts(srv, data) == before, results  # no room, no record
        seats = httpx.get(f"{srv.url}/api/rooms/{code}").json()["seats"]
        assert not any(s["taken"] for s in seats), seats


def test_a_rebinding_page_is_refused_and_the_real_one_works(browser, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    with LiveServer(data) as srv:
        port = srv.url.rsplit(":", 1)[1]
        page = browser.new_page(**NO_WORKER)
        resp = page.goto(f"http://attacker.example:{port}/rooms")
        assert resp.status == 400 and "attacker.example" in page.content()
        made = page.evaluate("""async () => (await fetch("/api/rooms", {method: "POST",
            headers: {"Content-Type": "application/json"},
            body: JSON.stringify({mode: "competitive", board: "classic", players: 2})})).status""")
        assert made == 400
        assert _counts(srv, data)[0] == 0
        # the same browser on the server's own name creates a room from the rooms page
        resp = page.goto(f"{srv.url}/rooms")
        assert resp.status == 200
        made = page.evaluate("""async () => (await fetch("/api/rooms", {method: "POST",
            headers: {"Content-Type": "application/json"},
            body: JSON.stringify({mode: "competitive", board: "classic", players: 2})})).status""")
        assert made == 201 and _counts(srv, data)[0] == 1
        page.close()
