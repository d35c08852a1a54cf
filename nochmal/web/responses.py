"""The JSON answers of the app's routers (nochmal/web/routers) as pydantic models: what
/docs and /openapi.json show for each endpoint (the rooms' are in nochmal/web/rooms/bodies.py).

The models describe, they do not filter: a router declares them with ``documented`` and
returns its document as it always has, so every answer keeps its bytes and its key order
(the CLI's ``--json`` schemas, docs/web.md). The large free-form documents (a game's
state, a record, a mission, a board's layout, a mission status) name their top-level fields
and allow more (``extra="allow"``); the parts that are the engine's own documents (a
mission's objectives, a plan, a job's result) are typed ``dict``.
"""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field


def documented(model: type[BaseModel], status: int = 200) -> dict:
    """``responses=`` of a route whose answer at ``status`` has the shape of ``model``."""
    return {status: {"model": model}}


def media(kind: str) -> dict:
    """``responses=`` of a route that answers ``kind`` (SVG, a download, an event stream) rather
    than JSON: the body is declared as text, or as bytes for a download, so /openapi.json gives
    every answer a schema."""
    text = kind.startswith("text/") or kind.endswith(("+xml", "/json"))
    schema = {"type": "string"} if text else {"type": "string", "format": "binary"}
    return {200: {"content": {kind: {"schema": schema}}}}


class Document(BaseModel):
    """A document that names its top-level fields and may hold more."""

    model_config = ConfigDict(extra="allow")


# --- engine facts ------------------------------------------------------------------------------
class Health(BaseModel):
    ok: bool
    version: str


class BoardSummary(BaseModel):
    name: str
    title: str
    rows: int
    cols: int
    start_column: str = Field(..., description="The column letter where the sheet starts (H on the classic).")


class Boards(BaseModel):
    boards: list[BoardSummary]


class BoardLayout(Document):
    """`nochmal board show NAME --json`."""

    name: str
    title: str
    grid: list[str] = Field(..., description="One line per row, a letter per cell (upper case: a star).")
    start_column: str
    source: str
    rows: int
    cols: int
    stars: list[str] = Field(..., description="The starred cells.")
    blocks: list[dict[str, Any]] = Field(..., description="The colour blocks: colour, size, cells.")


class Dice(BaseModel):
    colours: list[str] = Field(..., description="Colour faces (x = joker).")
    numbers: list[str] = Field(..., description="Number faces (? = joker).")


class Rolls(BaseModel):
    seed: int
    solo: bool
    rolls: list[Dice]


class Daily(BaseModel):
    seed: int = Field(..., description="The UTC date as YYYYMMDD.")
    date: str


class Score(BaseModel):
    """`nochmal score --json`."""

    board: str
    sheet: str
    columns: int
    colours: int
    jokers: int
    stars: int
    total: int
    complete_columns: list[str]
    complete_colours: list[str]
    stars_crossed: int


class Moves(BaseModel):
    """`nochmal moves --json`: each placement as its cells."""

    board: str
    colour: str
    count: int
    placements: list[list[str]]


class Hint(BaseModel):
    rank: int
    move: str = Field(..., description="Move notation, as POST /api/games/ID/move takes it.")
    colour: Optional[str]
    count: int
    cells: list[str]
    jokers: int
    value: float


class Hints(BaseModel):
    hints: list[Hint]


class SheetHints(BaseModel):
    """`nochmal hint --json`."""

    board: str
    sheet: str
    roll: Dice
    solo: bool
    rolls_left: Optional[int]
    hints: list[Hint]


class Bots(BaseModel):
    bots: list[str]


class Mission(Document):
    """`nochmal mission show ID --json`."""

    id: str
    name: str
    source: str
    description: str
    board: str
    objectives: list[dict[str, Any]]
    budgets: dict[str, Any] = Field(..., description="Rolls allowed per difficulty and number of players.")


class MissionStatus(Document):
    """`nochmal mission status --json`."""

    mission: str
    players: int
    budget: int
    rolls_used: int
    rolls_left: int
    all_met: Optional[bool]
    state: str
    lost_reasons: list[str]
    sheets: list[str]
    impossible: list[dict[str, Any]]
    objectives: list[dict[str, Any]]
    team: Optional[dict[str, Any]] = Field(..., description="The team's split of the missing work (with "
                                           "``crosses``), else null.")


# --- games -------------------------------------------------------------------------------------
class GameState(Document):
    """A game as a page shows it: the keys of `nochmal play --json` plus the view."""

    id: str
    kind: str = Field(..., description="puzzle or play.")
    mode: str
    board: str
    seed: int
    players: list[str]
    names: list[str]
    over: bool
    rolls: int
    scores: list[int]
    winners: Optional[list[int]]
    sheets: list[str]
    humans: list[bool]
    roll_limit: Optional[int]
    roll: Optional[int] = Field(..., description="The roll being played, 1-based; null between rolls.")
    to_move: Optional[int]
    human_to_move: Optional[int]
    active_player: int
    dice: Optional[Dice]
    available: Optional[Dice]
    jokers_left: list[int]
    open: bool
    upcoming: list[dict[str, Any]]
    log: list[dict[str, Any]]
    can_undo: bool
    sheets_svg: Optional[list[str]] = Field(None, description="Each seat's sheet as SVG (unless ?svg=false).")
    mission: Optional[dict[str, Any]] = Field(None, description="A co-op game: the mission and its outcome.")
    rating: Optional[str] = Field(None, description="A finished solo game: the score's rating.")
    verdict: Optional[str] = Field(None, description="A finished solo game: the rating's words in the request's language.")
    board_label: Optional[str] = Field(None, description="The sheet's name in the request's language (board: its id).")
    known_best: Optional[dict[str, Any]] = Field(None, description="A finished solo game: the best known score.")


class Tapped(BaseModel):
    ok: bool = Field(..., description="Whether the selection is (part of) a legal placement.")
    reason: Optional[str]
    extend: list[str] = Field(..., description="Cells that may be added to the selection.")
    move: Optional[str] = Field(..., description="The move the selection makes, when it is complete.")


class GameRolls(BaseModel):
    seed: int
    rolls: list[Dice]


class Record(Document):
    """The standard record JSON (docs/cli.md, "Game records")."""

    format: str
    version: int
    mode: str
    players: list[str]
    rules: dict[str, Any]
    board: str
    seed: Optional[int]
    rolls: list[Any]
    extra: dict[str, Any]


# --- uploaded records --------------------------------------------------------------------------
class RecordSummary(BaseModel):
    """The keys of `nochmal replay F --verify --json` (``id`` for its ``file``)."""

    id: str
    verified: bool
    mode: str
    board: str
    seed: Optional[int]
    players: list[str]
    names: list[str]
    turns: int
    over: bool
    scores: list[int]
    winners: Optional[list[int]]
    sheets: list[str]
    extra: dict[str, Any]


class TurnState(Document):
    """`nochmal replay F --to N --json`."""

    turn: int
    turns: int
    dice: Optional[Dice]
    moves: list[dict[str, Any]]
    names: list[str]
    scores: list[int]
    over: bool
    sheets: list[str]
    sheets_svg: Optional[list[str]] = Field(None, description="Each seat's sheet as SVG (unless ?svg=false).")


# --- jobs --------------------------------------------------------------------------------------
class Job(BaseModel):
    id: str
    kind: str = Field(..., description="solve or analyse.")
    state: str
    done: bool
    elapsed: Optional[float] = Field(..., description="Seconds since it started; null while queued.")
    time_cap: float
    progress: dict[str, Any]
    result: Optional[dict[str, Any]] = Field(..., description="The plan (solve) or the analysis, when done.")
    error: Optional[str]
