"""The rooms in German and Polish in Chromium (docs/rooms.md, Languages): a de-DE phone and a
pl-PL phone at one mission table each see the room in their own language — the roll in play,
a roll counted by the other phone, this roll's advice, the team's advice, a refused tap and
the sheet drawings — with no English phrase of the English catalog left (tests/languages_support.py),
and the rooms' index, a competitive room (scores, the race) and an online game likewise. Screenshots (360 px, and 1280 px of the room) go to
artifacts/rooms/ (git-ignored)."""

from __future__ import annotations

from playwright.sync_api import expect

from nochmal.i18n import said, say
from languages_support import LOCALES, english_left
from online_support import new_online, sit_all, sit_on_page, wait_state
from rooms_support import close, new_room, phone, put_cells, room_phone, set_rolls, shot, sit

STATUS_MS = 120_000  # hang guards, not a pace: the first advice and split start the server's child processes


def test_two_phones_of_one_room_each_in_its_language(server, browser):
    # three seats, the third free: its label, its advice and its missing line in each language too
    code = new_room(server.api, mission="lockstep", difficulty="normal", players=3)
    anna, ben = sit(server.api, code, "Anna"), sit(server.api, code, "Ben")
    put_cells(server.api, code, *anna, ["H1", "H2", "H3", "H4"])
    set_rolls(server.api, code, anna[1], 4)  # roll 5: Ben rolls (roll 6: the free seat)
    de, pl = (room_phone(browser, server, code, anna, LOCALES["de"]),
              room_phone(browser, server, code, ben, LOCALES["pl"]))
    try:
        for page, lang in ((de, "de"), (pl, "pl")):
            assert page.evaluate("document.documentElement.lang") == lang
            expect(page.locator("#in-play")).to_have_text(said(say("Roll %(roll)s — %(name)s rolls", roll=5,
                                                                   name="Ben"), lang))
        # the German phone enters the dice: both phones show every player's move in their words
        for die in ('[data-colour="b"]', '[data-colour="y"]', '[data-colour="x"]',
                    '[data-number="3"]', '[data-number="5"]', '[data-number="?"]'):
            de.click(f"#dice-box button{die}")
        de.click("#dice-send")
        for page, lang in ((de, "de"), (pl, "pl")):
            expect(page.locator("#dice-title")).to_have_text(
                said(say("This roll (Roll %(roll)s, %(name)s rolls)", roll=5, name="Ben"), lang), timeout=STATUS_MS)
            expect(page.locator("#advice-moves li")).to_have_count(3)
            expect(page.locator(".advice li")).to_have_count(3, timeout=STATUS_MS)  # the team's advice
            expect(page.locator('.advice li[data-seat="2"]')).to_contain_text(said(say("seat %(n)s (free)", n=3), lang))
        # a refused tap (no joker to take back) on the Polish phone, said in Polish
        pl.click("#joker-minus")
        expect(pl.locator("#edit-error")).to_have_text(said(say("%(name)s has no joker crossed off to take back",
                                                                name="Ben"), "pl"))
        for page, lang in ((de, "de"), (pl, "pl")):
            assert english_left(page) == [], (lang, english_left(page))
        shot(de, "room-lang-de-advice", also_1280=True)
        shot(pl, "room-lang-pl-advice")

        # the Polish phone counts the roll: its note in Polish, and the German phone names who counted
        # it in German (the note itself goes to every phone on the stream: test_rooms_languages.py)
        pl.click("#rolls-plus")
        expect(pl.locator("#roll-note")).to_have_text(said(say("%(name)s counted roll %(roll)s", name="Ben", roll=5),
                                                           "pl"))
        for page, lang in ((de, "de"), (pl, "pl")):
            expect(page.locator("#rolls-minus")).to_have_text(
                said(say("Undo roll %(roll)s (counted by %(name)s)", roll=5, name="Ben"), lang))
        expect(de.locator(".advice li")).to_have_count(3, timeout=STATUS_MS)
        for page, lang in ((de, "de"), (pl, "pl")):  # roll 6: the free seat's, named in each language
            free = said(say("seat %(n)s (free)", n=3), lang)
            expect(page.locator("#in-play")).to_have_text(said(say("Roll %(roll)s — %(name)s rolls", roll=6,
                                                                   name=free), lang))
        for page, lang in ((de, "de"), (pl, "pl")):
            assert english_left(page) == [], (lang, english_left(page))
        assert not de.js_errors and not pl.js_errors, de.js_errors + pl.js_errors
    finally:
        close(de, pl)


def test_the_rooms_index_in_german_and_polish(server, browser):
    for lang in ("de", "pl"):
        page = phone(browser, 360, 780, locale=LOCALES[lang])
        try:
            page.goto(f"{server.url}/rooms")
            assert page.evaluate("document.documentElement.lang") == lang
            assert english_left(page) == [], (lang, english_left(page))
            page.check("input[name=mode][value=competitive]")  # the board names, and a room's count of players
            assert english_left(page) == [], (lang, english_left(page))
            assert page.evaluate("document.documentElement.scrollWidth") <= 360  # the long board names fit
            shot(page, f"rooms-index-lang-{lang}")
        finally:
            close(page)


def test_a_competitive_room_in_german(server, browser):
    # the scores, the race (first and later, the rolls), a sheet no legal game gives: all in German
    code = new_room(server.api, mode="competitive", board="classic", players=2)
    anna, ben = sit(server.api, code, "Anna"), sit(server.api, code, "Ben")
    set_rolls(server.api, code, anna[1], 3)
    put_cells(server.api, code, *anna, [f"H{r}" for r in range(1, 8)])
    put_cells(server.api, code, *ben, [f"H{r}" for r in range(1, 8)] + ["A1"])
    page = room_phone(browser, server, code, anna, LOCALES["de"])
    try:
        expect(page.locator("table.race")).to_contain_text(said(say("column %(letter)s", letter="H"), "de"))
        expect(page.locator(".counted-note")).to_have_count(2)
        assert english_left(page) == [], english_left(page)
        assert not page.js_errors, page.js_errors
    finally:
        close(page)


def test_an_online_game_in_german(server, browser):
    # the online page, its sheet drawings drawn by the server in the phone's words included: a
    # free seat's label before the start, the roll in play after it
    code = new_online(server.api, mode="competitive", seats=["human", "human", "greedy"])["id"]
    page = phone(browser, locale=LOCALES["de"])
    try:
        sit_on_page(page, f"{server.url}/o/{code}", "Anna")
        expect(page.locator("#sheets")).to_contain_text(said(say("seat %(n)s (free)", n=2), "de"))
        assert english_left(page) == [], english_left(page)
        sit_all(server.api, code, ["Ben"])  # every human seat taken: the game starts
        wait_state(page, "choosing")
        assert english_left(page) == [], english_left(page)
        shot(page, "online-de", also_1280=True)
        assert not page.js_errors, page.js_errors
    finally:
        close(page)
