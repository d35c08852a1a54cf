"""Games under /api/games: puzzles and games against bots, kept by the server
(nochmal/web/games.py GameStore); every change is saved before it is answered."""

from __future__ import annotations

import secrets
from functools import lru_cache
from typing import Literal, Optional

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import Field

from nochmal.board import BUILTIN_BOARDS, load_board
from nochmal.dice import COLOUR_FACES, NUMBER_FACES
from nochmal.errors import NochmalError
from nochmal.game import MAX_PLAYERS, Game
from nochmal.i18n import DEFAULT, N_, rating, say, say_n, translate
from nochmal.missions.coop import mission_outcome_line
from nochmal.missions.model import DIFFICULTIES, PLAYER_COUNTS
from nochmal.move import parse_cell
from nochmal.puzzles import daily_seed
from nochmal.record import GameRecord
from nochmal.rules import MAX_SEED
from nochmal.seats import seat_label, seat_name
from nochmal.svg import SheetPicture, pictures_svg, record_svg
from nochmal.web import responses
from nochmal.web.deps import GameRate, Games
from nochmal.web.errors import WebError
from nochmal.web.games import WebGame, builtin_board, builtin_mission, parse_seat_list, web_mission
from nochmal.web.language import Lang, board_label, request_language
from nochmal.web.limits import client_address
from nochmal.web.responses import documented, media
from nochmal.web.routers.engine import hint_items
from nochmal.web.schemas import Body

router = APIRouter(prefix="/api", tags=["games"])

# a co-op game's outcome line (missions/coop.py MissionResult.text) in the request's language
MISSION_WON = N_("%(name)s: won on roll %(roll)s of %(budget)s")
MISSION_RUNNING = N_("%(name)s: in progress, roll %(rolls)s of %(budget)s")


def spoken(state: dict, web, lang: str) -> dict:
    """A game's state with what a player reads in ``lang`` (docs/web.md "Languages"): the
    sheet's name (``board_label``; ``board`` stays its id) and the solo verdict (``verdict``;
    ``rating`` stays the core's key) in every language; outside English also the seats'
    default names, the mission's name, description, objectives and outcome line, and the
    drawings' words (drawn in ``lang``: WebGame.state). Ids, moves and numbers stay as they are."""
    state["board_label"] = board_label(state["board"], lang)
    if state.get("rating") is not None:
        state["verdict"] = rating(state["scores"][0], lang)
    if lang == DEFAULT:
        return state
    seats = web.session.seats
    state["names"] = [seat_name(seats, p, lang) for p in range(len(state["names"]))]
    for entry in state.get("log", []):
        entry["name"] = seat_name(seats, entry["player"], lang)
    mission, m = web.session.mission, state.get("mission")
    if mission is not None and m is not None:
        name = mission.name_in(lang)  # the objectives and missing lines came in lang (WebGame.state)
        m["name"], m["description"] = name, mission.description_in(lang).strip()
        m["text"] = mission_text(m, name, lang)
    return state


def mission_text(m: dict, name: str, lang: str) -> str:
    """A co-op game's outcome line in ``lang`` from its MissionResult.to_dict(lang) ``m`` (the
    online rooms say theirs so too)."""
    if m["won"]:
        return translate(MISSION_WON, lang) % {"name": name, "roll": m["won_on"], "budget": m["budget"]}
    if m["finished"]:
        return say_n("%(name)s: lost after %(n)s roll; missing: %(missing)s",
                     "%(name)s: lost after %(n)s rolls; missing: %(missing)s", m["rolls_used"], name=name,
                     missing="; ".join(m["missing"])).in_language(lang)
    return translate(MISSION_RUNNING, lang) % {"name": name, "rolls": m["rolls_used"], "budget": m["budget"]}


@lru_cache(maxsize=32)
def fresh_puzzle(seed: int, lang: str) -> dict:
    """A new puzzle's state before its first move, as POST /api/games answers it but without an
    id: a pure function of the seed and the language, so the puzzle page carries it and draws
    the sheet before the game is made (docs/web.md "Page load"). Nothing is stored; the daily
    puzzle's seed is the one asked again and again, hence the small cache (read only)."""
    web = WebGame.start(None, None, kind="puzzle", seats=["human"], seed=seed, board=builtin_board("classic"))
    return spoken(web.state(lang=lang), web, lang)


class NewGame(Body):
    kind: Literal["puzzle", "play"] = "play"
    seed: Optional[int] = Field(None, ge=0, le=MAX_SEED, description="Dice seed; default: the daily seed "
                                "for a puzzle, a random one otherwise.")
    board: str = "classic"
    seats: list[str] = Field(default_factory=lambda: ["human"], max_length=MAX_PLAYERS,
                             description="human, human:NAME or a bot name, one per seat in turn order.")
    mission: Optional[str] = Field(None, description="A co-op mission id (play only).")
    difficulty: Literal[DIFFICULTIES] = "normal"
    open: bool = Field(False, description="Puzzle: show every roll in advance.")


@router.post("/games", summary="Start a puzzle or a game; bots move at once", responses=documented(responses.GameState))
def new_game(body: NewGame, request: Request, store: Games, rate: GameRate, lang: Lang, svg: bool = True):
    rate.check(client_address(request))
    store.prune_now_and_then()
    if body.kind == "puzzle":
        if body.mission:
            raise WebError(say("a puzzle is a solo game: no mission"), "mission")
        if body.seats not in (["human"],):
            raise WebError(say("a puzzle has one human seat"), "seats")
        seed = body.seed if body.seed is not None else daily_seed()
        web = store.create(kind="puzzle", seats=["human"], seed=seed, board=builtin_board(body.board),
                           open_rolls=body.open)
        return spoken(web.state(with_svg=svg, lang=lang), web, lang)
    seats = parse_seat_list(body.seats)
    if not any(s.startswith("human") for s in seats):
        raise WebError(say("at least one seat must be human (bots-only games: nochmal bench bots)"), "seats")
    seed = body.seed if body.seed is not None else secrets.randbelow(1_000_000)
    mission = None
    if body.mission:
        mission = builtin_mission(body.mission)
        if len(seats) not in PLAYER_COUNTS:
            raise WebError(say("a co-op mission has %(low)s-%(high)s players, not %(players)s", low=PLAYER_COUNTS[0],
                               high=PLAYER_COUNTS[-1], players=len(seats)), "seats")
        if body.board != "classic" and body.board != mission.board:
            raise WebError(say("a mission plays on its own sheet; leave the board out"), "board")
        board_ = builtin_board(mission.board) if mission.board in BUILTIN_BOARDS else load_board(mission.board)
    else:
        board_ = builtin_board(body.board)
    web = store.create(kind="play", seats=seats, seed=seed, board=board_, mission=mission,
                       difficulty=body.difficulty if mission else None, open_rolls=body.open)
    return spoken(web.state(with_svg=svg, lang=lang), web, lang)


@router.get("/games/{game_id}", summary="A game's state (keys of `nochmal play --json` plus the view)",
            responses=documented(responses.GameState))
def get_game(game_id: str, store: Games, lang: Lang, svg: bool = True):
    web = store.get(game_id)
    with web.lock:
        return spoken(web.state(with_svg=svg, lang=lang), web, lang)


class Tap(Body):
    colour: Literal[COLOUR_FACES] = Field(..., description="The colour die picked (x = joker).")
    number: Literal[NUMBER_FACES] = Field(..., description="The number die picked (? = joker).")
    cells: list[str] = Field(default_factory=list, max_length=5, description="The cells selected so far (may be empty: then every cell of a legal placement is returned).")


@router.post("/games/{game_id}/tap", summary="What a selection of cells allows: cells to add, the move, or the reason",
             responses=documented(responses.Tapped))
def tap(game_id: str, body: Tap, store: Games, request: Request):
    lang = request_language(request)  # (not the Lang dependency: 10-15 µs less a tap, language.py)
    web = store.get(game_id)
    try:
        cells = [parse_cell(c.strip()) for c in body.cells]  # the one cell-name grammar (nochmal.move)
    except NochmalError as exc:
        raise WebError(exc.message, "cells") from None
    if len(set(cells)) != len(cells):
        raise WebError(say("a cell is selected twice"), "cells")
    with web.lock:
        return web.tap(body.colour, body.number, cells, lang)


class MoveBody(Body):
    move: str = Field(..., max_length=80, description="Move notation: b4 G4 G5 H4 H5, xb4 ..., b?4 ..., or pass.")


@router.post("/games/{game_id}/move", summary="Make the deciding human's move; bots answer",
             responses=documented(responses.GameState))
def move(game_id: str, body: MoveBody, store: Games, lang: Lang, svg: bool = True):
    return _changed(store, game_id, lambda web: web.play(body.move), lang, svg)


@router.post("/games/{game_id}/undo", summary="Take back the last human choice (this roll, else the one before)",
             responses=documented(responses.GameState))
def undo(game_id: str, store: Games, lang: Lang, svg: bool = True):
    return _changed(store, game_id, lambda web: web.undo(), lang, svg)


@router.post("/games/{game_id}/open", summary="The open-information switch: show every roll from now on",
             responses=documented(responses.GameState))
def open_game(game_id: str, store: Games, lang: Lang, svg: bool = True):
    return _changed(store, game_id, lambda web: web.open_rolls(), lang, svg)


def _changed(store, game_id: str, change, lang: str, svg: bool) -> dict:
    """One change to a game under its lock, saved before the answer: its state in the request's
    language."""
    web = store.get(game_id)
    with web.lock:
        change(web)
        web.save()
        return spoken(web.state(with_svg=svg, lang=lang), web, lang)


@router.get("/games/{game_id}/hint", summary="The hint bot's best three choices", responses=documented(responses.Hints))
def hint(game_id: str, store: Games):
    from nochmal.bots.hints import hint as best_choices

    web = store.get(game_id)
    with web.lock:
        if web.human_to_move() is None:
            raise WebError(say("no human is to move in this game now"), "hint", 409)
        game = web.game.clone()
        mission = web.session.mission
    if mission is not None:  # a co-op game: ranked by the mission (nochmal.missions.tactics)
        from nochmal.missions.tactics import mission_hint

        return {"hints": hint_items(mission_hint(mission, game, top=3))}
    return {"hints": hint_items(best_choices(game, top=3))}


@router.get("/games/{game_id}/rolls", summary="Every roll (open puzzles and finished games)",
            responses=documented(responses.GameRolls))
def game_rolls(game_id: str, store: Games):
    web = store.get(game_id)
    with web.lock:
        return {"seed": web.session.seed, "rolls": web.all_rolls()}


@router.get("/games/{game_id}/record", summary="The game record (the standard record JSON)",
            responses=documented(responses.Record))
def game_record(game_id: str, store: Games, download: bool = False):
    web = store.get(game_id)
    with web.lock:
        text = web.record().dumps()
    headers = {"Content-Disposition": f'attachment; filename="nochmal-{web.session.seed}.json"'} if download else {}
    return Response(text, media_type="application/json", headers=headers)


@router.get("/games/{game_id}/svg", summary="The game as a shareable SVG picture", response_class=Response,
            responses=media("image/svg+xml"))
def game_svg(game_id: str, store: Games, lang: Lang, download: bool = False):
    web = store.get(game_id)
    with web.lock:
        record, game = web.record(), web.game.clone()
        text = record_svg(record, game, outcome=mission_outcome_line(record, game, web_mission, lang), lang=lang,
                          board_title=None if lang == DEFAULT else board_label(record.board.name, lang))
    headers = {"Content-Disposition": f'attachment; filename="nochmal-{web.session.seed}.svg"'} if download else {}
    return Response(text, media_type="image/svg+xml", headers=headers)


@router.get("/games/{game_id}/sheet", summary="One seat's sheet after K rolls, as SVG", response_class=Response,
            responses=media("image/svg+xml"))
def game_sheet(game_id: str, store: Games, lang: Lang, after: int = Query(..., ge=0, le=200),
               seat: int = Query(0, ge=0, le=MAX_PLAYERS - 1)):
    web = store.get(game_id)
    with web.lock:
        record = web.record()
    game = _after(record, after)
    if seat >= game.n_players:
        raise WebError(say("seat %(seat)s is not in this game (seats 0-%(last)s)", seat=seat, last=game.n_players - 1),
                       "seat")
    sheet = game.sheets[seat]
    title = say("%(name)s after roll %(roll)s: %(score)s points", name=seat_label(record.players, seat),
                roll=min(after, game.rolls_done), score=sheet.score())
    return Response(pictures_svg([SheetPicture(title.in_language(lang), sheet)], lang=lang), media_type="image/svg+xml")


def _after(record: GameRecord, turns: int) -> Game:
    from nochmal.table.stepper import replayed

    return replayed(record, turns=turns, missions=web_mission)
