"""The play page's moves log (Chromium through Playwright): newest first, numbered from the
first move, so the first move is 1 and the newest carries the highest number."""

from __future__ import annotations

import httpx
import pytest

from webserver import NO_WORKER, LiveServer, chromium


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with LiveServer(tmp_path_factory.mktemp("webdata")) as srv:
        yield srv


def test_the_moves_log_numbers_from_the_first_move(server):
    game = httpx.post(server.url + "/api/games", json={"kind": "play", "seats": ["human:Anna", "greedy"],
                                                       "seed": 7}).json()
    for _ in range(2):  # Anna passes twice; the bot answers each time
        assert httpx.post(f"{server.url}/api/games/{game['id']}/move", json={"move": "pass"}).status_code == 200
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 360, "height": 760}, **NO_WORKER)
        page.goto(f"{server.url}/play/{game['id']}")
        page.wait_for_selector("#log li")
        numbers = page.evaluate("[...document.querySelectorAll('#log li')].map((li) => li.value)")
        texts = page.locator("#log li").all_inner_texts()
    assert numbers == list(range(len(numbers), 0, -1)) and len(numbers) >= 3
    assert texts[-1].startswith("roll 1 ")  # the first move, numbered 1, at the bottom
