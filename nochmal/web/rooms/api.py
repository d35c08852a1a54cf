"""The rooms' JSON API under ``/api/rooms`` (docs/rooms.md) and the live stream.

Every JSON body has its model (bodies.py: its shape, shown in /docs) and is then checked by
model.py for its meaning; an imported room (a zip or its room.json) is read by hand here.
Every refusal is one JSON reason naming the field: 404 for a wrong room code or seat, 401
without a seat token, 403 with a token that does not hold the seat, 409 for a full room or
a stale sheet version, 413 for an oversized body, 422 for a malformed one, 429 when a client
creates rooms too fast or has too many live streams open (hub.py), 500 when the rooms'
database cannot be read (store.py).
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import time
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from nochmal.missions.model import DIFFICULTIES, PLAYER_COUNTS
from nochmal.sheet import format_typed_sheet
from nochmal.svg import sheets_svg
from nochmal.web.errors import WebError, client_json, parse_json
from nochmal.web.hosts import public_base_url
from nochmal.web.deps import Caps
from nochmal.web.responses import media
from nochmal.web.limits import BodyCaps, RateLimit, client_address, env_days, too_large
from nochmal.web.rooms import bodies
from nochmal.web.rooms.hub import Hub, StreamLimits, Subscription, sse_message
from nochmal.web.rooms.model import (MAX_SEATS, RoomMode, RoomSpec, SheetState, board_of, checked_name, new_secret,
                                     need_object, parse_name, parse_roll_request, parse_rolls, parse_room_spec,
                                     parse_sheet_edit, shipped_mission, typed_sheet_state, valid_code)
from nochmal.web.rooms.race import completed_items, is_colour, later_items, race_item
from nochmal.web.rooms.status import (StatusWorker, claimed_by_others, quick_status, rolls_in_play, room_sheets,
                                      seat_label)
from nochmal.web.rooms.rolls import in_play_document, roll_message
from nochmal.web.rooms.store import Room, RoomStore, SheetTap
from nochmal.web.schemas import Body
from nochmal.fileio import is_decimal

STREAM_SECONDS = 15.0  # a stream ends after this; the browser reconnects at once with Last-Event-ID
KEEPALIVE_SECONDS = 10.0
EXPORT_FORMAT = "nochmal-room"
MAX_NUMBER_DIGITS = 18  # a seat, an event id, a body length: more digits are no such thing (int64)
ZIP_ENCRYPTED = 0x01 | 0x40  # a zip member's flag bits: encrypted, strongly encrypted
ZIP_METHODS = {zipfile.ZIP_STORED: "none", zipfile.ZIP_DEFLATED: "deflate"}  # what export_zip writes
# what reading a damaged zip raises besides BadZipFile: zipfile.py's own checks (unsupported
# versions and flags, bad offsets, undecodable names) and the decompressor's
ZIP_DAMAGE = (zipfile.BadZipFile, zlib.error, EOFError, ValueError, RuntimeError, NotImplementedError)


@dataclass
class RoomSettings:
    rooms_per_minute: int = 10  # room creations per client address and minute
    expire_days: float = field(default_factory=lambda: env_days("NOCHMAL_ROOMS_EXPIRE_DAYS", 30.0))  # rooms untouched this long are deleted
    split_seconds: float = 3.0  # CP-SAT time limit of a team split
    streams: StreamLimits = field(default_factory=StreamLimits)  # live streams open at once (hub.py)


class Rooms:
    """The rooms service: storage, the live hub, the status worker, the settings."""

    def __init__(self, data_dir: str | Path, settings: RoomSettings | None = None):
        self.settings = settings or RoomSettings()
        self.store = RoomStore(data_dir)
        self.hub = Hub(self.settings.streams)
        self.rate = RateLimit(self.settings.rooms_per_minute, "new rooms")
        self.worker = StatusWorker(self.store.room, self._publish_status, self.settings.split_seconds)
        self.store.expire(self.settings.expire_days * 86400)
        self._last_expiry = time.monotonic()

    def _publish_status(self, code: str, data: dict) -> None:
        # no event id: a status may describe an older version than the browser has seen, and
        # its Last-Event-ID must stay the newest edit (else every reconnect needs a snapshot)
        self.hub.publish(code, "status", data)

    def expire_now_and_then(self) -> None:
        if time.monotonic() - self._last_expiry > 3600:
            self._last_expiry = time.monotonic()
            self.store.expire(self.settings.expire_days * 86400)

    # --- documents -------------------------------------------------------------------------
    def room_document(self, room: Room, base_url: str) -> dict:
        spec = room.spec
        board = board_of(spec)
        sheets = room_sheets(room)
        seats = []
        for k in range(spec.players):
            seat = room.seat(k)
            doc = {"seat": k, "name": seat.name if seat else None, "taken": seat is not None and not seat.free,
                   "sheet_version": seat.sheet_version if seat else 0, "score": sheets[k].score()}
            doc.update((seat.state if seat else SheetState()).to_dict(board))
            seats.append(doc)
        status = self.worker.cached(room)
        if status is None:
            status = quick_status(room)
            self.worker.request(room)
        out = {"id": room.code, "url": room_url(base_url, room.code), "mode": spec.mode, "board": spec.board,
               "players": spec.players, "mission": spec.mission, "difficulty": spec.difficulty,
               "rolls_used": room.rolls_used, "version": room.version,
               "expires": room.touched + self.settings.expire_days * 86400, "seats": seats, "status": status,
               "in_play": in_play_document(room), "won_on": room.won_on, "has_creator": room.has_creator}
        if spec.mode is RoomMode.MISSION:
            mission = shipped_mission(spec.mission)
            out["mission_name"] = mission.name
            out["budget"] = mission.budget(spec.players, spec.difficulty)
        return out

    def seat_svg(self, room: Room, k: int) -> str:
        sheet = room_sheets(room)[k]
        seat = room.seat(k)
        cols, colours = claimed_by_others(room, k)
        title = seat.name if seat else f"seat {k + 1} (free)"
        svg = sheets_svg([(title, sheet)], cols, colours)
        return svg[svg.index("<svg"):]

    def publish_sheet(self, room: Room, k: int, redraw_all: bool, doc: dict | None = None) -> None:
        doc = doc or self.room_document(room, "")
        data = {"version": room.version, "seat": k, "sheet": doc["seats"][k], "status": doc["status"],
                "in_play": doc["in_play"], "won_on": doc["won_on"],
                "svgs": {str(j): self.seat_svg(room, j) for j in (range(room.spec.players) if redraw_all else [k])}}
        if redraw_all:  # the race: other seats' first/later values follow from this edit too
            data["seats"] = doc["seats"]
        self.hub.publish(room.code, "sheet", data, room.version)

    def edit_sheet(self, code: str, seat: str, token: str | None, raw: bytes, base_url: str) -> dict:
        """PUT .../seats/{seat}/sheet in one thread hop: the token, then the body, the commit,
        the event to the room, the answer."""
        room = self.store.room(checked_code(code))
        k = checked_seat(seat, room)
        self.store.check_token(code, k, token)
        edit = parse_sheet_edit(checked_body(raw, bodies.SheetBody), board_of(room.spec), room.spec.mode)
        before = [first_claims(room, j) for j in range(room.spec.players)]
        _, sheet_version = self.store.set_sheet(code, k, edit.state, edit.version, race_overrides(room, edit))
        room, doc = self.hold_win(self.store.room(code), base_url)
        # a seat scoring a column or colour first strikes that first value on the other sheets
        redraw_all = room.spec.mode is RoomMode.COMPETITIVE and \
            [first_claims(room, j) for j in range(room.spec.players)] != before
        self.publish_sheet(room, k, redraw_all, doc)
        return {"version": room.version, "sheet_version": sheet_version, "seat": doc["seats"][k],
                "status": doc["status"]}

    def tap_sheet(self, code: str, seat: str, token: str | None, raw: bytes, base_url: str) -> dict:
        """PATCH .../seats/{seat}/sheet: a tap applied to the sheet as it is now (taps from two
        phones on one seat merge), the room told, the answer; as edit_sheet otherwise."""
        room = self.store.room(checked_code(code))
        k = checked_seat(seat, room)
        self.store.check_token(code, k, token)
        body = checked_body(raw, bodies.TapBody)
        board = board_of(room.spec)
        before = [first_claims(room, j) for j in range(room.spec.players)]
        done = self.store.tap_sheet(code, k, board, parse_tap(body, board), body["version"])
        room, doc = self.hold_win(self.store.room(code), base_url)
        if done.changed:
            redraw_all = room.spec.mode is RoomMode.COMPETITIVE and \
                [first_claims(room, j) for j in range(room.spec.players)] != before
            self.publish_sheet(room, k, redraw_all, doc)
        return {"version": room.version, "sheet_version": done.sheet_version, "seat": doc["seats"][k],
                "status": doc["status"], "message": done.message}

    def free_seat(self, code: str, seat: str, token: str | None) -> dict:
        """DELETE .../seats/{seat}: the creator frees a seat (a lost phone); its sheet waits."""
        room = self.store.room(checked_code(code))
        k = checked_seat(seat, room)
        by = self.store.keeper(code, token)
        name, version = self.store.free_seat(code, k, by)
        room = self.store.room(code)
        self.publish_sheet(room, k, False)
        self.hub.publish(code, "seat", {"version": version, "seat": k, "text": f"{by} freed {name}'s seat: this phone "
                                        "no longer holds it; any phone may sit in it and gets its sheet."}, version)
        return {"version": version, "seat": k, "name": name}

    def handover(self, code: str, seat: str, token: str | None, base_url: str) -> dict:
        """POST .../seats/{seat}/handover: the seat's own phone hands it over (its token dies
        when the link is used); the room's creator makes a new link for a lost phone (the old
        token dies now, and a phone still holding it is told)."""
        room = self.store.room(checked_code(code))
        k = checked_seat(seat, room)
        own = self.store.holds(code, k, token)
        by = seat_label(room, k) if own else self.store.keeper(code, token)
        secret, version = self.store.start_handover(code, k, by, reissue=not own)
        if version is not None:
            self.hub.publish(code, "seat", {"version": version, "seat": k, "text": f"{by} made a new link for "
                                            f"{seat_label(room, k)}'s seat: this phone no longer holds it."}, version)
        url = handover_url(base_url, code, k, secret)
        return {"seat": k, "url": url, "handover": secret, "qr_svg": qr_svg(url)}

    def hold_win(self, room: Room, base_url: str) -> tuple[Room, dict]:
        """The room and its document, a mission's win recorded the first time its status says
        won: on the roll in play (docs/rooms.md, the win); kept until a seat reopens it."""
        doc = self.room_document(room, base_url)
        if room.spec.mode is RoomMode.MISSION and room.won_on is None and doc["status"].get("state") == "won":
            if self.store.record_win(room.code, rolls_in_play(room)) is not None:
                room = self.store.room(room.code)
                doc = self.room_document(room, base_url)
        return room, doc

    def publish_rolls(self, room: Room, doc: dict, message: str) -> None:
        self.hub.publish(room.code, "rolls", {"version": room.version, "rolls_used": room.rolls_used,
                                              "status": doc["status"], "in_play": doc["in_play"], "won_on": doc["won_on"],
                                              "message": message}, room.version)

    def count_rolls(self, code: str, token: str | None, raw: bytes, base_url: str) -> dict:
        """PUT .../rolls: a roll counted or taken back by its number (a repeat changes nothing
        and says who counted it), or the count set outright; the room told when it changed."""
        self.store.room(checked_code(code))
        k = self.store.seat_of_token(code, token)
        ask = parse_roll_request(checked_body(raw, bodies.RollsBody))
        if ask.kind == "rolls_used":
            self.store.set_rolls(code, k, ask.value)
            changed, message = True, ""
        else:
            step = self.store.step_roll(code, k, ask.value, ask.kind == "undo")
            changed, message = step.changed, roll_message(self.store.room(code), step, ask.kind == "undo")
        room, doc = self.hold_win(self.store.room(code), base_url)
        if changed:
            self.publish_rolls(room, doc, message)
        return {"version": room.version, "rolls_used": room.rolls_used, "status": doc["status"],
                "message": message, "in_play": doc["in_play"], "won_on": doc["won_on"]}

    def override_race(self, code: str, seat: str, token: str | None, raw: bytes, base_url: str) -> dict:
        """PUT .../seats/{seat}/race: the seat's own first / later for an item it completed."""
        room = self.store.room(checked_code(code))
        k = checked_seat(seat, room)
        self.store.check_token(code, k, token)
        body = checked_body(raw, bodies.RaceBody)
        if room.spec.mode is not RoomMode.COMPETITIVE:
            raise WebError("a mission has no race: every column and colour scores its first value", "item", 422)
        item = race_item(body["item"], board_of(room.spec))
        self.store.set_race_override(code, k, item, None if body["value"] == "auto" else body["value"])
        room = self.store.room(code)
        doc = self.room_document(room, base_url)
        self.publish_sheet(room, k, True, doc)
        seat_doc = doc["seats"][k]
        return {"version": room.version, "sheet_version": seat_doc["sheet_version"], "seat": seat_doc,
                "status": doc["status"]}

    def reopen(self, code: str, token: str | None, raw: bytes, base_url: str) -> dict:
        """POST .../reopen: the recorded win forgotten, when a seat asks for it on purpose."""
        room = self.store.room(checked_code(code))
        k = self.store.seat_of_token(code, token)
        seen = checked_body(raw, bodies.ReopenBody)["won_on"]
        if room.won_on != seen:
            now = f"the room's win is on roll {room.won_on}" if room.won_on else "the room is not won"
            raise WebError(f"{now}, not roll {seen}: reload and look again", "won_on", 409)
        self.store.reopen(code, k)
        room = self.store.room(code)
        doc = self.room_document(room, base_url)
        self.publish_rolls(room, doc, f"{seat_label(room, k)} reopened the game (it was won on roll {seen})")
        return {"version": room.version, "won_on": room.won_on}


    def undo_sheet(self, code: str, seat: str, token: str | None, raw: bytes, base_url: str) -> dict:
        """POST .../seats/{seat}/undo: the seat's last sheet edit taken back, said in words."""
        room = self.store.room(checked_code(code))
        k = checked_seat(seat, room)
        self.store.check_token(code, k, token)
        seen = checked_body(raw, bodies.UndoBody)["version"]
        version, sheet_version, before, after = self.store.undo_sheet(code, k, seen)
        room = self.store.room(code)
        doc = self.room_document(room, base_url)
        self.publish_sheet(room, k, room.spec.mode is RoomMode.COMPETITIVE, doc)
        return {"version": version, "sheet_version": sheet_version, "seat": doc["seats"][k], "status": doc["status"],
                "undone": undo_words(board_of(room.spec), before, after)}


def undo_words(board, before: SheetState, after: SheetState) -> str:
    """What an undo took back, as a player says it: "A1 uncrossed", "H4 crossed again"."""
    parts = []
    gone, back = before.crossed & ~after.crossed, after.crossed & ~before.crossed
    if gone:
        parts.append(" ".join(board.cells_of(gone)) + " uncrossed")
    if back:
        parts.append(" ".join(board.cells_of(back)) + " crossed again")
    if before.jokers_used != after.jokers_used:
        parts.append(f"jokers used {before.jokers_used} → {after.jokers_used}")
    if (before.later_columns, before.later_colours) != (after.later_columns, after.later_colours):
        parts.append("first/later as before")
    return ", ".join(parts) or "nothing changed"


def parse_tap(body: dict, board) -> SheetTap:
    """A tap's cells as board masks (422 naming the cell: ``cross.0``); a cell both crossed and
    uncrossed, or a tap that names nothing, is no tap."""
    masks = {}
    for key in ("cross", "uncross"):
        masks[key] = 0
        for k, name in enumerate(body.get(key, [])):
            try:
                masks[key] |= 1 << board.bit(name)
            except KeyError:
                raise WebError(f"{key}.{k}: {name[:10]!r} is not a cell of the {board.name} board", f"{key}.{k}",
                               422) from None
    if masks["cross"] & masks["uncross"]:
        raise WebError("a cell cannot be crossed and uncrossed in one tap", "uncross", 422)
    if not (masks["cross"] or masks["uncross"] or body.get("jokers")):
        raise WebError("a tap names cells to cross or uncross, or a joker (1 or -1)", "cross", 422)
    return SheetTap(masks["cross"], masks["uncross"], body.get("jokers", 0))


def race_overrides(room: Room, edit) -> dict[str, str | None] | None:
    """A competitive edit's hand-set first/later (None in a mission: no race): an edit that
    names later_columns / later_colours sets each complete column / colour of that kind."""
    if room.spec.mode is not RoomMode.COMPETITIVE:
        return None
    board = board_of(room.spec)
    done = completed_items(board, edit.state.crossed)
    later = later_items(board, edit.state.later_columns, edit.state.later_colours)
    kinds = {"later_columns": False, "later_colours": True}
    return {item: ("later" if item in later else "first") for field, colour in kinds.items() if field in edit.fields
            for item in done if is_colour(item) == colour}


def first_claims(room: Room, k: int) -> tuple[int, int]:
    sheet = room_sheets(room)[k]
    return sheet.cols_upper, sheet.colours_upper


def room_url(base_url: str, code: str) -> str:
    return f"{base_url.rstrip('/')}/r/{code}"


def handover_url(base_url: str, code: str, seat: int, secret: str) -> str:
    """The one-time link that gives a browser the seat (rooms.js claims it from the hash)."""
    return f"{room_url(base_url, code)}#seat={seat}&handover={secret}"


def problem_response(exc: WebError) -> JSONResponse:
    return JSONResponse(exc.body(), status_code=exc.status)


async def read_body(request: Request) -> bytes:
    """The body, read by the handler (not by FastAPI) so that a request is refused for its
    room, seat or token first; the app's BodyLimit has held it to its cap (limits.py BodyCaps:
    ``max_room_body``, ``max_room_import`` for an import), 413 past it."""
    return await request.body()


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    match = re.match(r"^\s*Bearer\s+(\S+)\s*$", header, re.IGNORECASE)
    return match.group(1) if match else None


def checked_code(code: str) -> str:
    if not valid_code(code):
        raise WebError("no room with this code (wrong code, or the room expired)", "id", 404)
    return code


def checked_seat(seat: str, room: Room) -> int:
    if not small_number(seat) or int(seat) >= room.spec.players:
        raise WebError(f"no seat {seat[:10]!r} in this room (seats 0..{room.spec.players - 1})", "seat", 404)
    return int(seat)


def small_number(text: str) -> bool:
    """ASCII digits (``"²".isdigit()`` too, and int() refuses it), few enough for int():
    past 4300 digits int() raises ValueError, and no seat or version has more than 18."""
    return is_decimal(text) and len(text) <= MAX_NUMBER_DIGITS


def last_event_id(request: Request) -> int | None:
    """The room version the browser last saw (``Last-Event-ID``, sent by EventSource on a
    reconnect), None on a first connect; anything but one of our event ids is a 400."""
    last = request.headers.get("last-event-id", "")
    if not last:
        return None
    if not small_number(last):
        raise WebError(f"Last-Event-ID {last[:20]!r} is not an event id of this stream (a room version)",
                       "last-event-id")
    return int(last)


async def rooms_service(request: Request) -> Rooms:
    """The rooms service that install() (nochmal/web/rooms/__init__.py) put on the app: the
    rooms' own dependency, beside the service (nochmal/web/deps.py has the app's)."""
    return request.app.state.rooms


RoomsService = Annotated[Rooms, Depends(rooms_service)]


async def room_store(rooms: RoomsService) -> RoomStore:
    return rooms.store


Store = Annotated[RoomStore, Depends(room_store)]
router = APIRouter(prefix="/api/rooms", tags=["rooms"])


@router.get("/options", response_model=bodies.Options,
            summary="What a room can play: shipped missions, difficulties, boards")
async def options():
    from nochmal.board import BUILTIN_BOARDS
    from nochmal.web.rooms.model import shipped_mission_ids

    missions = [{"id": mid, "name": shipped_mission(mid).name,
                 "description": shipped_mission(mid).description} for mid in shipped_mission_ids()]
    return {"missions": missions, "difficulties": list(DIFFICULTIES), "mission_players": list(PLAYER_COUNTS),
            "boards": list(BUILTIN_BOARDS), "max_seats": MAX_SEATS}


@router.post("", status_code=201, response_model=bodies.RoomCreated,
             openapi_extra=bodies.json_body(bodies.RoomBody), summary="Create a room (mission or competitive game)")
async def create_room(request: Request, store: Store, rooms: RoomsService):
    spec = parse_room_spec(await read_checked(request, bodies.RoomBody))
    rooms.rate.check(client_address(request))
    rooms.expire_now_and_then()
    creator = new_secret()
    code = await run_in_threadpool(store.create_room, spec, None, creator)
    return {"id": code, "url": room_url(public_base_url(request), code), "qr": f"/api/rooms/{code}/qr.svg",
            "creator_token": creator}


@router.get("/{code}", response_model=bodies.RoomDocument, response_model_exclude_unset=True,
            summary="The room: seats, every sheet, and the status (mission status JSON + split)")
async def get_room(code: str, request: Request, store: Store, rooms: RoomsService):
    room = await run_in_threadpool(store.room, checked_code(code))
    return await run_in_threadpool(rooms.room_document, room, public_base_url(request))


@router.post("/{code}/seats", status_code=201, response_model=bodies.SeatTaken,
             openapi_extra=bodies.json_body(bodies.JoinBody),
             summary="Sit down under a name: the seat picked, or the lowest free one (the creator's phone may "
                     "send its creator token)")
async def join(code: str, request: Request, store: Store, rooms: RoomsService):
    body = await read_checked(request, bodies.JoinBody)
    name = checked_name(body["name"], "name")
    seat, token, version = await run_in_threadpool(store.add_seat, checked_code(code), name, body.get("seat"),
                                                   bearer(request))
    room = await run_in_threadpool(store.room, code)
    await run_in_threadpool(rooms.publish_sheet, room, seat, False)
    return {"seat": seat, "seat_token": token, "version": version}


@router.put("/{code}/seats/{seat}/sheet", response_model=bodies.SheetSaved,
            openapi_extra=bodies.json_body(bodies.SheetBody), summary="Replace a seat's sheet (Bearer seat token)")
async def put_sheet(code: str, seat: str, request: Request, rooms: RoomsService):
    raw = await read_body(request)
    return await run_in_threadpool(rooms.edit_sheet, code, seat, bearer(request), raw, public_base_url(request))


@router.patch("/{code}/seats/{seat}/sheet", response_model=bodies.SheetTapped,
              openapi_extra=bodies.json_body(bodies.TapBody),
              summary="A tap: cross / uncross cells or a joker on the sheet as it is now (Bearer seat token)")
async def patch_sheet(code: str, seat: str, request: Request, rooms: RoomsService):
    raw = await read_body(request)
    return await run_in_threadpool(rooms.tap_sheet, code, seat, bearer(request), raw, public_base_url(request))


@router.delete("/{code}/seats/{seat}", response_model=bodies.SeatFreed,
               summary="Free a seat, its sheet kept for the next phone (Bearer creator token; in a room without "
                       "a creator, any seat's)")
async def free_seat(code: str, seat: str, request: Request, rooms: RoomsService):
    return await run_in_threadpool(rooms.free_seat, code, seat, bearer(request))


@router.post("/{code}/seats/{seat}/undo", response_model=bodies.SheetUndone,
             openapi_extra=bodies.json_body(bodies.UndoBody),
             summary="Take back the seat's last sheet edit, a mis-tap (Bearer seat token)")
async def undo_sheet(code: str, seat: str, request: Request, rooms: RoomsService):
    raw = await read_body(request)
    return await run_in_threadpool(rooms.undo_sheet, code, seat, bearer(request), raw, public_base_url(request))


@router.put("/{code}/seats/{seat}/name", response_model=bodies.Renamed,
            openapi_extra=bodies.json_body(bodies.NameBody), summary="Rename a seat (Bearer seat token)")
async def rename(code: str, seat: str, request: Request, store: Store, rooms: RoomsService):
    room = await run_in_threadpool(store.room, checked_code(code))
    k = checked_seat(seat, room)
    await run_in_threadpool(store.check_token, code, k, bearer(request))
    name = parse_name(await read_checked(request, bodies.NameBody))
    await run_in_threadpool(store.rename, code, k, name)
    room = await run_in_threadpool(store.room, code)
    await run_in_threadpool(rooms.publish_sheet, room, k, False)
    return {"version": room.version, "seat": k, "name": name}


@router.put("/{code}/rolls", response_model=bodies.RollsSet, openapi_extra=bodies.json_body(bodies.RollsBody),
            summary="Count a roll as done, take it back, or set the rolls used (Bearer token of any seat)")
async def put_rolls(code: str, request: Request, rooms: RoomsService):
    raw = await read_body(request)
    return await run_in_threadpool(rooms.count_rolls, code, bearer(request), raw, public_base_url(request))


@router.put("/{code}/seats/{seat}/race", response_model=bodies.SheetSaved,
            openapi_extra=bodies.json_body(bodies.RaceBody),
            summary="Competitive: set a completed column or colour first / later by hand (Bearer seat token)")
async def put_race(code: str, seat: str, request: Request, rooms: RoomsService):
    raw = await read_body(request)
    return await run_in_threadpool(rooms.override_race, code, seat, bearer(request), raw, public_base_url(request))


@router.post("/{code}/reopen", response_model=bodies.Reopened, openapi_extra=bodies.json_body(bodies.ReopenBody),
             summary="Reopen a won mission on purpose: the recorded win is forgotten (Bearer token of any seat)")
async def reopen(code: str, request: Request, rooms: RoomsService):
    raw = await read_body(request)
    return await run_in_threadpool(rooms.reopen, code, bearer(request), raw, public_base_url(request))


@router.post("/{code}/seats/{seat}/handover", response_model=bodies.HandoverLink,
             summary="A one-time link that gives the seat to another phone (Bearer seat token; or the creator's, "
                     "which stops the old phone at once)")
async def handover(code: str, seat: str, request: Request, rooms: RoomsService):
    return await run_in_threadpool(rooms.handover, code, seat, bearer(request), public_base_url(request))


@router.post("/{code}/seats/{seat}/claim", response_model=bodies.SeatTaken,
             openapi_extra=bodies.json_body(bodies.ClaimBody),
             summary="Take a handed-over seat: a new token, the old one dies")
async def claim(code: str, seat: str, request: Request, store: Store, rooms: RoomsService):
    room = await run_in_threadpool(store.room, checked_code(code))
    k = checked_seat(seat, room)
    secret = (await read_checked(request, bodies.ClaimBody))["handover"]
    token, version = await run_in_threadpool(store.claim_handover, code, k, secret)
    # the old phone is told at once (its token died): it drops the seat and says why
    rooms.hub.publish(code, "handover", {"version": version, "seat": k}, version)
    return {"seat": k, "seat_token": token, "version": version}


@router.get("/{code}/seats/{seat}/sheet.svg", summary="A seat's sheet drawn by nochmal/svg.py",
            response_class=Response, responses=media("image/svg+xml"))
async def seat_svg(code: str, seat: str, store: Store, rooms: RoomsService):
    room = await run_in_threadpool(store.room, checked_code(code))
    k = checked_seat(seat, room)
    return Response(await run_in_threadpool(rooms.seat_svg, room, k), media_type="image/svg+xml")


@router.get("/{code}/qr.svg", summary="The room's URL as a QR code",
            response_class=Response, responses=media("image/svg+xml"))
async def qr(code: str, request: Request, store: Store):
    await run_in_threadpool(store.room, checked_code(code))
    picture = await run_in_threadpool(qr_svg, room_url(public_base_url(request), code))
    return Response(picture, media_type="image/svg+xml")


@router.get("/{code}/events", summary="Live stream (server-sent events): sync, sheet, rolls, status, handover",
            response_class=StreamingResponse, responses=media("text/event-stream"))
async def events(code: str, request: Request, store: Store, rooms: RoomsService):
    room = await run_in_threadpool(store.room, checked_code(code))
    last_seen = last_event_id(request)
    sub = rooms.hub.subscribe(room.code, client_address(request))  # 429 past a limit
    return EventStream(_stream(rooms, sub, last_seen, public_base_url(request), request),
                       lambda: rooms.hub.unsubscribe(sub))


@router.get("/{code}/export", summary="The room as a zip: room.json and one typed sheet file per seat",
            response_class=Response, responses=media("application/zip"))
async def export(code: str, store: Store):
    room = await run_in_threadpool(store.room, checked_code(code))
    data = await run_in_threadpool(export_zip, room)
    return Response(data, media_type="application/zip",
                    headers={"Content-Disposition": f'attachment; filename="room-{room.code}.zip"'})


@router.post("/import", status_code=201, response_model=bodies.Imported, openapi_extra=bodies.import_body_schema(),
             summary="A new room from an exported zip (or its room.json)")
async def import_room(request: Request, store: Store, rooms: RoomsService, caps: Caps):
    raw = await read_body(request)
    rooms.rate.check(client_address(request))
    spec, rolls_used, seats = await run_in_threadpool(parse_export, raw, caps.max_room_import)  # unzips, parses 6 sheets
    creator = new_secret()  # the importing phone is the new room's creator
    code, tokens, handovers = await run_in_threadpool(store.import_room, spec, rolls_used, seats, creator)
    base = public_base_url(request)
    links = [handover_url(base, code, k, secret) for k, secret in enumerate(handovers)]
    return {"id": code, "url": room_url(base, code), "creator_token": creator,
            "seats": [{"seat": k, "name": seats[k][0], "seat_token": token, "handover_url": links[k]}
                      for k, token in enumerate(tokens)]}


async def read_checked(request: Request, model: type[Body]) -> dict:
    return checked_body(await read_body(request), model)


def checked_body(raw: bytes, model: type[Body]) -> dict:
    """A JSON body (parse_json: the app's one reader) in the shape of its model (bodies.py),
    as the keys the client sent (model.py tells a key left out from one given as null). The
    body is read here, not by FastAPI, so that a request is refused for its room, seat or
    token before its body; a shape refused is the app's RequestValidationError answer."""
    data = need_object(parse_json(raw))
    try:
        body = model.model_validate(data)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors(include_url=False)) from None
    return body.model_dump(exclude_unset=True)


class EventStream(StreamingResponse):
    """A room's live stream; its subscription is released however the response ends: the
    stream finished, the client went away, the server stopped, or it never started."""

    media_type = "text/event-stream"

    def __init__(self, content, release):
        super().__init__(content, media_type=self.media_type,
                         headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
        self._release = release

    async def __call__(self, scope, receive, send):
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._release()


async def _stream(rooms: Rooms, sub: Subscription, last_seen: int | None, base_url: str, request: Request):
    """``sync`` (a full snapshot with every sheet drawn) when the browser is behind, then
    every event of the room; keep-alive comments; the stream ends after STREAM_SECONDS and
    the browser reconnects (so a server stopping never waits on open streams for long), or
    when the hub dropped it for falling behind (the reconnect then brings a snapshot)."""
    yield "retry: 300\n\n"
    room = await run_in_threadpool(rooms.store.room, sub.code)
    if last_seen is None or last_seen < room.version:
        doc = await run_in_threadpool(rooms.room_document, room, base_url)
        doc["svgs"] = await run_in_threadpool(lambda: {str(k): rooms.seat_svg(room, k) for k in range(room.spec.players)})
        yield sse_message("sync", doc, room.version)
    loop = asyncio.get_running_loop()
    end = loop.time() + STREAM_SECONDS
    quiet_since = loop.time()
    while True:
        left = end - loop.time()
        if left <= 0 or server_exiting(request) or await request.is_disconnected():
            break
        try:
            message = await asyncio.wait_for(sub.queue.get(), min(left, 1.0))
        except asyncio.TimeoutError:
            if loop.time() - quiet_since >= KEEPALIVE_SECONDS:
                quiet_since = loop.time()
                yield ": keep-alive\n\n"
            continue
        if message is None:  # dropped by the hub
            break
        quiet_since = loop.time()
        yield message


def server_exiting(request: Request) -> bool:
    """Whether the server is stopping (Ctrl-C). ``nochmal serve`` gives the app
    ``state.stopping``, which reads uvicorn's public ``Server.should_exit``: open streams then
    end within a second, so the server does not wait for them to time out (uvicorn runs the
    lifespan's shutdown only after every connection has closed, too late to tell them). An app
    served otherwise has none: its streams end by STREAM_SECONDS or the client leaving."""
    stopping = getattr(request.app.state, "stopping", None)
    return bool(stopping is not None and stopping())


def qr_svg(url: str) -> str:
    import segno

    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=5, border=2, dark="#111", xmldecl=False)
    return out.getvalue().decode()


# --- export and import ------------------------------------------------------------------------
def _file_name(k: int, name: str) -> str:
    """A safe member name made by the server (the client's name only as letters/digits)."""
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")[:20] or "seat"
    return f"sheet-{k + 1}-{stem}.txt"


def export_zip(room: Room) -> bytes:
    board = board_of(room.spec)
    sheets = room_sheets(room)
    seats = []
    for k in range(room.spec.players):
        seat = room.seat(k)
        name = seat.name if seat else f"seat {k + 1}"
        seats.append({"seat": k, "name": name, "file": _file_name(k, name), "text": format_typed_sheet(sheets[k])})
    doc = {"format": EXPORT_FORMAT, "version": 1, "room": room.code, **room.spec.to_dict(),
           "rolls_used": room.rolls_used, "seats": seats}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("room.json", json.dumps(doc, indent=2) + "\n")
        for s in seats:
            zf.writestr(s["file"], s["text"])
        if room.spec.mode is RoomMode.MISSION:
            files = " ".join(s["file"] for s in seats)
            zf.writestr("README.txt", f"Check this room's progress from a terminal:\n\n    nochmal mission status "
                                      f"{room.spec.mission} -d {room.spec.difficulty} -k {room.rolls_used} {files}\n")
    return buf.getvalue()


def parse_export(raw: bytes, cap: int = BodyCaps.max_room_import) -> tuple[RoomSpec, int, list[tuple[str, SheetState]]]:
    """room.json (alone, or inside an exported zip, unpacked up to ``cap`` bytes) back to a
    room; 422 naming the field."""
    if raw[:2] == b"PK":
        raw = room_json_in_zip(raw, cap)
    doc = client_json(raw, "room.json", "room.json")
    if not isinstance(doc, dict) or doc.get("format") != EXPORT_FORMAT or doc.get("version") != 1:
        raise WebError(f"not an exported room (format must be {EXPORT_FORMAT!r}, version 1)", "format", 422)
    spec_data = {k: doc[k] for k in ("mode", "board", "players", "mission", "difficulty") if doc.get(k) is not None}
    if spec_data.get("mode") == RoomMode.COMPETITIVE:
        spec_data.pop("mission", None)
        spec_data.pop("difficulty", None)
    spec = parse_room_spec(spec_data)
    rolls = parse_rolls({"rolls_used": doc.get("rolls_used")})
    seats_in = doc.get("seats")
    if not isinstance(seats_in, list) or len(seats_in) != spec.players:
        raise WebError(f"seats must list {spec.players} seat(s)", "seats", 422)
    board = board_of(spec)
    seats = []
    for k, s in enumerate(seats_in):
        if not isinstance(s, dict):
            raise WebError(f"seats.{k} must be an object", f"seats.{k}", 422)
        name = checked_name(s.get("name"), f"seats.{k}.name")
        seats.append((name, typed_sheet_state(s.get("text"), board, spec.mode, f"seats.{k}.text")))
    return spec, rolls, seats


def room_json_in_zip(raw: bytes, cap: int) -> bytes:
    """room.json out of an exported zip. At most ``cap`` + 1 bytes are ever unpacked,
    whatever size the zip declares (a zip bomb's header lies); a zip this app cannot have
    written (encrypted, another compression method) or a damaged one is a 422, never a 500."""
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as zf:
            info = zf.getinfo("room.json")
            _check_member(info, cap)
            with zf.open(info) as member:
                data = member.read(cap + 1)
    except KeyError:
        raise WebError("the zip has no room.json", "room.json", 422) from None
    except ZIP_DAMAGE as exc:
        reason = str(exc)[:80] or type(exc).__name__
        raise WebError(f"the body is not a zip file this app can read ({reason})", "body", 422) from None
    if len(data) > cap:
        raise too_large("max_room_import", cap, "room.json")
    return data


def _check_member(info: zipfile.ZipInfo, cap: int) -> None:
    if info.flag_bits & ZIP_ENCRYPTED:
        raise WebError("room.json is encrypted in the zip; an exported room is not", "room.json", 422)
    if info.compress_type not in ZIP_METHODS:
        raise WebError(f"room.json is packed with compression method {info.compress_type}; an exported "
                       f"room uses {' or '.join(f'{n} ({k})' for k, n in ZIP_METHODS.items())}", "room.json", 422)
    if info.file_size > cap:
        raise too_large("max_room_import", cap, "room.json")


__all__ = ["Rooms", "RoomSettings", "RoomsService", "problem_response", "router"]
