"""The puzzle page on a phone (docs/web.md, phones): a full-width sheet with cells of 22 px and
text of 11 px, zoom allowed, a layout for a phone held sideways, and a sheet played by keyboard
and named for screen readers. Chromium through Playwright; screenshots in artifacts/rooms/."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from nochmal.bots.registry import make_agent
from nochmal.board import load_board
from nochmal.dice import seeded_roll
from nochmal.game import Game
from webserver import NO_WORKER
from phone_support import VIEWPORTS, arrow_to, assert_fits_a_phone, side_by_side, tab_into
from rooms_support import ARTIFACTS

SEED = 11


def _page(browser, size):
    w, h = size
    page = browser.new_page(viewport={"width": w, "height": h}, **NO_WORKER)
    page.js_errors = []
    page.on("pageerror", lambda exc: page.js_errors.append(str(exc)))
    return page


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


@pytest.mark.parametrize("size", list(VIEWPORTS))
def test_puzzle_sheet_fits_a_phone(server, browser, size):
    page = _page(browser, VIEWPORTS[size])
    page.goto(f"{server.url}/puzzle/{SEED}")
    page.wait_for_selector("#my-sheet rect.cell")
    assert_fits_a_phone(page, "#my-sheet svg")
    if size == "740x360":  # held sideways: the dice and buttons beside the sheet
        assert side_by_side(page, "#sheets", "#controls")
    _shot(page, f"phone-puzzle-{size}")
    assert page.js_errors == []
    page.close()


def test_puzzle_at_laptop_width(server, browser):
    page = _page(browser, (1280, 860))
    page.goto(f"{server.url}/puzzle/{SEED}")
    page.wait_for_selector("#my-sheet rect.cell")
    _shot(page, "phone-puzzle-1280")
    page.close()


def _first_move():
    game = Game(load_board("classic"), 1, mode="solo")
    game.apply_roll(seeded_roll(SEED, 0, 2))
    return make_agent("greedy").choose(game)


def test_puzzle_by_keyboard_and_screen_reader(server, browser):
    """Dice, then Tab to the sheet, arrows and Space on each cell of the move, then Cross: the
    cells are crossed; the legal cells say so to a screen reader."""
    move = _first_move()
    assert not move.is_pass
    page = _page(browser, VIEWPORTS["360x740"])
    page.goto(f"{server.url}/puzzle/{SEED}")
    page.wait_for_selector("#my-sheet rect.cell")
    for kind, face in (("colour", move.colour_face), ("number", move.number_face)):
        page.locator(f'.die.{kind}[data-face="{face}"]:not([disabled])').first.focus()
        page.keyboard.press("Space")
    page.wait_for_selector("#my-sheet rect.cell.legal")
    tree = page.locator("#my-sheet svg").aria_snapshot()
    legal = page.locator("#my-sheet rect.cell.legal").evaluate_all("rs => rs.map(r => r.dataset.cell)")
    for name in legal:
        assert re.search(rf'button "{name} (yellow|green|blue|red|orange)(, star)?, not crossed, can be crossed"', tree), name
    assert re.search(r'button "A1 \w+(, star)?, not crossed"', tree)
    at = tab_into(page, "#my-sheet")
    for k, name in enumerate(move.cells):
        arrow_to(page, at, name)
        page.keyboard.press("Space")
        page.wait_for_function(f'document.querySelectorAll("#my-sheet rect.cell.picked").length > {k}')
        at = name
    expect(page.locator("#cross")).to_have_text(f"Cross {move}")
    _shot(page, "phone-puzzle-keyboard-360")
    page.locator("#cross").focus()
    page.keyboard.press("Enter")
    for name in move.cells:
        expect(page.locator(f'#my-sheet rect.cell[data-cell="{name}"]')).to_have_attribute("data-crossed", "1")
    tree = page.locator("#my-sheet svg").aria_snapshot()
    for name in move.cells:
        assert re.search(rf'button "{name} \w+(, star)?, crossed"', tree), name
    assert page.js_errors == []
    page.close()
