"""Table rooms (issue 19): a group's sheets live on every phone, the mission's progress for all.

``install(app, data_dir)`` adds the JSON API (``/api/rooms...``, api.py), the pages
(``/rooms`` to create or join, ``/r/{code}`` the room) and their static files
(``/rooms-static``) to the web app. Rooms live in SQLite in ``data_dir`` (store.py); edits
reach every phone of the room as server-sent events (hub.py); the team status and the
split are computed in the background (status.py, missions/split.py).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from jinja2 import ChoiceLoader, Environment, FileSystemLoader, select_autoescape

from nochmal.web.errors import WebError
from nochmal.web.rooms.api import RoomSettings, Rooms, problem_response, router
from nochmal.web.rooms.model import RequestProblem, shipped_mission, valid_code

HERE = Path(__file__).parent

__all__ = ["install", "Rooms", "RoomSettings"]


def _templates() -> Environment:
    """Our templates extend the web app's base.html (nochmal/web/templates); a minimal
    fallback base keeps the rooms usable on their own (tests, before the app wires them)."""
    loaders = [FileSystemLoader(str(HERE.parent / "templates")), FileSystemLoader(str(HERE / "templates")),
               FileSystemLoader(str(HERE / "templates" / "fallback"))]
    return Environment(loader=ChoiceLoader(loaders), autoescape=select_autoescape(["html"]))


def install(app: FastAPI, data_dir: str | Path | None, settings: RoomSettings | None = None) -> Rooms:
    """Add the rooms' API, pages and static files to ``app``; returns the service (tests use it).
    ``data_dir`` None keeps the rooms in memory only."""
    rooms = Rooms(data_dir, settings)
    app.state.rooms = rooms
    app.add_exception_handler(WebError, lambda request, exc: problem_response(exc))  # RequestProblem is one
    app.include_router(router)  # its handlers find the service on app.state (api.py rooms_service)
    app.mount("/rooms-static", StaticFiles(directory=str(HERE / "static")), name="rooms-static")
    env = _templates()

    @app.get("/rooms", response_class=HTMLResponse, include_in_schema=False)
    async def rooms_page(request: Request):
        from nochmal.web.rooms.model import shipped_mission_ids

        missions = [shipped_mission(mid) for mid in shipped_mission_ids()]
        return env.get_template("rooms_index.html").render(request=request, missions=missions)

    @app.get("/r/{code}", response_class=HTMLResponse, include_in_schema=False)
    async def room_page(code: str, request: Request):
        if not valid_code(code):
            return HTMLResponse(env.get_template("room_missing.html").render(request=request), status_code=404)
        try:
            rooms.store.room(code)
        except RequestProblem:
            return HTMLResponse(env.get_template("room_missing.html").render(request=request), status_code=404)
        return env.get_template("room.html").render(request=request, code=code)

    return rooms
