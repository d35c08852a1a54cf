"""Clever 4ever solo games under /api/clever (docs/clever.md "The web page"): a game against a
seed is started, read and played one action at a time (the notation of
nochmal/clever/actions.py); the throws are the seed's (``seeded_outcome``), so the same seed
gives the same dice as `nochmal clever solo`. The games are kept across a restart
(nochmal/web/clever_store.py). Engine work and the store run in the thread pool, never on the
event loop."""

from __future__ import annotations

from typing import Annotated, Optional

from fastapi import APIRouter, Depends, Path as PathParam, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from nochmal.clever import DICE
from nochmal.clever.actions import MAX_TEXT
from nochmal.clever.sheetdata import AREAS, BONUSES
from nochmal.clever.words import action_words, bonus, colour
from nochmal.clever.state import to_state
from nochmal.clever.scoring import area_points
from nochmal.i18n import N_, translate
from nochmal.rules import MAX_SEED
from nochmal.web.clever_store import CleverGames, Played, store_of
from nochmal.web.clever_svg import sheet_svg, targets
from nochmal.web.language import Lang
from nochmal.web.limits import RateLimit, client_address
from nochmal.web.responses import documented
from nochmal.web.schemas import Body

router = APIRouter(prefix="/api/clever", tags=["clever"])
page_router = APIRouter(include_in_schema=False)
# the words of the drawn sheet (nochmal/web/clever_svg.py): the tracks, and the bonuses' names as tooltips
WORDS = {"tracks": N_("Action bonuses"), "rounds": N_("Round"), "bonus_with": N_("bonus with %(numbers)s")}
GameId = Annotated[str, PathParam(pattern=r"^[A-Za-z0-9_-]{16,32}$", description="The game's id.")]


async def clever_games(request: Request) -> CleverGames:
    """The app's store (nochmal/web/clever_store.py; opened on first use)."""
    return await run_in_threadpool(store_of, request.app)


async def game_rate(request: Request) -> RateLimit:
    """New games a minute per address: the app's limit for new games (docs/security.md "Limits")."""
    return request.app.state.game_rate


Store = Annotated[CleverGames, Depends(clever_games)]
Rate = Annotated[RateLimit, Depends(game_rate)]


class NewGame(Body):
    seed: int = Field(1, ge=0, le=MAX_SEED, description="Dice seed; the same seed gives the same throws forever.")


class Play(Body):
    action: str = Field(..., min_length=1, max_length=MAX_TEXT,
                        description="One action, e.g. 'take yellow 4 yellow:top' (docs/clever.md).")


class Die(BaseModel):
    die: str
    number: int
    where: str = Field(..., description="pool (in play), tray (the silver tray) or field.")


class Choice(BaseModel):
    action: str = Field(..., description="The action's text, as the action body takes it.")
    die: Optional[str] = Field(..., description='The die it takes, or the "?" bonus it enters (none: reroll, pass, done, forfeit).')
    number: Optional[int]
    targets: list[str] = Field(..., description="The ids of the sheet's fields it fills (the SVG's elements).")
    label: str = Field(..., description="The action in the page's language, for people.")


class CleverView(BaseModel):
    id: str
    seed: int
    round: int
    rounds: int
    phase: str = Field(..., description="active, passive, extra or over.")
    over: bool
    score: int
    rating: Optional[str] = Field(..., description="The printed rating of the total, at the end.")
    dice: list[Die]
    pending: list[str] = Field(..., description='The "?" bonuses waiting to be entered.')
    legal: list[str] = Field(..., description="Every legal action, in the notation the action body takes.")
    state: dict = Field(..., description="The whole state (format clever4ever-state, docs/clever.md).")
    choices: list[Choice] = Field(..., description="The legal actions with the die they use and the fields they fill.")
    left: dict[str, int] = Field(..., description="Each action track's slots unlocked and not used: reroll, plus-one, polish.")
    foxes: int
    names: dict[str, str] = Field(..., description='The dice\'s and the bonuses\' names in the page\'s language ("?grey": "? Grey").')
    svg: str = Field(..., description="The sheet drawn as the pad is: HTML, one box of SVG pieces per area and the tracks; "
                     "its fields carry the ids of ``targets``.")


def labels(lang: str) -> dict:
    """The drawn sheet's words in ``lang``."""
    out = {area: colour(area).in_language(lang) for area in AREAS}
    out.update({key: translate(word, lang) for key, word in WORDS.items()})
    return {**out, "names": {kind: bonus(kind).in_language(lang) for kind in BONUSES}}


def _view(gid: str, played: Played, lang: str = "en") -> dict:
    game = played.game
    over = game.is_terminal()
    moves = [] if over else game.legal_moves()
    sheet, words = game.sheets[0], labels(lang)
    return {"id": gid, "seed": played.seed, "round": min(game.round, game.rounds), "rounds": game.rounds,
            "phase": game.phase, "over": over, "score": game.scores()[0], "rating": game.rating(lang) if over else None,
            "dice": [{"die": d, "number": n, "where": w} for d, (n, w) in game.dice().items()],
            "pending": list(game.pending[0]),
            "legal": [a.text(game.facts) for a in moves],
            "state": to_state(game),
            "choices": [{"action": a.text(game.facts), "die": a.die or a.bonus, "number": a.number,
                         "targets": targets(game, a),
                         "label": action_words(a, game.facts).in_language(lang)} for a in moves],
            "left": {k: sheet.left(k) for k in ("reroll", "plus-one", "polish")}, "foxes": sheet.foxes,
            "names": {**{d: colour(d).in_language(lang) for d in DICE}, **words["names"]},
            "svg": sheet_svg(game.facts, sheet, area_points(game.facts, sheet), words,
                             min(game.round, game.rounds), game.rounds)}


def _new(store: CleverGames, seed: int, address: str, lang: str) -> dict:
    with store.lock:  # the answer is read while no other request changes the game
        gid, played = store.new(seed, address)
        return _view(gid, played, lang)


@router.post("/games", summary="Start a Clever 4ever solo game against a seed", response_model=CleverView,
             responses=documented(CleverView))
async def new_game(body: NewGame, request: Request, store: Store, rate: Rate, lang: Lang):
    address = client_address(request)
    rate.check(address)
    return await run_in_threadpool(_new, store, body.seed, address, lang)


def _show(store: CleverGames, gid: str, lang: str) -> dict:
    with store.lock:
        return _view(gid, store.get(gid), lang)


@router.get("/games/{game_id}", summary="A Clever 4ever game: dice, legal actions, state", response_model=CleverView,
            responses=documented(CleverView))
async def show_game(game_id: GameId, store: Store, lang: Lang):
    return await run_in_threadpool(_show, store, game_id, lang)


def _play(store: CleverGames, gid: str, text: str, lang: str) -> dict:
    with store.lock:
        return _view(gid, store.play(gid, text), lang)


@router.post("/games/{game_id}/actions", summary="Play one action; the seed's dice are thrown after it",
             response_model=CleverView, responses=documented(CleverView))
async def play(game_id: GameId, body: Play, store: Store, lang: Lang):
    return await run_in_threadpool(_play, store, game_id, body.action, lang)


@page_router.get("/clever", response_class=HTMLResponse)
def clever_page(request: Request):
    """The solo game's page (templates/clever.html, static/clever.js)."""
    return request.app.state.templates.TemplateResponse(request, "clever.html", {})
