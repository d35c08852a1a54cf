"""The team status card at phone and laptop size (Chromium through Playwright): a mis-tap is
a warning on that sheet with its cell marked and a one-tap undo, the team status stays; the
card's heading sits above its content; a spectator's page has no empty column; the advice
reads as a player says it. Screenshots go to artifacts/rooms/ (git-ignored)."""

from __future__ import annotations

from playwright.sync_api import expect

from rooms_support import ARTIFACTS, new_room, phone, put_cells, set_rolls, sit

CENTRE = [f"{c}{r}" for c in "GHI" for r in range(1, 8)]  # lockstep's columns G, H, I


def room_phone(browser, server, code: str, width: int, seat: tuple[int, str] | None = None):
    """A page on the room at ``width`` px, holding ``seat`` (seat, token) if given."""
    page = phone(browser, width, 860, code, seat)
    page.goto(f"{server.url}/r/{code}")
    page.wait_for_selector("#live.on")
    return page


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    width = page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width, f"{name}: wider than {width} px"
    page.screenshot(path=str(ARTIFACTS / f"{name}-{width}.png"), full_page=True)


def test_a_mis_tap_is_a_warning_on_that_sheet_with_an_undo(server, browser):
    code = new_room(server.api, mission="lockstep", difficulty="normal", players=2)
    anna, ben = sit(server.api, code, "Anna"), sit(server.api, code, "Ben")
    set_rolls(server.api, code, anna[1], 20)
    put_cells(server.api, code, *anna, CENTRE)
    put_cells(server.api, code, *ben, CENTRE)
    ben_page = room_phone(browser, server, code, 360, ben)
    anna_page = room_phone(browser, server, code, 1280, anna)
    for page in (ben_page, anna_page):
        expect(page.locator("#mission-state")).to_contain_text("Won!")

    ben_page.locator('#mine rect[data-cell="A1"]').click()  # the mis-tap
    expect(ben_page.locator("#mine-warning")).to_contain_text(
        "Your sheet cannot come from a legal game: A1 is not connected to column H.")
    expect(ben_page.locator('#mine rect[data-cell="A1"].bad')).to_have_count(1)
    other = anna_page.locator('.other[data-seat="1"]')
    expect(other.locator(".sheet-warning")).to_contain_text("Ben's sheet cannot come from a legal game")
    expect(other.locator('rect[data-cell="A1"].bad')).to_have_count(1)
    for page in (ben_page, anna_page):  # the team status stays, and says what it counted
        expect(page.locator("#mission-state")).to_contain_text("Won!")
        expect(page.locator(".counted-note")).to_have_text(
            "Ben's sheet is counted without A1: A1 is not connected to column H.")
        expect(page.locator(".objectives li")).to_have_count(1)
        assert page.locator(".impossible-flag").count() == 0
    assert anna_page.locator(".undo-tap").count() == 0  # only Ben's phone can undo Ben's tap
    shot(ben_page, "room-mistap")
    shot(anna_page, "room-mistap")

    ben_page.click(".undo-tap")
    expect(ben_page.locator("#undo-note")).to_have_text("Undone: A1 uncrossed")
    expect(ben_page.locator('#mine rect[data-cell="A1"][data-crossed="0"]')).to_have_count(1)
    expect(ben_page.locator("#mine-warning")).to_be_hidden()
    expect(other.locator(".sheet-warning")).to_be_hidden()
    expect(anna_page.locator(".counted-note")).to_have_count(0)
    expect(anna_page.locator('.other[data-seat="1"] rect[data-cell="A1"][data-crossed="0"]')).to_have_count(1)
    shot(ben_page, "room-mistap-undone")


def colour_fan_room(server) -> str:
    """Colour fan, four seats taken (a browser opening it is a spectator), H1-H4 on every sheet."""
    code = new_room(server.api, mission="colour-fan", difficulty="normal", players=4)
    seats = [sit(server.api, code, name) for name in ("Anna", "Ben", "Cleo", "Dan")]
    set_rolls(server.api, code, seats[0][1], 4)
    for seat in seats:
        put_cells(server.api, code, *seat, ["H1", "H2", "H3", "H4"])
    return code


def test_status_card_layout(server, browser):
    """The card's heading above its content (app.css's flex row of .status no longer applies),
    and a spectator's card as wide as the page (no empty column beside it)."""
    competitive = new_room(server.api, mode="competitive", board="classic", players=2)
    sit(server.api, competitive, "Anna")
    page = room_phone(browser, server, competitive, 1280)
    expect(page.locator("table.scores")).to_have_count(1)
    title, body = page.locator("#status-title").bounding_box(), page.locator("#status").bounding_box()
    assert body["y"] >= title["y"] + title["height"] - 1  # "Scores" above its table, not beside it
    shot(page, "room-competitive-status")
    code = colour_fan_room(server)
    for width in (360, 1280):
        page = room_phone(browser, server, code, width)
        expect(page.locator(".objectives li")).to_have_count(1)
        title, body = page.locator("#status-title").bounding_box(), page.locator("#status").bounding_box()
        assert body["y"] >= title["y"] + title["height"] - 1
        layout = page.locator(".layout").bounding_box()
        assert page.locator("#status-box").bounding_box()["width"] >= 0.95 * layout["width"]


def test_advice_in_words_for_every_player(server, browser):
    code = colour_fan_room(server)
    for width in (360, 1280):
        page = room_phone(browser, server, code, width)
        expect(page.locator(".advice li")).to_have_count(4, timeout=30000)
        texts = page.locator(".advice li").all_inner_texts()
        assert texts[0] == "Anna: colour green, about 10 rolls"  # the split left Anna idle
        assert all(t.startswith(n + ": ") for t, n in zip(texts, ("Anna", "Ben", "Cleo", "Dan")))
        card = page.inner_text("#status").lower()
        assert not any(w in card for w in ("cp-sat", "greedy", "lower bound", "subset", "nothing needed"))
        shot(page, "room-spectator-advice")


def test_team_target_advice_in_points(server, browser):
    code = new_room(server.api, mission="team-target", difficulty="normal", players=2)
    seats = [sit(server.api, code, name) for name in ("Anna", "Ben")]
    page = room_phone(browser, server, code, 360, seats[0])
    expect(page.locator(".objectives .progress")).to_have_count(1)
    progress = page.inner_text(".objectives .progress")
    assert progress.startswith("now -") and progress.endswith(" points, 58 needed")  # not "-44 of 58"
    expect(page.locator(".advice li")).to_have_count(2, timeout=30000)
    assert all(" points in " in t for t in page.locator(".advice li").all_inner_texts())
    assert "still reach at most" in page.inner_text("#split-total")
    shot(page, "room-team-target-advice")
    page.set_viewport_size({"width": 1280, "height": 860})
    shot(page, "room-team-target-advice")


def test_a_competitive_mis_tap_is_said_on_the_sheet(server, browser):
    """No team status counts a competitive sheet: the warning says what is wrong, not what
    a team status counted."""
    code = new_room(server.api, mode="competitive", board="classic", players=2)
    anna = sit(server.api, code, "Anna")
    page = room_phone(browser, server, code, 360, anna)
    page.locator('#mine rect[data-cell="A1"]').click()
    expect(page.locator("#mine-warning")).to_contain_text("A1 is not connected to column H.")
    assert "team status" not in page.inner_text("#mine-warning")
    expect(page.locator(".counted-note")).to_have_text(
        "Anna's sheet cannot come from a legal game: A1 is not connected to column H.")
    expect(page.locator('#mine rect[data-cell="A1"].bad')).to_have_count(1)
    shot(page, "room-competitive-mistap")
    page.click(".undo-tap")
    expect(page.locator("#undo-note")).to_have_text("Undone: A1 uncrossed")
    expect(page.locator(".counted-note")).to_have_count(0)
