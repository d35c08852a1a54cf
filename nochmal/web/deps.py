"""The app's services as FastAPI dependencies: a handler names what it needs by its type
(``store: Games``) instead of looking it up in ``request.app.state``; create_app
(nochmal/web/app.py) puts them there. The rooms' service has its dependency beside it
(nochmal/web/rooms/api.py ``RoomsService``, ``Store``): importing it here would make a cycle.

The functions are ``async`` so that FastAPI calls them on the event loop: a plain function
would cost every request a hop to the thread pool for a dictionary lookup.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from nochmal.web.games import GameStore
from nochmal.web.jobs import JobManager
from nochmal.web.limits import RateLimit
from nochmal.web.records import RecordStore


async def games(request: Request) -> GameStore:
    return request.app.state.games


async def records(request: Request) -> RecordStore:
    return request.app.state.records


async def jobs(request: Request) -> JobManager:
    return request.app.state.jobs


async def game_rate(request: Request) -> RateLimit:
    return request.app.state.game_rate


async def upload_rate(request: Request) -> RateLimit:
    return request.app.state.upload_rate


async def max_body(request: Request) -> int:
    return request.app.state.max_body


Games = Annotated[GameStore, Depends(games)]
Records = Annotated[RecordStore, Depends(records)]
Jobs = Annotated[JobManager, Depends(jobs)]
GameRate = Annotated[RateLimit, Depends(game_rate)]
UploadRate = Annotated[RateLimit, Depends(upload_rate)]
MaxBody = Annotated[int, Depends(max_body)]
