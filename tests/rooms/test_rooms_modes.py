"""A room's mode is a type (modes as a type, not strings compared): RoomSpec holds a
RoomMode member whatever it was built from (the API's text, a stored room's JSON), writes
the same text back, and the race facts (columns and colours claimed first by others) exist
in a competitive room only, as nochmal.game.Game.race_claims."""

from __future__ import annotations

import json

import pytest

from nochmal.board import load_board
from nochmal.web.rooms.model import RoomMode, RoomSpec, SheetState, parse_room_spec
from nochmal.web.rooms.status import claimed_by_others
from nochmal.web.rooms.store import Room, Seat

COLUMN_H = load_board("classic").column_mask[7]


def room(spec: RoomSpec) -> Room:
    scored = SheetState(crossed=COLUMN_H)  # column H complete, scored first (not marked later)
    seats = (Seat(0, "Anna", scored, 1), Seat(1, "Ben", SheetState(), 1))
    return Room(code="abc", spec=spec, rolls_used=7, version=1, created=0.0, touched=0.0, seats=seats)


@pytest.mark.parametrize("data, mode", [
    ({"mission": "lockstep", "difficulty": "easy", "players": 2}, RoomMode.MISSION),
    ({"mode": "mission", "mission": "lockstep", "players": 2}, RoomMode.MISSION),
    ({"mode": "competitive", "board": "classic", "players": 2}, RoomMode.COMPETITIVE),
])
def test_the_mode_is_a_member_from_the_api_and_from_the_store(data, mode):
    spec = parse_room_spec(data)
    assert spec.mode is mode
    stored = json.loads(json.dumps(spec.to_dict()))  # as nochmal/web/rooms/store.py keeps it
    assert stored["mode"] == mode.value
    assert RoomSpec(**stored).mode is mode and RoomSpec(**stored) == spec


def test_an_unknown_stored_mode_is_refused():
    with pytest.raises(ValueError):
        RoomSpec(mode="duel", board="classic", players=2)


def test_only_a_competitive_room_has_claims_of_others():
    competitive = room(RoomSpec("competitive", "classic", 2))
    assert claimed_by_others(competitive, 1) == (1 << 7, 0)  # Anna scored column H first
    assert claimed_by_others(competitive, 0) == (0, 0)
    mission = room(parse_room_spec({"mission": "lockstep", "difficulty": "easy", "players": 2}))
    assert claimed_by_others(mission, 1) == (0, 0)
