"""What the API says to a player follows the request's language (docs/web.md "Languages"):
an illegal tap's reason, a refused request's error, the solo verdict, the missions' names,
the seats' default names and the how-to-play page; ids, fields and moves never change."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from babel.messages.pofile import read_po

from nochmal.board import load_board
from nochmal.dice import Roll
from nochmal.errors import IllegalMoveError
from nochmal.game import Game
from nochmal.i18n import LANGUAGES, LOCALE_DIR, Message, rating, said, say, translate, translator
from nochmal.missions import builtin_missions
from nochmal.missions.model import Objective
from nochmal.modes import Mode
from nochmal.move import Move
from nochmal.sheet import Sheet
from nochmal.web import create_app

DE = {"Accept-Language": "de-DE,de;q=0.9"}


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(tmp_path)) as c:
        yield c


def engine_refusals() -> list[IllegalMoveError]:
    """The engine refusing each way a placement or a move can be illegal (nochmal/sheet.py
    check_placement, nochmal/game.py check_move)."""
    board = load_board("classic")
    sheet = Sheet(board)
    cells = board.cells_of(board.full_mask)
    colour_of = {c: board.colour_of_bit(board.bit(c)) for c in cells}
    block_of = {c: board.block_of_bit[board.bit(c)] for c in cells}
    trials = [(sheet, "y", 6, ["H1"], False), (sheet, "y", 2, ["H1"], False),  # wrong count (both ways)
              (sheet, next(k for k in "ygbro" if k != colour_of["A1"]), 1, ["A1"], False),  # wrong colour
              (sheet, "w", 1, ["A1"], False),                                  # not a colour
              (sheet, colour_of["A1"], 1, ["A1"], False),                      # not anchored
              (Sheet.from_cells(board, ["H1"]), colour_of["H1"], 1, ["H1"], False)]  # already crossed
    for same_block in (False, True):  # not one block; not connected (two cells of a block apart)
        a, b = next((x, y) for x in cells for y in cells if x < y and colour_of[x] == colour_of[y]
                    and (block_of[x] == block_of[y]) == same_block
                    and not board.neighbour_mask[board.bit(x)] >> board.bit(y) & 1)
        trials += [(sheet, colour_of[a], 2, [a, b], False), (sheet, colour_of[a], 2, [a, b], True)]
    refused = []
    for on, colour, count, chosen, bridging in trials:
        with pytest.raises(IllegalMoveError) as caught:
            on.check_placement(colour, count, board.mask_of(chosen), bridging)
        refused.append(caught.value)
    game = Game(board, 1, mode=Mode.SOLO)
    game.apply_roll(Roll.from_text("yx/1?"))
    for move in ("b1 A1", "y3 H1 H2 H3", "y1 Z9", "xg?1 H1"):  # no such colour die; number die; cell; jokers
        if move == "xg?1 H1":
            game.sheets[0] = Sheet(board, 0, board.jokers)
        with pytest.raises(IllegalMoveError) as caught:
            game.apply_move(Move.parse(move))
        refused.append(caught.value)
    with pytest.raises(IllegalMoveError) as caught:
        Game(board, 1, mode=Mode.SOLO).apply_move(Move.parse("pass"))  # nobody is to move
    return refused + [caught.value]


def catalog(lang: str) -> dict:
    with open(LOCALE_DIR / lang / "LC_MESSAGES" / "nochmal.po", "rb") as fh:
        return {m.id: m.string for m in read_po(fh) if m.id}


PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def test_every_engine_refusal_is_a_message_each_catalog_says():
    """Each refusal keeps its msgid and values (no English parsed back, docs/web.md
    "Languages"); every catalog translates the msgid with the same placeholders, English word
    for word, the others in their own words."""
    refusals = engine_refusals()
    assert len({r.message.msgid for r in refusals}) == 14  # the ways counted above, each its own sentence
    catalogs = {lang: catalog(lang) for lang in LANGUAGES}
    for refusal in refusals:
        message = refusal.message
        assert isinstance(message, Message), refusal
        key = (message.msgid, message.plural) if message.plural else message.msgid  # a count: its plural forms
        assert str(refusal) == said(message, "en") and catalogs["en"][key] == key
        for lang in LANGUAGES:
            text = catalogs[lang].get(key)
            forms = text if isinstance(text, tuple) else (text,)
            assert all(form and set(PLACEHOLDER.findall(form)) == set(PLACEHOLDER.findall(message.msgid))
                       for form in forms), (lang, message)
            if lang != "en":
                assert said(message, lang) != str(refusal), (lang, message)
                # the values (cell names, numbers) are carried over
                assert set(re.findall(r"\b[A-O][1-7]\b|\d+", str(refusal))) <= set(re.findall(r"\b[A-O][1-7]\b|\d+", said(message, lang)))
    colours = next(r.message for r in refusals if r.message.msgid.startswith("wrong colour: %(cell)s"))
    assert said(colours, "de").startswith("falsche Farbe: A1 ist ") and "yellow" not in said(colours, "de")


def test_an_illegal_tap_is_refused_in_german(client):
    state = client.post("/api/games", json={"kind": "puzzle", "seed": 42}, headers=DE).json()
    tap = {"colour": state["dice"]["colours"][0], "number": state["dice"]["numbers"][0], "cells": ["A1"]}
    assert tap["colour"] == "y"  # seed 42's first roll: A1 is green, the yellow die refused
    english = client.post(f"/api/games/{state['id']}/tap", json=tap).json()
    german = client.post(f"/api/games/{state['id']}/tap", json=tap, headers=DE).json()
    assert english["ok"] is False and german["ok"] is False and german["extend"] == english["extend"]
    assert english["reason"] == "wrong colour: A1 is green, the choice is yellow"
    assert german["reason"] == "falsche Farbe: A1 ist grün, gewählt ist gelb"
    # more cells than the number die allows: the web's own refusal, in German
    number = next(n for n in state["dice"]["numbers"] if n != "?")
    many = client.post(f"/api/games/{state['id']}/tap", headers=DE, json={**tap, "number": number,
                       "cells": ["H1", "H2", "H3", "H4", "H5", "H6"][:int(number) + 1]}).json()
    assert many["reason"].startswith(f"zu viele Kästchen: die Wahl erlaubt {number}, "), many
    # a refused request: the error in German, the field as it was
    resp = client.post(f"/api/games/{state['id']}/tap", json={**tap, "cells": ["H1", "H1"]}, headers=DE)
    assert resp.status_code == 400 and resp.json() == {"error": "ein Kästchen ist doppelt gewählt", "field": "cells"}
    # a move the rules forbid: the engine's reason inside the web's, both in Polish
    move = client.post(f"/api/games/{state['id']}/move", json={"move": "y?1 A1"}, headers={"Accept-Language": "pl"})
    assert move.status_code == 422 and move.json()["field"] == "move"
    assert move.json()["error"] == said(say("not allowed: %(reason)s", reason=say(
        "wrong colour: %(cell)s is %(colour)s, the choice is %(choice)s", cell="A1", colour=say("green"),
        choice=say("yellow"))), "pl") != "not allowed: wrong colour: A1 is green, the choice is yellow"


def test_solo_verdict_and_seat_names_in_the_request_language(client):
    state = client.post("/api/games", json={"kind": "puzzle", "seed": 7}, headers=DE).json()
    assert state["names"] == ["du"]
    for _ in range(30):
        state = client.post(f"/api/games/{state['id']}/move", json={"move": "pass"}, headers=DE).json()
    assert state["over"] and state["rating"] == "try again"  # the core's key stays
    assert state["verdict"] == rating(state["scores"][0], "de") == "Versuch's noch mal!"
    pl = client.get(f"/api/games/{state['id']}", headers={"Accept-Language": "pl"}).json()
    assert pl["verdict"] == "Spróbuj jeszcze raz!" and pl["names"] == ["ty"] and pl["log"][0]["move"] == "pass"


def test_missions_listed_by_their_names_in_the_request_language(client):
    listed = client.get("/api/missions", headers={"Accept-Language": "pl"}).json()
    for m, doc in zip(builtin_missions(), listed):
        assert doc["id"] == m.id and doc["name"] == m.name_in("pl") and doc["description"] == m.description_in("pl")
    assert client.get(f"/api/missions/{m.id}", headers=DE).json()["name"] == m.name_in("de")


def test_every_shipped_objective_is_said_in_each_language():
    for mission in builtin_missions():
        for players in (2, 3, 4, 5):
            for objective in mission.objectives:
                english = objective.describe(players)
                for lang in LANGUAGES:
                    words = said(objective.description(players), lang)
                    assert (words == english) == (lang == "en"), (lang, english, words)
    colours = Objective("colours", "each", colours=("y", "r"))
    assert colours.describe() == "colours yellow, red complete on every sheet"
    assert said(colours.description(), "de") == "Farben gelb, rosa vollständig auf jedem Block"


def test_a_coop_game_names_its_mission_and_objectives_in_the_request_language(client):
    mission = builtin_missions()[0]
    state = client.post("/api/games", json={"seats": ["human", "greedy"], "mission": mission.id, "seed": 5},
                        headers={"Accept-Language": "nl"}).json()
    m = state["mission"]
    assert m["id"] == mission.id and m["name"] == mission.name_in("nl")
    assert m["text"].startswith(mission.name_in("nl") + ": bezig, worp ")
    assert [o["description"] for o in m["objectives"]] == [said(o.description(2), "nl") for o in mission.objectives]


def test_the_daily_puzzle_dated_as_the_language_writes_dates(client):
    from datetime import datetime, timezone

    from babel.dates import format_date

    today = datetime.now(timezone.utc).date()
    german = client.get("/puzzle", headers=DE).text
    assert f"Tagesrätsel vom {format_date(today, 'long', locale='de')}" in german
    assert today.strftime("%B") in client.get("/puzzle", headers={"Accept-Language": "en"}).text
    assert format_date(today, "long", locale="pl") in client.get("/?lang=pl").text


def test_how_to_play_in_each_language(client):
    titles = set()
    for lang in LANGUAGES:
        page = client.get(f"/rules?lang={lang}").text
        assert re.search(f"<html lang=\"{lang}\"[ >]", page)
        titles.add(re.search(r"<h1>(.*?)</h1>", page).group(1))
    assert len(titles) == len(LANGUAGES)
    assert 'href="/rules"' in client.get("/puzzle/3").text and 'href="/rules"' in client.get("/").text


def test_template_messages_keep_their_markup_and_escape_their_values(client):
    page = client.get("/replay", headers=DE).text
    assert "<code>nochmal … --save</code> oder dieser Seite" in page and "&lt;code&gt;" not in page
    assert "Startwert 7" in client.get("/puzzle/7", headers=DE).text


def test_a_refusal_raised_as_a_message_is_answered_in_the_request_language(tmp_path):
    """WebError.body(lang) is the one place (the app's handler and the rooms' problem_response)."""
    from fastapi import FastAPI

    from nochmal.i18n import TERMS, say
    from nochmal.web.errors import WebError
    from nochmal.web.rooms.api import problem_response

    refusal = WebError(say("wrong colour: %(cell)s is %(colour)s, the choice is %(choice)s",
                           cell="A1", colour=say(TERMS["y"]), choice=say(TERMS["r"])), "cells", 409)
    assert str(refusal) == "wrong colour: A1 is yellow, the choice is red"
    assert refusal.body("de") == {"error": "falsche Farbe: A1 ist gelb, gewählt ist rosa", "field": "cells"}
    app = create_app(tmp_path)

    @app.get("/refuse")
    def refuse():
        raise refusal

    bare = FastAPI()  # the rooms' handler where no app handler is installed
    bare.get("/refuse")(refuse)
    bare.add_exception_handler(WebError, lambda request, exc: problem_response(exc, request))
    with TestClient(app) as c:
        resp = c.get("/refuse", headers={"Accept-Language": "pl"})
        assert resp.status_code == 409 and resp.json() == refusal.body("pl") != refusal.body("en")
        assert c.get("/refuse").json() == refusal.body("en")
    assert TestClient(bare).get("/refuse").json() == refusal.body("en")


@pytest.mark.parametrize("mission_id", ["lockstep", "team-target"])
def test_a_lost_mission_says_what_is_missing_in_the_request_language(client, mission_id):
    """The missing lines come from their Messages (missions/objectives.py), the sheet's number,
    the points and the cells carried over; the English stays the CLI's."""
    state = client.post("/api/games", json={"seats": ["human", "greedy"], "mission": mission_id, "seed": 5}).json()
    while not state["mission"]["finished"]:
        state = client.post(f"/api/games/{state['id']}/move", json={"move": "pass"}, headers=DE).json()
    english = client.get(f"/api/games/{state['id']}").json()["mission"]
    german = state["mission"]
    assert not german["won"] and len(german["missing"]) == len(english["missing"]) == 1
    if mission_id == "lockstep":
        assert english["missing"] == ["columns G H I complete on every sheet: sheet 1: G, H, I"]
        assert german["missing"] == ["Spalten G H I vollständig auf jedem Block: Block 1: G, H, I"]
    else:
        points = int(re.search(r": (\d+) more points? for the team$", english["missing"][0]).group(1))
        forms = ("%(n)s more point for the team", "%(n)s more points for the team")  # the plural form of the points
        assert german["missing"][0].endswith(": " + translator("de").ngettext(*forms, points) % {"n": points})
    unmet = next(o for o in german["objectives"] if not o["met"])
    assert german["missing"][0] == f"{unmet['description']}: {', '.join(unmet['missing'])}"
    assert german["text"].endswith("es fehlt: " + german["missing"][0])


def headings(svg: str) -> list[str]:
    """The heading lines of a drawing of nochmal/svg.py."""
    return re.findall(r'<text class="heading"[^>]*>([^<]*)<', svg)


def test_a_downloaded_picture_follows_the_page_language(client):
    """A game's SVG from a page is drawn in its language, the sheet named as the pages name it;
    without a language it is the CLI's English picture."""
    state = client.post("/api/games", json={"seats": ["human", "greedy"], "seed": 5}).json()
    for _ in range(2):
        client.post(f"/api/games/{state['id']}/move", json={"move": "pass"})
    english = client.get(f"/api/games/{state['id']}/svg").text
    german = client.get(f"/api/games/{state['id']}/svg", headers=DE).text
    assert headings(english)[1].startswith("Classic (black pad, base game) board · seed 5 · drawn ")
    assert headings(english)[2] == "UNFINISHED: 2 rolls played"
    assert headings(german)[:3] == ["Noch mal! Spiel gegeneinander", headings(german)[1], "NICHT BEENDET: Stand nach 2 Würfen"]
    assert headings(german)[1].startswith("klassisch (schwarzer Block) · Startwert 5 · gezeichnet am ")
    assert ">du: bisher " in german and ">you:" not in german and " points<" not in german
    width = int(re.search(r'<svg [^>]*width="(\d+)"', german).group(1))
    assert width > int(re.search(r'<svg [^>]*width="(\d+)"', english).group(1))  # the longer German line fits


def test_a_stopped_job_says_why_in_the_request_language(client):
    """A job keeps why it stopped as a Message (nochmal/web/jobs.py), said when a page polls it."""
    from nochmal.web.jobs import TIMED_OUT, Job, stop_text

    job = Job("t" * 16, "solve", {}, 4.0, stop_reason=TIMED_OUT)
    job.error = stop_text(job)
    assert job.to_json()["error"] == "stopped: over the time cap of 4 s"
    polish = job.to_json("pl")["error"]
    assert polish == translate("stopped: over the time cap of %(cap)s s", "pl") % {"cap": "4"} != job.to_json()["error"]
    refused = client.get("/api/jobs/" + "x" * 16, headers=DE)
    assert refused.status_code == 404 and refused.json() == {
        "error": translate("no job %(id)s (jobs are kept in memory only)", "de") % {"id": repr("x" * 16)}, "field": "job"}
