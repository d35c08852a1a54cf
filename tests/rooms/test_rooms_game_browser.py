"""Whole games at a real table, in Chromium (Playwright) with a phone per player (docs/rooms.md):
the creator makes the room on the /rooms page, the others open the link read from her page and
sit down; roll after roll every phone taps its crosses on its own sheet and the roller counts the
roll. The crosses are those of a seeded co-op game the mission bots play and win (a legal game
with known dice: an oracle independent of the room), so the room must call it won on the bots'
winning roll. Screenshots at 360 and 1280 px of each state go to artifacts/rooms/ (git-ignored).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from nochmal.board import load_board
from nochmal.missions.coop import play_mission
from nochmal.missions.loader import shipped_mission
from nochmal.missions.tactics import MissionAgent
from rooms_support import (close, crossed, join, new_room, phone, put_cells, seated_phones, set_rolls, shot,
                           tap_cells, token_of)

# star hunt, easy, four players: seed 8 is the bots' shortest win among the first twenty seeds (7 rolls)
MISSION, DIFFICULTY, SEED = "star-hunt", "easy", 8
NAMES = ("Anna", "Ben", "Cleo", "Dan")
WIDTHS = (360, 375, 384, 390)
COLUMN_H = [f"H{r}" for r in range(1, 8)]


def bots_game():
    """Per roll, per seat: the cells and jokers the bots' winning game crossed (seat order of the
    room), each move's cells in an order a player taps them: every tap next to a cross already made."""
    mission = shipped_mission(MISSION)
    game, result = play_mission(mission, DIFFICULTY, [MissionAgent(mission) for _ in NAMES], SEED)
    assert result.state == "won", result.text
    sheets = [set() for _ in NAMES]
    rolls = []
    for _, moves in game.history:
        rolls.append({player: (tap_order(move.cells, sheets[player]), move.joker_cost) for player, move in moves})
    return rolls


def tap_order(cells, crossed: set) -> list[str]:
    """``cells`` from column H or a crossed neighbour outwards (a sheet never shows a cross cut off
    from column H between two taps), ``crossed`` updated."""
    def touches(cell):
        col, row = cell[0], int(cell[1:])
        return col == "H" or bool(({f"{chr(ord(col) + d)}{row}" for d in (-1, 1)} |
                                   {f"{col}{row + d}" for d in (-1, 1)}) & crossed)

    left, order = list(cells), []
    while left:
        cell = next(c for c in left if touches(c))
        left.remove(cell)
        order.append(cell)
        crossed.add(cell)
    return order


def play(page, cells: list[str], jokers: int) -> None:
    """One seat's move: its cells tapped (each tap sent after the one before), its jokers noted."""
    for cell in cells:
        page.tap(f'#mine rect[data-cell="{cell}"]')
    for _ in range(jokers):
        page.tap("#joker-plus")
    for cell in cells:
        expect(crossed(page, "#mine", cell)).to_have_count(1)


def page_top(page, selector: str) -> float:
    """Where ``selector`` starts on the page (not in the window: a tap scrolls)."""
    return page.evaluate("(sel) => document.querySelector(sel).getBoundingClientRect().top + window.scrollY", selector)


def every(phones, selector: str, text: str) -> None:
    for page in phones:
        expect(page.locator(selector)).to_have_text(text)


@pytest.mark.slow  # 40-60 s alone: 85 taps on four phones
def test_four_phones_play_a_mission_to_its_win(server, browser):
    rolls = bots_game()
    # Anna makes the room on her phone and reads the link to share from her page
    anna = phone(browser, WIDTHS[0], touch=True)
    anna.goto(server.url + "/rooms")
    anna.select_option("#mission", MISSION)
    anna.select_option("#difficulty", DIFFICULTY)
    anna.select_option("#players", str(len(NAMES)))
    anna.tap("#create-form button[type=submit]")
    anna.wait_for_url("**/r/*")
    anna.wait_for_selector("#live.on")
    anna.tap("#share-toggle")
    url = anna.get_attribute("#share-link", "href")
    assert url.startswith(server.url + "/r/"), url
    anna.tap("#share-toggle")
    join(anna, url, "Anna")
    phones = [anna]
    for name, width in zip(NAMES[1:], WIDTHS[1:]):
        page = phone(browser, width, touch=True)
        join(page, url, name)
        phones.append(page)
    every(phones, "#in-play", "Roll 1 — Anna rolls")

    for r, moves in enumerate(rolls, 1):
        roller = phones[(r - 1) % len(phones)]
        for seat, (cells, jokers) in moves.items():
            play(phones[seat], cells, jokers)
        if r == len(rolls):
            break  # the winning roll: the table stops, nothing to count
        if r == 1:  # everyone crossed: waiting for the roller to count, and no sheet is called impossible
            expect(roller.locator("#rolls-plus")).to_have_text("Roll 1 done")
            for page in phones:
                expect(page.locator("#mission-state")).to_contain_text("In progress")
                expect(page.locator(".sheet-warning:not([hidden])")).to_have_count(0)
                assert "cannot come from a legal game" not in page.inner_text("#room")
                assert "impossible" not in page.inner_text("#status").lower()
            for cell in moves[1][0]:  # every phone sees the others' crosses
                expect(crossed(anna, '.other[data-seat="1"]', cell)).to_have_count(1)
            shot(phones[1], "game-waiting-to-count", also_1280=True)
        if r == 2:
            # the roller and another phone press "Roll 2 done" at the same moment: counted once
            other = phones[r % len(phones)]
            roller.evaluate("() => document.querySelector('#rolls-plus').click()")
            other.evaluate("() => document.querySelector('#rolls-plus').click()")
            every(phones, "#rolls-used", "2")
            for page in (roller, other):
                page.wait_for_function("() => document.querySelector('#roll-note').textContent.includes('counted roll 2')")
            # one of them counted it; the other is told who did ("Ben already counted roll 2" when its
            # tap reached the room, "Ben counted roll 2" when the count reached it first and held its button)
            notes = {roller.inner_text("#roll-note"), other.inner_text("#roll-note")}
            counter = next(iter(notes)).split(" ")[0]
            assert counter in (NAMES[1], NAMES[2]), notes
            assert notes <= {f"{counter} counted roll 2", f"{counter} already counted roll 2"}, notes
            assert server.api.get(url.replace("/r/", "/api/rooms/")).json()["rolls_used"] == 2
            shot(other, "game-counted-twice", also_1280=True)
        else:
            roller.tap("#rolls-plus")
            every(phones, "#rolls-used", str(r))
        every(phones, "#in-play", f"Roll {r + 1} — {NAMES[r % len(NAMES)]} rolls")

        if r == 3:  # a mis-tap on Cleo's phone (A7 touches nothing she crossed), warned and undone
            cleo = phones[2]
            sheet_at = page_top(cleo, "#mine svg")
            cleo.tap('#mine rect[data-cell="A7"]')
            expect(cleo.locator("#mine-warning")).to_contain_text("Your sheet cannot come from a legal game: A7")
            assert page_top(cleo, "#mine svg") == sheet_at  # the sheet stays under her finger
            expect(phones[0].locator('.other[data-seat="2"] .sheet-warning')).to_contain_text(
                "Cleo's sheet cannot come from a legal game")
            shot(cleo, "game-mis-tap", also_1280=True)
            cleo.tap(".undo-tap")
            expect(cleo.locator("#undo-note")).to_have_text("Undone: A7 uncrossed")
            assert page_top(cleo, "#mine svg") == sheet_at
            expect(cleo.locator("#mine-warning")).to_be_hidden()
            expect(phones[0].locator('.other[data-seat="2"] .sheet-warning')).to_be_hidden()

        if r == 4:  # Dan's phone is lost; Anna, the room's creator, makes his seat a new link
            phones[3].context.close()
            new = phone(browser, WIDTHS[3], touch=True)
            new.goto(url)
            new.wait_for_selector("#live.on")
            expect(new.locator("#join-error")).to_contain_text("Every seat is taken")
            for button in ("#rolls-plus", "#rolls-minus"):  # a phone without a seat counts nothing
                expect(new.locator(button)).to_be_hidden()
            anna.tap("#share-toggle")
            anna.tap('#keeper-seats button.reissue[data-seat="3"]')
            link = anna.locator('#keeper-seats .link-box[data-seat="3"] a').get_attribute("href")
            anna.tap("#share-toggle")
            new.goto("about:blank")
            new.goto(link)
            expect(new.locator("#mine-title")).to_have_text("Your sheet — Dan")
            for cells, _ in (m[3] for m in rolls[:r]):
                for cell in cells:
                    expect(crossed(new, "#mine", cell)).to_have_count(1)
            phones[3] = new
            shot(new, "game-recovered-phone", also_1280=True)

    # the bots won on their last roll: so does the room, on every phone, and nothing is left to count
    won = f"Won on roll {len(rolls)}!"
    every(phones, "#banner-text", won)
    for page in phones:
        expect(page.locator("#rolls-plus")).to_be_hidden()
    shot(anna, "game-won", also_1280=True)
    # a further tap (Ben's mistaken cross, taken back) and a reload keep the win
    ben = phones[1]
    ben.tap('#mine rect[data-cell="A7"]')
    expect(crossed(ben, "#mine", "A7")).to_have_count(1)
    ben.tap('#mine rect[data-cell="A7"]')
    expect(crossed(ben, "#mine", "A7")).to_have_count(0)
    for page in phones:
        page.reload()
    every(phones, "#banner-text", won)
    for page in phones:
        expect(page.locator("#rolls-plus")).to_be_hidden()
        assert page.js_errors == [], page.js_errors
    close(*phones)


@pytest.mark.slow  # about 15 s alone
def test_three_phones_play_a_competitive_game_to_its_end(server, browser):
    """Column H completed by Ben and Cleo on roll 5 (a tie: both first) and by Anna on roll 6
    (later, derived); at the end Anna and Cleo hold equal points, Cleo with a joker fewer left:
    Anna wins on the jokers, on every phone (rules.md §4)."""
    code = new_room(server.api, mode="competitive", board="classic", players=3)
    anna, ben, cleo = phones = seated_phones(server, browser, code, ("Anna", "Ben", "Cleo"), (360, 375, 390), touch=True)
    set_rolls(server.api, code, token_of(anna, code), 4)
    every(phones, "#in-play", "Roll 5 — Ben rolls")
    tap_cells(ben, COLUMN_H)
    tap_cells(cleo, COLUMN_H)
    ben.tap("#rolls-plus")
    every(phones, "#in-play", "Roll 6 — Cleo rolls")
    tap_cells(anna, COLUMN_H)
    cleo.tap("#rolls-plus")
    for page in (ben, cleo):
        expect(page.locator("#claims")).to_contain_text("column H first (roll 5)")
    expect(anna.locator("#claims")).to_contain_text("column H later (roll 6)")
    expect(ben.locator('.other[data-seat="0"] .race-line')).to_have_text("column H later (roll 6)")
    expect(anna.locator("table.race")).to_contain_text("Ben (roll 5), Cleo (roll 5)")

    # later in the game (the count set through the API) Anna and Cleo fill their sheets on roll 41,
    # Cleo with a joker used: the same points (her H first is worth the joker), the win is Anna's
    set_rolls(server.api, code, token_of(anna, code), 40)
    every(phones, "#in-play", "Roll 41 — Ben rolls")
    board = load_board("classic")
    every_cell = board.cells_of((1 << (board.rows * board.cols)) - 1)
    for seat, page in ((0, anna), (2, cleo)):
        put_cells(server.api, code, seat, token_of(page, code), [c for c in every_cell if c != "O7"])
        page.tap('#mine rect[data-cell="O7"]')
        expect(crossed(page, "#mine", "O7")).to_have_count(1)
    cleo.tap("#joker-plus")
    expect(cleo.locator("#jokers-used")).to_have_text("1")
    expect(ben.locator("#banner-text")).to_contain_text("Last roll: Anna and Cleo completed a second colour on roll 41")
    ben.tap("#rolls-plus")
    final = server.api.get(f"/api/rooms/{code}").json()["status"]["scores"]
    assert final[0]["score"] == final[2]["score"] > final[1]["score"], final
    for page in phones:
        expect(page.locator("#banner-text")).to_have_text(
            f"Game over after roll 41: Anna wins with {final[0]['score']} points")
        expect(page.locator("#end")).to_contain_text("(Cleo as many points, fewer unused jokers)")
        expect(page.locator("#rolls-plus")).to_be_hidden()
        assert page.js_errors == [], page.js_errors
    shot(cleo, "game-competitive-end", also_1280=True)
    close(*phones)
