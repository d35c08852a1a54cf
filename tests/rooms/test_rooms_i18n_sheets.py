"""A typed sheet and an imported room refused in the phone's language (docs/web.md
"Languages"): a sheet edit's ``text`` and an exported room read back (a damaged zip, broken
JSON, a key missing, a seat's typed sheet). The oracle is the catalog through nochmal.i18n:
the Message the reader itself raises, said with ``said``; ``field`` and the status stay the
machine's, and the English answer is the reader's English line."""

from __future__ import annotations

import json

import pytest

from nochmal.board import load_board
from nochmal.dice import Roll
from nochmal.i18n import TERMS, Message, said, translate
from nochmal.sheet import Sheet, format_typed_sheet, parse_typed_sheet
from nochmal.web.errors import WebError
from nochmal.web.rooms.dice import roll_game
from nochmal.web.rooms.model import RoomMode, parse_sheet_edit
from nochmal.web.rooms.transfer import parse_export
from languages_support import raised
from rooms_support import auth, new_room, set_rolls, sit

DE = {"Accept-Language": "de-DE,de;q=0.9"}
BOARD = load_board("classic")


def refused(send, status: int, field: str, message: Message) -> str:
    """The request refused alike in English (no language asked) and in German: the German line."""
    en, de = send({}), send(DE)
    assert en.status_code == de.status_code == status, de.text
    assert en.json() == {"error": str(message), "field": field}
    assert de.json() == {"error": said(message, "de"), "field": field}
    assert said(message, "de") != str(message)
    return de.json()["error"]


def typed(row: int, line: str, extra: str = "") -> str:
    """The empty classic sheet typed out, its ``row`` (0-based) replaced by ``line``."""
    rows = format_typed_sheet(Sheet(BOARD)).splitlines()
    rows[row] = line
    return "\n".join(rows) + "\n" + extra


def test_a_typed_sheet_edit_is_refused_in_the_phones_language(client):
    code = new_room(client, mode="competitive", board="classic", players=1)
    seat, token = sit(client, code)

    def edit(text):
        return lambda h: client.put(f"/api/rooms/{code}/seats/{seat}/sheet", json={"text": text, "version": 0},
                                    headers={**auth(token), **h})

    printed = BOARD.printed[0]
    wrong = "b" + printed[1:]  # a blue letter where the board has another colour
    colour = BOARD.grid[0][0]
    assert colour != "b"
    cases = [typed(0, wrong), typed(2, "q" + BOARD.printed[2][1:]), typed(0, printed[:-1]),
             typed(0, printed, "jokers_used: 99\n"), typed(0, printed, "later_colours: p\n"), typed(0, printed, "tea: 2\n")]
    for text in cases:
        refused(edit(text), 422, "text", raised(parse_typed_sheet, text, BOARD, "text"))
    # the board's colour is the edition's word, said in the phone's language too
    german = refused(edit(cases[0]), 422, "text", raised(parse_typed_sheet, cases[0], BOARD, "text"))
    assert translate(TERMS[colour], "de") in german and translate(TERMS[colour], "de") != translate(TERMS[colour], "en")
    # the fields beside a typed sheet: a sheet edit's cells
    cells = {"cells": ["A1", "Z9"], "version": 0}
    refused(lambda h: client.put(f"/api/rooms/{code}/seats/{seat}/sheet", json=cells, headers={**auth(token), **h}),
            422, "cells.1", raised(parse_sheet_edit, cells, BOARD, RoomMode.COMPETITIVE))


def test_an_imported_room_is_refused_in_the_phones_language(client):
    def send(raw: bytes, kind: str = "application/json"):
        return lambda h: client.post("/api/rooms/import", content=raw, headers={"Content-Type": kind, **h})

    good = {"format": "nochmal-room", "version": 1, "mode": "competitive", "board": "classic", "players": 1,
            "rolls_used": 2, "seats": [{"name": "Anna", "text": format_typed_sheet(Sheet(BOARD))}]}
    damaged = b"PK\x03\x04" + b"\x00" * 40
    broken = b'{"format": "nochmal-room",'
    no_players = json.dumps({k: v for k, v in good.items() if k != "players"}).encode()
    short_sheet = json.dumps({**good, "seats": [{"name": "Anna", "text": typed(0, BOARD.printed[0][:-2])}]}).encode()
    german = {field: refused(send(raw, "application/zip" if raw[:2] == b"PK" else "application/json"), 422, field,
                             raised(parse_export, raw))
              for raw, field in ((damaged, "body"), (broken, "room.json"), (no_players, "players"),
                                 (short_sheet, "seats.0.text"))}  # 8 of the 10 new rooms a minute one address may
    # broken JSON and a damaged zip: the readers' own reasons said in German too (the place as
    # values), never the English words of Python's JSON or zip reader
    for field, raw in (("room.json", broken), ("body", damaged)):
        reason = raised(parse_export, raw).values["reason"]
        if field == "room.json":
            assert (reason.values["line"], reason.values["column"]) == (1, len(broken) + 1)
            reason = reason.values["reason"]
        assert isinstance(reason, Message) and str(reason) not in german[field], german[field]
        assert said(reason, "de") in german[field] and said(reason, "de") != str(reason)
    assert client.post("/api/rooms/import", content=json.dumps(good).encode(),
                       headers={"Content-Type": "application/json", **DE}).status_code == 201


@pytest.mark.sqlite_only  # the engine's check of a position: the store's part is covered above on both
def test_a_position_the_advice_cannot_start_from_is_said_in_german(client):
    """A mission's rolls counted past its budget: the engine's reason (nochmal/game.py's check
    of a position) inside this roll's advice's refusal is a Message, said in German."""
    code = new_room(client, mission="lockstep", difficulty="normal", players=1)
    seat, token = sit(client, code)
    budget = client.get(f"/api/rooms/{code}").json()["budget"]
    set_rolls(client, code, token, budget + 5)
    room = client.app.state.rooms.store.room(code)
    with pytest.raises(WebError) as caught:
        roll_game(room, Roll.from_json({"colours": ["y", "b"], "numbers": ["3", "4"]}))
    refusal = caught.value
    why = refusal.message.values["why"]
    assert isinstance(why, Message) and why.values == {"rolls": budget + 5, "limit": budget}
    assert (refusal.status, refusal.field) == (409, "roll") and refusal.body()["error"] == str(refusal.message)
    assert refusal.body("de")["error"] == said(refusal.message, "de")
    assert said(why, "de") in said(refusal.message, "de") and str(why) not in said(refusal.message, "de")
