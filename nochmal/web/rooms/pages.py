"""The rooms' HTML pages: ``/rooms`` to create or join a room, ``/r/{code}`` the room (a page
for a missing room is a 404 with its own page). Their script (static/rooms.js) reads and
changes everything through the rooms' JSON API (api.py)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from jinja2 import ChoiceLoader, Environment, FileSystemLoader, select_autoescape

from nochmal.board import BUILTIN_BOARDS
from nochmal.web.errors import WebError
from nochmal.web.language import board_label, i18n_context
from nochmal.web.theme import theme_context
from nochmal.web.rooms.service import Store
from nochmal.web.rooms.model import shipped_mission, shipped_mission_ids, valid_code

HERE = Path(__file__).parent

router = APIRouter(include_in_schema=False)


def _templates() -> Environment:
    """Our templates extend the web app's base.html (nochmal/web/templates); a minimal
    fallback base keeps the rooms usable on their own (tests, before the app wires them)."""
    loaders = [FileSystemLoader(str(HERE.parent / "templates")), FileSystemLoader(str(HERE / "templates")),
               FileSystemLoader(str(HERE / "templates" / "fallback"))]
    env = Environment(loader=ChoiceLoader(loaders), autoescape=select_autoescape(["html"]),
                      extensions=["jinja2.ext.i18n"])
    env.install_null_translations(newstyle=True)  # each render passes the request's (_render)
    return env


def _render(name: str, request: Request, **context) -> str:
    """A page in the request's language (nochmal/web/language.py; docs/web.md "Languages") and
    the player's colour scheme (nochmal/web/theme.py)."""
    return TEMPLATES.get_template(name).render(request=request, **i18n_context(request), **theme_context(request),
                                               **context)


TEMPLATES = _templates()


@router.get("/rooms", response_class=HTMLResponse)
async def rooms_page(request: Request):
    missions = [shipped_mission(mid) for mid in shipped_mission_ids()]
    return _render("rooms_index.html", request, missions=missions, boards=BUILTIN_BOARDS, board_label=board_label)


@router.get("/r/{code}", response_class=HTMLResponse)
async def room_page(code: str, request: Request, store: Store):
    if not valid_code(code):
        return HTMLResponse(_render("room_missing.html", request), status_code=404)
    try:
        store.room(code)
    except WebError as exc:
        if exc.status != 404:  # the database failing is the app's 500 / 503, not a missing room
            raise
        return HTMLResponse(_render("room_missing.html", request), status_code=404)
    return _render("room.html", request, code=code)
