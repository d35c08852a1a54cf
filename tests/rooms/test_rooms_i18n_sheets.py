"""A typed sheet and an imported room refused in the phone's language (docs/web.md
"Languages"): a sheet edit's ``text`` and an exported room read back (a damaged zip, broken
JSON, a key missing, a seat's typed sheet). The oracle is the catalog through nochmal.i18n:
the Message the reader itself raises, said with ``said``; ``field`` and the status stay the
machine's, and the English answer is the reader's English line."""

from __future__ import annotations

import json

from nochmal.board import load_board
from nochmal.i18n import TERMS, Message, said, translate
from nochmal.sheet import Sheet, format_typed_sheet, parse_typed_sheet
from nochmal.web.rooms.model import RoomMode, parse_sheet_edit
from nochmal.web.rooms.transfer import parse_export
from languages_support import raised
from rooms_support import auth, new_room, sit

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
    # broken JSON: the frames in German, the JSON parser's own reason as it is (English)
    frame = raised(parse_export, broken)
    assert frame.values["reason"].values["reason"] in german["room.json"]
    assert said(frame.values["reason"], "de") != str(frame.values["reason"])
    assert client.post("/api/rooms/import", content=json.dumps(good).encode(),
                       headers={"Content-Type": "application/json", **DE}).status_code == 201
