"""The rooms' JSON API under ``/api/rooms`` (docs/rooms.md) and the live stream.

Every JSON body has its model (bodies.py: its shape, shown in /docs) and is then checked by
model.py for its meaning; an imported room (a zip or its room.json) is read by hand
(transfer.py). The seat routes are in seats.py, the service behind the routes in service.py.
Every refusal is one JSON reason naming the field: 404 for a wrong room code or seat, 401
without a seat token, 403 with a token that does not hold the seat, 409 for a full room or
a stale sheet version, 413 for an oversized body, 422 for a malformed one, 429 when a client
creates rooms too fast or has too many live streams open (hub.py), 500 when the rooms'
database cannot be read (store.py).
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from nochmal.missions.model import DIFFICULTIES, PLAYER_COUNTS
from nochmal.web.deps import Caps
from nochmal.web.errors import WebError
from nochmal.web.hosts import public_base_url
from nochmal.web.language import request_language
from nochmal.web.limits import client_address
from nochmal.web.responses import media
from nochmal.web.rooms import bodies, seats
from nochmal.web.rooms.hub import Subscription, sse_message
from nochmal.web.rooms.model import MAX_SEATS, new_secret, parse_room_spec, shipped_mission
from nochmal.web.rooms.request import (checked_code, checked_seat, handover_url, in_thread, last_event_id, qr_svg,
                                       read_body, read_checked, room_url)
from nochmal.web.rooms.service import Rooms, RoomSettings, RoomsService, Store
from nochmal.web.rooms.transfer import export_zip, parse_export

STREAM_SECONDS = 15.0  # a stream ends after this; the browser reconnects at once with Last-Event-ID
KEEPALIVE_SECONDS = 10.0


def problem_response(exc: WebError, request: Request | None = None) -> JSONResponse:
    """A refusal in the request's language (WebError.body; English without a request)."""
    return JSONResponse(exc.body(request_language(request) if request is not None else "en"), status_code=exc.status)


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


router.include_router(seats.router)  # sit down, free, hand over, claim, rename (seats.py)


# the routes that change a room by a JSON body, each one call of the service in a worker thread
# (service.py): (name, method, path, body, answer, the service's method)
BODY_ROUTES = (
    ("put_sheet", "PUT", "/{code}/seats/{seat}/sheet", bodies.SheetBody, bodies.SheetSaved, "edit_sheet"),
    ("patch_sheet", "PATCH", "/{code}/seats/{seat}/sheet", bodies.TapBody, bodies.SheetTapped, "tap_sheet"),
    ("undo_sheet", "POST", "/{code}/seats/{seat}/undo", bodies.UndoBody, bodies.SheetUndone, "undo_sheet"),
    ("put_rolls", "PUT", "/{code}/rolls", bodies.RollsBody, bodies.RollsSet, "count_rolls"),
    ("put_race", "PUT", "/{code}/seats/{seat}/race", bodies.RaceBody, bodies.SheetSaved, "override_race"),
    ("reopen", "POST", "/{code}/reopen", bodies.ReopenBody, bodies.Reopened, "reopen"),
)
SUMMARIES = {
    "put_sheet": "Replace a seat's sheet (Bearer seat token)",
    "patch_sheet": "A tap: cross / uncross cells or a joker on the sheet as it is now (Bearer seat token)",
    "undo_sheet": "Take back the seat's last sheet edit, a mis-tap (Bearer seat token)",
    "put_rolls": "Count a roll as done, take it back, or set the rolls used (Bearer token of any seat)",
    "put_race": "Competitive: set a completed column or colour first / later by hand (Bearer seat token)",
    "reopen": "Reopen a won mission on purpose: the recorded win is forgotten (Bearer token of any seat)",
}


def seat_route(call: str):
    """The endpoint of a seat's change: the room code and the seat from the path."""
    async def route(code: str, seat: str, request: Request, rooms: RoomsService):
        return await in_thread(getattr(rooms, call), request, code, seat)
    return route


def room_route(call: str):
    """The endpoint of a room's change: the room code from the path, the seat from the token."""
    async def route(code: str, request: Request, rooms: RoomsService):
        return await in_thread(getattr(rooms, call), request, code)
    return route


def add_body_routes() -> None:
    for name, method, path, body, answer, call in BODY_ROUTES:
        endpoint = (seat_route if "{seat}" in path else room_route)(call)
        router.add_api_route(path, endpoint, methods=[method], name=name, response_model=answer,
                             openapi_extra=bodies.json_body(body), summary=SUMMARIES[name])


add_body_routes()


@router.get("/{code}/seats/{seat}/sheet.svg", response_class=Response, responses=media("image/svg+xml"),
            summary="A seat's sheet drawn by nochmal/svg.py, in the request's language")
async def seat_svg(code: str, seat: str, request: Request, store: Store, rooms: RoomsService):
    room = await run_in_threadpool(store.room, checked_code(code))
    k = checked_seat(seat, room)
    drawn = await run_in_threadpool(rooms.seat_svg, room, k, request_language(request))
    return Response(drawn, media_type="image/svg+xml")


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
    sub = rooms.hub.subscribe(room.code, client_address(request), request_language(request))  # 429 past a limit
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
    sub.after = room.version  # the phone has this version now (a snapshot or its own): no event twice
    if last_seen is None or last_seen < room.version:
        doc = await run_in_threadpool(rooms.room_document, room, base_url)
        doc["svgs"] = await run_in_threadpool(lambda: {str(k): rooms.seat_svg(room, k, sub.lang)
                                                        for k in range(room.spec.players)})
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



__all__ = ["Rooms", "RoomSettings", "RoomsService", "Store", "parse_export", "problem_response", "router"]
