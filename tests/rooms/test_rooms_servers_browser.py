"""Phones of one room on two servers (docs/rooms.md, Several servers), in Chromium: a tap on
a phone of server A appears on a phone of server B and back, the rolls and the team status
too, the German phone's drawing of a sheet made on the English side in German; then server A
is killed (SIGKILL) and its phone, behind a proxy as in a deployment, goes on with B: live
again, its next tap acknowledged and seen, nothing acknowledged before lost."""

from __future__ import annotations

import pytest

from rooms_support import crash, crossed, join, new_room, phone, shot
from servers_support import FailoverProxy, port_of, shared_servers


@pytest.fixture(scope="module")
def two(tmp_path_factory, postgres_url):
    with shared_servers(tmp_path_factory.mktemp("shared"), postgres_url) as (urls, procs):
        proxy = FailoverProxy([port_of(url) for url in urls])  # A first, B when A is down
        yield proxy, urls, procs
        proxy.close()


@pytest.mark.slow
def test_phones_on_two_servers_and_one_killed(two, browser):
    proxy, (a, b), procs = two
    import httpx

    code = new_room(httpx.Client(base_url=a))
    anna, ben = phone(browser, 360, 800), phone(browser, 1280, 900, locale="de-DE")
    join(anna, f"{proxy.url}/r/{code}", "Anna")  # through the proxy: server A
    join(ben, f"{b}/r/{code}", "Ben")  # server B
    ben.wait_for_selector('.other[data-seat="0"] h3:has-text("Anna")')
    for n in range(1, 4):  # rolls counted on A, seen on B
        anna.click("#rolls-plus")
        anna.wait_for_function(f"() => document.querySelector('#rolls-used').textContent === '{n}'")
    ben.wait_for_function("() => document.querySelector('#rolls-used').textContent === '3'")

    anna.click('#mine rect[data-cell="H4"]')  # made on A, drawn on B in Ben's language
    crossed(ben, '.other[data-seat="0"]', "H4").wait_for()
    said = ben.get_attribute('.other[data-seat="0"] [aria-label^="H4 "]', "aria-label")
    assert said == "H4 blau, angekreuzt", said  # drawn on B in German: no phone on A speaks it
    ben.click('#mine rect[data-cell="H3"]')  # made on B, seen on A
    crossed(anna, '.other[data-seat="1"]', "H3").wait_for()
    said = anna.get_attribute('.other[data-seat="1"] [aria-label^="H3 "]', "aria-label")
    assert said.endswith(", crossed"), said  # drawn on A in English: the German phone's server drew German
    ben.wait_for_selector(".advice li", timeout=60000)  # the team status, computed once, on both
    anna.wait_for_selector(".advice li", timeout=60000)
    assert "Anna" in ben.inner_text(".advice")
    assert not anna.js_errors and not ben.js_errors
    shot(anna, "servers-anna-on-a")
    shot(ben, "servers-ben-on-b")

    crash(procs[0])  # server A dies: Anna's stream breaks, the proxy sends her reconnect to B
    anna.wait_for_selector("#live.off")
    anna.wait_for_selector("#live.on", timeout=60000)
    anna.click('#mine rect[data-cell="H2"]')
    crossed(anna, "#mine", "H2").wait_for()
    crossed(ben, '.other[data-seat="0"]', "H2").wait_for()
    for cell in ("H4", "H2"):  # nothing acknowledged lost
        assert crossed(ben, '.other[data-seat="0"]', cell).count() == 1
    shot(anna, "servers-anna-after-a-died", also_1280=True)
    assert not anna.js_errors and not ben.js_errors
    anna.context.close()
    ben.context.close()
