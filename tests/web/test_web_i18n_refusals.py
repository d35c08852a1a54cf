"""The refusals a player meets outside the rooms, said in the request's language (docs/web.md
"Languages"): a seat's spec, a move's notation, a record that does not verify (Polish plural
forms too), the rate limits (429), an unknown board, mission or id. The JSON's ``field`` and
status never change. The oracle is the catalog through nochmal.i18n: the refusal the engine
raises itself (its Message) said with ``said``, and every German answer differs from the English."""

from __future__ import annotations

import asyncio
import copy
import json
import re

import pytest
from fastapi.testclient import TestClient

import nochmal as nm
from nochmal.bots import make_agent
from nochmal.i18n import Message, said, say, translator
from nochmal.move import Move
from nochmal.record import GameRecord
from nochmal.table.setup import parse_seats
from nochmal.web import create_app
from nochmal.web.errors import WebError
from nochmal.web.games import builtin_mission
from nochmal.web.limits import RATE_REFUSALS
from nochmal.web.rooms.hub import Hub, StreamLimits
from languages_support import raised

DE = {"Accept-Language": "de-DE,de;q=0.9"}
PL = {"Accept-Language": "pl-PL,pl;q=0.9"}


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(tmp_path)) as c:
        yield c


@pytest.fixture
def limited(tmp_path):
    """An app that starts at most 3 games a minute for one address."""
    with TestClient(create_app(tmp_path, games_per_minute=3)) as c:
        yield c


def answers(res_en, res_de, status: int, field, message: Message) -> None:
    """The same refusal, English and German: the field and status alike, the words in each language."""
    assert res_en.status_code == res_de.status_code == status, res_de.text
    assert res_en.json() == {"error": str(message), "field": field}
    assert res_de.json() == {"error": said(message, "de"), "field": field}
    assert said(message, "de") != str(message)


def both(send, headers=None):
    return send({}), send({**DE, **(headers or {})})


def test_a_seat_spec_and_a_moves_notation(client):
    answers(*both(lambda h: client.post("/api/games", json={"kind": "play", "seats": ["human", "nobot"]}, headers=h)),
            400, "seats", raised(parse_seats, ["human", "nobot"], "seat"))
    gid = client.post("/api/games", json={"kind": "play", "seats": ["human"]}).json()["id"]
    answers(*both(lambda h: client.post(f"/api/games/{gid}/move", json={"move": "zz"}, headers=h)),
            400, "move", raised(Move.parse, "zz"))


def test_unknown_boards_missions_and_ids(client):
    answers(*both(lambda h: client.post("/api/games", json={"kind": "play", "board": "nope"}, headers=h)),
            400, "board", say("unknown board %(board)s; boards: %(boards)s", board="'nope'", boards=nm.BUILTIN_BOARDS))
    answers(*both(lambda h: client.post("/api/games", json={"kind": "play", "mission": "nope"}, headers=h)),
            400, "mission", raised(builtin_mission, "nope"))
    answers(*both(lambda h: client.get("/api/records/aaaaaaaaaaaaaaaaaaaaaa", headers=h)),
            404, "record", say("no record %(id)s", id="'aaaaaaaaaaaaaaaaaaaaaa'"))


def test_the_rate_limits(limited):
    for _ in range(3):
        assert limited.post("/api/games", json={"kind": "play"}).status_code == 200
    answers(*both(lambda h: limited.post("/api/games", json={"kind": "play"}, headers=h)),
            429, None, say(RATE_REFUSALS["new games"], n=3))
    # a room's live streams: the hub refuses one too many with a Message said where it is shown
    hub = Hub(StreamLimits(per_room=0))

    async def subscribe():
        hub.subscribe("abc", "client")

    with pytest.raises(WebError) as caught:
        asyncio.run(subscribe())
    refusal = caught.value
    assert refusal.status == 429 and isinstance(refusal.message, Message)
    assert refusal.body("de")["error"] == said(refusal.message, "de") != str(refusal.message)


def played() -> dict:
    """A finished competitive game's record as JSON data (a new copy each call)."""
    rec = nm.play_competitive(nm.load_board("classic"), [make_agent("greedy"), make_agent("random", 1)], seed=3)
    return copy.deepcopy(rec.to_json())


def uploaded(client, content: bytes):
    """The record file ``content`` sent as the /replay page sends it, with headers ``h``."""
    return lambda h: client.post("/api/records", files={"file": ("g.json", content, "application/json")}, headers=h)


def refused_upload(client, content: bytes) -> Message:
    """``content`` refused alike in English and German (field ``file``): the reader's Message."""
    from nochmal.web.records import parse_record

    message = raised(parse_record, content.decode())
    answers(*both(uploaded(client, content)), 422, "file", message)
    return message


def tampered() -> tuple[bytes, Message]:
    """A finished game's record with one decision dropped at turn 9 (one decision recorded, the
    roll needs two), and the Message the engine refuses it with."""
    data = played()
    data["rolls"][8]["moves"] = data["rolls"][8]["moves"][:1]
    return json.dumps(data).encode(), raised(GameRecord.from_json(data, "file").verify, "file")


def test_a_record_that_does_not_verify_in_german_and_polish(client):
    content, message = tampered()
    assert message.n == 1  # a count: said in its plural form
    upload = uploaded(client, content)
    answers(*both(upload), 422, "file", message)
    polish = upload(PL).json()
    assert polish == {"error": said(message, "pl"), "field": "file"}
    forms = [translator("pl").ngettext(message.msgid, message.plural, n) for n in (1, 2, 5)]
    assert len(set(forms)) == 3  # Polish: one, few, many
    assert polish["error"] == forms[0] % {"where": said(message.values["where"], "pl"), "n": 1, "need": 2}


def test_a_roll_refused_in_german(client):
    """A roll's faces (nochmal/dice.py): the reader's Message inside the field's frame."""
    from nochmal.dice import Roll

    roll = {"colours": ["q", "y"], "numbers": ["1", "2"]}
    answers(*both(lambda h: client.post("/api/hint", json={"roll": roll, "solo": True}, headers=h)),
            400, "roll", say("%(where)s: %(why)s", where="roll", why=raised(Roll.from_json, roll)))


def test_a_record_file_that_is_not_json_in_german(client):
    """An uploaded record that breaks off (the /replay page shows the refusal): where the JSON
    breaks and the JSON reader's reason said in German, its English words nowhere."""
    content = b'{"format": "nochmal-record", "version": 1, '
    message = refused_upload(client, content)
    broken = message.values["why"]
    assert (broken.values["line"], broken.values["column"]) == (1, len(content) + 1)
    reason = broken.values["reason"]
    assert isinstance(reason, Message) and str(reason) not in said(message, "de")
    assert said(reason, "de") in said(message, "de") and said(reason, "de") != str(reason)


def test_a_field_the_request_model_refuses_in_german(client):
    """A body's field out of its model's bounds (the /o/new page sends its seconds field, left
    empty, as 0): the bound as a value, the words the catalog's, pydantic's English nowhere."""
    def online(seconds):
        return lambda h: client.post("/api/rooms/online", json={"seats": ["human", "bot"], "mode": "competitive",
                                                                 "board": "classic",
                                                                 "quiet": {"after": "bot", "seconds": seconds}},
                                     headers=h)

    for seconds, why in ((0, say("must be greater than %(bound)s", bound=0)), ("x", say("must be a number")),
                         (10**6, say("must be at most %(bound)s", bound=86400))):
        message = say("%(where)s: %(why)s", where="quiet.seconds", why=why)
        answers(*both(online(seconds)), 422, "quiet.seconds", message)
        assert "Input should" not in str(message) and "should" not in said(message, "de")
    # a key the model does not have: the same words as before in English, German for a German page
    roll = {"colours": ["y", "b"], "numbers": ["1", "2"], "x": 1}
    unknown = say("%(where)s: %(why)s", where="roll.x", why=say("unknown key (see /docs for this request's fields)"))
    answers(*both(lambda h: client.post("/api/hint", json={"roll": roll}, headers=h)), 422, "roll.x", unknown)


def test_a_record_of_the_wrong_shape_in_german(client):
    """A record file whose keys are wrong (the /replay page shows the refusal): the reader's
    Message in German, the English words as the terminal has always said them."""
    from nochmal.rules import MAX_SEED

    cases = [({"mode": "tea"}, "file: key 'mode': unknown mode 'tea'; modes are solo, competitive, coop"),
             ({"seed": -1}, f"file: key 'seed' must be an integer 0..{MAX_SEED} or null, got -1"),
             ({"rolls": [5]}, "file: turn 1: expected {'dice': ..., 'moves': [...]}")]
    for change, english in cases:
        assert str(refused_upload(client, json.dumps({**played(), **change}).encode())) == english


def test_a_records_rules_refused_in_german(client):
    """A record's rule settings of the wrong kind: the rules' own reason said in German inside
    the record reader's frame (nochmal/rules.py), the terminal's English as before."""
    for rules, english in (({"bridging": "yes"}, "file: rules: setting bridging must be bool, got 'yes'"),
                           ({"gravity": 1, "wind": 2}, "file: rules: unknown settings gravity, wind")):
        message = refused_upload(client, json.dumps({**played(), "rules": rules}).encode())
        assert str(message) == english and isinstance(message.values["why"], Message)


def test_the_new_online_game_form_asks_for_the_seconds_before_it_sends(client):
    """The seconds of a quiet seat left empty: the browser's own check stops the form (the
    field is required, within the API's bounds) instead of a refusal naming quiet.seconds."""
    page = client.get("/o").text
    field = re.search(r'<input id="quiet-seconds"[^>]*>', page).group(0)
    assert " required" in field
    low, high = int(re.search(r'min="(\d+)"', field).group(1)), int(re.search(r'max="(\d+)"', field).group(1))
    for seconds, ok in ((low, True), (high, True), (0, False)):
        resp = client.post("/api/rooms/online", json={"seats": ["human", "greedy"], "mode": "competitive", "board": "classic",
                                                      "quiet": {"after": "bot", "seconds": seconds}})
        assert (resp.status_code < 400) == ok, (seconds, resp.text)


def test_the_apis_own_refusals_of_bodies_jobs_games_and_records_in_german(tmp_path):
    """What only a script meets, said in the request's language too (docs/web.md "Languages"):
    a body that is JSON but no object, one over the cap (413, before the app reads it), a planner
    job asked wrongly, a game's hidden rolls, a record's turn it does not have."""
    from nochmal.web.limits import too_large

    with TestClient(create_app(tmp_path, max_body=4000)) as c:
        as_json = {"Content-Type": "application/json"}
        for raw, msgid in ((b"[1, 2]", "the body must be a JSON object, not an array"),
                           (b'"x"', "the body must be a JSON object, not a string"),
                           (b"true", "the body must be a JSON object, not a boolean"),
                           (b"null", "the body must be a JSON object, not null"),
                           (b"7", "the body must be a JSON object, not a number")):
            answers(*both(lambda h: c.post("/api/games", content=raw, headers={**as_json, **h})), 422, "body", say(msgid))
        name, limit = c.app.state.body_caps.for_path("/api/games")
        big = json.dumps({"kind": "puzzle", "pad": "x" * (limit + 10)}).encode()
        answers(*both(lambda h: c.post("/api/games", content=big, headers={**as_json, **h})), 413, "body",
                too_large(name, limit).message)
        roll = {"colours": ["g", "b"], "numbers": ["1", "2"]}
        answers(*both(lambda h: c.post("/api/jobs/solve", json={"seed": 3, "rolls": [roll]}, headers=h)), 400, "seed",
                say("give exactly one of seed, game_id, rolls"))
        answers(*both(lambda h: c.post("/api/jobs/solve", json={"rolls": []}, headers=h)), 400, "rolls",
                say("rolls: give at least one roll"))
        three = {"colours": ["g", "b", "r"], "numbers": ["1", "2", "3"]}
        answers(*both(lambda h: c.post("/api/jobs/solve", json={"rolls": [roll, three]}, headers=h)), 400, "rolls.1",
                say("%(where)s: a solo roll has 2 colour and 2 number dice", where="rolls.1"))
        answers(*both(lambda h: c.post("/api/jobs/analyse", json={}, headers=h)), 400, "record_id",
                say("give exactly one of record_id, game_id"))
        game = c.post("/api/games", json={"kind": "puzzle", "seed": 4}).json()["id"]
        answers(*both(lambda h: c.get(f"/api/games/{game}/rolls", headers=h)), 403, "rolls",
                say("the rolls of this game are hidden until it ends (start an open puzzle to see them)"))
        record = c.get(f"/api/games/{game}/record").text.encode()
        rec = c.post("/api/records", files={"file": ("g.json", record, "application/json")}).json()["id"]
        answers(*both(lambda h: c.get(f"/api/records/{rec}/turns/5", headers=h)), 404, "turn",
                say("turn %(turn)s is not in this record (0-%(turns)s)", turn=5, turns=1))  # (its first roll)


def test_an_impossible_typed_sheet_in_german_and_the_terminals_english_unchanged(client):
    """/api/score, /api/moves and /api/hint refuse a sheet no legal game gives with the reasons
    of nochmal/impossible.py, said in the request's language; the English is the terminal's,
    word for word as before (column A alone, away from H, and too many jokers for its crosses)."""
    from nochmal.i18n import semicolons
    from nochmal.impossible import impossible_sheet_messages, impossible_sheet_reasons

    board = nm.load_board("classic")
    far = nm.Sheet.from_cells(board, ["A1", "A2"], jokers_used=5)
    reasons = impossible_sheet_messages(far)
    assert impossible_sheet_reasons(far) == [
        "crossed cells A1 A2 are not connected to column H through crossed cells (no legal cross could have started them)",
        "5 jokers used but only 2 cell(s) crossed; a roll uses at most 2 jokers and crosses at least one cell"]
    message = say("impossible sheet: %(reasons)s", reasons=semicolons(reasons))
    text = nm.format_typed_sheet(far)
    for path, extra in (("/api/score", {}), ("/api/moves", {"colour": "b", "count": 2}),
                        ("/api/hint", {"roll": {"colours": ["y", "b"], "numbers": ["3", "?"]}, "solo": True})):
        answers(*both(lambda h: client.post(path, json={"sheet": text, **extra}, headers=h)), 400, "sheet", message)
    german = said(message, "de")
    assert all(said(r, "de") in german for r in reasons) and "crossed" not in german


def test_a_hints_roll_refused_in_german_naming_the_apis_fields(client):
    """/api/hint checks the dice against the mode (nochmal/bots/hints.py, as `nochmal hint`):
    said in the request's language, naming the request's fields where the terminal names its options."""
    from nochmal.web.routers.engine import HINT_FIELDS

    three = {"colours": ["y", "b", "g"], "numbers": ["1", "2", "3"]}
    two = {"colours": ["y", "b"], "numbers": ["1", "2"]}
    answers(*both(lambda h: client.post("/api/hint", json={"roll": three, "solo": True}, headers=h)), 400, "roll",
            say("%(option)s has %(colours)s colour and %(numbers)s number dice; solo rolls %(n)s of each",
                option="roll", colours=3, numbers=3, n=2))
    race = say("%(option)s has %(colours)s colour and %(numbers)s number dice; the race rolls %(n)s of each "
               "(use %(solo)s for 2+2)", option="roll", colours=2, numbers=2, n=3, solo=HINT_FIELDS["solo"])
    answers(*both(lambda h: client.post("/api/hint", json={"roll": two, "solo": False}, headers=h)), 400, "roll", race)
    assert str(race) == 'roll has 2 colour and 2 number dice; the race rolls 3 of each (use "solo": true for 2+2)'


def test_a_path_or_method_the_app_does_not_have_in_german(client):
    """Starlette's own 404 and 405 reasons (and the static files' 404) go through the catalog."""
    for send, status, reason in ((lambda h: client.get("/api/no-such-thing", headers=h), 404, "Not Found"),
                                 (lambda h: client.get("/static/no-such.js", headers=h), 404, "Not Found"),
                                 (lambda h: client.delete("/api/health", headers=h), 405, "Method Not Allowed")):
        en, de = both(send)
        assert en.status_code == de.status_code == status
        assert en.json()["error"] == reason and de.json()["error"] == said(reason, "de") != reason
