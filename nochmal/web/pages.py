"""The HTML pages: thin shells rendered from nochmal/web/templates; their scripts
(nochmal/web/static) read and change everything through the JSON API (/api)."""

from __future__ import annotations

from datetime import datetime, timezone

from fastapi import APIRouter, Path as PathParam, Request
from fastapi.responses import HTMLResponse

from nochmal.board import BUILTIN_BOARDS
from nochmal.puzzles import daily_seed
from nochmal.rules import MAX_SEED

router = APIRouter(include_in_schema=False)


def _page(request: Request, template: str, **context) -> HTMLResponse:
    return request.app.state.templates.TemplateResponse(request, template, context)


def _day(request: Request) -> str:
    """Today (the daily puzzle's day: its seed is the UTC date, docs/rules.md §6) as the
    request's language writes a date."""
    from babel.dates import format_date

    from nochmal.web.language import request_language

    return format_date(datetime.now(timezone.utc).date(), format="long", locale=request_language(request))


@router.get("/", response_class=HTMLResponse)
def index(request: Request):
    return _page(request, "index.html", daily=daily_seed(), day=_day(request))


def _fresh(request: Request, seed: int) -> dict:
    """The new puzzle's first state (routers/games.py fresh_puzzle) for its page: ``fresh_sheets``,
    the drawings, as the page's own markup (the browser draws them as it reads the page), and
    ``fresh``, the rest for game.js (docs/web.md "Page load"); nothing when the address names a
    game already made (?game=ID, a reload)."""
    from nochmal.web.language import request_language
    from nochmal.web.routers.games import fresh_puzzle

    if "game" in request.query_params:
        return {"fresh": None, "fresh_sheets": []}
    state = fresh_puzzle(seed, request_language(request))
    rest = {key: value for key, value in state.items() if key != "sheets_svg"}  # (as ?svg=false answers)
    return {"fresh": rest, "fresh_sheets": state["sheets_svg"]}


@router.get("/puzzle", response_class=HTMLResponse)
def puzzle_today(request: Request):
    seed = daily_seed()
    return _page(request, "puzzle.html", seed=seed, daily=True, day=_day(request), **_fresh(request, seed))


@router.get("/puzzle/{seed}", response_class=HTMLResponse)
def puzzle(request: Request, seed: int = PathParam(..., ge=0, le=MAX_SEED)):
    daily = seed == daily_seed()
    return _page(request, "puzzle.html", seed=seed, daily=daily, day=_day(request) if daily else None,
                 **_fresh(request, seed))


@router.get("/puzzle/{seed}/leaderboard", response_class=HTMLResponse)
def leaderboard(request: Request, seed: int = PathParam(..., ge=0, le=MAX_SEED), open: bool = False):
    """A puzzle's leaderboard (docs/web.md "Leaderboards"); ?open=1 the board of open games."""
    return _page(request, "leaderboard.html", seed=seed, open=open)


@router.get("/history", response_class=HTMLResponse)
def history(request: Request):
    """The player's own puzzles, kept in the browser (static/puzzles.js)."""
    return _page(request, "history.html")


@router.get("/play", response_class=HTMLResponse)
def play_setup(request: Request):
    from nochmal.bots.registry import agent_names
    from nochmal.missions import builtin_missions

    from nochmal.web.language import board_label, request_language

    lang = request_language(request)
    boards = [(b, board_label(b, lang)) for b in BUILTIN_BOARDS]
    return _page(request, "play_setup.html", bots=agent_names(), boards=boards,
                 missions=[(m.id, m.name_in(lang)) for m in builtin_missions()])


@router.get("/play/{game_id}", response_class=HTMLResponse)
def play_game(request: Request, game_id: str):
    from nochmal.web.games import check_id

    return _page(request, "play.html", game_id=check_id(game_id, "game"))


@router.get("/rules", response_class=HTMLResponse)
def rules(request: Request):
    """How to play: docs/rules.md for players, one page per language (templates/rules/LANG.html)."""
    return _page(request, "rules.html")


@router.get("/replay", response_class=HTMLResponse)
def replay_upload(request: Request):
    return _page(request, "replay.html", record_id=None)


@router.get("/replay/{record_id}", response_class=HTMLResponse)
def replay(request: Request, record_id: str):
    from nochmal.web.games import check_id

    return _page(request, "replay.html", record_id=check_id(record_id, "record"))
