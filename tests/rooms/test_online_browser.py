"""Online rooms in Chromium (docs/rooms.md, online games): three phones play a competitive game
to its end (a seat left quiet and passed for, a phone reloaded mid-roll), and two phones win
or lose a co-op mission with a bot teammate; the end page shows the revealed seed and the
record it links passes `nochmal replay --verify`.

The quiet seat's clock is the service's: the test sets it forward instead of waiting (the
rule acts after 60 s of the room's clock; no test waits a guessed time)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from nochmal.cli import app as cli
from online_support import (API, biggest_move, choose_on_page, pick_dice, play_out, room, seat_of_page,
                            sit_on_page, wait_state)
from rooms_support import ThreadServer, make_app, phone, shot

pytestmark = pytest.mark.slow  # a whole game in a browser: 12-20 s a test alone


class Clock:
    """The online rooms' clock, set by the test."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    app = make_app(tmp_path_factory.mktemp("online-data"))
    clock = Clock()
    app.state.online.clock = clock
    with ThreadServer(app) as srv:
        srv.online, srv.clock = app.state.online, clock
        yield srv


def offered_move(server, code: str, token: str, seat: int) -> str:
    return biggest_move(room(server.api, code, token), seat)


def test_three_phones_play_to_the_end(served, browser, tmp_path):
    server = served
    made = server.api.post(API, json={"mode": "competitive", "seats": ["human"] * 3,
                                      "quiet": {"after": "pass", "seconds": 60}}).json()
    code = made["id"]
    url = f"{server.url}/o/{code}"
    anna, ben, cleo = (phone(browser, w) for w in (360, 360, 1280))
    for page, name in ((anna, "Anna"), (ben, "Ben"), (cleo, "Cleo")):
        sit_on_page(page, url, name)
    seats = [seat_of_page(p, code) for p in (anna, ben, cleo)]
    assert [s for s, _ in seats] == [0, 1, 2]
    wait_state(anna, "choosing")
    assert made["commitment"] in anna.text_content("#commitment")
    shot(anna, "online-roll-in-play", also_1280=True)
    # an illegal tap says the engine's reason; then Anna chooses on her sheet
    move = offered_move(server, code, seats[0][1], 0)
    assert move != "pass"
    pick_dice(anna, move)
    anna.locator("#my-sheet rect.cell:not(.legal)").first.click()
    anna.wait_for_selector("#message.bad")
    assert anna.text_content("#message").strip()
    choose_on_page(anna, move, picked=True)
    wait_state(anna, "chosen")
    # Ben's phone is reloaded mid-roll: it comes back choosing, and chooses
    ben.wait_for_selector('#sheets .sheet-box[data-seat="0"][data-state="chosen"]')
    ben.reload()
    wait_state(ben, "choosing")
    # his seat link brings the seat to another browser too (the way back in)
    other = phone(browser)
    other.goto(ben.get_attribute("#seat-link", "href"))
    wait_state(other, "choosing")
    assert seat_of_page(other, code) == seats[1]
    other.context.close()
    choose_on_page(ben, offered_move(server, code, seats[1][1], 1))
    wait_state(ben, "chosen")
    # Cleo stays quiet: once the room's clock is past the setting, the server passes for her
    cleo.wait_for_selector('#sheets .sheet-box[data-seat="1"][data-state="chosen"]')
    with server.online.changed:
        server.clock.now += 61
        server.online.changed.notify_all()
    cleo.wait_for_function("() => document.querySelector('#last-roll').textContent.includes('Cleo pass')")
    last = room(server.api, code)["last"]
    assert last["moves"][2] == {"seat": 2, "move": "pass", "by": "quiet"}
    # rolls 2-3 by the API, then roll 4: the active player (Anna) first, Ben choosing from the dice left
    for roll in (2, 3):
        for k in (1, 2, 0):
            server.api.post(f"{API}/{code}/seats/{k}/move", json={"roll": roll, "move": "pass"},
                            headers={"Authorization": f"Bearer {seats[k][1]}"})
    wait_state(ben, "waiting")
    choose_on_page(anna, offered_move(server, code, seats[0][1], 0))
    wait_state(ben, "choosing")
    assert ben.locator("#dice .die.unusable").count() == 2, "the dice the active player took are not offered"
    shot(ben, "online-passive-choosing", also_1280=True)
    # the rest by the API, the phones following live to the end
    end = play_out(server.api, code, dict(seats), server.online)
    for page in (anna, ben, cleo):
        page.wait_for_selector("#end:not([hidden])")
    assert str(end["seed"]) in cleo.text_content("#seed-line")
    winners = [end["seats"][k]["name"] for k in end["winners"]]
    assert all(name in anna.text_content("#final") for name in winners)
    # the analysis: a job per seat with its progress; the first seat's result, then the rest stopped
    anna.select_option("#analyse-time", "0.2")
    anna.click("#analyse")
    anna.wait_for_selector('#analysis-list li[data-seat="0"][data-state="done"]', timeout=300_000)
    assert "actual" in anna.text_content('#analysis-list li[data-seat="0"]')
    shot(anna, "online-end", also_1280=True)
    anna.click("#analyse-stop")
    anna.wait_for_selector("#analyse-stop[hidden]", state="attached", timeout=120_000)
    states = [anna.get_attribute(f'#analysis-list li[data-seat="{k}"]', "data-state") for k in range(3)]
    assert states[0] == "done" and "cancelled" in states, states
    record = anna.request.get(server.url + anna.get_attribute("#dl-record", "href"))
    path = tmp_path / "online.json"
    path.write_text(json.dumps(record.json()))
    result = CliRunner().invoke(cli, ["replay", str(path), "--verify"])
    assert result.exit_code == 0, result.output
    for page in (anna, ben, cleo):
        assert page.js_errors == []
        page.context.close()


def test_two_phones_and_a_bot_teammate_end_a_mission(served, browser):
    server = served
    anna, ben = phone(browser), phone(browser)
    # Anna makes the room on the new game's page: the mission, its difficulty, two people and a bot
    anna.goto(f"{server.url}/rooms")
    anna.click("#online-link")
    anna.wait_for_url("**/o")
    anna.check("input[name=mode][value=mission]")
    anna.select_option("#mission", "lockstep")
    anna.select_option("#difficulty", "easy")
    anna.click("#seat-more")
    anna.select_option("#seat-specs li:nth-child(3) select", "greedy")
    shot(anna, "online-new", also_1280=True)
    anna.click("#online-form button[type=submit]")
    anna.wait_for_url("**/o/*")
    code = anna.url.rsplit("/", 1)[1]
    url = f"{server.url}/o/{code}"
    sit_on_page(anna, url, "Anna")
    sit_on_page(ben, url, "Ben")
    seats = [seat_of_page(p, code) for p in (anna, ben)]
    wait_state(anna, "choosing")
    choose_on_page(anna, offered_move(server, code, seats[0][1], 0))
    choose_on_page(ben, offered_move(server, code, seats[1][1], 1))
    anna.wait_for_function("() => document.querySelector('#last-roll').textContent.includes('greedy')")
    end = play_out(server.api, code, dict(seats), server.online)
    assert end["outcome"]["text"]
    for page in (anna, ben):
        page.wait_for_selector("#end:not([hidden])")
        assert end["outcome"]["text"] in page.text_content("#final")
        assert page.js_errors == []
    # the team's analysis: one job with its progress, stopped (its result in words: test_online_api.py)
    ben.select_option("#analyse-time", "0.2")
    ben.click("#analyse")
    ben.wait_for_function("() => /: [^0]\\d* of /.test((document.querySelector('#analysis-list li') || {}).textContent || '')",
                          timeout=300_000)
    shot(ben, "online-mission-end", also_1280=True)
    ben.click("#analyse-stop")
    ben.wait_for_selector('#analysis-list li[data-state="cancelled"]', timeout=120_000)
    assert len(ben.locator("#analysis-list li").all()) == 1, "a mission has one analysis: the team's"
    for page in (anna, ben):
        page.context.close()
