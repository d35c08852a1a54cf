"""Planner jobs under /api/jobs: a solve or an analysis runs in a worker process
(nochmal/web/jobs.py JobManager), polled by its id, stopped when nobody polls."""

from __future__ import annotations

from typing import Optional

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import Field

from nochmal.board import BUILTIN_BOARDS, load_board
from nochmal.dice import Roll
from nochmal.game import MAX_PLAYERS, Game
from nochmal.i18n import say
from nochmal.modes import Mode
from nochmal.move import Move
from nochmal.rules import DEFAULT_RULES, MAX_SEED
from nochmal.svg import SheetPicture, pictures_svg
from nochmal.web import responses
from nochmal.web.deps import Games, Jobs, Records
from nochmal.web.errors import WebError
from nochmal.web.games import builtin_board
from nochmal.web.language import request_language
from nochmal.web.responses import documented, media
from nochmal.web.routers.engine import parse_roll
from nochmal.web.schemas import Body

router = APIRouter(prefix="/api", tags=["jobs"])

SOLVE_TIME_DEFAULT = 30.0
ANALYSE_TIME_DEFAULT = 5.0  # seconds per solve (one per roll): 2 s left a 15-roll plan far from the puzzle's
ANALYSE_CAP = 600.0  # seconds of one analysis job at most


class SolveJob(Body):
    seed: Optional[int] = Field(None, ge=0, le=MAX_SEED, description="Plan the seeded solo rolls of this seed.")
    game_id: Optional[str] = Field(None, description="Or: plan the rolls of this solo game.")
    rolls: Optional[list[dict]] = Field(None, max_length=DEFAULT_RULES.solo_rolls, description='Or: these solo rolls, '
                                        '[{"colours": ["y","x"], "numbers": ["3","?"]}, ...].')
    board: str = "classic"
    count: int = Field(DEFAULT_RULES.solo_rolls, ge=1, le=DEFAULT_RULES.solo_rolls,
                       description="Plan the first COUNT rolls.")
    time_limit: float = Field(SOLVE_TIME_DEFAULT, gt=0, le=600, description="Seconds (capped by the server).")


@router.post("/jobs/solve", summary="Start the planner in the background (poll GET /api/jobs/ID at least every few seconds)",
             status_code=202, responses=documented(responses.Job, 202))
def start_solve(body: SolveJob, games: Games, jobs: Jobs):
    seed, board_name = body.seed, body.board
    if body.game_id is not None:
        web = games.get(body.game_id)
        if web.game.mode is not Mode.SOLO:
            raise WebError(say("the planner plans solo games; this game is %(mode)s", mode=web.game.mode), "game_id")
        seed, board_name = web.session.seed, web.game.board.name
    if sum(x is not None for x in (body.seed, body.game_id, body.rolls)) != 1:
        raise WebError(say("give exactly one of seed, game_id, rolls"), "seed")
    builtin_board(board_name)
    limit = min(body.time_limit, jobs.time_cap)
    params = {"seed": seed, "board": board_name, "count": body.count, "time_limit": limit}
    if body.rolls is not None:
        rolls_ = [parse_roll(r, f"rolls.{i}") for i, r in enumerate(body.rolls)]
        for i, r in enumerate(rolls_):
            if len(r.colours) != 2:
                raise WebError(say("%(where)s: a solo roll has 2 colour and 2 number dice", where=f"rolls.{i}"), f"rolls.{i}")
        if not rolls_:
            raise WebError(say("rolls: give at least one roll"), "rolls")
        params.update({"rolls": [r.to_json() for r in rolls_], "count": len(rolls_)})
    job = jobs.submit("solve", params)
    return JSONResponse(job.to_json(), status_code=202)


class AnalyseJob(Body):
    record_id: Optional[str] = Field(None, description="An uploaded record (POST /api/records).")
    game_id: Optional[str] = Field(None, description="Or a finished solo game of this app.")
    time_limit: float = Field(ANALYSE_TIME_DEFAULT, gt=0, le=60, description="Seconds per solve (one per roll).")
    seat: Optional[int] = Field(None, ge=1, le=MAX_PLAYERS,
                                description="A competitive record: the seat to analyse, 1-based (as `nochmal analyse "
                                            "--seat N`): the best that player could have reached with the dice open "
                                            "to them and the others' moves as they were.")


@router.post("/jobs/analyse", summary="Analyse a finished solo record, or one seat of a competitive record, in the "
                                      "background: points lost per roll",
             status_code=202, responses=documented(responses.Job, 202))
def start_analyse(body: AnalyseJob, games: Games, records: Records, jobs: Jobs):
    if (body.record_id is None) == (body.game_id is None):
        raise WebError(say("give exactly one of record_id, game_id"), "record_id")
    if body.record_id is not None:
        record, final = records.state(body.record_id)
    else:
        web = games.get(body.game_id)
        with web.lock:
            record, final = web.record(), web.game.clone()
    if record.mode is Mode.COOP:
        raise WebError(say("the analysis needs a solo or competitive record; a co-op record is analysed by "
                           "`nochmal analyse` (the team's fewest rolls)"), "record_id")
    seats = len(record.players)
    if record.mode is Mode.COMPETITIVE and body.seat is None:
        raise WebError(say("seat: a competitive record is analysed one seat at a time (1..%(seats)s)", seats=seats), "seat")
    if body.seat is not None and body.seat > seats:
        raise WebError(say("seat: the record has seats 1..%(seats)s, not %(seat)s", seats=seats, seat=body.seat), "seat")
    if not final.is_terminal():
        raise WebError(say("the analysis needs a finished game"), "record_id")
    # one solve per roll, each with the asked time (the planner needs about 2 s a solve to
    # keep its hinted plan on a loaded machine); the job's cap covers them all, up to a limit
    cap = max(jobs.time_cap, len(record.rolls) * body.time_limit)
    if cap > ANALYSE_CAP:
        raise WebError(say("%(solves)s solves of %(each)s s exceed the limit of %(limit)s s; ask for less time per solve",
                           solves=len(record.rolls), each=format(body.time_limit, "g"), limit=format(ANALYSE_CAP, "g")),
                       "time_limit")
    seat = body.seat - 1 if record.mode is Mode.COMPETITIVE else None  # 0-based, as solver/race.py counts
    job = jobs.submit("analyse", {"record": record.to_json(), "time_limit": body.time_limit, "seat": seat},
                      time_cap=cap)
    return JSONResponse(job.to_json(), status_code=202)


@router.get("/jobs/{job_id}", summary="A job's state and progress (polling keeps it alive)",
            responses=documented(responses.Job))
def get_job(job_id: str, jobs: Jobs, request: Request):
    return jobs.get(job_id).to_json(request_language(request))


@router.post("/jobs/{job_id}/cancel", summary="Stop a job", responses=documented(responses.Job))
def cancel_job(job_id: str, jobs: Jobs, request: Request):
    return jobs.cancel(job_id).to_json(request_language(request))


@router.get("/jobs/{job_id}/sheet", summary="The sheet of a finished job's best plan after K rolls, as SVG",
            response_class=Response, responses=media("image/svg+xml"))
def job_sheet(job_id: str, jobs: Jobs, request: Request, after: int = Query(..., ge=0, le=60)):
    job = jobs.get(job_id)
    if job.result is None:
        raise WebError(say("job %(job)s has no result (state: %(state)s)", job=job_id, state=job.state), "job", 409)
    plan = job.result if job.kind == "solve" else job.result["plan"]
    if plan is None or plan.get("board") not in BUILTIN_BOARDS or plan.get("first_roll", 1) != 1:
        raise WebError(say("job %(job)s has no whole-game plan on a built-in board to draw", job=job_id), "job", 409)
    # the plan's moves played by the engine on its dice (a solo game: first values, as scored)
    game = Game(load_board(plan["board"]), 1, mode=Mode.SOLO)
    steps = plan["steps"][:after]
    for step in steps:
        game.apply_roll(Roll.from_text(step["dice"]))
        game.apply_move(Move.parse(step["move"]))
    sheet = game.sheets[0]
    lang = request_language(request)
    title = say("best plan after roll %(roll)s: %(score)s points", roll=len(steps), score=sheet.score())
    svg = pictures_svg([SheetPicture(title.in_language(lang), sheet)], lang=lang)
    return Response(svg, media_type="image/svg+xml")
