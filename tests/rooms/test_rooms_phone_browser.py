"""A room's sheet on a phone (docs/web.md, phones; docs/rooms.md): full width with cells of 22 px
and text of 11 px, zoom allowed, the team beside the sheet on a phone held sideways, and the sheet
crossed by keyboard, named for screen readers. Screenshots in artifacts/rooms/."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from phone_support import VIEWPORTS, arrow_to, assert_fits_a_phone, side_by_side, tab_into
from rooms_support import ARTIFACTS, join, new_room, phone


def _seated_page(server, browser, size, name="Anna"):
    code = new_room(server.api)
    page = phone(browser, *size)
    join(page, f"{server.url}/r/{code}", name)
    return page


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


@pytest.mark.parametrize("size", list(VIEWPORTS))
def test_room_sheet_fits_a_phone(server, browser, size):
    page = _seated_page(server, browser, VIEWPORTS[size])
    assert_fits_a_phone(page, "#mine svg")
    if size == "740x360":  # held sideways: the team's card and the roll's buttons beside your sheet
        assert side_by_side(page, "#mine-box", "#status-box") and side_by_side(page, "#mine-box", "#rolls-box")
        sheet, plus = page.locator("#mine-box").bounding_box(), page.locator("#rolls-plus").bounding_box()
        assert plus["y"] < sheet["y"] + 0.5 * sheet["height"], (plus, sheet)  # "Roll 1 done" beside the sheet's top half
        assert side_by_side(page, "#mine-box", "#dice-box")  # this roll's dice too, inside their card
        assert page.evaluate("""() => Array.from(document.querySelectorAll('#dice-box button')).every((b) =>
            b.getBoundingClientRect().right <= document.querySelector('#dice-box').getBoundingClientRect().right)""")
        assert page.locator("#mine svg").bounding_box()["y"] < VIEWPORTS[size][1] - 60  # the sheet in the first screen
    _shot(page, f"phone-room-{size}")
    assert page.js_errors == []
    page.context.close()


def test_room_at_laptop_width(server, browser):
    page = _seated_page(server, browser, (1280, 860))
    _shot(page, "phone-room-1280")
    page.context.close()


def test_room_sheet_by_keyboard_and_screen_reader(server, browser):
    """Tab to the sheet, arrows to H4, Space: H4 is crossed, says so, and keeps the focus."""
    page = _seated_page(server, browser, VIEWPORTS["390x844"])
    tree = ""
    for _ in range(3):  # (a live event may redraw the sheet while it is read: read the new one)
        page.wait_for_selector('#mine svg[role=group] rect[data-cell="H4"][role=button]')
        tree = page.locator("#mine svg").aria_snapshot()
        if tree:
            break
    assert re.search(r'button "H4 (yellow|green|blue|red|orange)(, star)?, not crossed"', tree), tree[:400]
    at = tab_into(page, "#mine")
    arrow_to(page, at, "H4")
    page.keyboard.press("Space")
    expect(page.locator('#mine rect[data-cell="H4"]')).to_have_attribute("data-crossed", "1")
    page.wait_for_function('document.activeElement && document.activeElement.dataset.cell === "H4"')
    assert re.search(r'button "H4 \w+(, star)?, crossed"', page.locator("#mine svg").aria_snapshot())
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page.locator('#mine rect[data-cell="H5"]')).to_have_attribute("data-crossed", "1")
    _shot(page, "phone-room-keyboard-390")
    assert page.js_errors == []
    page.context.close()
