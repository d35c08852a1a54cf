"""Table rooms (docs/rooms.md): a group's sheets live on every phone, the mission's progress for all.

``install(app, data_dir)`` adds the JSON API (``/api/rooms...``, api.py), the pages
(``/rooms`` to create or join, ``/r/{code}`` the room; pages.py) and their static files
(``/rooms-static``) to the web app. Rooms live in SQLite in ``data_dir`` (store.py); edits
reach every phone of the room as server-sent events (hub.py); the team status and the
split are computed in the background (status.py, missions/split/).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI

from nochmal.web.errors import WebError
from nochmal.web.rooms import dice, online_api, pages
from nochmal.web.rooms.api import RoomSettings, Rooms, problem_response, router
from nochmal.web.static_files import static_route

HERE = Path(__file__).parent

__all__ = ["install", "Rooms", "RoomSettings"]


def install(app: FastAPI, data_dir: str | Path | None, settings: RoomSettings | None = None) -> Rooms:
    """Add the rooms' API, pages and static files to ``app``; returns the service (tests use it).
    ``data_dir`` None keeps the rooms in memory only."""
    rooms = Rooms(data_dir, settings)
    app.state.rooms = rooms
    if WebError not in app.exception_handlers:  # the web app has the one handler (nochmal/web/app.py)
        app.add_exception_handler(WebError, lambda request, exc: problem_response(exc))
    online_api.install(app, data_dir, rooms)  # online games (docs/rooms.md): before the rooms' /{code} routes
    app.include_router(router)  # its handlers find the service on app.state (api.py rooms_service)
    app.include_router(dice.router)  # this roll's advice (dice.py)
    app.router.routes.append(static_route("/rooms-static", HERE / "static", "rooms-static"))  # web/static_files.py
    app.include_router(pages.router)
    return rooms
