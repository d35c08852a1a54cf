"""Seats a table can get back, in Chromium at phone size (docs/rooms.md, *Seats*): a lost
phone gets its seat back by a new link (QR code) the room's creator makes, a used link says
why it no longer works and stays said, a freed seat is picked with its sheet, a seat renamed
in the page; and two tabs on one seat tapping at once both count. Screenshots at 360 and
1280 px go to artifacts/rooms/ (git-ignored).
"""

from __future__ import annotations

from playwright.sync_api import expect

from nochmal.web.rooms.hub import sse_message
from rooms_support import KEEP_STREAMS, close, crossed, join, new_room, phone, shot as page_shot, token_of


def shot(page, name: str) -> None:
    """The page at its phone width and at 1280 px."""
    page_shot(page, name, also_1280=True)


def test_a_lost_phone_gets_its_seat_back(server, browser):
    # Cleo makes the room on her phone (the /rooms form): her phone keeps the creator's token
    cleo = phone(browser)
    cleo.goto(server.url + "/rooms")
    cleo.select_option("#mission", "lockstep")
    cleo.select_option("#players", "2")
    cleo.click("#create-form button[type=submit]")
    cleo.wait_for_url("**/r/*")
    url = cleo.url.split("#")[0]
    join(cleo, url, "Cleo")
    anna = phone(browser, 390)
    join(anna, url, "Anna")
    anna.click('#mine rect[data-cell="H4"]')
    expect(crossed(cleo, '.other[data-seat="1"]', "H4")).to_have_count(1)

    # Anna's phone is lost; her new phone finds every seat taken and whom to ask
    anna.context.close()
    new = phone(browser)
    new.goto(url)
    new.wait_for_selector("#live.on")
    expect(new.locator("#join-error")).to_contain_text("the room's creator can free one")

    # Cleo makes a new link for Anna's seat: a QR code to scan, and a button to share it
    cleo.click("#share-toggle")
    expect(cleo.locator("#keeper")).to_be_visible()
    cleo.click('#keeper-seats button.reissue[data-seat="1"]')
    box = cleo.locator('#keeper-seats .link-box[data-seat="1"]')
    expect(box.locator(".qr svg")).to_be_visible()
    expect(box.locator("button.share-link")).to_have_text("Copy link")  # no share sheet in a desktop Chromium
    shot(cleo, "room-seats-new-link")
    link = box.locator("a").get_attribute("href")
    new.goto("about:blank")  # (a link to the same page differing in its hash would not load it again)
    new.goto(link)
    expect(crossed(new, "#mine", "H4")).to_have_count(1)
    expect(new.locator("#mine-title")).to_have_text("Your sheet — Anna")

    # the same link opened again says plainly why it no longer works, and the live view keeps it
    third = phone(browser)
    third.goto(link)
    third.wait_for_selector("#live.on")
    expect(third.locator("#join-error")).to_have_text(
        "This hand-over link was already used on another phone; ask Cleo to make a new one. "
        "Every seat is taken; a player can hand a seat over to you, or the room's creator can free one.")
    shot(third, "room-seats-used-link")

    # Cleo frees Anna's seat: the phone holding it is told; another phone picks it, sheet and all
    cleo.once("dialog", lambda dialog: dialog.accept())
    cleo.click('#keeper-seats button.free-seat[data-seat="1"]')
    expect(new.locator("#join-error")).to_contain_text("Cleo freed Anna's seat: this phone no longer holds it")
    expect(new.locator("#mine-box")).to_be_hidden()
    pick = third.locator('#seat-pick input[value="1"]')
    expect(third.locator("#seat-pick")).to_contain_text("Seat 2 — Anna's sheet (1 crossed), no phone holds it")
    shot(third, "room-seats-pick")
    pick.check()
    expect(third.locator("#seat-name")).to_have_value("Anna")
    third.click("#seat-form button[type=submit]")
    expect(crossed(third, "#mine", "H4")).to_have_count(1)

    # a rename in the page reaches the other phones
    third.click("#rename")
    third.fill("#rename-name", "Anna B")
    shot(third, "room-seats-rename")
    third.click("#rename-form button[type=submit]")
    expect(cleo.locator('.other[data-seat="1"] h3')).to_contain_text("Anna B")
    expect(third.locator("#mine-title")).to_have_text("Your sheet — Anna B")
    # her own hand-over: a QR code for the other phone's camera and the share sheet (or copy)
    third.click("#handover")
    expect(third.locator("#handover-link .qr svg")).to_be_visible()
    expect(third.locator("#handover-link button.share-link")).to_be_visible()
    shot(third, "room-seats-handover")
    for page in (cleo, new, third):
        page.context.close()


def test_two_tabs_on_one_seat_tapping_at_once_both_count(server, browser):
    first = phone(browser)
    ctx = first.context
    ctx.add_init_script(KEEP_STREAMS)
    code = first.request.post(server.url + "/api/rooms", data={"mission": "lockstep", "difficulty": "normal",
                                                               "players": 1}).json()["id"]
    url = f"{server.url}/r/{code}"
    join(first, url, "Anna")
    token = first.evaluate(f"() => JSON.parse(localStorage.getItem('nochmal-room-{code}')).token")
    for roll in (1, 2, 3):  # rolls enough for the crosses below (a legal sheet, no warning)
        first.request.put(f"{server.url}/api/rooms/{code}/rolls", data={"roll": roll},
                          headers={"Authorization": f"Bearer {token}"})
    second = ctx.new_page()  # the same browser: the same seat
    second.goto(url)
    expect(second.locator("#rolls-used")).to_have_text("3")
    # the second tab hears nothing more from the room (its stream ended, as a tab in the
    # background): what it shows is older than the sheet when it taps, as when two taps cross
    second.evaluate("() => window.liveStreams.forEach((stream) => stream.close())")
    first.click('#mine rect[data-cell="H4"]')
    expect(crossed(first, "#mine", "H4")).to_have_count(1)
    second.click('#mine rect[data-cell="H3"]')
    expect(crossed(second, "#mine", "H3")).to_have_count(1)
    expect(crossed(second, "#mine", "H4")).to_have_count(1)  # the other tab's tap is kept
    expect(second.locator("#edit-error")).to_be_empty()
    cells = first.request.get(f"{server.url}/api/rooms/{code}").json()["seats"][0]["cells"]
    assert cells == ["H3", "H4"]

    # a real conflict: the first tab crosses and uncrosses H5 while the second still shows
    # the sheet before; its tap on H5 asks, in the seat's name
    first.click('#mine rect[data-cell="H5"]')
    expect(crossed(first, "#mine", "H5")).to_have_count(1)
    first.click('#mine rect[data-cell="H5"]')
    expect(crossed(first, "#mine", "H5")).to_have_count(0)
    second.click('#mine rect[data-cell="H5"]')
    expect(second.locator("#edit-error")).to_have_text(
        "Anna's sheet: H5 was just uncrossed on another phone; tap it again to cross it")
    shot(second, "room-seats-tap-conflict")
    second.click('#mine rect[data-cell="H5"]')  # the page shows the sheet as it is now: this tap counts
    expect(crossed(second, "#mine", "H5")).to_have_count(1)
    ctx.close()


def test_a_snapshot_read_before_the_seat_was_taken_does_not_take_it_away(server, browser):
    """A stream's first snapshot is read, then its sheets drawn: on a busy server a seat taken
    meanwhile is answered first, and the page has drawn it (from a GET) when the older snapshot
    arrives. The page keeps its seat, and its taps count."""
    code = new_room(server.api, mode="competitive", players=2)
    before = server.api.get(f"/api/rooms/{code}").json()  # the room as the late snapshot shows it
    before["svgs"] = {str(k): server.api.get(f"/api/rooms/{code}/seats/{k}/sheet.svg").text for k in range(2)}
    streams = []

    def route(request_route):
        streams.append(request_route)
        if len(streams) == 1:  # refused: the page draws the room from a GET and tries again in 3 s
            request_route.fulfill(status=429, content_type="application/json", body='{"error": "busy", "field": null}')
        elif len(streams) > 2:
            request_route.continue_()
        # the second one is held: answered below from this thread, once the seat is taken

    page = phone(browser)
    page.route("**/events", route)
    page.goto(f"{server.url}/r/{code}")
    page.fill("#seat-name", "Anna")
    page.click("#seat-form button[type=submit]")
    page.wait_for_selector("#mine svg rect[data-cell]")
    for _ in range(300):  # the route is served while this thread waits on the page (a hang guard: 30 s)
        if len(streams) >= 2:
            break
        page.wait_for_timeout(100)
    assert len(streams) >= 2, "the page did not try its stream again"
    with page.expect_request(lambda request: request.url.endswith("/events")):  # the stream, tried again
        streams[1].fulfill(status=200, content_type="text/event-stream",
                           body="retry: 100\n\n" + sse_message("sync", before, before["version"]))
    page.click('#mine rect[data-cell="H1"]')
    expect(crossed(page, "#mine", "H1")).to_be_visible()
    expect(page.locator("#seat-form")).to_be_hidden()
    assert token_of(page, code), "the phone forgot its seat"
    close(page)
