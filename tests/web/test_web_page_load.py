"""A new puzzle's page carries its first state (docs/web.md "Page load"): the sheet is in the
page's markup, the dice are drawn from the page while the game is made, a tap waits for the
game, a game that cannot be made is said."""

from __future__ import annotations

import json
import re

import pytest
from fastapi.testclient import TestClient

from nochmal.bots.registry import make_agent
from nochmal.board import load_board
from nochmal.dice import seeded_roll
from nochmal.game import Game
from nochmal.web.app import create_app
from webserver import NO_WORKER

pytestmark = pytest.mark.slow
NEW_GAME = re.compile(r"/api/games(\?.*)?$")  # POST /api/games, with or without ?svg=false
FRESH = re.compile(r'<script type="application/json" id="fresh-game">(.*?)</script>', re.S)
# the sheets' boxes as game.js drawSheets makes them: the player's first, with its id
SHEETS = re.compile(r'<div id="sheets" class="sheets">(.*?)</div>\s*<section id="end"', re.S)
BOX = re.compile(r'<div class="sheet-box( to-move)?" data-seat="(\d+)"( id="my-sheet")?>(.*?</svg>\s*)</div>', re.S)


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(None))


def page_state(html: str):
    found = FRESH.search(html)
    return None if found is None else json.loads(found.group(1))


def page_sheets(html: str) -> list[tuple[str, str, str, str]]:
    """The sheets' boxes in the page's markup: (to-move class, seat, id, drawing), in order."""
    inside = SHEETS.search(html).group(1)
    boxes = BOX.findall(inside)
    assert "".join(m.group(0) for m in BOX.finditer(inside)) == inside  # nothing else in #sheets
    return boxes


@pytest.mark.parametrize("lang", ["en", "de", "pl"])
@pytest.mark.parametrize("seed", [11, 20261205])
def test_the_page_carries_what_the_new_game_answers_but_its_id(client, seed, lang):
    """The oracle is the API: the page's state is the state POST /api/games answers for the same
    puzzle in the same language, all but the id (no game is made for the page), its drawing as
    the page's markup and the rest as ?svg=false answers it."""
    headers = {"Accept-Language": lang}
    html = client.get(f"/puzzle/{seed}", headers=headers).text
    carried = page_state(html)
    new = {"kind": "puzzle", "seed": seed}
    made = client.post("/api/games", json=new, headers=headers).json()
    bare = client.post("/api/games?svg=false", json=new, headers=headers).json()
    assert f'lang="{lang}"' in html
    assert made["id"] and carried["id"] is None
    assert carried == {**bare, "id": None} and {**carried, "sheets_svg": made["sheets_svg"]} == {**made, "id": None}
    assert page_sheets(html) == [(" to-move", "0", ' id="my-sheet"', made["sheets_svg"][0])]
    # the script holds JSON only: no markup of the drawing ends it early
    assert "</" not in FRESH.search(html).group(1) and "<svg" in made["sheets_svg"][0]


def test_the_daily_puzzle_carries_its_day_and_a_named_game_carries_nothing(client):
    from nochmal.puzzles import daily_seed

    html = client.get("/puzzle").text
    carried = page_state(html)
    assert carried["seed"] == daily_seed() and carried["roll"] == 1 and len(page_sheets(html)) == 1
    # a reload of a game already made (?game=ID) draws that game, as asked: nothing carried
    for named in ("/puzzle/11?game=abc", "/puzzle?game=abc"):
        html = client.get(named).text
        assert page_state(html) is None and page_sheets(html) == []


def test_the_sheet_is_drawn_without_a_script(server, browser):
    """The browser draws the new puzzle's sheet from the page itself, as it reads it: with
    JavaScript off the sheet is there, each cell named, in the page's language."""
    context = browser.new_context(viewport={"width": 360, "height": 760}, java_script_enabled=False,
                                  locale="de-DE", extra_http_headers={"Accept-Language": "de-DE"})
    page = context.new_page()
    page.goto(f"{server.url}/puzzle/11")
    assert page.locator("#my-sheet rect.cell").count() == 105
    assert page.get_attribute('#my-sheet rect.cell[data-cell="A1"]', "aria-label").startswith("A1 grün")
    assert page.locator("#my-sheet").bounding_box()["width"] > 300  # laid out, not an empty box
    context.close()


# every fetch the page starts, counted in the page when it starts (not when Playwright hears of it)
COUNT_FETCHES = """(() => { window.__asked = []; const real = window.fetch;
  window.fetch = function (input, init) { window.__asked.push(String(input.url || input)); return real.apply(this, arguments); };
})();"""


def fetched(page, part: str) -> list[str]:
    return [url for url in page.evaluate("window.__asked") if part in url]


def first_move(seed: int):
    game = Game(load_board("classic"), 1, mode="solo")
    game.apply_roll(seeded_roll(seed, 0, 2))
    return make_agent("greedy").choose(game)


def test_the_sheet_is_drawn_before_the_game_is_made_and_a_tap_waits_for_it(server, browser):
    seed = 11
    move = first_move(seed)
    assert not move.is_pass
    page = browser.new_page(viewport={"width": 360, "height": 760}, **NO_WORKER)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.add_init_script(COUNT_FETCHES)
    held = []
    page.route(NEW_GAME, lambda route: held.append(route) if route.request.method == "POST" else route.continue_())
    page.goto(f"{server.url}/puzzle/{seed}")
    page.wait_for_selector("#my-sheet rect.cell")
    assert page.locator("#dice .die").count() == 4 and page.text_content("#roll-info").startswith("roll 1 of 30")
    for _ in range(250):  # the game's request left with the page's head; its handler runs as Playwright reads events
        if held:
            break
        page.wait_for_timeout(20)
    assert len(held) == 1, "the page asks for its game once"
    # a pick before the game is there waits for it: nothing is asked about a game without an id
    page.locator(f'.die.colour[data-face="{move.colour_face}"]').first.click()
    page.locator(f'.die.number[data-face="{move.number_face}"]').first.click()
    # (a page that did not wait would have started its tap in the click's own task, counted by now)
    assert fetched(page, "/tap") == [] and page.locator(".die.picked").count() == 0
    held[0].continue_()
    page.wait_for_selector("#sheets.choosing")  # both picks taken, in their order, once the game is made
    assert page.locator(".die.picked").count() == 2 and len(fetched(page, "/tap")) == 1  # (a lone colour asks nothing)
    assert "game=" not in page.url  # named when it has something to keep
    for cell in move.cells:
        before = page.locator("#my-sheet rect.cell.picked").count()
        page.locator(f'#my-sheet rect.cell[data-cell="{cell}"]').click(force=True)
        page.wait_for_function(f'document.querySelectorAll("#my-sheet rect.cell.picked").length > {before}')
    page.click("#cross")
    page.wait_for_function('document.getElementById("roll-info").textContent.startsWith("roll 2 of 30")')
    game_id = re.search(r"game=([\w-]+)", page.url).group(1)
    record = page.request.get(f"{server.url}/api/games/{game_id}/record").json()
    assert [m["move"] for roll in record["rolls"] for m in roll["moves"]] == [str(move)]
    assert errors == []
    page.close()


def test_a_game_that_cannot_be_made_is_said_and_nothing_is_asked_of_it(server, browser):
    page = browser.new_page(viewport={"width": 360, "height": 760}, **NO_WORKER)
    refusal = "too many new games from this address: wait a minute"
    page.add_init_script(COUNT_FETCHES)
    page.route(NEW_GAME, lambda route: route.fulfill(status=429, content_type="application/json",
                                                             body=json.dumps({"error": refusal, "field": None}))
               if route.request.method == "POST" else route.continue_())
    page.goto(f"{server.url}/puzzle/12")
    page.wait_for_selector("#my-sheet rect.cell")
    page.wait_for_function("document.getElementById('message').textContent !== ''")
    assert page.text_content("#message") == refusal
    page.locator(".die.colour").first.click()
    page.evaluate("document.getElementById('message').textContent = ''")
    page.locator(".die.number").first.click()
    page.wait_for_function("document.getElementById('message').textContent !== ''")
    assert page.text_content("#message") == refusal and fetched(page, "/api/games/") == []
    page.close()


def test_a_game_that_differs_from_its_page_is_drawn_as_the_game_is(server, browser):
    """Not expected (one puzzle's page and game are one function of its seed), but if the game's
    answer says other than the page, the page asks for the whole game and draws that."""
    seed = 15
    first = seeded_roll(seed, 0, 2)
    assert sorted(first.colours + first.numbers) != ["6", "6", "b", "b"]
    page = browser.new_page(viewport={"width": 360, "height": 760}, **NO_WORKER)
    page.add_init_script(COUNT_FETCHES)

    def made_otherwise(route):
        if route.request.method != "POST":
            return route.continue_()
        assert route.request.url.endswith("?svg=false")  # the page has the drawing: only the id is needed
        answer = route.fetch().json()
        route.fulfill(json={**answer, "dice": {"colours": ["b", "b"], "numbers": ["6", "6"]}})

    page.route(NEW_GAME, made_otherwise)
    page.goto(f"{server.url}/puzzle/{seed}")
    page.wait_for_selector("#my-sheet rect.cell")
    # a pick is taken once the game is settled (after the GET's drawing): then the dice are final
    page.locator(".die.colour").first.click()
    page.wait_for_selector(".die.picked")
    assert len(fetched(page, "/api/games/")) == 1, page.evaluate("window.__asked")  # the GET of the whole game
    faces = page.eval_on_selector_all("#dice .die", "ds => ds.map(d => d.dataset.face)")
    assert sorted(faces) == sorted(first.colours + first.numbers)  # the game's own dice, as the GET says
    page.close()
