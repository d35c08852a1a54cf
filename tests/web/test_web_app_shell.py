"""The app on a phone's home screen (docs/web.md "Installing the app"): the manifest and its
icons, the service worker that keeps the static shell (controls the page after one load, opens
the puzzle and the rooms index without the network), and dark mode with its switch, the sheet's
five colours and crosses as drawn. Chromium through Playwright; screenshots in artifacts/web/."""

from __future__ import annotations

import json
import re
import shutil
import struct
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import expect

from nochmal.board import COLUMN_LETTERS, load_board
from nochmal.svg import FILL
from nochmal.web import shell
from nochmal.web.app import create_app
from nochmal.web.routers.engine import version
from rooms_support import new_room
from webserver import LiveServer, chromium

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts" / "web"
PAGES = ("/", "/puzzle", "/play", "/replay", "/rooms")


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(None))


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """(server, browser): one live app and one Chromium for the module."""
    with LiveServer(tmp_path_factory.mktemp("shell-data")) as srv, chromium("--no-sandbox") as br:
        yield srv, br


def png_size(data: bytes) -> tuple[int, int]:
    """A PNG's width and height, read from its IHDR chunk (the PNG specification, not the app)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", "not a PNG"
    return struct.unpack(">II", data[16:24])


def luminance(colour: str) -> float:
    """WCAG 2 relative luminance of '#rrggbb' or 'rgb(r, g, b)'."""
    channels = ([int(colour[k:k + 2], 16) for k in (1, 3, 5)] if colour.startswith("#")
                else [int(v) for v in re.findall(r"\d+", colour)[:3]])
    lin = [c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_manifest_and_icons(client):
    res = client.get("/static/manifest.webmanifest")
    assert res.status_code == 200 and res.headers["content-type"].startswith("application/manifest+json")
    manifest = json.loads(res.text)
    assert manifest["name"] == "Noch mal!" and manifest["short_name"]
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["theme_color"]) and re.fullmatch(r"#[0-9a-f]{6}", manifest["background_color"])
    sizes = set()
    for icon in manifest["icons"]:
        got = client.get(icon["src"])
        assert got.status_code == 200, icon["src"]
        assert got.headers["content-type"].startswith(icon["type"]), icon
        if icon["type"] == "image/png":
            w, h = png_size(got.content)
            assert icon["sizes"] == f"{w}x{h}", (icon, w, h)
            sizes.add((w, icon["purpose"]))
    assert {(192, "any"), (512, "any"), (512, "maskable")} <= sizes, sizes
    for page in PAGES:  # every page links it, says its colour and a home-screen icon, and loads shell.js
        head = client.get(page).text.split("</head>")[0]
        assert '<link rel="manifest" href="/static/manifest.webmanifest">' in head, page
        assert f'<meta name="theme-color" content="{manifest["theme_color"]}">' in head, page
        touch = re.search(r'<link rel="apple-touch-icon" href="([^"]+)">', head)
        assert touch and png_size(client.get(touch.group(1)).content) == (180, 180), page
        # the tab's icon is a PNG of the size it says (an SVG one costs the page's main thread after load)
        tab = re.search(r'<link rel="icon" href="([^"]+)" sizes="(\d+)x(\d+)" type="image/png">', head)
        assert tab and png_size(client.get(tab.group(1)).content) == (int(tab.group(2)), int(tab.group(3))), page
        # shell.js (the switch, the worker) deferred: the scheme before the first paint is the head's one line
        assert re.search(r'<script src="/static/shell\.js" defer></script>', head), page
        assert 'matchMedia("(prefers-color-scheme: dark)")' in head.split('<script src="/static/')[0], page


def test_service_worker_route(client, tmp_path, monkeypatch):
    """/sw.js at the site's root (so its scope is the site), its cache named by the package
    version and the static files: a changed file is a new cache; the host check still holds."""
    res = client.get("/sw.js")
    assert res.status_code == 200 and res.headers["content-type"].startswith("text/javascript")
    assert res.headers["service-worker-allowed"] == "/" and "no-cache" in res.headers["cache-control"]
    text = res.text
    named = re.search(r'const VERSION = "([^"]+)";', text).group(1)
    assert named.startswith(version() + "-")
    kept = json.loads(re.search(r"const SHELL = (\[.*?\]);", text).group(1))
    for url in ("/", "/puzzle", "/rooms", "/rules", "/static/app.css", "/static/common.js", "/static/shell.js",
                "/static/manifest.webmanifest", "/static/icons/icon-192.png", "/rooms-static/rooms.js",
                "/rooms-static/rooms_offline.js", "/api/i18n/de"):
        assert url in kept, url
    assert "/static/sw.js" not in kept
    for url in kept:
        assert client.get(url).status_code == 200, url
    assert client.get("/sw.js", headers={"Host": "evil.example"}).status_code == 400

    copy = tmp_path / "static"
    copy.mkdir()
    for _, path in shell._static_files():
        if path.parent == shell.STATIC:
            (copy / path.name).write_bytes(path.read_bytes())
    monkeypatch.setattr(shell, "STATIC", copy)
    monkeypatch.setattr(shell, "WORKER", copy / "sw.js")
    shell.shell.cache_clear()
    before = shell.shell()[0]
    (copy / "app.css").write_text((copy / "app.css").read_text() + "\n/* a new release */\n")
    shell.shell.cache_clear()
    assert shell.shell()[0] != before
    # the scripts' messages come from the cache first too: a changed catalog is a new cache
    before = shell.shell()[0]
    locale = tmp_path / "locale"
    shutil.copytree(shell.LOCALE_DIR, locale)
    mo = locale / "pl" / "LC_MESSAGES" / "nochmal.mo"
    mo.write_bytes(mo.read_bytes() + b"\0")
    monkeypatch.setattr(shell, "LOCALE_DIR", locale)
    shell.shell.cache_clear()
    assert shell.shell()[0] != before
    shell.shell.cache_clear()


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}-{page.viewport_size['width']}.png"), full_page=True)


def test_worker_controls_the_page_and_the_shell_opens_offline(live, monkeypatch):
    server, browser = live
    ctx = browser.new_context(viewport={"width": 360, "height": 740})
    page = ctx.new_page()
    page.goto(f"{server.url}/puzzle/11")
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    expected = "nochmal-" + re.search(r'const VERSION = "([^"]+)";', page.request.get(f"{server.url}/sw.js").text()).group(1)
    assert page.evaluate("caches.keys()") == [expected]
    # beyond the shell the cache keeps the 200 answers fetched last (static/sw.js KEEP)
    page.evaluate("async () => { for (let k = 0; k < 210; k++) await fetch('/api/health?n=' + k); }")
    page.wait_for_function("""async (shell) => {
        const urls = (await (await caches.open((await caches.keys())[0])).keys()).map((r) => new URL(r.url));
        const extra = urls.filter((u) => !shell.includes(u.pathname)).map((u) => u.pathname + u.search);
        return extra.length === 200 && extra.includes('/api/health?n=209') && !extra.includes('/api/health?n=0');
      }""", arg=json.loads(re.search(r"const SHELL = (\[.*?\]);", page.request.get(f"{server.url}/sw.js").text()).group(1)))
    # a new release: a new worker, whose cache replaces the old one (the server runs in this process)
    urls = shell.shell()[1]
    monkeypatch.setattr(shell, "shell", lambda: ("9.9.9-release", urls))
    page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update())")
    page.wait_for_function("caches.keys().then((names) => names.join() === 'nochmal-9.9.9-release')")
    ctx.set_offline(True)
    for path, shown in (("/puzzle", "#game"), ("/rooms", "#create-form"), ("/rules", "main"), ("/", "main")):
        res = page.goto(server.url + path, wait_until="domcontentloaded")  # its scripts have run
        assert res.status == 200 and res.from_service_worker, path
        expect(page.locator(shown)).to_be_visible()
        expect(page.locator("#offline-line")).to_be_visible()
        # its stylesheet and scripts came from the cache too
        assert page.evaluate("getComputedStyle(document.querySelector('header.top')).backgroundColor") == "rgb(31, 42, 68)"
        assert page.evaluate("typeof NM === 'object' && typeof t === 'function'"), path
        if path == "/puzzle":  # the game it cannot ask for is said in words, not the browser's "Failed to fetch"
            expect(page.locator("#message")).to_have_text(
                "No connection to the server: try again when the phone is back online.")
        _shot(page, "offline" + (path.replace("/", "-").rstrip("-") or "-home"))
    with pytest.raises(Exception):  # a page never visited is not there: the worker does not pretend
        page.goto(f"{server.url}/replay")
    ctx.set_offline(False)
    page.goto(f"{server.url}/rooms")
    expect(page.locator("#offline-line")).to_be_hidden()
    ctx.close()


def test_a_page_is_asked_for_once_and_a_move_does_not_wake_the_worker(live):
    """Under the worker a page's request races the worker's handler on the network, and the
    handler's own request for it is that same one: the server sees each page once, and the
    handler still keeps it (it opens offline). A move, anything but a GET, goes straight to the
    network (static/sw.js; the routes as Chromium reports them in its timings)."""
    server, browser = live
    ctx = browser.new_context(viewport={"width": 360, "height": 740})
    page = ctx.new_page()
    page.goto(f"{server.url}/rules")
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    for path in ("/rules?once=1", "/puzzle/4242"):
        page.goto(server.url + path)
        page.wait_for_selector("main")
        assert page.evaluate("performance.getEntriesByType('navigation')[0].workerMatchedSourceType") == \
            "race-network-and-fetch-handler", path
        assert page.evaluate("""async (url) => {  // the handler keeps the page (30 s: a hang guard)
          for (let i = 0; i < 300 && !(await caches.match(url)); i++) await new Promise((ok) => setTimeout(ok, 100));
          return !!(await caches.match(url)); }""", server.url + path), path
        assert server.seen["GET", path] == 1, (path, server.seen["GET", path])
    page.wait_for_selector("#my-sheet rect.cell")
    sources = page.evaluate("""() => Object.fromEntries(performance.getEntriesByType('resource')
      .map((e) => [e.initiatorType + ' ' + new URL(e.name).pathname, e.workerMatchedSourceType]))""")
    assert sources["fetch /api/games"] == "network" and sources["script /static/common.js"] == "cache", sources
    ctx.set_offline(True)
    page.goto(f"{server.url}/rules?once=1", wait_until="domcontentloaded")
    expect(page.locator("#offline-line")).to_be_visible()
    ctx.close()


def test_dark_mode_and_its_switch(live):
    """Dark by the system's wish; the switch overrides it before the first paint of the next page."""
    server, browser = live
    ctx = browser.new_context(viewport={"width": 360, "height": 740}, color_scheme="dark")
    # the theme as it stands when <body> appears, before anything below <head> ran
    ctx.add_init_script("""new MutationObserver((m, obs) => { if (document.body) {
        window.themeAtBody = document.documentElement.dataset.theme; obs.disconnect(); } })
      .observe(document, {childList: true, subtree: true});""")
    page = ctx.new_page()
    background = "() => getComputedStyle(document.body).backgroundColor"
    page.goto(f"{server.url}/puzzle/11")
    page.wait_for_selector("#my-sheet rect.cell")
    assert page.evaluate("window.themeAtBody") == "dark"
    assert luminance(page.evaluate(background)) < 0.05
    assert page.locator("#theme-switch").input_value() == "auto"
    _shot(page, "dark-puzzle")
    page.set_viewport_size({"width": 1280, "height": 860})
    _shot(page, "dark-puzzle")
    page.select_option("#theme-switch", "light")
    assert luminance(page.evaluate(background)) > 0.8
    page.reload()
    assert page.evaluate("window.themeAtBody") == "light"
    assert page.locator("#theme-switch").input_value() == "light"
    page.select_option("#theme-switch", "dark")
    ctx.close()
    light_system = browser.new_context(color_scheme="light")
    page = light_system.new_page()
    page.goto(f"{server.url}/rooms")
    assert luminance(page.evaluate(background)) > 0.8
    light_system.add_cookies([{"name": "nochmal_theme", "value": "dark", "url": server.url}])
    page.reload()
    assert luminance(page.evaluate(background)) < 0.05
    light_system.close()


def test_the_scheme_comes_with_the_request_and_no_page_reads_storage_before_its_load(live, client):
    """The switch's choice is a cookie the server writes into <html> (nochmal/web/theme.py):
    nothing below reads localStorage while a page loads (a first read cost a new visit 10-16 ms,
    docs/figures.md "Web")."""
    for chosen, attrs in ((None, 'data-theme-choice="auto"'), ("dark", 'data-theme-choice="dark" data-theme="dark"'),
                          ("light", 'data-theme-choice="light" data-theme="light"'), ("blue", 'data-theme-choice="auto"')):
        cookies = {} if chosen is None else {"nochmal_theme": chosen}
        for path in ("/puzzle/3", "/rooms"):
            html = TestClient(client.app, cookies=cookies).get(path).text
            assert re.search(r"<html [^>]*>", html).group(0).count(attrs) == 1, (chosen, path)
            selected = re.search(r'<select id="theme-switch".*?</select>', html, re.S).group(0)
            assert re.findall(r'<option value="(\w+)" selected', selected) == [chosen if chosen in ("dark", "light") else "auto"]
    server, browser = live
    ctx = browser.new_context(viewport={"width": 360, "height": 740})
    ctx.add_init_script("""(() => { window.__storageReads = []; const real = Object.getOwnPropertyDescriptor(window, 'localStorage');
        Object.defineProperty(window, 'localStorage', { configurable: true, get() {
          window.__storageReads.push(document.readyState); return real.get.call(window); } }); })();""")
    page = ctx.new_page()
    for path, ready in (("/puzzle/5", "#my-sheet rect.cell"), ("/", "main"), ("/rooms", "main"), ("/rules", "main")):
        page.goto(f"{server.url}{path}")
        page.wait_for_selector(ready)
        assert page.evaluate("window.__storageReads") == [], path
    ctx.close()


def test_a_room_in_dark_mode_keeps_the_sheet_colours(live):
    """A room's sheet in dark mode: every colour as nochmal/svg.py draws it, the crosses on each
    colour at least 3:1 (WCAG 1.4.11, a graphic's contrast), the labels on light paper."""
    server, browser = live
    board = load_board("classic")
    cells = {}  # one cell of each colour in the start column (H), where any cross may go (docs/rules.md)
    for row in range(board.rows):
        cells.setdefault(board.grid[row][board.start_column], f"{COLUMN_LETTERS[board.start_column]}{row + 1}")
    assert set(cells) == set(FILL)
    ctx = browser.new_context(viewport={"width": 360, "height": 740}, color_scheme="dark")
    page = ctx.new_page()
    with httpx.Client(base_url=server.url) as api:
        code = new_room(api)
        page.goto(f"{server.url}/r/{code}")
        page.fill("#seat-name", "Anna")
        page.click("#seat-form button[type=submit]")
        page.wait_for_selector("#mine svg rect[data-cell]")
        token = json.loads(page.evaluate(f"localStorage.getItem('nochmal-room-{code}')"))["token"]
        # five colours take five rolls: counted, so the sheet is a legal one (no warning on it)
        assert api.put(f"/api/rooms/{code}/rolls", json={"rolls_used": len(cells)},
                       headers={"Authorization": f"Bearer {token}"}).status_code == 200
    for cell in cells.values():
        page.click(f'#mine rect[data-cell="{cell}"]')
        page.wait_for_selector(f'#mine rect[data-cell="{cell}"][data-crossed="1"]')
    expect(page.locator("#mine-warning")).to_be_hidden()
    seen = page.evaluate("""(cells) => Object.entries(cells).map(([colour, cell]) => {
        const rect = document.querySelector('#mine rect[data-cell="' + cell + '"]');
        const cross = Array.from(document.querySelectorAll('#mine g.cross')).find((g) => {
          const b = g.getBBox(); const x = +rect.getAttribute('x'), y = +rect.getAttribute('y');
          return b.x >= x && b.x <= x + rect.width.baseVal.value && b.y >= y && b.y <= y + rect.height.baseVal.value; });
        return [colour, getComputedStyle(rect).fill, cross ? getComputedStyle(cross).stroke : null];
      })""", cells)
    for colour, fill, stroke in seen:
        assert fill == "rgb({}, {}, {})".format(*bytes.fromhex(FILL[colour][1:])), (colour, fill)
        assert stroke is not None and contrast(stroke, fill) >= 3, (colour, fill, stroke)
    paper = page.evaluate("""() => getComputedStyle(document.querySelector('#mine svg > rect[width="100%"]')).fill""")
    label = page.evaluate("""() => getComputedStyle(document.querySelector('#mine svg text')).fill""")
    assert contrast(paper, label) >= 7 and luminance(page.evaluate("() => getComputedStyle(document.body).backgroundColor")) < 0.05
    _shot(page, "dark-room")
    page.set_viewport_size({"width": 1280, "height": 860})
    _shot(page, "dark-room")
    ctx.close()
