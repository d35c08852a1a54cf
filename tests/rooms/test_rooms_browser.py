"""Rooms in a real browser (Chromium through Playwright): two pages, two seats of one room.

A tap on one page appears on the other; the team status updates; an impossible sheet is
flagged; a reload keeps the seat. Screenshots at phone and laptop width go to
artifacts/rooms/ (git-ignored).
"""

from __future__ import annotations


from playwright.sync_api import expect

from rooms_support import ARTIFACTS, join, new_room, phone, sit


def cell(page, where: str, name: str):
    return page.locator(f'{where} rect[data-cell="{name}"]')


def test_two_seats_live(server, browser):
    code = new_room(server.api)
    url = f"{server.url}/r/{code}"
    anna, ben = phone(browser, 360, 800), phone(browser, 1280, 900)
    join(anna, url, "Anna")
    join(ben, url, "Ben")
    # Ben sees Anna's (empty) sheet among the others
    ben.wait_for_selector('.other[data-seat="0"] h3:has-text("Anna")')

    # the rolls are shared (and a sheet with more placements than rolls would be impossible:
    # H4 H3 H2 H1 and G4 lie in different blocks, so six rolls before the taps)
    for n in range(1, 7):
        anna.click("#rolls-plus")
        anna.wait_for_function(f"() => document.querySelector('#rolls-used').textContent === '{n}'")
    ben.wait_for_function("() => document.querySelector('#rolls-used').textContent === '6'")

    # a tap on Anna's phone appears on Ben's page
    cell(anna, "#mine", "H4").click()
    ben.wait_for_selector('.other[data-seat="0"] rect[data-cell="H4"][data-crossed="1"]', timeout=5000)
    anna.wait_for_selector('#mine rect[data-cell="H4"][data-crossed="1"]')

    # the team status updates: the advice names both players and what each should do
    ben.wait_for_selector(".advice li", timeout=30000)
    assert "Anna: columns G, H and I, about " in ben.inner_text(".advice")
    for name in ("H3", "H2", "H1"):
        cell(anna, "#mine", name).click()
        anna.wait_for_selector(f'#mine rect[data-cell="{name}"][data-crossed="1"]')

    # the crossing path on request: numbered marks on Anna's sheet, following the status
    anna.click("#path-mine")
    expect(anna.locator("#mine .path-mark")).to_have_count(17, timeout=30000)  # the 17 open cells of G, H, I

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    anna.screenshot(path=str(ARTIFACTS / "room-mission-360.png"), full_page=True)
    ben.screenshot(path=str(ARTIFACTS / "room-mission-1280.png"), full_page=True)

    # an impossible sheet is flagged on that sheet on the other page, with the reason
    cell(anna, "#mine", "A1").click()
    flag = ben.wait_for_selector('.other[data-seat="0"] .sheet-warning:not([hidden])', timeout=5000)
    assert "not connected to column H" in flag.inner_text()
    ben.wait_for_selector('.other[data-seat="0"].impossible')
    ben.screenshot(path=str(ARTIFACTS / "room-impossible-1280.png"), full_page=True)
    cell(anna, "#mine", "A1").click()
    ben.wait_for_selector('.other[data-seat="0"] .sheet-warning', state="hidden", timeout=5000)

    # a reload keeps the seat (the token stays in the browser) and shows the same sheet
    anna.reload()
    anna.wait_for_selector('#mine rect[data-cell="H4"][data-crossed="1"]')
    assert "Anna" in anna.inner_text("#mine-title")
    assert anna.is_hidden("#join-box")
    # and edits still go through after the reload
    cell(anna, "#mine", "G4").click()
    ben.wait_for_selector('.other[data-seat="0"] rect[data-cell="G4"][data-crossed="1"]', timeout=5000)
    anna.context.close()
    ben.context.close()


def test_a_score_target_shows_no_split_but_the_score_bound(server, browser):
    """team-target has no cell objectives: no "nothing needed" per player while the team is
    points short, no path buttons; the best score still reachable instead."""
    code = new_room(server.api, mission="team-target", difficulty="normal", players=2)
    page = phone(browser, 360, 800)
    join(page, f"{server.url}/r/{code}", "Anna")
    page.wait_for_selector("#split-total", timeout=30000)
    assert "still reach at most" in page.inner_text("#split-total")
    assert "nothing needed" not in page.inner_text("#status") and page.locator("table.split").count() == 0
    assert page.is_hidden("#path-mine") and page.locator(".path-btn").count() == 0
    assert page.inner_text("#status-title") == "Team"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "room-team-target-360.png"), full_page=True)
    page.context.close()


def test_import_form_gives_each_seat_a_link_that_works_in_a_browser(server, browser, tmp_path):
    """An imported room's seats are all taken: the index page's import form shows one
    handover link per seat, and a browser opening one holds that seat (not 'Every seat is taken')."""
    code = new_room(server.api, mission="lockstep", difficulty="easy", players=2)
    for name in ("Anna", "Ben"):
        sit(server.api, code, name)
    exported = tmp_path / "room.zip"
    exported.write_bytes(server.api.get(f"/api/rooms/{code}/export").content)
    page = phone(browser, 360, 800)
    ctx = page.context
    page.goto(server.url + "/rooms")
    page.set_input_files("#import-file", str(exported))
    page.click("#import-form button")
    page.wait_for_selector(".import-links a.handover")
    assert page.locator(".import-links li").count() == 2
    assert "Ben" in page.inner_text('.import-links li:nth-child(2)')
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "rooms-import-360.png"), full_page=True)
    ben_link = page.get_attribute('a.handover[data-seat="1"]', "href")
    ben = ctx.new_page()
    ben.goto(ben_link)
    ben.wait_for_selector("#mine svg rect[data-cell]")
    assert "Ben" in ben.inner_text("#mine-title") and ben.is_hidden("#join-box")
    cell(ben, "#mine", "H4").click()
    ben.wait_for_selector('#mine rect[data-cell="H4"][data-crossed="1"]', timeout=5000)
    ctx.close()


def test_the_old_phone_is_told_when_its_seat_is_handed_over(server, browser):
    code = new_room(server.api, mission="lockstep", difficulty="easy", players=1)
    old, new = phone(browser, 360, 800), phone(browser, 360, 800)
    join(old, f"{server.url}/r/{code}", "Anna")
    old.wait_for_selector("#live.on")
    old.click("#handover")
    link = old.get_attribute("#handover-link a", "href")
    new.goto(link)
    new.wait_for_selector("#mine svg rect[data-cell]")
    assert "Anna" in new.inner_text("#mine-title")
    # the old phone drops the seat by itself and says why, where it can be read
    old.wait_for_selector("#mine-box", state="hidden", timeout=5000)
    assert "handed over to another browser" in old.inner_text("#join-error")
    assert old.evaluate(f"() => localStorage.getItem('nochmal-room-{code}')") is None
    # the new phone keeps it (its own claim's event is not taken for another one)
    cell(new, "#mine", "H4").click()
    new.wait_for_selector('#mine rect[data-cell="H4"][data-crossed="1"]', timeout=5000)
    assert new.is_visible("#mine-box")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    old.screenshot(path=str(ARTIFACTS / "room-handed-over-360.png"), full_page=True)
    old.context.close()
    new.context.close()


def test_competitive_room_and_pages(server, browser):
    code = new_room(server.api, mode="competitive", board="classic", players=3)
    page = phone(browser)
    ctx = page.context
    join(page, f"{server.url}/r/{code}", "Cleo")
    page.click("#rolls-plus")
    page.wait_for_function("() => document.querySelector('#rolls-used').textContent === '1'")
    cell(page, "#mine", "H1").click()
    page.wait_for_selector('#mine rect[data-cell="H1"][data-crossed="1"]')
    page.wait_for_selector("table.scores")
    assert "Cleo" in page.inner_text("table.scores")
    assert page.inner_text("#status-title") == "Scores"  # not "Team": every player for themself
    assert page.locator(".impossible-flag").count() == 0
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "room-competitive-360.png"), full_page=True)
    for width, height in ((360, 780), (1280, 900)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(server.url + "/rooms")
        page.screenshot(path=str(ARTIFACTS / f"rooms-index-{width}.png"), full_page=True)
    # creating a room through the form lands on the room page
    page.check("input[value=competitive]")
    page.select_option("#players", "4")
    page.click("#create-form button[type=submit]")
    page.wait_for_url("**/r/*")
    page.wait_for_selector("#seat-name")
    page.goto(server.url + "/r/notaroom")
    assert "No such room" in page.inner_text("h1")
    ctx.close()
