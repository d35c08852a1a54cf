"""This roll's advice in Chromium at phone size (docs/rooms.md, this roll's advice): one phone
taps in the dice, another shows every player's move and the advised cells outlined on the
sheets; counting the roll clears it, a won mission has none. Screenshots (360 and 1280 px) go to artifacts/rooms/
(git-ignored)."""

from __future__ import annotations

from playwright.sync_api import expect

from rooms_support import close, new_room, phone, put_cells, room_phone, set_rolls, shot, sit

FIRST_ADVICE_MS = 120_000  # a hang guard, not a pace: the first advice starts the server's child process


def test_one_phone_enters_the_dice_and_another_shows_the_advice(server, browser):
    code = new_room(server.api, mission="lockstep", difficulty="normal", players=2)
    anna, ben = sit(server.api, code, "Anna"), sit(server.api, code, "Ben")
    put_cells(server.api, code, *anna, ["H1", "H2", "H3", "H4"])
    set_rolls(server.api, code, anna[1], 5)  # roll 6: Ben rolls, Anna picks from what he leaves
    ben_page, anna_page = room_phone(browser, server, code, ben), room_phone(browser, server, code, anna)
    try:
        expect(anna_page.locator("#dice-title")).to_have_text("Roll 6: the dice")
        for die in ('[data-colour="b"]', '[data-colour="y"]', '[data-colour="x"]',
                    '[data-number="3"]', '[data-number="5"]', '[data-number="?"]'):
            anna_page.click(f"#dice-box button{die}")
        assert anna_page.evaluate("document.documentElement.scrollWidth") <= 360  # the entry fits the phone
        expect(anna_page.locator("#dice-box button.pick[data-colour]").first).to_be_disabled()  # three taken
        shot(anna_page, "room-dice-entry")
        anna_page.click("#dice-send")

        # Ben's phone hears it: the title, a line per player (Ben first: he rolls), the cells outlined
        expect(ben_page.locator("#dice-title")).to_have_text("This roll (Roll 6, Ben rolls)", timeout=FIRST_ADVICE_MS)
        lines = ben_page.locator("#advice-moves li")
        expect(lines).to_have_count(2)
        expect(lines.nth(0)).to_contain_text("Ben: ")
        expect(lines.nth(1)).to_contain_text("Anna: ")
        expect(lines.nth(1).locator(".dice-from")).to_contain_text("what Ben leaves")
        expect(ben_page.locator(".dice-entered")).to_contain_text("entered by Anna")
        advice = server.api.get(f"/api/rooms/{code}/dice").json()["advice"]
        for page, own in ((ben_page, 1), (anna_page, 0)):  # each player's cells on that player's sheet
            for move in advice["moves"]:
                sheet = "#mine" if move["seat"] == own else f'.other[data-seat="{move["seat"]}"]'
                expect(page.locator(f"{sheet} .advice-mark")).to_have_count(len(move["cells"]))
                for cell in move["cells"]:
                    expect(page.locator(f'{sheet} .advice-mark[data-advice="{cell}"]')).to_have_count(1)
        assert ben_page.locator(".bad-mark").count() == 0  # the outline is not the mis-tap's red ring
        shot(ben_page, "room-dice-advice", also_1280=True)
        watcher = phone(browser, 360, 780)  # a phone opened later, with no seat: the advice it loads, no entry
        watcher.goto(f"{server.url}/r/{code}")
        expect(watcher.locator("#advice-moves li")).to_have_count(2)
        expect(watcher.locator('.other[data-seat="0"] .advice-mark')).to_have_count(len(advice["moves"][1]["cells"]))
        assert watcher.locator("#dice-box button.pick").count() == 0
        close(watcher)

        # the roll counted: every phone clears it, and the entry is open for roll 7
        ben_page.click("#rolls-plus")
        for page in (ben_page, anna_page):
            expect(page.locator("#dice-title")).to_have_text("Roll 7: the dice")
            expect(page.locator(".advice-mark")).to_have_count(0)

        # the mission won (columns G, H, I on both sheets, late in the game): no dice to enter
        set_rolls(server.api, code, anna[1], 20)
        expect(ben_page.locator("#dice-title")).to_have_text("Roll 21: the dice")
        for seat in (anna, ben):
            put_cells(server.api, code, *seat, [f"{c}{r}" for c in "GHI" for r in range(1, 8)])
        for page in (ben_page, anna_page):
            expect(page.locator("#banner-text")).to_have_text("Won on roll 21!")
            expect(page.locator("#dice-box")).to_be_hidden()
        assert not ben_page.js_errors and not anna_page.js_errors, ben_page.js_errors + anna_page.js_errors
    finally:
        close(ben_page, anna_page)


def test_a_phone_whose_stream_is_refused_shows_the_room_and_the_advice_and_goes_live(server, browser):
    """A stream the server refuses (429: too many open from one address) is not retried by the
    browser: the page shows the room as it stands (this roll's advice too) and tries again."""
    code = new_room(server.api, mission="lockstep", difficulty="normal", players=2)
    anna, _ = sit(server.api, code, "Anna"), sit(server.api, code, "Ben")
    dice = {"colours": ["b", "y", "x"], "numbers": ["3", "5", "?"]}
    res = server.api.put(f"/api/rooms/{code}/dice", json={"roll": 1, "dice": dice},
                         headers={"Authorization": f"Bearer {anna[1]}"}, timeout=FIRST_ADVICE_MS / 1000)
    assert res.status_code == 200, res.text
    watcher = phone(browser, 360, 780)
    watcher.route("**/events", lambda route: route.fulfill(status=429, content_type="application/json",
                                                          body='{"error": "too many streams", "field": null}'),
                  times=1)
    watcher.goto(f"{server.url}/r/{code}")
    expect(watcher.locator("#advice-moves li")).to_have_count(2)  # drawn from a GET, without the stream
    expect(watcher.locator("#live")).to_have_class("live on")  # the stream, tried again, is live
    close(watcher)
