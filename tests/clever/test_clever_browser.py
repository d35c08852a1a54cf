"""The /clever page in Chromium (docs/clever.md "The web page"): a solo game against a seed,
played by taps. Tapping a die outlines exactly the fields its legal actions fill (the API's
choices are the oracle's source, checked against a local CleverGame); tapping an outlined
field plays that action (the game's state afterwards equals the local game's); pass and a
listed action play too. The sheet is drawn as the pad (every printed bonus symbol, the
points rows, the tracks) with fields of 28 px or more at 360 px; in German no English phrase
is left (the English catalog is the oracle, tests/languages_support.py). Screenshots at 360
and 1280 px go to /tmp/shots/p/."""

from __future__ import annotations

from pathlib import Path

import pytest

from nochmal.clever import Action, CleverGame
from nochmal.clever.state import to_state
from nochmal.web.clever_svg import targets
from languages_support import LOCALES, english_left
from webserver import NO_WORKER, LiveServer, chromium

SHOTS = Path("/tmp/shots/p")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """(the server's url, Chromium): one of each for the module."""
    with LiveServer(tmp_path_factory.mktemp("clever-web")) as srv, chromium() as browser:
        yield srv.url, browser


def _state(page) -> dict:
    gid = page.evaluate("new URLSearchParams(location.search).get('game')")
    return page.evaluate(f"fetch('/api/clever/games/{gid}').then(r => r.json())")


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=True)


def _wait_for_legal(page, local: CleverGame) -> None:
    """Until the page shows the answer to its last action: its list of legal actions is the
    local game's (the server has played the action by then)."""
    want = [a.text(local.facts) for a in local.legal_moves()]
    page.wait_for_function("want => JSON.stringify([...document.querySelectorAll('#clever-legal button')]"
                           ".map(b => b.dataset.action)) === JSON.stringify(want)", arg=want)


@pytest.mark.parametrize("width", [360, 1280])
def test_tap_a_die_then_a_field_plays_the_seeds_game(site, width):
    url, browser = site
    ctx = browser.new_context(viewport={"width": width, "height": 900}, **NO_WORKER)
    page = ctx.new_page()
    page.goto(f"{url}/clever")
    page.wait_for_function("location.search.includes('game=')")  # the page starts a game of seed 1
    first = page.evaluate("location.search")
    page.fill("#clever-seed", "7")
    page.click("#clever-new button[type=submit]")
    page.wait_for_function("first => location.search !== first && document.querySelector('#clever-sheet svg')", arg=first)
    local = CleverGame(1)
    local.apply_roll(local.seeded_outcome(7))
    assert _state(page)["state"] == to_state(local)
    assert page.text_content("#clever-status").startswith("Round 1/6 · Active turn · 0 · ")
    _shot(page, f"clever-start-{width}.png")
    facts = local.facts  # every printed bonus symbol is drawn: as many of each kind as the data has
    printed = [b for row in facts.yellow_bonuses for b in row] + list(facts.blue_row_bonuses) + [
        facts.blue_diagonal_bonus] + [b for _, b in facts.grey_bonus_cells] + list(facts.green_bonuses) + list(
        facts.pink_bonuses)
    drawn = page.eval_on_selector_all(".cl-area:not(.cl-tracks) .bonus", "els => els.map(e => e.dataset.bonus)")
    assert sorted(drawn) == sorted([b for b in printed if b] + ["fox"] * 3)  # and grey's three shade foxes
    rows = page.eval_on_selector_all(".cl-area text", "els => els.map(e => e.textContent)")
    for points in (facts.yellow_points, facts.blue_points, facts.grey_points, facts.pink_points):
        assert all(str(p) in rows for p in points)
    sizes = page.eval_on_selector_all(".field > rect", "els => els.map(e => e.getBoundingClientRect().width)")
    assert len(sizes) == 15 + 36 + 64 + 22 + 12 and min(sizes) >= 28
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing sticks out sideways
    assert page.locator("header nav a[href='/clever']").count() == 1
    tops = page.eval_on_selector_all(".cl-area", "els => els.map(e => Math.round(e.getBoundingClientRect().top))")
    lefts = page.eval_on_selector_all(".cl-area", "els => els.map(e => Math.round(e.getBoundingClientRect().left))")
    if width == 360:  # a phone: the areas one under the other
        assert tops == sorted(tops) and len(set(lefts)) == 1
    else:  # as the pad: yellow and blue side by side
        assert tops[0] == tops[1] and lefts[1] > lefts[0]

    move = next(a for a in local.legal_moves() if a.kind == "take" and a.die != "white")
    page.click(f"#clever-pool button[data-die={move.die}]")
    want = sorted({t for a in local.legal_moves() if a.die == move.die for t in targets(local, a)})
    page.wait_for_function("document.querySelectorAll('#clever-sheet .field.legal').length > 0")
    outlined = sorted(page.eval_on_selector_all("#clever-sheet .field.legal", "els => els.map(e => e.id)"))
    assert outlined == want
    _shot(page, f"clever-die-picked-{width}.png")

    page.click(f"#{targets(local, move)[0]}")
    local.apply_move(move)
    while local.is_chance_node():
        local.apply_roll(local.seeded_outcome(7))
    _wait_for_legal(page, local)
    assert _state(page)["state"] == to_state(local)

    page.click("#clever-pass")  # the active player loses this throw
    local.apply_move(Action("pass"))
    while local.is_chance_node():
        local.apply_roll(local.seeded_outcome(7))
    _wait_for_legal(page, local)
    assert _state(page)["state"] == to_state(local)
    _shot(page, f"clever-played-{width}.png")
    ctx.close()


def test_no_english_left_on_the_german_page(site):
    url, browser = site
    ctx = browser.new_context(locale=LOCALES["de"], viewport={"width": 360, "height": 800}, **NO_WORKER)
    page = ctx.new_page()
    page.goto(f"{url}/clever")
    page.wait_for_selector("#clever-sheet svg")
    page.click("#clever-pool button:not([disabled])")
    page.wait_for_selector("#clever-sheet .field.legal")
    page.click("#clever-done", force=True)  # disabled: nothing happens, nothing English appears
    page.evaluate("document.querySelector('details').open = true")
    assert page.evaluate("document.documentElement.lang") == "de"
    assert english_left(page) == []
    titles = " ".join(page.eval_on_selector_all("#clever-sheet title", "els => els.map(e => e.textContent)"))
    assert "Re-roll" not in titles and "Fox" not in titles and "Neuwurf" in titles
    _shot(page, "clever-de-360.png")
    page.set_viewport_size({"width": 1280, "height": 900})
    _shot(page, "clever-de-1280.png")
    refused = page.evaluate("gid => fetch(`/api/clever/games/${gid}/actions`, {method: 'POST', headers: "
                            "{'Content-Type': 'application/json'}, body: JSON.stringify({action: 'done'})})"
                            ".then(r => r.json())", page.evaluate("new URLSearchParams(location.search).get('game')"))
    assert refused["field"] == "action" and refused["error"].startswith("Fertig") and "not" not in refused["error"]
    ctx.close()
