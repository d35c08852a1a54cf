"""Clever 4ever solo games under /api/clever (docs/clever.md "The web API"): a game against a
seed is started, read and played one action at a time (the notation of
nochmal/clever/actions.py); the throws are the seed's (``seeded_outcome``), so the same seed
gives the same dice as `nochmal clever solo`. The games live in the process's memory
(``CleverGames``, capped: the oldest is dropped first). Engine work runs in the thread pool,
never on the event loop."""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from typing import Annotated, Optional

from fastapi import APIRouter, Depends, Path as PathParam, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from nochmal.clever import Action, CleverGame
from nochmal.clever.actions import MAX_TEXT
from nochmal.clever.state import to_state
from nochmal.clever.scoring import area_points
from nochmal.errors import NochmalError
from nochmal.i18n import N_, translate
from nochmal.rules import MAX_SEED
from nochmal.web.clever_svg import sheet_svg, targets
from nochmal.web.errors import WebError
from nochmal.web.language import language
from nochmal.web.responses import documented
from nochmal.web.schemas import Body

MAX_GAMES = 500  # games kept in memory; a new one past it drops the oldest

router = APIRouter(prefix="/api/clever", tags=["clever"])
page_router = APIRouter(include_in_schema=False)
Lang = Annotated[str, Depends(language)]
AREAS = {"yellow": N_("Yellow"), "blue": N_("Blue"), "grey": N_("Grey"), "green": N_("Green"), "pink": N_("Pink")}
GameId = Annotated[str, PathParam(pattern=r"^[A-Za-z0-9_-]{16,32}$", description="The game's id.")]


class CleverGames:
    """The solo games in memory, oldest first; one lock per store (a game is played by one
    page at a time, the lock keeps two requests from interleaving)."""

    def __init__(self, limit: int = MAX_GAMES):
        self.limit, self.games, self.lock = limit, OrderedDict(), threading.Lock()

    def new(self, seed: int) -> tuple[str, CleverGame]:
        game = CleverGame(1)
        _advance(game, seed)
        gid = secrets.token_urlsafe(12)
        with self.lock:
            self.games[gid] = (seed, game)
            while len(self.games) > self.limit:
                self.games.popitem(last=False)
        return gid, game

    def get(self, gid: str) -> tuple[int, CleverGame]:
        with self.lock:
            found = self.games.get(gid)
        if found is None:
            raise WebError(f"no Clever 4ever game {gid!r} (games are kept in memory; start a new one)", "game_id", 404)
        return found


async def clever_games(request: Request) -> CleverGames:
    """The store on ``app.state.clever`` (made on first use: create_app needs no line for it)."""
    store = getattr(request.app.state, "clever", None)
    if store is None:
        store = request.app.state.clever = CleverGames()
    return store


Store = Annotated[CleverGames, Depends(clever_games)]


def _advance(game: CleverGame, seed: int) -> None:
    """Throw the seed's dice until a seat decides or the game is over."""
    while game.is_chance_node():
        game.apply_roll(game.seeded_outcome(seed))


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
    svg: str = Field(..., description="The sheet drawn as the pad is (SVG), its fields with the ids of ``targets``.")


def _view(gid: str, seed: int, game: CleverGame, lang: str = "en") -> dict:
    over = game.is_terminal()
    moves = [] if over else game.legal_moves()
    sheet = game.sheets[0]
    labels = {area: translate(label, lang) for area, label in AREAS.items()}
    return {"id": gid, "seed": seed, "round": min(game.round, game.rounds), "rounds": game.rounds,
            "phase": game.phase, "over": over, "score": game.scores()[0], "rating": game.rating() if over else None,
            "dice": [{"die": d, "number": n, "where": w} for d, (n, w) in game.dice().items()],
            "pending": list(game.pending[0]),
            "legal": [a.text(game.facts) for a in moves],
            "state": to_state(game),
            "choices": [{"action": a.text(game.facts), "die": a.die or a.bonus, "number": a.number,
                         "targets": targets(game, a)} for a in moves],
            "left": {k: sheet.left(k) for k in ("reroll", "plus-one", "polish")}, "foxes": sheet.foxes,
            "svg": sheet_svg(game.facts, sheet, area_points(game.facts, sheet), labels)}


@router.post("/games", summary="Start a Clever 4ever solo game against a seed", response_model=CleverView)
async def new_game(body: NewGame, store: Store, lang: Lang):
    gid, game = await run_in_threadpool(store.new, body.seed)
    return await run_in_threadpool(_view, gid, body.seed, game, lang)


@router.get("/games/{game_id}", summary="A Clever 4ever game: dice, legal actions, state", response_model=CleverView)
async def show_game(game_id: GameId, store: Store, lang: Lang):
    seed, game = store.get(game_id)
    return await run_in_threadpool(_view, game_id, seed, game, lang)


def _play(store: CleverGames, gid: str, seed: int, game: CleverGame, text: str, lang: str) -> dict:
    with store.lock:
        try:
            action = Action.parse(text, game.facts)
            game.apply_move(action)
        except NochmalError as exc:
            raise WebError(str(exc), "action", 422) from None
        _advance(game, seed)
    return _view(gid, seed, game, lang)


@router.post("/games/{game_id}/actions", summary="Play one action; the seed's dice are thrown after it",
             response_model=CleverView, responses=documented(CleverView))
async def play(game_id: GameId, body: Play, store: Store, lang: Lang):
    seed, game = store.get(game_id)
    return await run_in_threadpool(_play, store, game_id, seed, game, body.action, lang)


@page_router.get("/clever", response_class=HTMLResponse)
def clever_page(request: Request):
    """The solo game's page (templates/clever.html, static/clever.js)."""
    return request.app.state.templates.TemplateResponse(request, "clever.html", {})
