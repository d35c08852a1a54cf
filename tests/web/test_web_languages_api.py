"""What the API says to a player follows the request's language (docs/web.md "Languages"):
an illegal tap's reason, a refused request's error, the solo verdict, the missions' names,
the seats' default names and the how-to-play page; ids, fields and moves never change."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from nochmal.board import load_board
from nochmal.errors import IllegalMoveError
from nochmal.i18n import LANGUAGES, rating, translate
from nochmal.missions import builtin_missions
from nochmal.sheet import Sheet
from nochmal.web import create_app
from nochmal.web.reasons import SHAPES, localise, objective_words

DE = {"Accept-Language": "de-DE,de;q=0.9"}


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(tmp_path)) as c:
        yield c


def engine_refusals() -> list[str]:
    """The engine's own words for each way a placement is illegal (nochmal/sheet.py)."""
    board = load_board("classic")
    sheet = Sheet(board)
    cells = board.cells_of(board.full_mask)
    colour_of = {c: board.colour_of_bit(board.bit(c)) for c in cells}
    block_of = {c: board.block_of_bit[board.bit(c)] for c in cells}
    said = []
    trials = [("y", 6, ["H1"]), ("y", 2, ["H1"]),                       # wrong count (both ways)
              (next(k for k in "ygbro" if k != colour_of["A1"]), 1, ["A1"]),  # wrong colour
              (colour_of["A1"], 1, ["A1"])]                              # not anchored
    for same_block in (False, True):  # not one block; not connected (two cells of a block apart)
        a, b = next((x, y) for x in cells for y in cells if x < y and colour_of[x] == colour_of[y]
                    and (block_of[x] == block_of[y]) == same_block
                    and not board.neighbour_mask[board.bit(x)] >> board.bit(y) & 1)
        trials.append((colour_of[a], 2, [a, b]))
    for colour, count, cells in trials:
        with pytest.raises(IllegalMoveError) as caught:
            sheet.check_placement(colour, count, board.mask_of(cells))
        said.append(str(caught.value))
    crossed = Sheet.from_cells(board, ["H1"])
    with pytest.raises(IllegalMoveError) as caught:                      # already crossed
        crossed.check_placement(colour_of["H1"], 1, board.mask_of(["H1"]))
    return said + [str(caught.value)]


@pytest.mark.parametrize("reason", engine_refusals())
def test_every_engine_refusal_has_a_shape_in_each_language(reason):
    for lang in LANGUAGES:
        said = localise(reason, lang)
        assert (said == reason) == (lang == "en"), (lang, reason, said)
        # the values (cell names, numbers) are carried over
        assert set(re.findall(r"\b[A-O][1-7]\b|\d+", reason)) <= set(re.findall(r"\b[A-O][1-7]\b|\d+", said))


def test_an_illegal_tap_is_refused_in_german(client):
    state = client.post("/api/games", json={"kind": "puzzle", "seed": 42}, headers=DE).json()
    tap = {"colour": state["dice"]["colours"][0], "number": state["dice"]["numbers"][0], "cells": ["A1"]}
    english = client.post(f"/api/games/{state['id']}/tap", json=tap).json()
    german = client.post(f"/api/games/{state['id']}/tap", json=tap, headers=DE).json()
    assert english["ok"] is False and german["ok"] is False and german["extend"] == english["extend"]
    shape = next(s for s in SHAPES if re.fullmatch(re.sub(r"%\\\(\w+\\\)s", ".+?", re.escape(s)), english["reason"]))
    german_start = translate(shape, "de").split("%(")[0]
    assert german["reason"].startswith(german_start) and german_start and german["reason"] != english["reason"]
    # more cells than the number die allows: the web's own refusal, in German
    number = next(n for n in state["dice"]["numbers"] if n != "?")
    many = client.post(f"/api/games/{state['id']}/tap", headers=DE, json={**tap, "number": number,
                       "cells": ["H1", "H2", "H3", "H4", "H5", "H6"][:int(number) + 1]}).json()
    assert many["reason"].startswith(f"zu viele Kästchen: die Wahl erlaubt {number}, "), many
    # a refused request: the error in German, the field as it was
    resp = client.post(f"/api/games/{state['id']}/tap", json={**tap, "cells": ["H1", "H1"]}, headers=DE)
    assert resp.status_code == 400 and resp.json() == {"error": "ein Kästchen ist doppelt gewählt", "field": "cells"}


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
                    said = objective_words(english, lang)
                    assert (said == english) == (lang == "en"), (lang, english, said)
    assert objective_words("colours yellow, red complete on every sheet", "de") == "Farben gelb, rosa vollständig auf jedem Block"


def test_a_coop_game_names_its_mission_and_objectives_in_the_request_language(client):
    mission = builtin_missions()[0]
    state = client.post("/api/games", json={"seats": ["human", "greedy"], "mission": mission.id, "seed": 5},
                        headers={"Accept-Language": "nl"}).json()
    m = state["mission"]
    assert m["id"] == mission.id and m["name"] == mission.name_in("nl")
    assert m["text"].startswith(mission.name_in("nl") + ": bezig, worp ")
    assert [o["description"] for o in m["objectives"]] == [objective_words(o.describe(2), "nl") for o in mission.objectives]


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
        assert f'<html lang="{lang}">' in page
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
