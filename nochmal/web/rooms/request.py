"""What a request to the rooms' API says (its room code, seat, token, body) and the links
its answers give. A body is read by the handler, not by FastAPI, so that a request is refused
for its room, seat or token before its body (docs/rooms.md)."""

from __future__ import annotations

import io
import re
from typing import Callable

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from nochmal.fileio import is_decimal
from nochmal.i18n import say
from nochmal.web.errors import WebError, parse_json
from nochmal.web.hosts import public_base_url
from nochmal.web.rooms.model import need_object, valid_code
from nochmal.web.rooms.store import Room
from nochmal.web.schemas import Body

MAX_NUMBER_DIGITS = 18  # a seat, an event id, a body length: more digits are no such thing (int64)


def room_url(base_url: str, code: str) -> str:
    return f"{base_url.rstrip('/')}/r/{code}"


def handover_url(base_url: str, code: str, seat: int, secret: str) -> str:
    """The one-time link that gives a browser the seat (rooms.js claims it from the hash)."""
    return f"{room_url(base_url, code)}#seat={seat}&handover={secret}"



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
        raise WebError(say("no room with this code (wrong code, or the room expired)"), "id", 404)
    return code


def checked_seat(seat: str, room: Room) -> int:
    return seat_of(seat, room.spec.players)


def seat_of(seat: str, players: int) -> int:
    """The seat a path names in a room of ``players`` seats (404 naming it otherwise)."""
    if not small_number(seat) or int(seat) >= players:
        raise WebError(say("no seat %(seat)s in this room (seats 0..%(last)s)", seat=repr(seat[:10]), last=players - 1),
                       "seat", 404)
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



async def in_thread(call: Callable[..., dict], request: Request, *args) -> dict:
    """``call(*args, token, body, base URL)`` of the rooms service in a worker thread (the
    database and the status never block the event loop): the routes that read a body."""
    raw = await read_body(request)
    return await run_in_threadpool(call, *args, bearer(request), raw, public_base_url(request))


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


def qr_svg(url: str) -> str:
    import segno

    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=5, border=2, dark="#111", xmldecl=False)
    return out.getvalue().decode()

