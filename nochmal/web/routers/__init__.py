"""The JSON API under /api, one router per area (FastAPI's "bigger applications" layout):
engine (the CLI's ``--json`` schemas: boards, rolls, scores, moves, hints, bots, missions),
games (the server-side games the pages play), records (uploaded records), jobs (the planner
in the background), i18n (the
scripts' messages per language), leaderboards (the puzzles' verified rankings). The rooms have their own package (nochmal/web/rooms); the HTML pages are
nochmal/web/pages.py.

Ids in paths are checked against one pattern before anything looks them up; boards and
missions are built-in names only; an uploaded record is read from the request body, never
from a path, and a record naming a mission file is refused (docs/security.md).
"""

from nochmal.web.routers import clever, engine, games, i18n, jobs, leaderboards, records

ROUTERS = (engine.router, games.router, records.router, jobs.router, i18n.router, leaderboards.router, clever.router,
           clever.page_router)

__all__ = ["ROUTERS"]
