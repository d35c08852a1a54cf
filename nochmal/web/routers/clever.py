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
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from nochmal.clever import Action, CleverGame
from nochmal.clever.actions import MAX_TEXT
from nochmal.clever.state import to_state
from nochmal.errors import NochmalError
from nochmal.rules import MAX_SEED
from nochmal.web.errors import WebError
from nochmal.web.responses import documented
from nochmal.web.schemas import Body

MAX_GAMES = 500  # games kept in memory; a new one past it drops the oldest

router = APIRouter(prefix="/api/clever", tags=["clever"])
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


def _view(gid: str, seed: int, game: CleverGame) -> dict:
    over = game.is_terminal()
    return {"id": gid, "seed": seed, "round": min(game.round, game.rounds), "rounds": game.rounds,
            "phase": game.phase, "over": over, "score": game.scores()[0], "rating": game.rating() if over else None,
            "dice": [{"die": d, "number": n, "where": w} for d, (n, w) in game.dice().items()],
            "pending": list(game.pending[0]),
            "legal": [] if over else [a.text(game.facts) for a in game.legal_moves()],
            "state": to_state(game)}


@router.post("/games", summary="Start a Clever 4ever solo game against a seed", response_model=CleverView)
async def new_game(body: NewGame, store: Store):
    gid, game = await run_in_threadpool(store.new, body.seed)
    return await run_in_threadpool(_view, gid, body.seed, game)


@router.get("/games/{game_id}", summary="A Clever 4ever game: dice, legal actions, state", response_model=CleverView)
async def show_game(game_id: GameId, store: Store):
    seed, game = store.get(game_id)
    return await run_in_threadpool(_view, game_id, seed, game)


def _play(store: CleverGames, gid: str, seed: int, game: CleverGame, text: str) -> dict:
    with store.lock:
        try:
            action = Action.parse(text, game.facts)
            game.apply_move(action)
        except NochmalError as exc:
            raise WebError(str(exc), "action", 422) from None
        _advance(game, seed)
    return _view(gid, seed, game)


@router.post("/games/{game_id}/actions", summary="Play one action; the seed's dice are thrown after it",
             response_model=CleverView, responses=documented(CleverView))
async def play(game_id: GameId, body: Play, store: Store):
    seed, game = store.get(game_id)
    return await run_in_threadpool(_play, store, game_id, seed, game, body.action)
