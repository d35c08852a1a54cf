"""Puzzle leaderboards under /api/puzzles/SEED/leaderboard (docs/web.md "Leaderboards"): a
finished puzzle's record is submitted under a name, replayed in a worker thread
(nochmal/web/leaderboards.py verified_entry) and ranked; a leaderboard answers its entries beside
the puzzle's best possible score (nochmal/puzzles.py, the shipped optima)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Annotated, Any, Optional

from fastapi import APIRouter, Path as PathParam, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from nochmal.board import load_board
from nochmal.i18n import rating, say
from nochmal.puzzles import known_optimum
from nochmal.rules import MAX_SEED, RuleSettings
from nochmal.seats import MAX_NAME
from nochmal.web.deps import Leaderboards, SubmitRate
from nochmal.web.errors import WebError
from nochmal.web.games import ID_PATTERN
from nochmal.web.language import Lang
from nochmal.web.leaderboards import MAX_RECORD_BYTES, MAX_SHOWN, PUZZLE_BOARD, Entry, LeaderboardStore, verified_entry
from nochmal.web.limits import client_address, too_large
from nochmal.web.responses import media
from nochmal.web.schemas import Body

router = APIRouter(prefix="/api", tags=["leaderboards"])
Seed = Annotated[int, PathParam(ge=0, le=MAX_SEED, description="The puzzle's seed (the daily one: YYYYMMDD).")]


class Submission(Body):
    name: str = Field(..., min_length=1, max_length=MAX_NAME, description="The name shown on the leaderboard.")
    record: dict[str, Any] = Field(..., description="The finished puzzle's record (GET /api/games/ID/record); "
                                   "the server replays it.")
    token: Optional[str] = Field(None, max_length=64, description="The secret a first submission under this "
                                 "name answered: a later, better game of the same name needs it.")


class Optimum(BaseModel):
    best: int = Field(..., description="The best score a replayed plan reached.")
    bound: int = Field(..., description="No play can beat it.")
    proven: bool = Field(..., description="best == bound: the best possible score.")


class RankedEntry(BaseModel):
    id: str
    rank: int
    name: str
    score: int
    jokers: int = Field(..., description="Jokers used (fewer ranks higher at an equal score).")
    percent: Optional[float] = Field(..., description="The score as a share of the best possible (or best known), 0..1.")
    verdict: str = Field(..., description="The solo rating's words in the request's language.")
    submitted: str = Field(..., description="UTC time, ISO 8601.")


class Leaderboard(BaseModel):
    seed: int
    open: bool = Field(..., description="The leaderboard of games played with every roll shown.")
    optimum: Optional[Optimum] = Field(..., description="The shipped table's figure for this seed, if any.")
    count: int = Field(..., description="Entries on the leaderboard.")
    offset: int
    entries: list[RankedEntry]


class Submitted(BaseModel):
    entry: RankedEntry = Field(..., description="The name's entry on the leaderboard now.")
    stored: bool = Field(..., description="This game is the entry now (false: the name's older entry was better).")
    replaced: bool = Field(..., description="It replaced the name's older, worse entry.")
    token: Optional[str] = Field(..., description="Keep it: a better game under this name later needs it "
                                 "(answered only for a name new on this leaderboard).")
    leaderboard: Leaderboard = Field(..., description="The top ten of the leaderboard after the submission.")


def _optimum(seed: int):
    return known_optimum(load_board(PUZZLE_BOARD), seed, RuleSettings())


def _ranked(e: Entry, rank: int, best: int | None, lang: str) -> RankedEntry:
    return RankedEntry(id=e.id, rank=rank, name=e.name, score=e.score, jokers=e.jokers,
                       percent=round(e.score / best, 4) if best else None, verdict=rating(e.score, lang),
                       submitted=datetime.fromtimestamp(e.submitted, timezone.utc).isoformat(timespec="seconds"))


def _best(optimum, top: list[Entry]) -> int | None:
    """What "% of the best possible" divides by: the proven best, else the best known (the
    table's or a better entry's); None for a seed the table does not hold."""
    if optimum is None:
        return None
    return optimum.best if optimum.proven else max([optimum.best] + [e.score for e in top[:1]])


def _leaderboard(store: LeaderboardStore, seed: int, open_: bool, limit: int, offset: int, lang: str) -> Leaderboard:
    count, rows = store.ranked(seed, open_, limit, offset)
    optimum = _optimum(seed)
    best = _best(optimum, rows if offset == 0 else store.ranked(seed, open_, 1)[1])
    return Leaderboard(seed=seed, open=open_, optimum=Optimum(**optimum.to_dict()) if optimum else None,
                       count=count, offset=offset,
                       entries=[_ranked(e, offset + i + 1, best, lang) for i, e in enumerate(rows)])


@router.get("/puzzles/{seed}/leaderboard", response_model=Leaderboard,
            summary="A puzzle's leaderboard: entries best first, beside the best possible score")
def leaderboard(seed: Seed, store: Leaderboards, lang: Lang,
                open: bool = Query(False, description="The leaderboard of games played with every roll shown."),
                limit: int = Query(50, ge=1, le=MAX_SHOWN), offset: int = Query(0, ge=0, le=1_000_000)):
    return _leaderboard(store, seed, open, limit, offset, lang)


@router.post("/puzzles/{seed}/leaderboard", response_model=Submitted,
             summary="Submit a finished puzzle's record under a name; it is replayed, then ranked")
async def submit(seed: Seed, body: Submission, request: Request, store: Leaderboards, rate: SubmitRate, lang: Lang):
    size = len(json.dumps(body.record))
    if size > MAX_RECORD_BYTES:
        raise too_large("max_record", MAX_RECORD_BYTES, "record")
    rate.check(client_address(request))
    return await run_in_threadpool(_submit, store, seed, body, lang)  # the replay and the store: off the event loop


def _submit(store: LeaderboardStore, seed: int, body: Submission, lang: str) -> Submitted:
    entry = verified_entry(seed, body.name, body.record)
    outcome = store.submit(entry, body.token)
    top = _leaderboard(store, seed, entry.open, 10, 0, lang)
    best = _best(_optimum(seed), store.ranked(seed, entry.open, 1)[1])
    return Submitted(entry=_ranked(outcome.entry, outcome.rank, best, lang), stored=outcome.stored,
                     replaced=outcome.replaced, token=outcome.token, leaderboard=top)


@router.get("/leaderboard/entries/{entry_id}/record", response_class=Response, responses=media("application/json"),
            summary="A leaderboard entry's record (the replay page opens it: /replay?entry=ID)")
def entry_record(entry_id: str, store: Leaderboards):
    if not ID_PATTERN.match(entry_id or ""):
        raise WebError(say("no leaderboard entry %(id)s", id=repr(entry_id)), "entry", 404)
    return Response(store.entry(entry_id).record, media_type="application/json")
