"""An online game in each phone's language (docs/web.md "Languages"): the sheet drawings of the
live stream and of the room's GET in the phone's words (a German and an English phone on one
game), its mission outcome line, and its refusals (a move for the wrong roll, a taken seat, a
wrong code) said in the request's language with the field and status unchanged. The oracle is
the catalog through nochmal.i18n (``said``) and the English catalog's phrases
(tests/languages_support.py), not German typed here."""

from __future__ import annotations

import re

import httpx

from nochmal.i18n import said, say
from nochmal.missions.loader import shipped_mission
from languages_support import english_in
from online_support import API, auth, new_online, sit_all
from rooms_support import sse_events

DE = {"Accept-Language": "de-DE,de;q=0.9"}
STREAM_S = 300  # a hang guard, not a pace


def drawn_words(svg: str) -> str:
    """What a drawing says: its texts and titles, and its cells' names for screen readers."""
    return (re.sub(r"<[^>]+>", "\n", svg) + "\n" + "\n".join(re.findall(r'aria-label="([^"]*)"', svg))).lower()


def titles(svg: str) -> list[str]:
    return re.findall(r"<title>([^<]*)</title>", svg)


def test_the_drawings_follow_each_phones_language(server):
    code = new_online(server.api, mode="competitive", seats=["human", "human", "human"])["id"]
    sit_all(server.api, code, ["Anna"])
    free = {lang: said(say("seat %(n)s (free)", n=3), lang) for lang in ("de", "en")}
    assert free["de"] != free["en"]
    german = server.api.get(f"{API}/{code}", headers=DE).json()
    assert titles(german["svgs"]["2"]) == [free["de"]] and english_in(drawn_words(german["svgs"]["2"])) == []
    assert titles(server.api.get(f"{API}/{code}").json()["svgs"]["2"]) == [free["en"]]
    phones = {lang: httpx.Client(base_url=server.url, timeout=STREAM_S, headers=headers)
              for lang, headers in (("de", DE), ("en", {"Accept-Language": "en-GB"}))}
    try:
        with phones["de"].stream("GET", f"{API}/{code}/events") as de_stream, \
                phones["en"].stream("GET", f"{API}/{code}/events") as en_stream:
            streams = {"de": sse_events(de_stream.iter_lines()), "en": sse_events(en_stream.iter_lines())}
            first = {lang: next(events)[2] for lang, events in streams.items()}  # the room as it is
            assert titles(first["de"]["svgs"]["1"]) == [said(say("seat %(n)s (free)", n=2), "de")]
            assert english_in(drawn_words(first["de"]["svgs"]["0"])) == []
            sit_all(server.api, code, ["Ben", "Cleo"])  # the game starts: every sheet drawn again
            started = {lang: next(d for e, _, d in events if e == "online" and d["started"])
                       for lang, events in streams.items()}
    finally:
        for client in phones.values():
            client.close()
    for k, name in enumerate(["Anna", "Ben", "Cleo"]):
        assert titles(started["de"]["svgs"][str(k)]) == titles(started["en"]["svgs"][str(k)]) == [name]
        assert english_in(drawn_words(started["de"]["svgs"][str(k)])) == [], k
    # the words differ, the game does not: the same cells, versions and seats for both
    assert started["de"]["version"] == started["en"]["version"]
    assert started["de"]["seats"] == started["en"]["seats"]
    assert started["de"]["svgs"]["0"] != started["en"]["svgs"]["0"]


def test_refusals_in_the_request_language(server):
    code = new_online(server.api, mode="competitive", seats=["human", "human"])["id"]
    tokens = sit_all(server.api, code, ["Anna", "Ben"])
    cases = [  # (request, status, field, the Message the server refuses with)
        (lambda h: server.api.post(f"{API}/{code}/seats/0/move", json={"roll": 7, "move": "pass"},
                                   headers={**auth(tokens[0]), **h}),
         409, "roll", say("%(now)s, not roll %(roll)s", now=say("roll %(roll)s is in play", roll=1), roll=7)),
        (lambda h: server.api.post(f"{API}/{code}/seats", json={"name": "Cleo", "seat": 1}, headers=h),
         409, "seat", say("seat %(seat)s is taken; pick a free seat", seat=2)),
        (lambda h: server.api.get(f"{API}/{code}/record", headers=h),
         409, "id", say("the game is not over: its record (and the seed) is shown at the end")),
        (lambda h: server.api.get(f"{API}/zzzzzzzzzz", headers=h),
         404, "id", say("no online room with this code (wrong code, or the room expired)")),
    ]
    for ask, status, field, message in cases:
        english, german = ask({}), ask(DE)
        assert english.status_code == german.status_code == status, german.text
        assert english.json() == {"error": str(message), "field": field}
        assert german.json() == {"error": said(message, "de"), "field": field}
        assert said(message, "de") != str(message)
    # a move's notation: the engine's reason (nochmal/move.py) in German
    bad = server.api.post(f"{API}/{code}/seats/0/move", json={"roll": 1, "move": "b4 44"},
                          headers={**auth(tokens[0]), **DE})
    assert bad.status_code == 422 and bad.json()["field"] == "move"
    assert bad.json()["error"] == said(say("bad cell name %(cell)s: expected a column letter and row, like H4",
                                           cell="'44'"), "de")


def test_a_missions_outcome_line_in_german(server):
    code = new_online(server.api, mission="star-hunt", seats=["human"])["id"]
    sit_all(server.api, code, ["Anna"])
    english = server.api.get(f"{API}/{code}").json()["outcome"]
    german = server.api.get(f"{API}/{code}", headers=DE).json()["outcome"]
    name = shipped_mission("star-hunt").name_in("de")
    assert english["text"].startswith(shipped_mission("star-hunt").name + ": ")
    assert german["text"].startswith(name + ": ") and german["text"] != english["text"]
    assert german["won"] == english["won"] and german["rolls_used"] == english["rolls_used"]  # the machine's fields


def test_a_shared_hubs_redraw_draws_an_online_event_in_its_phones_language(client):
    # several servers (fanout.py): an event drawn on another server comes in English; this
    # server draws it in its own phones' language when its game is at the event's version,
    # passes it on as it came when not, and hands a table room's event to the rooms' redraw
    online = client.app.state.online
    code = new_online(client, mode="competitive", seats=["human", "human"])["id"]
    sit_all(client, code, ["Anna"])
    event = client.get(f"{API}/{code}").json()
    redraw = online.redrawing(lambda code, data, lang: ("table room", lang))
    german = redraw(code, event, "de")
    assert titles(german["svgs"]["1"]) == [said(say("seat %(n)s (free)", n=2), "de")]
    assert german["version"] == event["version"] and german["seats"] == event["seats"]
    assert redraw(code, {**event, "version": event["version"] - 1}, "de")["svgs"] == event["svgs"]
    assert "svgs" not in redraw(code, {k: v for k, v in event.items() if k != "svgs"}, "de")
    assert redraw("r0000000", {"version": 3, "sheet": {}}, "de") == ("table room", "de")
