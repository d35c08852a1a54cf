"""A table of phones in Chromium (Playwright) at phone size: the roll counted once, whose
roll it is, the win that holds on top of every phone, the names in the status, and a
competitive game's race and end (docs/rooms.md). Screenshots at 360 and 1280 px go to
artifacts/rooms/ (git-ignored).
"""

from __future__ import annotations

from playwright.sync_api import expect

from nochmal.board import load_board
from nochmal.missions.loader import shipped_mission
from rooms_support import (KEEP_STREAMS, close, join, new_room, phone, put_cells, seated_phones, set_rolls, shot,
                           tap_cells, token_of)

COLUMN_H = [f"H{r}" for r in range(1, 8)]


def rolls_used(server, code) -> int:
    return server.api.get(f"/api/rooms/{code}").json()["rolls_used"]


def test_a_count_lost_on_the_way_can_be_pressed_again(server, browser):
    """A count whose request never reaches the room (the phone's wifi dropped) says so and
    counts nothing, and the next press counts: the page's queue of counts stays usable."""
    code = new_room(server.api, mission="lockstep", difficulty="normal", players=2)
    (anna,) = seated_phones(server, browser, code, ("Anna",), (360,))
    anna.route("**/rolls", lambda route: route.abort("internetdisconnected"), times=1)
    anna.click("#rolls-plus")
    expect(anna.locator("#roll-note")).to_have_text("Not counted: no connection. Tap again when the phone is back online.")
    assert rolls_used(server, code) == 0
    anna.click("#rolls-plus")
    expect(anna.locator("#rolls-used")).to_have_text("1")
    assert rolls_used(server, code) == 1
    close(anna)


def test_two_phones_pressing_at_once_count_one_roll(server, browser):
    code = new_room(server.api, mission="lockstep", difficulty="normal", players=2)
    anna, ben = seated_phones(server, browser, code, ("Anna", "Ben"), (360, 390))
    # every phone says whose roll it is
    expect(anna.locator("#in-play")).to_have_text("Roll 1 — Anna rolls")
    expect(ben.locator("#in-play")).to_have_text("Roll 1 — Anna rolls")
    expect(ben.locator("#rolls-plus")).to_have_text("Roll 1 done")
    # both press at once (the clicks leave both pages before either answer comes back)
    anna.evaluate("() => document.querySelector('#rolls-plus').click()")
    ben.evaluate("() => document.querySelector('#rolls-plus').click()")
    expect(anna.locator("#in-play")).to_have_text("Roll 2 — Ben rolls")
    expect(ben.locator("#in-play")).to_have_text("Roll 2 — Ben rolls")
    expect(anna.locator("#rolls-used")).to_have_text("1")
    assert rolls_used(server, code) == 1
    # one phone counted it; the other is told who did ("Anna already counted roll 1" when its
    # tap reached the room, "Anna counted roll 1" when the count reached it first and held its +)
    for page in (anna, ben):
        page.wait_for_function("() => document.querySelector('#roll-note').textContent.includes('counted roll 1')")
    notes = [anna.inner_text("#roll-note"), ben.inner_text("#roll-note")]
    counter = notes[0].split(" ")[0]
    assert counter in ("Anna", "Ben")
    assert set(notes) <= {f"{counter} counted roll 1", f"{counter} already counted roll 1"}, notes
    # the undo says what it undoes
    expect(ben.locator("#rolls-minus")).to_contain_text("Undo roll 1 (counted by")
    shot(ben, "room-roll-counted")

    # Ben counts roll 2; Anna's phone sees it and holds its + a moment: her late tap counts nothing
    ben.click("#rolls-plus")
    expect(anna.locator("#roll-note")).to_have_text("Ben counted roll 2")
    expect(anna.locator("#rolls-plus")).to_be_disabled()
    anna.evaluate("() => document.querySelector('#rolls-plus').click()")
    assert rolls_used(server, code) == 2
    expect(anna.locator("#rolls-plus")).to_be_enabled()
    expect(anna.locator("#rolls-plus")).to_have_text("Roll 3 done")

    # five rolls counted, then five quick taps of undo take back five
    for n in range(3, 6):
        anna.click("#rolls-plus")
        expect(anna.locator("#rolls-used")).to_have_text(str(n))
    expect(ben.locator("#rolls-used")).to_have_text("5")
    for _ in range(5):
        ben.evaluate("() => document.querySelector('#rolls-minus').click()")
    expect(anna.locator("#rolls-used")).to_have_text("0")
    expect(ben.locator("#rolls-used")).to_have_text("0")
    assert rolls_used(server, code) == 0
    expect(ben.locator("#roll-note")).to_have_text(f"Undid roll 1 (counted by {counter})")  # whoever won the race
    expect(ben.locator("#rolls-minus")).to_be_hidden()
    shot(ben, "room-rolls-undone")
    close(anna, ben)


def test_the_win_is_a_banner_on_every_phone_and_holds(server, browser):
    code = new_room(server.api, mission="lockstep", difficulty="easy", players=2)
    anna, ben = seated_phones(server, browser, code, ("Anna", "Ben"), (360, 1280))
    budget = shipped_mission("lockstep").budget(2, "easy")
    set_rolls(server.api, code, token_of(anna, code), budget - 2)
    cells = [f"{c}{r}" for c in "GHI" for r in range(1, 8)]
    put_cells(server.api, code, 1, token_of(ben, code), cells)
    put_cells(server.api, code, 0, token_of(anna, code), cells[:-1])
    expect(anna.locator("#rolls-used")).to_have_text(str(budget - 2))
    anna.click(f'#mine rect[data-cell="{cells[-1]}"]')  # her last cell: the mission is won on this roll
    won = f"Won on roll {budget - 1}!"
    expect(anna.locator("#banner-text")).to_have_text(won)
    expect(ben.locator("#banner-text")).to_have_text(won)
    # at the top, in view without scrolling, above one's own sheet
    box = anna.locator("#banner").bounding_box()
    assert box["y"] < anna.locator("#mine-box").bounding_box()["y"] and box["y"] + box["height"] <= 780
    shot(anna, "room-won")
    shot(ben, "room-won")
    # a later tap (a cell uncrossed) does not undo the win
    anna.click(f'#mine rect[data-cell="{cells[-1]}"]')
    anna.wait_for_selector(f'#mine rect[data-cell="{cells[-1]}"][data-crossed="0"]')
    expect(ben.locator(f'.other[data-seat="0"] rect[data-cell="{cells[-1]}"][data-crossed="0"]')).to_have_count(1)
    expect(anna.locator("#banner-text")).to_have_text(won)
    expect(ben.locator("#banner-text")).to_have_text(won)
    # reopening takes a deliberate tap and a confirmation; a dismissed one keeps the win
    anna.once("dialog", lambda d: d.dismiss())
    anna.click("#reopen")
    expect(anna.locator("#banner-text")).to_have_text(won)
    anna.once("dialog", lambda d: d.accept())
    anna.click("#reopen")
    expect(ben.locator("#banner")).to_be_hidden()
    expect(anna.locator("#banner")).to_be_hidden()
    assert server.api.get(f"/api/rooms/{code}").json()["won_on"] is None
    close(anna, ben)


def test_who_should_do_what_names_every_seat_once_taken(server, browser):
    code = new_room(server.api, mission="lockstep", difficulty="normal", players=2)
    url = f"{server.url}/r/{code}"
    anna = phone(browser)
    join(anna, url, "Anna")
    anna.wait_for_function("() => document.querySelector('#status').innerText.includes('seat 2 (free)')")
    ben = phone(browser)
    join(ben, url, "Ben")
    for page in (anna, ben):
        page.wait_for_function("() => !document.querySelector('#status').innerText.includes('(free)') && "
                               "document.querySelector('#status').innerText.includes('Ben')")
    shot(anna, "room-names")
    close(anna, ben)


def test_a_competitive_table_knows_the_race_and_the_end(server, browser):
    code = new_room(server.api, mode="competitive", board="classic", players=3)
    anna, ben, cleo = seated_phones(server, browser, code, ("Anna", "Ben", "Cleo"), (360, 375, 390))
    for n in range(1, 5):
        # each player counts the roll their own phone shows, as at a table (a phone still showing
        # the roll before counts that one again: rooms.js stepRoll, the same roll twice is one)
        counter = (anna, ben, cleo)[(n - 1) % 3]
        expect(counter.locator("#rolls-used")).to_have_text(str(n - 1))
        counter.click("#rolls-plus")
        expect(anna.locator("#rolls-used")).to_have_text(str(n))
    expect(cleo.locator("#in-play")).to_have_text("Roll 5 — Ben rolls")
    # roll 5: Anna completes column H; roll 6: Ben does
    tap_cells(anna, COLUMN_H)
    expect(ben.locator("#in-play")).to_have_text("Roll 5 — Ben rolls")
    ben.click("#rolls-plus")
    expect(cleo.locator("#in-play")).to_have_text("Roll 6 — Cleo rolls")
    tap_cells(ben, COLUMN_H)
    expect(ben.locator("#claims")).to_contain_text("column H later (roll 6)")
    expect(anna.locator("#claims")).to_contain_text("column H first (roll 5)")
    expect(cleo.locator('.other[data-seat="1"] .race-line')).to_have_text("column H later (roll 6)")
    expect(cleo.locator("table.race")).to_contain_text("Anna (roll 5)")
    shot(ben, "room-race")
    # Ben sets it by hand; the others see it
    ben.select_option('#claims select[data-item="H"]', "first")
    expect(cleo.locator('.other[data-seat="1"] .race-line')).to_have_text("column H first (roll 6)")
    ben.select_option('#claims select[data-item="H"]', "auto")
    expect(cleo.locator('.other[data-seat="1"] .race-line')).to_have_text("column H later (roll 6)")

    # the end: later in the game (the count set through the API) Cleo fills her sheet, her
    # last cell tapped on roll 41; the roll is finished and counted; every phone names the winner
    set_rolls(server.api, code, token_of(anna, code), 40)
    expect(anna.locator("#in-play")).to_have_text("Roll 41 — Ben rolls")
    board = load_board("classic")
    every = board.cells_of((1 << (board.rows * board.cols)) - 1)
    put_cells(server.api, code, 2, token_of(cleo, code), [c for c in every if c != "O7"])
    cleo.click('#mine rect[data-cell="O7"]')
    expect(anna.locator("#banner-text")).to_have_text("Last roll: Cleo completed a second colour on roll 41")
    expect(anna.locator("#end")).to_contain_text("Everyone finishes crossing it")
    shot(anna, "room-last-roll")
    expect(ben.locator("#in-play")).to_have_text("Roll 41 — Ben rolls")  # (Ben counts the roll his phone shows)
    ben.click("#rolls-plus")
    for page in (anna, ben, cleo):
        expect(page.locator("#banner-text")).to_contain_text("Game over after roll 41: Cleo wins with")
        expect(page.locator("#end")).to_contain_text("cannot make a record for nochmal replay")
        expect(page.locator("#in-play")).to_have_text("The game is over")
        expect(page.locator("#rolls-plus")).to_be_hidden()
    assert anna.locator(".sheet-warning:not([hidden])").count() == 0  # a sheet a legal game gives
    expect(anna.locator("table.race")).to_contain_text("green")
    assert " g " not in anna.inner_text("#status")
    anna.evaluate("() => window.scrollTo(0, 0)")
    shot(anna, "room-game-over")
    anna.set_viewport_size({"width": 1280, "height": 900})
    shot(anna, "room-game-over")
    close(anna, ben, cleo)


def test_a_roll_note_goes_with_the_count_it_speaks_of(server, browser):
    """Ben's phone hears nothing while Anna takes roll 1 back; live again (the room sent afresh),
    it shows no roll counted and no longer says "Anna counted roll 1"."""
    code = new_room(server.api, mission="lockstep", difficulty="normal", players=2)
    url = f"{server.url}/r/{code}"
    anna, ben = phone(browser), phone(browser, 390)
    ben.context.add_init_script(KEEP_STREAMS)
    join(anna, url, "Anna")
    join(ben, url, "Ben")
    anna.click("#rolls-plus")
    expect(ben.locator("#roll-note")).to_have_text("Anna counted roll 1")
    ben.evaluate("() => window.liveStreams.forEach((stream) => stream.close())")  # (a phone gone quiet)
    anna.click("#rolls-minus")
    expect(anna.locator("#rolls-used")).to_have_text("0")
    expect(ben.locator("#rolls-used")).to_have_text("1")
    # the room asks the phone to take it afresh (as after a lost connection): the page reconnects
    ben.evaluate("() => window.liveStreams[window.liveStreams.length - 1].dispatchEvent(new Event('resync'))")
    expect(ben.locator("#rolls-used")).to_have_text("0")
    expect(ben.locator("#roll-note")).to_be_empty()
    expect(ben.locator("#in-play")).to_have_text("Roll 1 — Anna rolls")
    close(anna, ben)
