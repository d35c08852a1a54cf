"""The seat routes (docs/rooms.md, seats): sit down, free a seat (the creator's token), hand
a seat over and take it with the link, rename it."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from nochmal.web.hosts import public_base_url
from nochmal.web.rooms import bodies
from nochmal.web.rooms.model import checked_name, parse_name
from nochmal.web.rooms.request import bearer, checked_code, checked_seat, read_checked
from nochmal.web.rooms.service import RoomsService, Store

router = APIRouter(tags=["rooms"])  # under /api/rooms: api.py includes it


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


@router.delete("/{code}/seats/{seat}", response_model=bodies.SeatFreed,
               summary="Free a seat, its sheet kept for the next phone (Bearer creator token; in a room without "
                       "a creator, any seat's)")
async def free_seat(code: str, seat: str, request: Request, rooms: RoomsService):
    return await run_in_threadpool(rooms.free_seat, code, seat, bearer(request))


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
