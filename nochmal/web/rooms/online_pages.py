"""The online room's page, ``/o/{code}`` (docs/rooms.md, online games): its script
(static/online.js) reads and plays everything through the online API (online_api.py)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from nochmal.web.errors import WebError
from nochmal.board import BUILTIN_BOARDS
from nochmal.web.rooms.model import shipped_mission, shipped_mission_ids
from nochmal.web.language import board_label
from nochmal.web.rooms.pages import _render

router = APIRouter(include_in_schema=False)


@router.get("/o", response_class=HTMLResponse)
async def new_online_page(request: Request):
    from nochmal.bots.registry import agent_names  # the bots load numpy: imported on use

    missions = [shipped_mission(mid) for mid in shipped_mission_ids()]
    return _render("online_new.html", request, missions=missions, boards=BUILTIN_BOARDS, board_label=board_label,
                   bots=agent_names())


@router.get("/o/{code}", response_class=HTMLResponse)
async def online_page(code: str, request: Request):
    try:
        await run_in_threadpool(request.app.state.online.table, code)
    except WebError as exc:
        if exc.status != 404:
            raise
        return HTMLResponse(_render("room_missing.html", request), status_code=404)
    return _render("online.html", request, code=code)
