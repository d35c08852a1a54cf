"""The puzzle's challenge in Chromium (docs/web.md "Leaderboards"): two players finish today's
puzzle, submit and see each other ranked; a forged record is refused on the page with its
reason; the share text reaches the clipboard; the history page counts the daily streak.

The games are played through the API with bots' moves (tests/leaderboard_support.py), then
each page is opened at its end state, as a player who just made the last move sees it.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from babel.dates import format_date

from nochmal.dice import seeded_roll
from nochmal.i18n import translate
from nochmal.puzzles import daily_seed
from webserver import NO_WORKER

from leaderboard_support import finish_puzzle

NO_SHARE_SHEET = "delete Navigator.prototype.share;"  # the clipboard path, as on a desktop browser


@pytest.fixture(scope="module")
def games(server):
    seed = daily_seed()
    return seed, {bot: finish_puzzle(server.url, seed, bot) for bot in ("greedy", "random")}


def end_screen(browser, server, game_id):
    ctx = browser.new_context(viewport={"width": 360, "height": 740}, **NO_WORKER)
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    page = ctx.new_page()
    page.add_init_script(NO_SHARE_SHEET)
    page.goto(f"{server.url}/puzzle?game={game_id}")
    page.wait_for_function("document.getElementById('share-text').value.includes('/puzzle/')")
    return ctx, page


def submit(page, name):
    page.fill("#lb-name", name)
    page.click("#lb-form button[type=submit]")
    page.wait_for_function("document.getElementById('lb-said').className.match(/good|bad/)")
    return page.text_content("#lb-said")


def test_two_players_see_each_other_a_forgery_is_refused_and_the_share_copies(browser, server, games):
    seed, ids = games
    anna_ctx, anna = end_screen(browser, server, ids["greedy"])
    assert "Verified and ranked" in submit(anna, "Anna")
    ben_ctx, ben = end_screen(browser, server, ids["random"])
    assert "Verified and ranked" in submit(ben, "<i>Ben</i>")  # free text, shown as text
    names = ben.locator("#lb-board tbody td:nth-child(2)").all_text_contents()
    assert sorted(names) == ["<i>Ben</i>", "Anna"] and ben.locator("#lb-board tbody i").count() == 0
    assert ben.locator("#lb-board tr.mine td:nth-child(2)").text_content() == "<i>Ben</i>"
    # Anna's board page ranks both, best first, each name opening the replay of its game
    anna.goto(f"{server.url}/puzzle/{seed}/leaderboard")
    anna.wait_for_selector("#lb-board tbody tr:nth-child(2)")
    rows = anna.locator("#lb-board tbody tr")
    scores = [int(rows.nth(k).locator("td").nth(2).text_content()) for k in range(2)]
    assert scores == sorted(scores, reverse=True) and "proven" in anna.text_content("#lb-board")
    assert anna.locator("#lb-board tr.mine td:nth-child(2)").all_text_contents() == ["Anna"]  # her own, by her token
    anna.locator("#lb-board tbody a").first.click()  # the best entry's game, on the replay page
    anna.wait_for_function("document.getElementById('summary').textContent.includes('" + str(seed) + "')")
    assert anna.url.split("/replay/")[1] and str(scores[0]) in anna.text_content("#summary")
    anna_ctx.close()

    # a forged record (roll 3's first number die changed) is refused with the engine's reason
    def forge(route):
        record = json.loads(route.fetch().text())
        dice = record["rolls"][2]["dice"]
        dice["numbers"][0] = "1" if dice["numbers"][0] != "1" else "2"
        route.fulfill(status=200, content_type="application/json", body=json.dumps(record))

    ben.route("**/api/games/*/record", forge)
    said = submit(ben, "Mallory")
    assert "is not roll 3 of seed" in said and ben.get_attribute("#lb-said", "class").endswith("bad")
    ben.unroute("**/api/games/*/record")

    # the share text: score, the best possible, the sheet in emoji, the link; on the clipboard
    ben.click("#share")
    ben.wait_for_function("document.getElementById('share-said').textContent.length > 0")
    copied = ben.evaluate("navigator.clipboard.readText()")
    assert copied == ben.input_value("#share-text")
    lines = copied.split("\n")
    assert str(seed) in lines[0] and lines[-1].endswith(f"/puzzle/{seed}")
    assert lines[0].startswith(translate("Noch mal!", "en") + " · ")  # the edition's name: "Encore!" in English
    assert len(lines) == 2 + 7 + 1 and all(len(line) == 15 for line in lines[2:9])  # 7 rows of 15 cells
    assert not any(m in copied for m in ("H4", "pass", seeded_roll(seed, 0, 2).text()))  # no move given away
    ben_ctx.close()


def test_the_history_counts_the_daily_streak(browser, server, games):
    seed, ids = games
    today = datetime.now(timezone.utc).date()
    earlier = [int((today - timedelta(days=k)).strftime("%Y%m%d")) for k in (1, 2, 4)]  # a gap before the 4th day
    kept = [{"seed": s, "daily": True, "open": False, "score": 20 + k, "best": 40, "proven": True, "game": f"g{k}",
             "at": "2026-01-01T00:00:00Z"} for k, s in enumerate(earlier)]
    ctx, page = end_screen(browser, server, ids["greedy"])  # today's result joins the history
    page.evaluate("kept => { const now = JSON.parse(localStorage.getItem('nochmal-history')); "
                  "localStorage.setItem('nochmal-history', JSON.stringify(kept.concat(now))); }", kept)
    page.goto(f"{server.url}/history")
    page.wait_for_selector("#chart svg rect.score")
    assert page.text_content("[data-figure=streak] .big") == "3"  # today, yesterday, the day before
    assert page.text_content("[data-figure=puzzles] .big") == "4"
    assert page.locator("#chart svg rect.score").count() == 4 and page.locator("#results li").count() == 4
    with page.expect_download() as download:
        page.click("#export")
    exported = json.loads(open(download.value.path()).read())
    assert exported["format"] == "nochmal-history/1" and len(exported["results"]) == 4
    # in German: the figures' words from the catalog, the day as German writes it
    page.goto(f"{server.url}/history?lang=de")
    page.wait_for_selector("#chart svg rect.score")
    labels = page.locator("#figures .small").all_text_contents()
    assert labels == [translate(w, "de") for w in ("daily streak", "puzzles finished", "mean score", "best score")]
    assert labels[0] != "daily streak" and format_date(today, format="long", locale="de") in page.text_content("#results")
    ctx.close()


@pytest.mark.parametrize("order", ["script first", "game first"])
def test_the_end_screen_comes_whichever_arrives_first(browser, server, games, order):
    """The puzzle page loads puzzles.js async (docs/web.md "Page load"): held back until the
    finished game is drawn, it still fills the end screen (game.js NM.over); held back until
    the script is in, the game's end still reaches it (the nm:over event)."""
    seed, ids = games
    ctx = browser.new_context(viewport={"width": 360, "height": 740}, **NO_WORKER)
    page = ctx.new_page()
    held = []
    hold = "**/static/puzzles.js" if order == "game first" else "**/api/games/*"
    page.route(hold, lambda route: held.append(route))
    page.goto(f"{server.url}/puzzle?game={ids['greedy']}", wait_until="commit")
    page.wait_for_function("document.readyState !== 'loading'")
    if order == "game first":
        page.wait_for_function("document.getElementById('final-score').textContent !== ''")
        assert page.input_value("#share-text") == ""  # drawn, and the end screen still waits for its script
    else:
        page.wait_for_function("typeof NM.drawLeaderboard === 'function'")
    for _ in range(250):  # the held request was asked for long ago: its handler runs as Playwright reads events
        if held:
            break
        page.wait_for_timeout(20)
    assert held, hold
    for route in held:
        route.continue_()
    page.wait_for_function("document.getElementById('share-text').value.includes('/puzzle/')")
    assert str(seed) in page.input_value("#share-text")
    ctx.close()
