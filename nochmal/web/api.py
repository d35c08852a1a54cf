"""The JSON API under /api: the schemas of the CLI's ``--json`` outputs, plus the game,
record and job resources the pages use (the pages use nothing else).

Ids in paths are checked against one pattern before anything looks them up; boards and
missions are built-in names only; an uploaded record is read from the request body, never
from a path, and a record naming a mission file is refused.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version as dist_version
from pathlib import Path
from typing import Literal, Optional

from fastapi import APIRouter, File, Query, Request, UploadFile
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from nochmal.board import BUILTIN_BOARDS, COLOURS, board_data, load_board
from nochmal.dice import Roll, seeded_rolls
from nochmal.errors import NochmalError
from nochmal.fileio import atomic_write_text, load_json_text, read_text_file
from nochmal.game import MAX_PLAYERS, Game
from nochmal.modes import Mode
from nochmal.missions.coop import mission_outcome_line
from nochmal.move import Move, parse_cell
from nochmal.record import GameRecord
from nochmal.rules import MAX_SEED
from nochmal.seats import seat_name
from nochmal.stepper import ReplayCursor
from nochmal.sheet import Sheet, parse_typed_sheet
from nochmal.svg import SheetPicture, pictures_svg, record_svg, sheet_title
from nochmal.puzzles import daily_seed
from nochmal.web.errors import WebError
from nochmal.web.schemas import Body
from nochmal.web.limits import client_address
from nochmal.web.games import (KeptOnDisk, builtin_board, builtin_mission, check_id, damaged, new_id,
                               parse_seat_list, web_mission)

router = APIRouter(prefix="/api", tags=["api"])

SOLVE_TIME_DEFAULT = 30.0
ANALYSE_TIME_DEFAULT = 5.0  # seconds per solve (one per roll): 2 s left a 15-roll plan far from the puzzle's
ANALYSE_CAP = 600.0  # seconds of one analysis job at most


def version() -> str:
    try:
        return dist_version("nochmal")
    except PackageNotFoundError:  # running from a checkout without metadata
        return "0+unknown"


def _app(request: Request):
    return request.app.state


# --- engine facts (the CLI's --json schemas) -------------------------------------------------
@router.get("/health", summary="Liveness: {ok, version}")
async def health():  # on the event loop itself: it measures the loop, not the thread pool
    return {"ok": True, "version": version()}


@router.get("/boards", summary="The built-in boards (as `nochmal board list --json`)")
def boards():
    out = []
    for name in BUILTIN_BOARDS:
        b = load_board(name)
        out.append({"name": b.name, "title": b.title, "rows": b.rows, "cols": b.cols,
                    "start_column": b.column_name(b.start_column)})
    return {"boards": out}


@router.get("/boards/{name}", summary="One board's layout (as `nochmal board show NAME --json`)")
def board(name: str):
    return board_data(builtin_board(name))


@router.get("/boards/{name}/svg", summary="An empty sheet of the board as SVG")
def board_svg(name: str):
    b = builtin_board(name)
    return Response(pictures_svg([SheetPicture(b.title, Sheet.empty(b))]), media_type="image/svg+xml")


@router.get("/rolls", summary="Seeded rolls (as `nochmal rolls --json`)")
def rolls(seed: int = Query(..., ge=0, le=MAX_SEED), count: int = Query(30, ge=1, le=200), solo: bool = False):
    seq = seeded_rolls(seed, count, 2 if solo else 3)
    return {"seed": seed, "solo": solo, "rolls": [r.to_json() for r in seq]}


@router.get("/daily", summary="Today's puzzle seed (the UTC date as YYYYMMDD)")
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
    from nochmal.impossible import impossible_sheet_reasons

    b = builtin_board(body.board)
    if not body.sheet.strip():
        return b, Sheet.empty(b)
    try:
        state = parse_typed_sheet(body.sheet, b, "sheet")
    except NochmalError as exc:
        raise WebError(str(exc), "sheet") from None
    reasons = [] if body.allow_impossible else impossible_sheet_reasons(state)
    if reasons:
        raise WebError(f"impossible sheet: {'; '.join(reasons)}", "sheet")
    return b, state


@router.post("/score", summary="Score a typed sheet (as `nochmal score --json`)")
def score(body: SheetBody):
    b, state = _sheet(body)
    bd = state.score_breakdown()
    return {"board": b.name, "sheet": state.text(), **bd.to_dict(),
            "complete_columns": [b.column_name(c) for c in range(b.cols) if state.complete_columns() >> c & 1],
            "complete_colours": [c for i, c in enumerate(COLOURS) if state.complete_colours() >> i & 1],
            "stars_crossed": (state.crossed & b.star_mask).bit_count()}


class MovesBody(SheetBody):
    colour: Literal["y", "g", "b", "r", "o"]
    count: int = Field(..., ge=1, le=5)
    bridging: bool = False


@router.post("/moves", summary="Legal placements (as `nochmal moves --json`)")
def moves(body: MovesBody):
    b, state = _sheet(body)
    placements = sorted(b.cells_of(m) for m in state.placements(body.colour, body.count, body.bridging))
    return {"board": b.name, "colour": body.colour, "count": body.count, "placements": placements}


@router.get("/bots", summary="The registered bots")
def bots():
    from nochmal.bots.registry import agent_names

    return {"bots": agent_names()}


@router.get("/missions", summary="The co-op missions (as `nochmal mission list --json`)")
def missions():
    from nochmal.missions import builtin_missions

    return [m.to_dict() for m in builtin_missions()]


@router.get("/missions/{mission_id}", summary="One mission (as `nochmal mission show ID --json`)")
def mission(mission_id: str):
    return builtin_mission(mission_id).to_dict()


class RollBody(Body):
    colours: list[str] = Field(..., description='Colour faces, e.g. ["y", "x"] (x = joker).')
    numbers: list[str] = Field(..., description='Number faces, e.g. ["3", "?"] (? = joker).')


def _roll(data: RollBody | dict, field: str) -> Roll:
    raw = data.model_dump() if isinstance(data, BaseModel) else data
    try:
        return Roll.from_json(raw)
    except NochmalError as exc:
        raise WebError(f"{field}: {exc}", field) from None


def hint_items(tips) -> list[dict]:
    """The hints in the schema of `nochmal hint --json`."""
    return [{"rank": i + 1, "move": str(m), "colour": m.colour or None, "count": m.count, "cells": list(m.cells),
             "jokers": m.joker_cost, "value": v} for i, (m, v) in enumerate(tips)]


class HintBody(SheetBody):
    roll: RollBody
    solo: bool = False
    rolls_left: Optional[int] = Field(None, ge=0, le=29)
    top: int = Field(3, ge=1, le=10)


@router.post("/hint", summary="The hint bot's best choices for a sheet and a roll (as `nochmal hint --json`)")
def hint_for_sheet(body: HintBody):
    from nochmal.bots.hints import build_hint_game, hint as best_choices

    b, state = _sheet(body)
    dice = _roll(body.roll, "roll")
    try:
        game = build_hint_game(b, state, dice, body.solo, body.rolls_left)
    except NochmalError as exc:
        raise WebError(str(exc).replace("--", ""), "roll") from None
    return {"board": b.name, "sheet": state.text(), "roll": dice.to_json(), "solo": body.solo,
            "rolls_left": body.rolls_left if body.rolls_left is not None else (15 if body.solo else None),
            "hints": hint_items(best_choices(game, body.top))}


class MissionStatusBody(Body):
    difficulty: Literal["easy", "normal", "hard"]
    rolls_used: int = Field(..., ge=0, le=200)
    sheets: list[str] = Field(..., min_length=1, max_length=4, description="One typed sheet per player.")
    crosses: bool = Field(False, description="Also the fewest further crosses per sheet and the team's split of "
                          "the missing work, as the CLI prints them (CP-SAT, seconds).")


@router.post("/missions/{mission_id}/status", summary="A team's progress (as `nochmal mission status --json`)")
def mission_status_(mission_id: str, body: MissionStatusBody):
    from nochmal.missions.coop import mission_status

    m = builtin_mission(mission_id)
    b = load_board(m.board)
    sheets = []
    for i, text in enumerate(body.sheets):
        try:
            sheets.append(parse_typed_sheet(text, b, f"sheets.{i}"))
        except NochmalError as exc:
            raise WebError(str(exc), f"sheets.{i}") from None
    st = mission_status(m, body.difficulty, sheets, body.rolls_used, with_crosses=body.crosses)
    plan = None
    if body.crosses and not any(st.impossible):
        from nochmal.missions.split import team_plan

        plan = team_plan(m, sheets, st.rolls_left)
    from nochmal.missions.split import status_document

    return status_document(st, [f"sheets.{p}" for p in range(len(sheets))], plan)


# --- games -------------------------------------------------------------------------------
class NewGame(Body):
    kind: Literal["puzzle", "play"] = "play"
    seed: Optional[int] = Field(None, ge=0, le=MAX_SEED, description="Dice seed; default: the daily seed "
                                "for a puzzle, a random one otherwise.")
    board: str = "classic"
    seats: list[str] = Field(default_factory=lambda: ["human"], max_length=MAX_PLAYERS,
                             description="human, human:NAME or a bot name, one per seat in turn order.")
    mission: Optional[str] = Field(None, description="A co-op mission id (play only).")
    difficulty: Literal["easy", "normal", "hard"] = "normal"
    open: bool = Field(False, description="Puzzle: show every roll in advance.")


@router.post("/games", summary="Start a puzzle or a game; bots move at once")
def new_game(body: NewGame, request: Request):
    import secrets

    state = _app(request)
    state.game_rate.check(client_address(request))
    store = state.games
    store.prune_now_and_then()
    if body.kind == "puzzle":
        if body.mission:
            raise WebError("a puzzle is a solo game: no mission", "mission")
        if body.seats not in (["human"],):
            raise WebError("a puzzle has one human seat", "seats")
        seed = body.seed if body.seed is not None else daily_seed()
        web = store.create(kind="puzzle", seats=["human"], seed=seed, board=builtin_board(body.board),
                           open_rolls=body.open)
        return web.state()
    seats = parse_seat_list(body.seats)
    if not any(s.startswith("human") for s in seats):
        raise WebError("at least one seat must be human (bots-only games: nochmal bench bots)", "seats")
    seed = body.seed if body.seed is not None else secrets.randbelow(1_000_000)
    mission = None
    if body.mission:
        mission = builtin_mission(body.mission)
        if len(seats) > 4:
            raise WebError(f"a co-op mission has 1-4 players, not {len(seats)}", "seats")
        if body.board != "classic" and body.board != mission.board:
            raise WebError("a mission plays on its own sheet; leave the board out", "board")
        board_ = builtin_board(mission.board) if mission.board in BUILTIN_BOARDS else load_board(mission.board)
    else:
        board_ = builtin_board(body.board)
    web = store.create(kind="play", seats=seats, seed=seed, board=board_, mission=mission,
                       difficulty=body.difficulty if mission else None, open_rolls=body.open)
    return web.state()


@router.get("/games/{game_id}", summary="A game's state (keys of `nochmal play --json` plus the view)")
def get_game(game_id: str, request: Request, svg: bool = True):
    web = _app(request).games.get(game_id)
    with web.lock:
        return web.state(with_svg=svg)


class Tap(Body):
    colour: Literal["y", "g", "b", "r", "o", "x"] = Field(..., description="The colour die picked (x = joker).")
    number: Literal["1", "2", "3", "4", "5", "?"] = Field(..., description="The number die picked (? = joker).")
    cells: list[str] = Field(default_factory=list, max_length=5, description="The cells selected so far (may be empty: then every cell of a legal placement is returned).")


@router.post("/games/{game_id}/tap", summary="What a selection of cells allows: cells to add, the move, or the reason")
def tap(game_id: str, body: Tap, request: Request):
    web = _app(request).games.get(game_id)
    try:
        cells = [parse_cell(c.strip()) for c in body.cells]  # the one cell-name grammar (nochmal.move)
    except NochmalError as exc:
        raise WebError(str(exc), "cells") from None
    if len(set(cells)) != len(cells):
        raise WebError("a cell is selected twice", "cells")
    with web.lock:
        return web.tap(body.colour, body.number, cells)


class MoveBody(Body):
    move: str = Field(..., max_length=80, description="Move notation: b4 G4 G5 H4 H5, xb4 ..., b?4 ..., or pass.")


@router.post("/games/{game_id}/move", summary="Make the deciding human's move; bots answer")
def move(game_id: str, body: MoveBody, request: Request, svg: bool = True):
    web = _app(request).games.get(game_id)
    with web.lock:
        web.play(body.move)
        web.save()
        return web.state(with_svg=svg)


@router.post("/games/{game_id}/undo", summary="Take back the last human choice (this roll, else the one before)")
def undo(game_id: str, request: Request, svg: bool = True):
    web = _app(request).games.get(game_id)
    with web.lock:
        web.undo()
        web.save()
        return web.state(with_svg=svg)


@router.post("/games/{game_id}/open", summary="The open-information switch: show every roll from now on")
def open_game(game_id: str, request: Request, svg: bool = True):
    web = _app(request).games.get(game_id)
    with web.lock:
        web.open_rolls()
        web.save()
        return web.state(with_svg=svg)


@router.get("/games/{game_id}/hint", summary="The hint bot's best three choices")
def hint(game_id: str, request: Request):
    from nochmal.bots.hints import hint as best_choices

    web = _app(request).games.get(game_id)
    with web.lock:
        if web.human_to_move() is None:
            raise WebError("no human is to move in this game now", "hint", 409)
        game = web.game.clone()
        mission = web.session.mission
    if mission is not None:  # a co-op game: ranked by the mission (nochmal.missions.tactics)
        from nochmal.missions.tactics import mission_hint

        return {"hints": hint_items(mission_hint(mission, game, top=3))}
    return {"hints": hint_items(best_choices(game, top=3))}


@router.get("/games/{game_id}/rolls", summary="Every roll (open puzzles and finished games)")
def game_rolls(game_id: str, request: Request):
    web = _app(request).games.get(game_id)
    with web.lock:
        return {"seed": web.session.seed, "rolls": web.all_rolls()}


@router.get("/games/{game_id}/record", summary="The game record (the standard record JSON)")
def game_record(game_id: str, request: Request, download: bool = False):
    web = _app(request).games.get(game_id)
    with web.lock:
        text = web.record().dumps()
    headers = {"Content-Disposition": f'attachment; filename="nochmal-{web.session.seed}.json"'} if download else {}
    return Response(text, media_type="application/json", headers=headers)


@router.get("/games/{game_id}/svg", summary="The game as a shareable SVG picture")
def game_svg(game_id: str, request: Request, download: bool = False):
    web = _app(request).games.get(game_id)
    with web.lock:
        record, game = web.record(), web.game.clone()
        text = record_svg(record, game, outcome=mission_outcome_line(record, game, web_mission))
    headers = {"Content-Disposition": f'attachment; filename="nochmal-{web.session.seed}.svg"'} if download else {}
    return Response(text, media_type="image/svg+xml", headers=headers)


@router.get("/games/{game_id}/sheet", summary="One seat's sheet after K rolls, as SVG")
def game_sheet(game_id: str, request: Request, after: int = Query(..., ge=0, le=200), seat: int = Query(0, ge=0, le=5)):
    web = _app(request).games.get(game_id)
    with web.lock:
        record = web.record()
    game = _after(record, after)
    if seat >= game.n_players:
        raise WebError(f"seat {seat} is not in this game (seats 0-{game.n_players - 1})", "seat")
    sheet = game.sheets[seat]
    title = f"{seat_name(record.players, seat)} after roll {min(after, game.rolls_done)}: {sheet.score()} points"
    return Response(pictures_svg([SheetPicture(title, sheet)]), media_type="image/svg+xml")


def _after(record: GameRecord, turns: int) -> Game:
    from nochmal.stepper import replayed

    return replayed(record, turns=turns, missions=web_mission)


# --- uploaded records ----------------------------------------------------------------------
# What uploads may cost the server (docs/security.md): a stored record is its text and its
# summary; its states are worked out on demand by a replay cursor (nochmal/stepper.py), of
# which the most recently used are kept up to CURSOR_MEMORY bytes in all.
UPLOAD_BYTES_A_DAY = 20_000_000  # stored bytes of records one address may add in a day
ALL_UPLOAD_BYTES_A_DAY = 200_000_000  # ... and all addresses together
RECORD_MEMORY = 64_000_000  # record texts kept in memory; older ones are read from disk again
# Replay cursors kept, by cursor_bytes: each is many small objects, and the garbage collector
# walks them all, so a larger cache would lengthen its pauses of every request.
CURSOR_MEMORY = 16_000_000
DAY = 86400.0


def cursor_bytes(record: GameRecord) -> int:
    """What a replay cursor of ``record`` holds at most (the parsed record and one game at its
    last turn with the engine's undo stack), estimated from its rolls and moves: measured with
    tracemalloc on records of 1-6 seats (a 6-seat 1000-roll record of passes: 3.1 MB, about
    440 bytes a roll or move; a move that crosses costs about 600 bytes more)."""
    moves = [m for _, ms in record.rolls for _, m in ms]
    crossing = sum(not m.is_pass for m in moves)
    return 50_000 + 450 * (len(record.rolls) + len(moves)) + 600 * crossing


@dataclass
class UploadQuota:
    """At most ``per_client`` stored bytes of uploads per client address, and ``in_all`` from
    all addresses together, in any ``window`` seconds (a day)."""

    per_client: int = UPLOAD_BYTES_A_DAY
    in_all: int = ALL_UPLOAD_BYTES_A_DAY
    window: float = DAY
    max_clients: int = 10_000  # addresses remembered before the quiet ones are forgotten
    _seen: dict = field(default_factory=lambda: defaultdict(deque))  # address -> deque of (time, bytes)
    _all: deque = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def check(self, client: str, size: int, now: float | None = None) -> None:
        """Refuse (429 naming the reason) if ``size`` more bytes would pass a limit; nothing is charged."""
        with self._lock:
            self._refuse_over(client, size, time.monotonic() if now is None else now)

    def charge(self, client: str, size: int, now: float | None = None) -> None:
        """Check and count ``size`` bytes stored for ``client`` at once (two uploads cannot
        both pass a limit that only one of them fits)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            self._refuse_over(client, size, now)
            self._seen[client].append((now, size))
            self._all.append((now, size))

    def _refuse_over(self, client: str, size: int, now: float) -> None:
        cutoff = now - self.window
        if len(self._seen) >= self.max_clients:
            for quiet in [c for c, s in self._seen.items() if not s or s[-1][0] < cutoff]:
                del self._seen[quiet]
        for stamps in (self._seen[client], self._all):
            while stamps and stamps[0][0] < cutoff:
                stamps.popleft()
        mine = sum(n for _, n in self._seen[client])
        if mine + size > self.per_client:
            raise WebError(f"file: at most {self.per_client} bytes of records a day from one address "
                           f"({mine} stored in the last 24 h, this one {size}); try again tomorrow", "file", 429)
        if sum(n for _, n in self._all) + size > self.in_all:
            raise WebError(f"file: the server takes at most {self.in_all} bytes of records a day from all "
                           "addresses together; try again tomorrow", "file", 429)


@dataclass
class StoredRecord:
    """An uploaded record as the server keeps it: its text (as on disk) and its summary (JSON)."""

    text: str
    summary: str

    @property
    def cost(self) -> int:
        """Bytes in memory: the two strings, exactly."""
        return sys.getsizeof(self.text) + sys.getsizeof(self.summary)


class CursorCache:
    """Replay cursors of the records used last, at most ``max_bytes`` by cursor_bytes in all:
    the states of a record are worked out again from its text once its cursor has left."""

    def __init__(self, max_bytes: int = CURSOR_MEMORY):
        self.max_bytes = max_bytes
        self.entries: dict[str, tuple[ReplayCursor, int]] = {}  # least recently used first
        self.lock = threading.Lock()

    @property
    def used(self) -> int:
        with self.lock:
            return sum(cost for _, cost in self.entries.values())

    def get(self, rec_id: str) -> ReplayCursor | None:
        with self.lock:
            entry = self.entries.pop(rec_id, None)
            if entry is None:
                return None
            self.entries[rec_id] = entry
            return entry[0]

    def put(self, rec_id: str, cursor: ReplayCursor) -> None:
        cost = cursor_bytes(cursor.record)
        with self.lock:
            self.entries.pop(rec_id, None)
            if cost > self.max_bytes:
                return
            while self.entries and sum(c for _, c in self.entries.values()) + cost > self.max_bytes:
                self.entries.pop(next(iter(self.entries)))
            self.entries[rec_id] = (cursor, cost)


class RecordStore(KeptOnDisk):
    """Uploaded records: each on disk (DATA/records/ID.json) for ``keep_days``; in memory the
    texts of the newest, at most ``limit`` records and ``memory`` bytes; the states of a record
    worked out on demand (``cursors``); stored bytes capped per address (``quota``)."""

    def __init__(self, folder: Path | None, limit: int = 500, keep_days: float = 90.0,
                 memory: int = RECORD_MEMORY, cursors: CursorCache | None = None, quota: UploadQuota | None = None):
        self.items: dict[str, StoredRecord] = {}  # oldest first
        self.limit = limit
        self.memory = memory
        self.cursors = cursors if cursors is not None else CursorCache()
        self.quota = quota if quota is not None else UploadQuota()
        self.lock = threading.Lock()
        super().__init__(folder, keep_days)

    def in_memory(self) -> set[str]:
        with self.lock:
            return set(self.items)

    def memory_bytes(self) -> int:
        """Bytes the stored records hold in memory (the cursors are counted by CursorCache)."""
        with self.lock:
            return sum(item.cost for item in self.items.values())

    def add(self, text: str, client: str) -> tuple[str, StoredRecord]:
        """Verify an uploaded record and store it, charged to ``client``'s quota (runs in a
        worker thread: the replay takes up to a second)."""
        self.quota.check(client, len(text.encode()))  # before the replay: an address over its quota costs nothing
        self.prune_now_and_then()
        record, final = parse_record(text)
        stored = record.dumps()
        self.quota.charge(client, len(stored.encode()))
        rec_id = new_id()
        if self.folder is not None:
            atomic_write_text(self.folder / f"{rec_id}.json", stored)
        item = StoredRecord(stored, json.dumps(_record_summary(rec_id, record, final)))
        self._keep(rec_id, item)
        return rec_id, item

    def _keep(self, rec_id: str, item: StoredRecord) -> None:
        with self.lock:
            self.items[rec_id] = item
            held = sum(i.cost for i in self.items.values())
            while len(self.items) > 1 and (len(self.items) > self.limit or held > self.memory):
                held -= self.items.pop(next(iter(self.items))).cost  # the oldest leave memory; they stay on disk

    def get(self, rec_id: str) -> StoredRecord:
        check_id(rec_id, "record")
        with self.lock:
            item = self.items.get(rec_id)
        if item is not None:
            return item
        path = None if self.folder is None else self.folder / f"{rec_id}.json"
        if path is None or not path.is_file():
            raise WebError(f"no record {rec_id!r}", "record", 404)
        try:  # the server's own file, verified again: it may have been damaged since
            record, final = parse_record(read_text_file(path, NochmalError))
        except NochmalError as exc:
            raise damaged("record", rec_id, exc) from None
        item = StoredRecord(record.dumps(), json.dumps(_record_summary(rec_id, record, final)))
        self._keep(rec_id, item)
        return item

    def state(self, rec_id: str, turn: int | None = None) -> tuple[GameRecord, Game]:
        """The record and a copy of its game after ``turn`` turns (None: its last)."""
        item = self.get(rec_id)
        cursor = self.cursors.get(rec_id)
        if cursor is None:  # replayed from the text, verified when it was stored
            from nochmal.stepper import game_factory

            try:
                record = GameRecord.loads(item.text, f"record {rec_id}")
                cursor = ReplayCursor(record, record.new_game(game_factory(record, web_mission)))
            except NochmalError as exc:
                raise damaged("record", rec_id, exc) from None
            self.cursors.put(rec_id, cursor)
        turn = cursor.turns if turn is None else turn
        if not 0 <= turn <= cursor.turns:
            raise WebError(f"turn {turn} is not in this record (0-{cursor.turns})", "turn", 404)
        return cursor.record, cursor.state(turn)


def parse_record(text: str) -> tuple[GameRecord, Game]:
    """A record from uploaded text, verified by a replay through the engine as `nochmal replay
    --verify` does (the stored result too): the record and its final game. Its mission must be
    a shipped id (422 naming ``extra.mission``): no file is ever opened for it."""
    from nochmal.stepper import game_factory

    data = load_json_text(text, lambda reason: WebError(f"file: {reason}", "file", 422))
    if isinstance(data, dict) and isinstance(data.get("extra"), dict) and "mission_file" in data["extra"]:
        raise WebError("file: the record names a mission file; the web app only knows the built-in missions",
                       "file", 422)
    try:
        record = GameRecord.from_json(data, "file")
    except NochmalError as exc:
        raise WebError(str(exc), "file", 422) from None
    if record.needs_mission:
        web_mission(record.extra["mission"])
    try:
        return record, record.verify("file", game_factory(record, web_mission))
    except NochmalError as exc:
        raise WebError(str(exc), "file", 422) from None


def _record_summary(rec_id: str, record: GameRecord, final: Game) -> dict:
    """The keys of `nochmal replay F --verify --json` (``id`` for its ``file``) and a few more;
    ``verified`` is always true: parse_record refused any record that does not verify."""
    return {"id": rec_id, "verified": True, "mode": record.mode, "board": record.board.name, "seed": record.seed,
            "players": record.players, "names": [seat_name(record.players, p) for p in range(len(record.players))],
            "turns": len(record.rolls), "over": final.is_terminal(), "scores": final.scores(),
            "winners": final.winners() if final.is_terminal() else None,
            "sheets": [s.text() for s in final.sheets], "extra": record.extra}


@router.post("/records", summary="Upload a game record (multipart field 'file'); it is replayed and checked")
async def upload_record(request: Request, file: UploadFile = File(..., description="A record JSON file.")):
    state = _app(request)
    client = client_address(request)
    state.upload_rate.check(client)
    data = await file.read(state.max_body + 1)
    if len(data) > state.max_body:
        raise WebError(f"file: over the limit of {state.max_body} bytes", "file", 413)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WebError(f"file: not a UTF-8 text file (byte {exc.start})", "file", 422) from None
    _, item = await run_in_threadpool(state.records.add, text, client)  # the replay never holds up the event loop
    return Response(item.summary, media_type="application/json")


@router.get("/records/{rec_id}", summary="An uploaded record's summary (as `nochmal replay F --json`)")
def get_record(rec_id: str, request: Request):
    return Response(_app(request).records.get(rec_id).summary, media_type="application/json")


@router.get("/records/{rec_id}/turns/{turn}", summary="The state after a turn (as `nochmal replay F --to N --json`)")
def record_turn(rec_id: str, turn: int, request: Request, svg: bool = True):
    from nochmal.stepper import state_data

    record, game = _app(request).records.state(rec_id, turn)
    data = state_data(record, game, turn)
    if svg:
        claims = game.race_claims
        data["sheets_svg"] = [pictures_svg([SheetPicture(
            sheet_title(record.players, p, s), s, claims.columns, claims.colours)])
            for p, s in enumerate(game.sheets)]
    return data


@router.get("/records/{rec_id}/svg", summary="The record as an SVG picture")
def record_picture(rec_id: str, request: Request):
    record, final = _app(request).records.state(rec_id)
    return Response(record_svg(record, final, outcome=mission_outcome_line(record, final, web_mission)),
                    media_type="image/svg+xml")


# --- jobs ----------------------------------------------------------------------------------
class SolveJob(Body):
    seed: Optional[int] = Field(None, ge=0, le=MAX_SEED, description="Plan the seeded solo rolls of this seed.")
    game_id: Optional[str] = Field(None, description="Or: plan the rolls of this solo game.")
    rolls: Optional[list[dict]] = Field(None, max_length=30, description='Or: these solo rolls, '
                                        '[{"colours": ["y","x"], "numbers": ["3","?"]}, ...].')
    board: str = "classic"
    count: int = Field(30, ge=1, le=30, description="Plan the first COUNT rolls.")
    time_limit: float = Field(SOLVE_TIME_DEFAULT, gt=0, le=600, description="Seconds (capped by the server).")


@router.post("/jobs/solve", summary="Start the planner in the background (poll GET /api/jobs/ID at least every few seconds)")
def start_solve(body: SolveJob, request: Request):
    state = _app(request)
    seed, board_name = body.seed, body.board
    if body.game_id is not None:
        web = state.games.get(body.game_id)
        if web.game.mode is not Mode.SOLO:
            raise WebError("the planner plans solo games; this game is " + web.game.mode, "game_id")
        seed, board_name = web.session.seed, web.game.board.name
    if sum(x is not None for x in (body.seed, body.game_id, body.rolls)) != 1:
        raise WebError("give exactly one of seed, game_id, rolls", "seed")
    builtin_board(board_name)
    limit = min(body.time_limit, state.jobs.time_cap)
    params = {"seed": seed, "board": board_name, "count": body.count, "time_limit": limit}
    if body.rolls is not None:
        rolls_ = [_roll(r, f"rolls.{i}") for i, r in enumerate(body.rolls)]
        for i, r in enumerate(rolls_):
            if len(r.colours) != 2:
                raise WebError(f"rolls.{i}: a solo roll has 2 colour and 2 number dice", f"rolls.{i}")
        if not rolls_:
            raise WebError("rolls: give at least one roll", "rolls")
        params.update({"rolls": [r.to_json() for r in rolls_], "count": len(rolls_)})
    job = state.jobs.submit("solve", params)
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
                                      "background: points lost per roll")
def start_analyse(body: AnalyseJob, request: Request):
    state = _app(request)
    if (body.record_id is None) == (body.game_id is None):
        raise WebError("give exactly one of record_id, game_id", "record_id")
    if body.record_id is not None:
        record, final = state.records.state(body.record_id)
    else:
        web = state.games.get(body.game_id)
        with web.lock:
            record, final = web.record(), web.game.clone()
    if record.mode is Mode.COOP:
        raise WebError("the analysis needs a solo or competitive record; a co-op record is analysed by "
                       "`nochmal analyse` (the team's fewest rolls)", "record_id")
    seats = len(record.players)
    if record.mode is Mode.COMPETITIVE and body.seat is None:
        raise WebError(f"seat: a competitive record is analysed one seat at a time (1..{seats})", "seat")
    if body.seat is not None and body.seat > seats:
        raise WebError(f"seat: the record has seats 1..{seats}, not {body.seat}", "seat")
    if not final.is_terminal():
        raise WebError("the analysis needs a finished game", "record_id")
    # one solve per roll, each with the asked time (the planner needs about 2 s a solve to
    # keep its hinted plan on a loaded machine); the job's cap covers them all, up to a limit
    cap = max(state.jobs.time_cap, len(record.rolls) * body.time_limit)
    if cap > ANALYSE_CAP:
        raise WebError(f"{len(record.rolls)} solves of {body.time_limit:g} s exceed the limit of {ANALYSE_CAP:g} s; "
                       "ask for less time per solve", "time_limit")
    seat = body.seat - 1 if record.mode is Mode.COMPETITIVE else None  # 0-based, as solver/race.py counts
    job = state.jobs.submit("analyse", {"record": record.to_json(), "time_limit": body.time_limit, "seat": seat},
                            time_cap=cap)
    return JSONResponse(job.to_json(), status_code=202)


@router.get("/jobs/{job_id}", summary="A job's state and progress (polling keeps it alive)")
def get_job(job_id: str, request: Request):
    return _app(request).jobs.get(job_id).to_json()


@router.post("/jobs/{job_id}/cancel", summary="Stop a job")
def cancel_job(job_id: str, request: Request):
    return _app(request).jobs.cancel(job_id).to_json()


@router.get("/jobs/{job_id}/sheet", summary="The sheet of a finished job's best plan after K rolls, as SVG")
def job_sheet(job_id: str, request: Request, after: int = Query(..., ge=0, le=60)):
    job = _app(request).jobs.get(job_id)
    if job.result is None:
        raise WebError(f"job {job_id} has no result (state: {job.state})", "job", 409)
    plan = job.result if job.kind == "solve" else job.result["plan"]
    if plan is None or plan.get("board") not in BUILTIN_BOARDS or plan.get("first_roll", 1) != 1:
        raise WebError(f"job {job_id} has no whole-game plan on a built-in board to draw", "job", 409)
    # the plan's moves played by the engine on its dice (a solo game: first values, as scored)
    game = Game(load_board(plan["board"]), 1, mode=Mode.SOLO)
    steps = plan["steps"][:after]
    for step in steps:
        game.apply_roll(Roll.from_text(step["dice"]))
        game.apply_move(Move.parse(step["move"]))
    sheet = game.sheets[0]
    title = f"best plan after roll {len(steps)}: {sheet.score()} points"
    return Response(pictures_svg([SheetPicture(title, sheet)]), media_type="image/svg+xml")
