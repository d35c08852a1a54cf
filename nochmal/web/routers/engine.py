"""Engine facts under /api, in the schemas of the CLI's ``--json`` outputs: health, boards,
rolls, the daily seed, scores, legal moves, hints, bots, missions and a team's mission status.
Nothing here keeps state."""

from __future__ import annotations

from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version as dist_version
from typing import Literal, Optional

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from nochmal.board import BUILTIN_BOARDS, COLOURS, board_data, load_board
from nochmal.dice import Roll, seeded_rolls
from nochmal.errors import NochmalError
from nochmal.i18n import DEFAULT, say, semicolons
from nochmal.missions.model import DIFFICULTIES, PLAYER_COUNTS
from nochmal.placements import MAX_COUNT
from nochmal.puzzles import daily_seed
from nochmal.rules import DEFAULT_RULES, MAX_SEED
from nochmal.sheet import Sheet, parse_typed_sheet
from nochmal.svg import SheetPicture, pictures_svg
from nochmal.web import responses
from nochmal.web.errors import WebError
from nochmal.web.games import builtin_board, builtin_mission
from nochmal.web.responses import documented, media
from nochmal.web.schemas import Body

router = APIRouter(prefix="/api", tags=["engine"])


def version() -> str:
    try:
        return dist_version("nochmal")
    except PackageNotFoundError:  # running from a checkout without metadata
        return "0+unknown"


@router.get("/health", summary="Liveness: {ok, version}", responses=documented(responses.Health))
async def health():  # on the event loop itself: it measures the loop, not the thread pool
    return {"ok": True, "version": version()}


@router.get("/boards", summary="The built-in boards (as `nochmal board list --json`)",
            responses=documented(responses.Boards))
def boards():
    out = []
    for name in BUILTIN_BOARDS:
        b = load_board(name)
        out.append({"name": b.name, "title": b.title, "rows": b.rows, "cols": b.cols,
                    "start_column": b.column_name(b.start_column)})
    return {"boards": out}


@router.get("/boards/{name}", summary="One board's layout (as `nochmal board show NAME --json`)",
            responses=documented(responses.BoardLayout))
def board(name: str):
    return board_data(builtin_board(name))


@router.get("/boards/{name}/svg", summary="An empty sheet of the board as SVG", response_class=Response,
            responses=media("image/svg+xml"))
def board_svg(name: str):
    b = builtin_board(name)
    return Response(pictures_svg([SheetPicture(b.title, Sheet.empty(b))]), media_type="image/svg+xml")


@router.get("/rolls", summary="Seeded rolls (as `nochmal rolls --json`)", responses=documented(responses.Rolls))
def rolls(seed: int = Query(..., ge=0, le=MAX_SEED), count: int = Query(30, ge=1, le=200), solo: bool = False):
    seq = seeded_rolls(seed, count, 2 if solo else 3)
    return {"seed": seed, "solo": solo, "rolls": [r.to_json() for r in seq]}


@router.get("/daily", summary="Today's puzzle seed (the UTC date as YYYYMMDD)", responses=documented(responses.Daily))
def daily():
    return {"seed": daily_seed(), "date": datetime.now(timezone.utc).date().isoformat()}


class SheetBody(Body):
    board: str = Field("classic", description="A built-in board name.")
    sheet: str = Field("", max_length=4000, description="A typed sheet (7 lines of 15, x = crossed); empty: no crosses.")
    allow_impossible: bool = Field(False, description="Answer for a sheet no legal game can produce (as the CLI's "
                                   "--allow-impossible); by default such a sheet is refused with the reasons.")


def _sheet(body: SheetBody) -> tuple:
    """The board and the typed sheet; a sheet no legal game can produce is refused as the CLI
    refuses it (nochmal/cli/common.py refuse_impossible), unless ``allow_impossible``."""
    from nochmal.impossible import impossible_sheet_messages

    b = builtin_board(body.board)
    if not body.sheet.strip():
        return b, Sheet.empty(b)
    try:
        state = parse_typed_sheet(body.sheet, b, "sheet")
    except NochmalError as exc:
        raise WebError(exc.message, "sheet") from None
    reasons = [] if body.allow_impossible else impossible_sheet_messages(state)
    if reasons:
        raise WebError(say("impossible sheet: %(reasons)s", reasons=semicolons(reasons)), "sheet")
    return b, state


@router.post("/score", summary="Score a typed sheet (as `nochmal score --json`)", responses=documented(responses.Score))
def score(body: SheetBody):
    b, state = _sheet(body)
    bd = state.score_breakdown()
    return {"board": b.name, "sheet": state.text(), **bd.to_dict(),
            "complete_columns": [b.column_name(c) for c in range(b.cols) if state.complete_columns() >> c & 1],
            "complete_colours": [c for i, c in enumerate(COLOURS) if state.complete_colours() >> i & 1],
            "stars_crossed": (state.crossed & b.star_mask).bit_count()}


class MovesBody(SheetBody):
    colour: Literal[tuple(COLOURS)]
    count: int = Field(..., ge=1, le=MAX_COUNT)
    bridging: bool = False


@router.post("/moves", summary="Legal placements (as `nochmal moves --json`)", responses=documented(responses.Moves))
def moves(body: MovesBody):
    b, state = _sheet(body)
    placements = sorted(b.cells_of(m) for m in state.placements(body.colour, body.count, body.bridging))
    return {"board": b.name, "colour": body.colour, "count": body.count, "placements": placements}


@router.get("/bots", summary="The registered bots", responses=documented(responses.Bots))
def bots():
    from nochmal.bots.registry import agent_names

    return {"bots": agent_names()}


@router.get("/missions", summary="The co-op missions (as `nochmal mission list --json`)",
            responses=documented(list[responses.Mission]))
def missions(request: Request):
    from nochmal.missions import builtin_missions

    return [in_language(m, request) for m in builtin_missions()]


@router.get("/missions/{mission_id}", summary="One mission (as `nochmal mission show ID --json`)",
            responses=documented(responses.Mission))
def mission(mission_id: str, request: Request):
    return in_language(builtin_mission(mission_id), request)


def in_language(mission, request: Request) -> dict:
    """A mission's document with its name and description in the request's language
    (the mission's [names]/[descriptions], docs/missions.md); the id and the rest stay, and
    in English it is the CLI's document as it is."""
    from nochmal.web.language import request_language

    lang, doc = request_language(request), mission.to_dict()
    if lang == DEFAULT:
        return doc
    return {**doc, "name": mission.name_in(lang), "description": mission.description_in(lang)}


class RollBody(Body):
    colours: list[str] = Field(..., description='Colour faces, e.g. ["y", "x"] (x = joker).')
    numbers: list[str] = Field(..., description='Number faces, e.g. ["3", "?"] (? = joker).')


def parse_roll(data: RollBody | dict, field: str) -> Roll:
    """A roll from a request (a RollBody, or a dict inside a list), refused naming ``field``."""
    raw = data.model_dump() if isinstance(data, BaseModel) else data
    try:
        return Roll.from_json(raw)
    except NochmalError as exc:
        raise WebError(say("%(where)s: %(why)s", where=field, why=exc.message), field) from None


def hint_items(tips) -> list[dict]:
    """The hints in the schema of `nochmal hint --json`."""
    return [{"rank": i + 1, "move": str(m), "colour": m.colour or None, "count": m.count, "cells": list(m.cells),
             "jokers": m.joker_cost, "value": v} for i, (m, v) in enumerate(tips)]


class HintBody(SheetBody):
    roll: RollBody
    solo: bool = False
    rolls_left: Optional[int] = Field(None, ge=0, le=DEFAULT_RULES.solo_rolls - 1)
    top: int = Field(3, ge=1, le=10)


# how /api/hint's refusals name what it was sent (nochmal/bots/hints.py names the CLI's options)
HINT_FIELDS = {"roll": "roll", "solo": '"solo": true', "rolls_left": "rolls_left"}


@router.post("/hint", summary="The hint bot's best choices for a sheet and a roll (as `nochmal hint --json`)",
             responses=documented(responses.SheetHints))
def hint_for_sheet(body: HintBody):
    from nochmal.bots.hints import build_hint_game, hint as best_choices

    b, state = _sheet(body)
    dice = parse_roll(body.roll, "roll")
    try:
        game = build_hint_game(b, state, dice, body.solo, body.rolls_left, names=HINT_FIELDS)
    except NochmalError as exc:
        raise WebError(exc.message, "roll") from None
    return {"board": b.name, "sheet": state.text(), "roll": dice.to_json(), "solo": body.solo,
            "rolls_left": body.rolls_left if body.rolls_left is not None else (15 if body.solo else None),
            "hints": hint_items(best_choices(game, body.top))}


class MissionStatusBody(Body):
    difficulty: Literal[DIFFICULTIES]
    rolls_used: int = Field(..., ge=0, le=200)
    sheets: list[str] = Field(..., min_length=PLAYER_COUNTS[0], max_length=PLAYER_COUNTS[-1],
                             description="One typed sheet per player.")
    crosses: bool = Field(False, description="Also the fewest further crosses per sheet and the team's split of "
                          "the missing work, as the CLI prints them (CP-SAT, seconds).")


@router.post("/missions/{mission_id}/status", summary="A team's progress (as `nochmal mission status --json`)",
             responses=documented(responses.MissionStatus))
def mission_status_(mission_id: str, body: MissionStatusBody):
    from nochmal.missions.coop import mission_status

    m = builtin_mission(mission_id)
    b = load_board(m.board)
    sheets = []
    for i, text in enumerate(body.sheets):
        try:
            sheets.append(parse_typed_sheet(text, b, f"sheets.{i}"))
        except NochmalError as exc:
            raise WebError(exc.message, f"sheets.{i}") from None
    st = mission_status(m, body.difficulty, sheets, body.rolls_used, with_crosses=body.crosses)
    plan = None
    if body.crosses and not any(st.impossible):
        from nochmal.missions.split import team_plan

        plan = team_plan(m, sheets, st.rolls_left)
    from nochmal.missions.split import status_document

    return status_document(st, [f"sheets.{p}" for p in range(len(sheets))], plan)
