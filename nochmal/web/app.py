"""The web app: pages, the JSON API under /api, background jobs; ``create_app`` builds it.

Everything a page shows comes from the JSON API (nochmal/web/routers); pages are thin
server-rendered shells (nochmal/web/templates) with a little plain JavaScript
(nochmal/web/static). Bad input anywhere is a 4xx with ``{"error": ..., "field": ...}``;
request bodies are capped; nothing in a request is ever used as a file path.
"""

from __future__ import annotations

import gc
import time
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException

from nochmal.errors import NochmalError
from nochmal.i18n import N_, said, say
from nochmal.web.errors import HTTP_REASONS, WebError, error_body, parse_json, shape_reason
from nochmal.web.games import GameStore
from nochmal.web.hosts import Access, HttpMiddleware, RequestGuard
from nochmal.web.jobs import JobManager
from nochmal.web.language import LanguageChoice, request_language
from nochmal.web.limits import BodyCaps, RateLimit, env_days, too_large
from nochmal.web.rooms.api import RoomSettings, problem_response
from nochmal.web.static_files import static_route
from nochmal.fileio import is_decimal

HERE = Path(__file__).parent



def _templates() -> Jinja2Templates:
    """The pages' templates with jinja2.ext.i18n: each render gets the request's language and
    gettext (nochmal/web/language.py i18n_context; docs/web.md "Languages") and the player's
    colour scheme (nochmal/web/theme.py)."""
    from nochmal.web.language import i18n_context
    from nochmal.web.theme import theme_context

    templates = Jinja2Templates(directory=str(HERE / "templates"), context_processors=[i18n_context, theme_context])
    templates.env.add_extension("jinja2.ext.i18n")
    templates.env.install_null_translations(newstyle=True)  # a render without a request: English
    return templates


TEMPLATES = _templates()


class BodyLimit(HttpMiddleware):
    """ASGI middleware, the one place a request body is held to its cap (limits.py BodyCaps,
    by path): over it, 413 naming the cap, before the body is read whole; a handler (the
    rooms' too) reads a body that already fits."""

    def __init__(self, app, caps: BodyCaps):
        super().__init__(app)
        self.caps = caps

    async def http(self, scope, receive, send):
        name, limit = self.caps.for_path(scope.get("path", ""))
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not is_decimal(length.decode("latin-1")) or int(length) > limit):
            return await _too_large(too_large(name, limit), scope, send)
        seen = 0

        async def capped():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _TooLarge(too_large(name, limit))
            return message

        try:
            await self.app(scope, capped, send)
        except _TooLarge as exc:
            await _too_large(exc.refusal, scope, send)


class ServerTiming:
    """ASGI middleware: every response says how long the app took (``Server-Timing: app;dur=ms``),
    so a benchmark (benchmarks/bench_web.py) can tell server time from network time."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        t0 = time.perf_counter()

        async def timed(message):
            if message["type"] == "http.response.start":
                ms = (time.perf_counter() - t0) * 1000
                message = dict(message)
                message["headers"] = list(message.get("headers", [])) + [(b"server-timing", f"app;dur={ms:.2f}".encode())]
            await send(message)

        await self.app(scope, receive, timed)


class _TooLarge(Exception):
    def __init__(self, refusal: WebError):
        super().__init__(str(refusal))
        self.refusal = refusal


async def _too_large(refusal: WebError, scope, send) -> None:
    """The 413, said in the request's language (LanguageChoice, outside this middleware, chose it)."""
    resp = JSONResponse(refusal.body(scope.get("state", {}).get("lang", "en")), status_code=refusal.status)
    await send({"type": "http.response.start", "status": refusal.status, "headers": resp.raw_headers})
    await send({"type": "http.response.body", "body": resp.body})


# a body that is JSON but not an object, by what it is instead
NOT_AN_OBJECT = {list: N_("the body must be a JSON object, not an array"), str: N_("the body must be a JSON object, not a string"),
                 bool: N_("the body must be a JSON object, not a boolean"), type(None): N_("the body must be a JSON object, not null"),
                 float: N_("the body must be a JSON object, not a number")}


async def _body_problem(request: Request) -> WebError | None:
    """Why a JSON body is unusable as a whole, read by the one body reader (nochmal/fileio.py's
    load_json_text underneath): broken JSON, too deep, a huge number, empty, or not an object."""
    try:
        data = parse_json(await request.body())
    except WebError as exc:
        return exc
    if not isinstance(data, dict):
        return WebError(say(NOT_AN_OBJECT.get(type(data), NOT_AN_OBJECT[float])), "body", 422)
    return None


def _install_docs(app: FastAPI) -> None:
    """/docs (Swagger UI) and /redoc from files served by the app itself: FastAPI's defaults load
    them from a CDN, which the machines this runs on often cannot reach (a blank page). The files
    come from the fastapi-offline package (a pinned copy of Swagger UI and ReDoc on PyPI)."""
    import fastapi_offline
    from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html

    assets = Path(fastapi_offline.__file__).parent / "static"
    app.mount("/docs-static", StaticFiles(directory=str(assets)), name="docs-static")
    title = f"{app.title} API"

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui():
        return get_swagger_ui_html(openapi_url=app.openapi_url, title=title,
                                   swagger_js_url="/docs-static/swagger-ui-bundle.js",
                                   swagger_css_url="/docs-static/swagger-ui.css",
                                   swagger_favicon_url="/docs-static/favicon.png")

    @app.get("/redoc", include_in_schema=False)
    async def redoc():
        return get_redoc_html(openapi_url=app.openapi_url, title=title, with_google_fonts=False,
                              redoc_js_url="/docs-static/redoc.standalone.js",
                              redoc_favicon_url="/docs-static/favicon.png")


def create_app(data_dir: Path | None = None, *, job_time_cap: float = 120.0, abandon_after: float = 30.0,
               max_jobs: int = 1, max_body: int = BodyCaps.max_body, room_settings: RoomSettings | None = None,
               games_per_minute: int = 60, access: Access | None = None, public_url: str | None = None) -> FastAPI:
    """The app; games and uploaded records are kept under ``data_dir`` (None: memory only).
    ``max_body``: the cap of a body outside the rooms (limits.py BodyCaps).
    ``access``: the host names and origins it accepts (default: localhost names and the
    environment's, nochmal/web/hosts.py); ``public_url``: the base of the links it hands out
    (default: the URL a request came in on)."""
    from nochmal.web import pages, rooms, shell
    from nochmal.web.leaderboards import LEADERBOARD_SUBMISSIONS, open_store
    from nochmal.web.records import RecordStore
    from nochmal.web.routers import ROUTERS
    from nochmal.web.routers.engine import version

    data_dir = Path(data_dir) if data_dir is not None else None
    jobs = JobManager(max_running=max_jobs, time_cap=job_time_cap, abandon_after=abandon_after)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        # what start-up made (modules, tables, the shipped boards and missions) lives as long as
        # the server: frozen out of the collector's reach, a full collection while requests
        # are served walks only what they made (measured: benchmarks/bench_uploads.py)
        gc.collect()
        gc.freeze()
        yield
        jobs.shutdown()
        rooms_service = getattr(app.state, "rooms", None)
        if rooms_service is not None:  # the status worker's thread and child process end with the app
            rooms_service.worker.stop()
            stop_hub = getattr(rooms_service.hub, "stop", None)  # and the threads listening to PostgreSQL
            if stop_hub is not None:
                stop_hub()
        online = getattr(app.state, "online", None)
        if online is not None:  # the online games' driver lets its games go (another server takes them)
            online.stop()

    app = FastAPI(title="nochmal", version=version(), lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="Noch mal! (Encore!): puzzles, games against bots, replays and the planner. "
                              "Errors are 4xx JSON `{\"error\": reason, \"field\": name}`.")
    app.state.data_dir = data_dir
    keep_days = env_days("NOCHMAL_KEEP_DAYS", 90.0)  # games and uploads untouched this long are deleted
    app.state.games = GameStore(data_dir / "games" if data_dir else None, keep_days=keep_days)
    app.state.records = RecordStore(data_dir / "records" if data_dir else None, keep_days=keep_days)
    app.state.game_rate = RateLimit(games_per_minute, "new games")
    app.state.upload_rate = RateLimit(games_per_minute, "uploads")
    # DATA/leaderboards.sqlite3, or the rooms' PostgreSQL database (docs/web.md "Leaderboards")
    app.state.leaderboards = open_store(data_dir, room_settings.database if room_settings else None)
    app.state.leaderboard_rate = RateLimit(LEADERBOARD_SUBMISSIONS, "leaderboard submissions")
    app.state.jobs = jobs
    app.state.body_caps = BodyCaps(max_body=max_body)
    app.state.templates = TEMPLATES
    app.state.public_url = public_url

    @app.exception_handler(WebError)
    async def web_error(request: Request, exc: WebError):
        # the reason in the request's language (a Message in its words); the machine fields
        # (field, status) stay as they are (docs/web.md "Languages")
        return problem_response(exc, request)

    @app.exception_handler(NochmalError)
    async def engine_error(request: Request, exc: NochmalError):
        return JSONResponse(error_body(exc.in_language(request_language(request))), status_code=422)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError):
        first = exc.errors()[0] if exc.errors() else {}
        if first.get("type") == "json_invalid" or tuple(first.get("loc", ())) == ("body",):
            problem = await _body_problem(request)  # the body as a whole: not JSON, not an object, missing
            if problem is not None:
                return problem_response(problem, request)
        loc = [str(x) for x in first.get("loc", ()) if x not in ("body", "query", "path")]
        field = ".".join(loc) or None
        return problem_response(WebError(say("%(where)s: %(why)s", where=field or "request", why=shape_reason(first)),
                                         field, 422), request)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        if isinstance(exc.__cause__, _TooLarge):  # BodyLimit stopped FastAPI's read: the body must not be read again
            refusal = exc.__cause__.refusal
            return problem_response(refusal, request)
        if exc.status_code == 400 and exc.__cause__ is not None:  # FastAPI's json.loads failed (deep, huge number)
            problem = await _body_problem(request)
            if problem is not None:
                return problem_response(problem, request)
        detail = str(exc.detail)  # Starlette's own reasons (an unknown path, a method a path does not take) said
        return JSONResponse(error_body(said(say(detail), request_language(request)) if detail in HTTP_REASONS else detail),
                            status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception):  # a bug: still one JSON line, no traceback
        return JSONResponse(error_body(f"internal error: {type(exc).__name__}"), status_code=500)

    for router in ROUTERS:
        app.include_router(router)
    app.include_router(pages.router)
    app.include_router(shell.router)  # /sw.js, the service worker at the site's root (docs/web.md)
    app.router.routes.append(static_route("/static", HERE / "static", "static"))  # from memory: static_files.py
    _install_docs(app)

    rooms.install(app, data_dir, room_settings)  # table rooms (docs/rooms.md): API, pages, static files

    app.add_middleware(BodyLimit, caps=app.state.body_caps)
    app.add_middleware(ServerTiming)
    app.add_middleware(LanguageChoice)  # request.state.lang for the pages, the errors and the rooms
    app.add_middleware(RequestGuard, access=access or Access.build())  # outermost: before anything reads
    return app
