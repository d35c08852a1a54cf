"""Uploaded records under /api/records: a record file is replayed and checked when it
arrives (nochmal/web/records.py RecordStore), then read, stepped through and drawn by its id."""

from __future__ import annotations

import json

from fastapi import APIRouter, File, Request, UploadFile
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from nochmal.missions.coop import mission_outcome_line
from nochmal.i18n import say
from nochmal.seats import seat_name
from nochmal.svg import SheetPicture, pictures_svg, record_svg, sheet_title
from nochmal.web import responses
from nochmal.web.deps import Caps, Records, UploadRate
from nochmal.web.errors import WebError
from nochmal.web.games import web_mission
from nochmal.web.language import board_label, request_language
from nochmal.web.limits import client_address, too_large
from nochmal.web.responses import documented, media

router = APIRouter(prefix="/api", tags=["records"])


def _summary(text: str, request: Request) -> Response:
    """A record's summary (stored as the CLI's JSON); outside English the seats' default
    names and the sheet's name (``board_label``) in the request's language."""
    lang = request_language(request)
    if lang != "en":
        data = json.loads(text)
        data["names"] = [seat_name(data["players"], p, lang) for p in range(len(data["names"]))]
        data["board_label"] = board_label(data["board"], lang)
        text = json.dumps(data)
    return Response(text, media_type="application/json")


@router.post("/records", summary="Upload a game record (multipart field 'file'); it is replayed and checked",
             responses=documented(responses.RecordSummary))
async def upload_record(request: Request, store: Records, rate: UploadRate, caps: Caps,
                        file: UploadFile = File(..., description="A record JSON file.")):
    client = client_address(request)
    rate.check(client)
    data = await file.read(caps.max_body + 1)
    if len(data) > caps.max_body:  # never, as the whole body is held to it (BodyLimit); read bounded all the same
        raise too_large("max_body", caps.max_body, "file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WebError(say("file: not a UTF-8 text file (byte %(byte)s)", byte=exc.start), "file", 422) from None
    _, item = await run_in_threadpool(store.add, text, client)  # the replay never holds up the event loop
    return _summary(item.summary, request)


@router.get("/records/{rec_id}", summary="An uploaded record's summary (as `nochmal replay F --json`)",
            responses=documented(responses.RecordSummary))
def get_record(rec_id: str, store: Records, request: Request):
    return _summary(store.get(rec_id).summary, request)


@router.get("/records/{rec_id}/turns/{turn}", summary="The state after a turn (as `nochmal replay F --to N --json`)",
            responses=documented(responses.TurnState))
def record_turn(rec_id: str, turn: int, store: Records, request: Request, svg: bool = True):
    from nochmal.table.stepper import state_data

    record, game = store.state(rec_id, turn)
    data = state_data(record, game, turn)
    lang = request_language(request)
    for entry in data.get("moves", []):
        entry["name"] = seat_name(record.players, entry["seat"] - 1, lang)
    if svg:
        claims = game.race_claims
        data["sheets_svg"] = [pictures_svg([SheetPicture(
            sheet_title(record.players, p, s, lang=lang), s, claims.columns, claims.colours)], lang=lang)
            for p, s in enumerate(game.sheets)]
    return data


@router.get("/records/{rec_id}/svg", summary="The record as an SVG picture", response_class=Response,
            responses=media("image/svg+xml"))
def record_picture(rec_id: str, store: Records, request: Request):
    record, final = store.state(rec_id)
    lang = request_language(request)
    outcome = mission_outcome_line(record, final, web_mission, lang)
    title = None if lang == "en" else board_label(record.board.name, lang)  # the pages' name of the sheet
    return Response(record_svg(record, final, outcome=outcome, lang=lang, board_title=title), media_type="image/svg+xml")
