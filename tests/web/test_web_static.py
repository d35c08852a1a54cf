"""The pages' static files from memory (nochmal/web/static_files.py, docs/web.md "Page load"):
every file of both folders answered with its bytes and type, a copy the browser holds answered
304, HEAD without a body, anything else refused as the app refuses, and no file opened once the
app is made. The oracle is the folders on disk and the standard library's own type table."""

from __future__ import annotations

import mimetypes
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from nochmal.web.app import create_app

WEB = Path(__file__).parents[2] / "nochmal" / "web"
FOLDERS = {"/static/": WEB / "static", "/rooms-static/": WEB / "rooms" / "static"}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    with TestClient(create_app(tmp_path_factory.mktemp("static"))) as c:
        yield c


def on_disk():
    for prefix, folder in FOLDERS.items():
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                yield prefix + path.relative_to(folder).as_posix(), path


def test_every_file_has_its_bytes_and_type(client):
    files = list(on_disk())
    assert len(files) > 20 and any(url.startswith("/rooms-static/") for url, _ in files)
    for url, path in files:
        resp = client.get(url)
        assert resp.status_code == 200, url
        assert resp.content == path.read_bytes(), url
        kind = mimetypes.guess_type(path.name)[0]
        assert resp.headers["content-type"].split(";")[0] == kind, url
        assert ("charset=utf-8" in resp.headers["content-type"]) == kind.startswith("text/"), url
        assert resp.headers["content-length"] == str(path.stat().st_size)


def test_a_copy_the_browser_holds_is_304_and_head_has_no_body(client):
    first = client.get("/static/common.js")
    tag, date = first.headers["etag"], first.headers["last-modified"]
    assert client.get("/static/common.js", headers={"If-None-Match": tag}).status_code == 304
    assert client.get("/static/common.js", headers={"If-None-Match": f'"other", W/{tag}'}).status_code == 304
    assert client.get("/static/common.js", headers={"If-None-Match": '"other"'}).status_code == 200
    assert client.get("/static/common.js", headers={"If-Modified-Since": date}).status_code == 304
    assert client.get("/static/common.js", headers={"If-Modified-Since": "Thu, 01 Jan 1970 00:00:00 GMT"}).status_code == 200
    assert client.get("/static/common.js", headers={"If-Modified-Since": "not a date"}).status_code == 200
    # another file has another tag
    assert client.get("/static/game.js", headers={"If-None-Match": tag}).status_code == 200
    head = client.head("/static/app.css")
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-length"] == str((WEB / "static" / "app.css").stat().st_size)


@pytest.mark.parametrize("url", ["/static/nope.js", "/static/", "/static/icons", "/static/..%2fapp.py",
                                 "/static/%2e%2e/app.py", "/rooms-static/../app.py", "/static/.hidden",
                                 "/static/common.js/", "/static//common.js"])
def test_other_names_are_the_apps_404(client, url):
    resp = client.get(url)
    assert resp.status_code == 404 and resp.json() == {"error": "Not Found", "field": None}, url


def test_only_get_and_head(client):
    resp = client.post("/static/common.js", content=b"{}", headers={"Content-Type": "application/json"})
    assert resp.status_code == 405 and "error" in resp.json()


def test_no_file_is_opened_for_a_request(client, monkeypatch):
    """Read once when the app is made: with the file system closed to the process, every file
    still comes (StaticFiles would stat and open each one per request)."""
    def closed(*args, **kwargs):
        raise AssertionError("a file was opened for a request")

    expected = {url: path.read_bytes() for url, path in on_disk()}
    monkeypatch.setattr(Path, "open", closed)
    monkeypatch.setattr(Path, "stat", closed)
    monkeypatch.setattr("builtins.open", closed)
    monkeypatch.setattr("os.stat", closed)
    for url, body in expected.items():
        assert client.get(url).content == body, url
