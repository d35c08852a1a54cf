"""The app's services as FastAPI dependencies: a handler names what it needs by its type
(``store: Games``) instead of looking it up in ``request.app.state``; create_app
(nochmal/web/app.py) puts them there. The rooms' service has its dependency beside it
(nochmal/web/rooms/service.py ``RoomsService``, ``Store``): importing it here would make a cycle.

The functions are ``async`` so that FastAPI calls them on the event loop: a plain function
would cost every request a hop to the thread pool for a dictionary lookup.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from nochmal.web.games import GameStore
from nochmal.web.jobs import JobManager
from nochmal.web.leaderboards import LeaderboardStore
from nochmal.web.limits import BodyCaps, RateLimit
from nochmal.web.records import RecordStore


def _state(name: str):
    """The dependency that hands a handler ``app.state.<name>``."""
    async def service(request: Request):
        return getattr(request.app.state, name)

    return Depends(service)


Games = Annotated[GameStore, _state("games")]
Records = Annotated[RecordStore, _state("records")]
Jobs = Annotated[JobManager, _state("jobs")]
GameRate = Annotated[RateLimit, _state("game_rate")]
UploadRate = Annotated[RateLimit, _state("upload_rate")]
Leaderboards = Annotated[LeaderboardStore, _state("leaderboards")]  # the puzzles' boards (SQLite)
SubmitRate = Annotated[RateLimit, _state("leaderboard_rate")]
Caps = Annotated[BodyCaps, _state("body_caps")]  # the request bodies' caps
