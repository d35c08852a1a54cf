"""The online rooms' JSON API under ``/api/rooms/online`` (docs/rooms.md, online games) and
their live stream. Bodies: online_bodies.py; the service: online_service.py. Refusals are the
rooms' (api.py): 404 a wrong code or seat, 401/403 a missing or wrong seat token, 409 out of
turn, 422 a malformed body or an illegal move with the engine's reason.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from nochmal.i18n import say
from nochmal.web.hosts import public_base_url
from nochmal.web.limits import client_address
from nochmal.web.language import request_language
from nochmal.web.responses import Job, documented, media
from nochmal.web.routers.jobs import ANALYSE_CAP
from nochmal.web.rooms import online_bodies as bodies
from nochmal.web.rooms import online_pages
from nochmal.web.rooms.bodies import json_body
from nochmal.web.rooms.hub import sse_message
from nochmal.web.rooms.model import checked_name
from nochmal.web.rooms.online_model import parse_setup
from nochmal.web.rooms.online_service import OnlineRooms
from nochmal.web.rooms.request import bearer, last_event_id, qr_svg, read_checked, room_url, small_number
from nochmal.web.errors import WebError

STREAM_SECONDS = 15.0  # as the rooms' stream (api.py): the browser reconnects with Last-Event-ID

router = APIRouter(prefix="/api/rooms/online", tags=["online games"])


def online_of(request: Request) -> OnlineRooms:
    return request.app.state.online


def seat_number(seat: str, online: OnlineRooms, code: str) -> int:
    table = online.table(code)
    if not small_number(seat) or int(seat) >= len(table.setup.seats):
        raise WebError(say("no seat %(seat)s in this game (seats 0..%(last)s)", seat=repr(seat[:10]),
                           last=len(table.setup.seats) - 1), "seat", 404)
    return int(seat)


@router.post("", status_code=201, response_model=bodies.OnlineCreated, openapi_extra=json_body(bodies.OnlineBody),
             summary="Create an online room: the server rolls the dice (seed committed, revealed at the end)")
async def create(request: Request):
    online = online_of(request)
    setup = parse_setup(await read_checked(request, bodies.OnlineBody))
    request.app.state.rooms.rate.check(client_address(request))
    code, creator, commitment = await run_in_threadpool(online.create, setup)
    return {"id": code, "url": online_url(public_base_url(request), code), "qr": f"{router.prefix}/{code}/qr.svg",
            "creator_token": creator, "commitment": commitment}


def online_url(base: str, code: str) -> str:
    return room_url(base, code).replace("/r/", "/o/")


@router.post("/{code}/seats", status_code=201, response_model=bodies.OnlineSeated,
             openapi_extra=json_body(bodies.OnlineJoinBody), summary="Sit down in a free human seat")
async def sit(code: str, request: Request):
    online = online_of(request)
    await run_in_threadpool(online.table, code)
    body = await read_checked(request, bodies.OnlineJoinBody)
    name = checked_name(body["name"], "name")
    return await run_in_threadpool(online.sit, code, name, body.get("seat"))


@router.get("/{code}", response_model=bodies.OnlineRoom, response_model_exclude_unset=True,
            summary="The room: the roll in play, its dice, every seat's sheet and state; with a seat token "
                    "the seat's offer (you)")
async def room(code: str, request: Request):
    return await run_in_threadpool(online_of(request).document, code, bearer(request), request_language(request))


@router.post("/{code}/seats/{seat}/tap", response_model=bodies.TapAnswer, openapi_extra=json_body(bodies.TapBody),
             summary="What a selection on the seat's sheet allows with a pick of dice (Bearer seat token)")
async def tap(code: str, seat: str, request: Request):
    online, k, body = await seat_request(request, code, seat, bodies.TapBody)
    return await run_in_threadpool(online.tap, code, k, bearer(request), body, request_language(request))


async def seat_request(request: Request, code: str, seat: str, model) -> tuple[OnlineRooms, int, dict]:
    """A seat's request: the service, the seat (404 for none), then its body in ``model``'s shape."""
    online = online_of(request)
    k = await run_in_threadpool(seat_number, seat, online, code)
    return online, k, await read_checked(request, model)


@router.post("/{code}/seats/{seat}/move", response_model=bodies.MoveKept, openapi_extra=json_body(bodies.MoveBody),
             summary="The seat's choice for the roll in play: a move or pass (Bearer seat token)")
async def move(code: str, seat: str, request: Request):
    online, k, body = await seat_request(request, code, seat, bodies.MoveBody)
    return await run_in_threadpool(online.move, code, k, bearer(request), body["roll"], body["move"],
                                   request_language(request))


@router.get("/{code}/qr.svg", summary="The room's link as a QR code", response_class=Response,
            responses=media("image/svg+xml"))
async def qr(code: str, request: Request):
    await run_in_threadpool(online_of(request).table, code)
    picture = await run_in_threadpool(qr_svg, online_url(public_base_url(request), code))
    return Response(picture, media_type="image/svg+xml")


@router.get("/{code}/record", summary="The game's record with the revealed seed (after the end; 409 before)",
            responses=media("application/json"))
async def record(code: str, request: Request):
    return await run_in_threadpool(online_of(request).record, code)


@router.post("/{code}/analyse", status_code=202, openapi_extra=json_body(bodies.AnalyseBody),
             summary="After the end: a seat's analysis (a mission's: the team's fewest rolls) as a job of the app's (poll GET /api/jobs/ID, stop with "
                     "POST /api/jobs/ID/cancel)", responses=documented(Job, 202))
async def analyse(code: str, request: Request):
    online = online_of(request)
    body = await read_checked(request, bodies.AnalyseBody)
    record = await run_in_threadpool(online.analysable, code, body["seat"])
    jobs = request.app.state.jobs
    cap = min(ANALYSE_CAP, max(jobs.time_cap, len(record["rolls"]) * body["time_limit"]))
    seat = body["seat"] if record["mode"] == "competitive" else None  # a mission: the team's; one seat: solo
    job = jobs.submit("analyse", {"record": record, "time_limit": body["time_limit"], "seat": seat}, time_cap=cap)
    return JSONResponse(job.to_json(request_language(request)), status_code=202)


@router.get("/{code}/events", summary="Live stream (server-sent events): online, the room after every change",
            responses=media("text/event-stream"))
async def events(code: str, request: Request):
    from nochmal.web.rooms.api import EventStream

    online = online_of(request)
    table = await run_in_threadpool(online.table, code)
    last_seen = last_event_id(request)
    sub = online.hub.subscribe(table.code, client_address(request), request_language(request))  # 429 past a limit
    return EventStream(_stream(online, sub, last_seen, request), lambda: online.hub.unsubscribe(sub))


async def _stream(online: OnlineRooms, sub, last_seen: int | None, request: Request):
    """The room (when the browser is behind), then every change; ends after STREAM_SECONDS."""
    from nochmal.web.rooms.api import server_exiting

    yield "retry: 300\n\n"
    doc = await run_in_threadpool(online.document, sub.code, None, sub.lang)
    if last_seen is None or last_seen < doc["version"]:
        yield sse_message("online", doc, doc["version"])
    loop = asyncio.get_running_loop()
    end = loop.time() + STREAM_SECONDS
    while loop.time() < end and not server_exiting(request) and not await request.is_disconnected():
        try:
            message = await asyncio.wait_for(sub.queue.get(), 1.0)
        except asyncio.TimeoutError:
            yield ": keep-alive\n\n"
            continue
        if message is None:  # dropped by the hub: the reconnect brings the room
            break
        yield message


def install(app: FastAPI, data_dir, rooms) -> OnlineRooms:
    """The online rooms beside the table rooms: their hub, their worker child (``rooms``)."""
    online = OnlineRooms(data_dir, rooms.hub, rooms.worker.run, url=rooms.settings.database,  # the rooms' database
                         stopping=lambda: not rooms.worker.alive, expire_days=rooms.settings.expire_days)
    app.state.online = online
    if getattr(rooms.hub, "redraw", None) is not None:  # several servers (fanout.py): online events too
        rooms.hub.redraw = online.redrawing(rooms.hub.redraw)
    app.include_router(router)
    app.include_router(online_pages.router)
    return online
