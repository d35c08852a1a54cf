"""A room without the network (docs/rooms.md, offline): taps made offline wait on the phone (shown
as waiting, counted on the page, kept over a reload), then land on the server when the connection
is back, merged cell by cell with what another phone did meanwhile; a real conflict asks. Chromium
with the network cut by Playwright (``context.set_offline``); screenshots in artifacts/rooms/."""

from __future__ import annotations

import json

import httpx
import pytest
from playwright.sync_api import expect

from rooms_support import ARTIFACTS, ThreadServer, make_app, new_room
from webserver import chromium


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """(server, browser, api): one live app, one Chromium and an API client for the module."""
    with ThreadServer(make_app(tmp_path_factory.mktemp("rooms-data"))) as srv, chromium("--no-sandbox") as br, \
            httpx.Client(base_url=srv.url) as api:
        yield srv, br, api


def _phone(browser, url: str, name: str, width: int = 360):
    """A phone that opened the room and sat down; once the service worker controls it."""
    page = browser.new_context(viewport={"width": width, "height": 780}).new_page()
    page.js_errors = []
    page.on("pageerror", lambda exc: page.js_errors.append(str(exc)))
    page.goto(url)
    page.fill("#seat-name", name)
    page.click("#seat-form button[type=submit]")
    page.wait_for_selector("#mine svg rect[data-cell]")
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    page.wait_for_selector("#live.on")
    page.wait_for_selector("#mine svg rect[data-cell]")
    # the worker keeps a page a moment after it was shown (static/sw.js keepPage)
    assert page.evaluate("""async (url) => {  // (30 s: a hang guard)
      for (let i = 0; i < 300 && !(await caches.match(url)); i++) await new Promise((ok) => setTimeout(ok, 100));
      return !!(await caches.match(url)); }""", url), "the worker did not keep the room's page"
    return page


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}-{page.viewport_size['width']}.png"), full_page=True)


def _cells(api, code: str, seat: int = 0) -> set[str]:
    return set(api.get(f"/api/rooms/{code}").json()["seats"][seat]["cells"])


def _other_phone_taps(api, code: str, token: str, **tap) -> None:
    """Anna's other phone (the same seat, its own tap) through the API, at the sheet as it is."""
    version = api.get(f"/api/rooms/{code}").json()["seats"][0]["sheet_version"]
    res = api.patch(f"/api/rooms/{code}/seats/0/sheet", json={**tap, "version": version},
                    headers={"Authorization": f"Bearer {token}"})
    assert res.status_code == 200, res.text


def test_taps_made_offline_wait_then_land_and_merge(live):
    server, browser, api = live
    code = new_room(api)
    anna = _phone(browser, f"{server.url}/r/{code}", "Anna")
    ben = _phone(browser, f"{server.url}/r/{code}", "Ben")
    token = json.loads(anna.evaluate(f"localStorage.getItem('nochmal-room-{code}')"))["token"]

    anna.context.set_offline(True)
    for cell in ("H1", "H2", "I1", "I1"):  # I1 twice: the second tap takes the waiting one back
        anna.click(f'#mine rect[data-cell="{cell}"]')
    note = anna.locator("#offline-note")
    expect(note).to_have_text("Offline — 2 taps waiting")
    expect(anna.locator("#live")).to_be_hidden()  # its "live" would outlast the network
    for cell in ("H1", "H2"):
        expect(anna.locator(f'#mine rect[data-cell="{cell}"]')).to_have_attribute("data-waiting", "cross")
    expect(anna.locator('#mine rect[data-cell="I1"]')).not_to_have_attribute("data-waiting", "cross")
    _shot(anna, "offline-waiting")
    assert _cells(api, code) == set()  # nothing reached the server
    # meanwhile Anna's other phone crosses H3, and H2 too (the cell this phone tapped offline)
    _other_phone_taps(api, code, token, cross=["H3"])
    _other_phone_taps(api, code, token, cross=["H2"])
    anna.reload(wait_until="domcontentloaded")  # offline: the page from the service worker, the taps from localStorage
    expect(note).to_have_text("Offline — 2 taps waiting")
    _shot(anna, "offline-room")
    anna.set_viewport_size({"width": 1280, "height": 860})
    _shot(anna, "offline-room")

    anna.context.set_offline(False)
    expect(note).to_be_hidden()
    for cell in ("H1", "H2", "H3"):  # both taps landed, merged with the other phone's
        expect(anna.locator(f'#mine rect[data-cell="{cell}"]')).to_have_attribute("data-crossed", "1")
        expect(ben.locator(f'.other[data-seat="0"] rect[data-cell="{cell}"]')).to_have_attribute("data-crossed", "1")
    assert _cells(api, code) == {"H1", "H2", "H3"}
    assert anna.locator("#mine rect.waiting").count() == 0

    # a real conflict asks: offline, H4 tapped; the other phone crosses H4 and uncrosses it again
    anna.context.set_offline(True)
    anna.click('#mine rect[data-cell="H4"]')
    expect(note).to_have_text("Offline — 1 tap waiting")
    _other_phone_taps(api, code, token, cross=["H4"])
    _other_phone_taps(api, code, token, uncross=["H4"])
    anna.context.set_offline(False)
    expect(anna.locator("#edit-error")).to_contain_text("H4 was just uncrossed on another phone; tap it again to cross it")
    expect(note).to_be_hidden()
    assert _cells(api, code) == {"H1", "H2", "H3"}
    _shot(anna, "offline-conflict")

    # the network fails on the way while the browser says it is online: the tap waits, then lands
    anna.route("**/seats/0/sheet", lambda route: route.abort("internetdisconnected"))
    anna.click('#mine rect[data-cell="H5"]')
    expect(note).to_have_text("Offline — 1 tap waiting")
    anna.unroute("**/seats/0/sheet")
    # a retry a few seconds later (no event says the server is back); 60 s: a hang guard, not a pace
    expect(anna.locator('#mine rect[data-cell="H5"]')).to_have_attribute("data-crossed", "1", timeout=60_000)
    expect(note).to_be_hidden()
    assert _cells(api, code) == {"H1", "H2", "H3", "H5"}

    # what the worker kept: pages and GET answers, never an event stream
    kept = anna.evaluate("""async () => { const urls = [];
      for (const name of await caches.keys()) for (const r of await (await caches.open(name)).keys()) urls.push(r.url);
      return urls; }""")
    assert f"{server.url}/r/{code}" in kept and not [u for u in kept if u.endswith("/events")], kept
    assert anna.js_errors == [] and ben.js_errors == []
    anna.context.close()
    ben.context.close()


def test_a_reload_offline_draws_the_room_as_last_seen(live):
    server, browser, api = live
    code = new_room(api)
    anna = _phone(browser, f"{server.url}/r/{code}", "Anna")
    anna.click('#mine rect[data-cell="H1"]')
    expect(anna.locator('#mine rect[data-cell="H1"]')).to_have_attribute("data-crossed", "1")
    # the phone keeps the room as it draws it (a moment after a burst of events): H1 crossed in its drawing
    anna.wait_for_function("""(key) => {
      const kept = JSON.parse(localStorage.getItem(key) || "null");
      const svg = kept && new DOMParser().parseFromString(kept.svgs["0"] || "", "image/svg+xml");
      const cell = svg && svg.querySelector('rect[data-cell="H1"]');
      return !!cell && cell.getAttribute("data-crossed") === "1"; }""", arg=f"nochmal-room-last-{code}")
    anna.context.set_offline(True)
    anna.reload(wait_until="domcontentloaded")  # the page from the service worker, no stream
    stale = anna.locator("#stale-note")
    expect(stale).to_be_visible()
    expect(stale).to_contain_text("Not live")
    expect(anna.locator('#mine rect[data-cell="H1"]')).to_have_attribute("data-crossed", "1")
    expect(anna.locator("#status .objectives li")).not_to_have_count(0)  # the team card too
    anna.click('#mine rect[data-cell="H2"]')  # a tap waits on the phone, as before
    expect(anna.locator("#offline-note")).to_have_text("Offline — 1 tap waiting")
    _shot(anna, "offline-reload-stale")
    anna.context.set_offline(False)
    expect(stale).to_be_hidden()  # the stream brought the room: live again
    expect(anna.locator('#mine rect[data-cell="H2"]')).to_have_attribute("data-crossed", "1")
    assert _cells(api, code) == {"H1", "H2"}
    assert anna.js_errors == [], anna.js_errors
    anna.context.close()
