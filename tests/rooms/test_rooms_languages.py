"""One room, phones in two languages (docs/rooms.md, Languages): the room's events are the same
data for every phone, its sentences as msgids and values that each page says with the catalog
it loads (GET /api/i18n/LANG); the sheet drawings come in each phone's own words; the English
text stays beside the data for API clients. The expected sentences are written out here."""

from __future__ import annotations

import re
import time

import httpx

from nochmal.i18n import said, say, translator
from nochmal.missions.loader import shipped_mission
from nochmal.web.errors import WebError
from nochmal.web.rooms.store import CREATOR, used_link_reason
from nochmal.web.rooms.words import SeatLabel
from rooms_support import auth, new_room, put_cells, set_rolls, sit, sse_events

STREAM_S = 300  # a hang guard, not a pace


def page_says(data, catalog: dict):
    """What static/common.js NM.said makes of a sentence sent as data, with the page's catalog
    (its plural forms picked as Intl.PluralRules does for de, en and pl's whole numbers)."""
    if isinstance(data, list):
        return ", ".join(page_says(item, catalog) for item in data)
    if not isinstance(data, dict):
        return str(data)
    values = {k: page_says(v, catalog) for k, v in data.get("values", {}).items()}
    if data.get("plural"):
        n, forms = data["n"], catalog["plurals"].get(data["msgid"]) or _said_as_english(data, catalog)
        few = catalog["lang"] == "pl" and n % 10 in (2, 3, 4) and n % 100 not in (12, 13, 14)
        text = forms[0 if n == 1 else 1 if few or len(forms) == 2 else 2]
    elif not re.search(r"[^\W\d_]", re.sub(r"%\(\w+\)s", "", data["msgid"])):
        text = data["msgid"]  # no words of its own ("%(parts)s"): t() gives it as it is
    else:  # a message said as in English is left out of the page's catalog (t() falls back)
        text = catalog["messages"].get(data["msgid"]) or _said_as_english(data, catalog)[0]
    return re.sub(r"%\((\w+)\)s", lambda m: values.get(m.group(1), "n" in data and str(data["n"])), text)


def _said_as_english(data: dict, catalog: dict) -> list[str]:
    """The English forms of a message the page's catalog leaves out, which it may leave out
    only when the .po says it as in English (an AssertionError: the catalog lacks it)."""
    t = translator(catalog["lang"])
    if data.get("plural"):
        forms = [data["msgid"], data["plural"]]
        assert [t.ngettext(*forms, 1), t.ngettext(*forms, 5)] == forms, data["msgid"]
        return forms
    assert t.gettext(data["msgid"]) == data["msgid"], data["msgid"]
    return [data["msgid"]]


def test_one_room_speaks_to_each_phone_in_its_language(server):
    code = new_room(server.api, mission="lockstep", difficulty="normal", players=2)
    anna, ben = sit(server.api, code, "Anna"), sit(server.api, code, "Ben")
    put_cells(server.api, code, *anna, ["H1", "H2", "H3"])
    catalogs = {lang: server.api.get(f"/api/i18n/{lang}").json() for lang in ("de", "pl")}
    phones = {lang: httpx.Client(base_url=server.url, timeout=STREAM_S, headers={"Accept-Language": accept})
              for lang, accept in (("de", "de-DE,de;q=0.9"), ("pl", "pl-PL,pl;q=0.9"))}
    try:
        with phones["de"].stream("GET", f"/api/rooms/{code}/events") as de_stream, \
                phones["pl"].stream("GET", f"/api/rooms/{code}/events") as pl_stream:
            streams = {"de": sse_events(de_stream.iter_lines()), "pl": sse_events(pl_stream.iter_lines())}
            sync = {lang: next(events) for lang, events in streams.items()}
            assert all(event == "sync" for event, _, _ in sync.values())
            # the drawings in each phone's words (the cells' names for screen readers too)
            assert 'aria-label="H1 ' in sync["de"][2]["svgs"]["0"]
            assert re.search(r'aria-label="H4 blau, frei"', sync["de"][2]["svgs"]["0"])
            assert re.search(r'aria-label="H4 niebieski, wolne"', sync["pl"][2]["svgs"]["0"])
            assert sync["de"][2]["mission_names"]["de"] and sync["de"][2]["board_labels"]["pl"]

            # Anna counts roll 1: one event, English for API clients, each page's words from the data
            assert server.api.put(f"/api/rooms/{code}/rolls", json={"roll": 1}, headers=auth(anna[1])).status_code == 200
            rolls = {lang: next(d for e, _, d in events if e == "rolls") for lang, events in streams.items()}
            assert rolls["de"] == rolls["pl"] and rolls["de"]["message"] == "Anna counted roll 1"
            assert page_says(rolls["de"]["message_said"], catalogs["de"]) == "Anna hat Wurf 1 gezählt"
            assert page_says(rolls["pl"]["message_said"], catalogs["pl"]) == "Anna policzył(a) rzut 1"

            # Ben taps H4: each phone's drawing of his sheet in its own words
            tapped = server.api.patch(f"/api/rooms/{code}/seats/{ben[0]}/sheet", headers=auth(ben[1]),
                                      json={"cross": ["H4"], "version": 0})
            assert tapped.status_code == 200, tapped.text
            sheet = {lang: next(d for e, _, d in events if e == "sheet") for lang, events in streams.items()}
            assert 'aria-label="H4 blau, angekreuzt"' in sheet["de"]["svgs"]["1"]
            assert 'aria-label="H4 niebieski, skreślone"' in sheet["pl"]["svgs"]["1"]
            assert sheet["de"]["status"] == sheet["pl"]["status"]  # the status: the same data for both
    finally:
        for client in phones.values():
            client.close()
    # the team's status and advice (worked out in the background), said in German and in Polish
    # from the same data; 300 s: a hang guard, not a pace
    deadline = time.monotonic() + STREAM_S
    while time.monotonic() < deadline:
        status = server.api.get(f"/api/rooms/{code}").json()["status"]
        if status.get("advice") and status["rolls_used"] == 1 and status["complete"]:
            break
        time.sleep(0.2)
    texts = {lang: [page_says(a["said"], catalogs[lang]) for a in status["advice"]] for lang in catalogs}
    assert [a["text"] for a in status["advice"]][0].startswith("Anna: ")
    assert all("etwa" in t or "erledigt" in t for t in texts["de"]), texts
    assert all("około" in t or "zrobiona" in t for t in texts["pl"]), texts
    objective = status["objectives"][0]
    assert page_says(objective["description_said"], catalogs["de"]) == "Spalten G H I vollständig auf jedem Block"
    assert objective["description"] == "columns G H I complete on every sheet"


def test_a_refused_count_in_each_phones_language(server):
    code = new_room(server.api, mission="lockstep", difficulty="normal", players=2)
    anna = sit(server.api, code, "Anna")
    for accept, error in (("de-DE", "Wurf 1 wird gerade gespielt, nicht Wurf 3: zähle den zuerst"),
                          ("pl-PL", "trwa rzut 1, nie rzut 3: najpierw policz tamten"),
                          ("en-GB", "roll 1 is being played, not roll 3: count that first")):
        res = server.api.put(f"/api/rooms/{code}/rolls", json={"roll": 3},
                             headers={**auth(anna[1]), "Accept-Language": accept})
        assert res.status_code == 409 and res.json() == {"error": error, "field": "roll"}


def test_what_an_objective_misses_in_each_language(client):
    # a colour objective misses colours, a score target points: the page says them in its words
    catalogs = {lang: client.get(f"/api/i18n/{lang}").json() for lang in ("de", "pl")}
    code = new_room(client, mission="colour-fan", difficulty="normal", players=2)
    sit(client, code, "Anna")
    objective = client.get(f"/api/rooms/{code}").json()["status"]["objectives"][0]
    assert objective["missing"] == ["yellow", "green", "blue", "red", "orange"]
    assert [page_says(m, catalogs["de"]) for m in objective["missing_said"]] == ["gelb", "grün", "blau", "rosa",
                                                                                "orange"]
    assert page_says(objective["description_said"], catalogs["pl"]).startswith("kolory żółty, zielony")
    code = new_room(client, mission="team-target", difficulty="normal", players=2)
    sit(client, code, "Anna")
    objective = client.get(f"/api/rooms/{code}").json()["status"]["objectives"][0]
    [missing] = objective["missing_said"]
    assert page_says(missing, catalogs["de"]) != objective["missing"][0]
    assert str(missing["values"]["n"]) in page_says(missing, catalogs["de"])


def test_why_a_mission_is_lost_in_each_language(client):
    # the budget spent: the status's lost_reasons in English for API clients, said on each page
    # from the same data with the page's catalog, in the page's plural forms
    catalogs = {lang: client.get(f"/api/i18n/{lang}").json() for lang in ("de", "pl")}
    code = new_room(client, mission="lockstep", difficulty="normal", players=2)
    anna = sit(client, code, "Anna")
    budget = shipped_mission("lockstep").budget(2, "normal")
    set_rolls(client, code, anna[1], budget)
    status = client.get(f"/api/rooms/{code}").json()["status"]
    assert status["state"] == "lost" and status["lost_reasons"] == [f"the budget of {budget} rolls is spent"]
    [reason] = status["lost_reasons_said"]
    for lang, catalog in catalogs.items():
        text = page_says(reason, catalog)
        assert text == translator(lang).gettext(reason["msgid"]) % {"budget": budget} != status["lost_reasons"][0]


def test_a_used_link_names_the_rooms_creator_in_german(client):
    # the creator's phone holds no seat: a used link says whom to ask in the phone's words
    made = client.post("/api/rooms", json={"mission": "lockstep", "difficulty": "normal", "players": 2}).json()
    code, creator = made["id"], made["creator_token"]
    sit(client, code, "Anna")
    link = client.post(f"/api/rooms/{code}/seats/0/handover", headers=auth(creator)).json()["handover"]
    assert client.post(f"/api/rooms/{code}/seats/0/claim", json={"handover": link}).status_code == 200
    used = client.post(f"/api/rooms/{code}/seats/0/claim", json={"handover": link},
                       headers={"Accept-Language": "de-DE"}).json()
    creator_de = translator("de").gettext(CREATOR)
    assert creator_de != CREATOR and used == {"error": said(used_link_reason(True, False, CREATOR), "de"),
                                              "field": "handover"}
    assert creator_de in used["error"] and CREATOR not in used["error"]


def test_a_count_in_polish_takes_its_plural_form(client):
    # Polish says 2-4 and 5+ crosses in two forms (the .po's Plural-Forms): a sheet with more
    # crosses than its rolls allow, said by the page as the catalog's form for its count
    catalog = client.get("/api/i18n/pl").json()
    said_forms = {}
    for rolls_used, cells in ((0, ["H1", "H7"]), (1, [f"H{r}" for r in range(1, 8)])):
        code = new_room(client, mode="competitive", board="classic", players=2)
        anna = sit(client, code, "Anna")
        set_rolls(client, code, anna[1], rolls_used)
        put_cells(client, code, *anna, cells)
        [problem] = client.get(f"/api/rooms/{code}").json()["status"]["impossible"][0]["problems_said"]
        n = problem["n"]
        form = translator("pl").ngettext(problem["msgid"], problem["plural"], n)
        said_forms[n] = page_says(problem, catalog)
        assert said_forms[n] == form % problem["values"] and form != problem["plural"]
    assert sorted(said_forms) == [2, 7]
    assert said_forms[2].split()[1] != said_forms[7].split()[1]  # "skreślenia" and "skreśleń"


def test_a_free_seats_label_inside_a_refusal_is_said_in_the_phones_language():
    # a free seat's label is English text where a text is (words.py SeatLabel), its words where
    # a refusal names it
    refusal = WebError(say("seat %(seat)s is taken by %(name)s; pick a free seat", seat=2, name=SeatLabel(1)),
                       "seat", 409)
    assert refusal.body("en")["error"] == "seat 2 is taken by seat 2 (free); pick a free seat"
    for lang in ("de", "pl"):
        label = said(say("seat %(n)s (free)", n=2), lang)
        assert label != "seat 2 (free)" and label in refusal.body(lang)["error"]
