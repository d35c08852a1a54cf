"""The pages in German and Polish in a real browser (docs/web.md "Languages"): a browser
asking for the language gets no English phrase on the puzzle, play (set-up and a started
game), replay and rules pages; the switch in the header changes the language for good; an
illegal tap is refused in the page's language. Screenshots (360 px and 1280 px) go to
tests/artifacts/ for people to look at.

The oracle is the English catalog itself (tests/languages_support.py, shared with the rooms'
test): every phrase of two words or more in its messages, and every one-word message, must be
absent from the rendered text (``innerText``, the sheet drawings included) and the cells'
names, except a short allow-list of words both languages write alike."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from nochmal.i18n import LOCALE_DIR, translate

from languages_support import LOCALES, PHRASES, english_left
from webserver import NO_WORKER, LiveServer, chromium

ARTIFACTS = Path(__file__).parents[1] / "artifacts"
REFUSERS = ("nochmal/sheet.py", "nochmal/game.py", "nochmal/web/games.py")  # where a tap's refusals are said


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with LiveServer(tmp_path_factory.mktemp("langdata"), job_time_cap=4.0, abandon_after=20.0) as srv, \
            chromium() as browser:
        yield srv.url, browser


def test_the_catalog_gives_the_oracle_phrases():
    # the oracle is not empty and holds what the pages showed in English before
    assert {"tap the cells to cross", "download the record", "pass", "undo", "how to play"} <= PHRASES


@pytest.mark.parametrize("lang", ["de", "pl"])
def test_no_english_left_on_the_pages(site, lang):
    url, browser = site
    context = browser.new_context(locale=LOCALES[lang], viewport={"width": 360, "height": 760}, **NO_WORKER)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    page.goto(url + "/puzzle/42")
    page.wait_for_selector("#my-sheet rect.cell")
    assert page.evaluate("document.documentElement.lang") == lang
    page.wait_for_function("document.getElementById('roll-info').textContent.includes('30')")
    assert english_left(page) == []
    shot(page, f"lang-{lang}-puzzle-360")
    # an illegal tap: the engine's reason in the page's language (a refusal of the engine or the web)
    page.locator(".die.colour:not([disabled])").first.click()
    page.locator(".die.number:not([disabled])").first.click()
    # the pick's answer first: its message line moves the sheet down, and a tap aimed before it
    # came would land beside the cell
    page.wait_for_selector("#sheets.choosing")
    page.locator('#my-sheet rect.cell[data-cell="A1"]').click(force=True)
    page.wait_for_selector("#message.bad")
    reason = page.inner_text("#message")
    with open(LOCALE_DIR / lang / "LC_MESSAGES" / "nochmal.po", "rb") as fh:
        catalog = [m for m in read_po(fh) if m.id]
    said = {m.id: m.string for m in catalog}
    starts = [form.split("%(")[0] for m in catalog if any(path in REFUSERS for path, _ in m.locations)
              for form in (m.string if isinstance(m.string, tuple) else (m.string,))]  # each plural form too
    assert any(reason.startswith(start) for start in starts if start), reason
    assert english_left(page) == []
    page.click("#pass")
    page.wait_for_function("document.getElementById('log') === null && /\\b2\\b/.test(document.getElementById('roll-info').textContent)")
    game = re.search(r"game=([\w-]+)", page.url).group(1)
    page.set_viewport_size({"width": 1280, "height": 860})
    shot(page, f"lang-{lang}-puzzle-1280")

    page.goto(url + "/play")
    page.wait_for_selector("#seats .seat")
    assert english_left(page) == []
    shot(page, f"lang-{lang}-play-setup-1280")
    # a refused set-up (a mission for more seats than it has): the server's reason in the page's language
    page.select_option("#mission", index=1)
    for _ in range(4):
        page.click("#add-seat")
    page.click("#start")
    page.wait_for_selector("#message.bad")
    refused = said["a co-op mission has %(low)s-%(high)s players, not %(players)s"].split("%(")[0]
    assert page.inner_text("#message").startswith(refused) and english_left(page) == []
    page.goto(url + "/play")
    page.wait_for_selector("#seats .seat")
    page.click("#start")
    page.wait_for_selector("#my-sheet rect.cell")
    page.wait_for_function("document.querySelectorAll('#log li').length > 0 || !!document.getElementById('roll-info').textContent.match(/\\d/)")
    assert english_left(page) == []
    shot(page, f"lang-{lang}-play-game-1280")
    page.set_viewport_size({"width": 360, "height": 760})
    shot(page, f"lang-{lang}-play-game-360")

    page.goto(f"{url}/replay?game={game}")
    page.wait_for_function("/2/.test(document.getElementById('turn-label').textContent)")
    page.click("#prev")  # roll 1, the pass
    page.wait_for_selector("#turn-moves li")
    assert english_left(page) == []
    shot(page, f"lang-{lang}-replay-360")

    page.goto(url + "/rules")
    assert english_left(page) == []
    shot(page, f"lang-{lang}-rules-360")
    assert errors == []
    context.close()


def test_the_switch_changes_the_language_for_the_next_pages(site):
    url, browser = site
    context = browser.new_context(locale="en-GB", viewport={"width": 360, "height": 760}, **NO_WORKER)
    page = context.new_page()
    page.goto(url + "/puzzle/42")
    page.wait_for_selector("#my-sheet rect.cell")
    assert page.evaluate("document.documentElement.lang") == "en"
    names = page.eval_on_selector_all("#lang-switch option", "os => os.map(o => o.textContent)")
    assert names == ["Deutsch", "English", "Nederlands", "Français", "Polski"]
    page.select_option("#lang-switch", label="Polski")
    page.wait_for_function("document.documentElement.lang === 'pl'")
    page.wait_for_selector("#my-sheet rect.cell")
    assert "Łamigłówka" in page.inner_text("h1") and english_left(page) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 360  # the switch fits a phone
    page.goto(url + "/play")  # no ?lang=: the cookie keeps it
    assert page.evaluate("document.documentElement.lang") == "pl"
    assert page.inner_text("h1") == "Nowa gra"
    context.close()


def test_an_english_page_asks_for_no_messages_a_german_one_for_its_own(site):
    """English scripts say the source text (base.html data-messages="none"): the page draws its
    game without asking /api/i18n at all; a German one asks for its catalog once, before the
    words it draws (static/common.js NM.i18nReady)."""
    url, browser = site
    for lang, wanted in (("en", []), ("de", ["/api/i18n/de"])):
        context = browser.new_context(locale=LOCALES.get(lang, "en-US"), viewport={"width": 360, "height": 760}, **NO_WORKER)
        page = context.new_page()
        asked: list[str] = []
        page.on("request", lambda req: asked.append(req.url))
        page.goto(url + "/puzzle/43")
        page.wait_for_selector("#my-sheet rect.cell")
        page.wait_for_function("document.getElementById('roll-info').textContent.includes('30')")
        assert [u.removeprefix(url) for u in asked if "/api/i18n/" in u] == wanted, lang
        said = page.text_content("#roll-info")
        assert said.startswith(translate("roll %(roll)s of %(limit)s", lang) % {"roll": 1, "limit": 30}), said
        context.close()
