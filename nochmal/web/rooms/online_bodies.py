"""The online rooms' request and answer bodies (docs/rooms.md, online games): their shape,
shown in /docs; online_model.py checks their meaning (a shipped mission, a registered bot)."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, Field, StrictInt, StrictStr

from nochmal.board import BUILTIN_BOARDS
from nochmal.dice import COLOUR_FACES, NUMBER_FACES
from nochmal.game import MAX_PLAYERS
from nochmal.missions.model import DIFFICULTIES
from nochmal.seats import MAX_NAME
from nochmal.web.schemas import Body

QUIET_AFTER = ("wait", "pass", "bot")
MAX_QUIET_SECONDS = 86400


# --- requests ----------------------------------------------------------------------------------
class QuietBody(Body):
    """What the room does for a seat offered its dice that has not chosen for ``seconds``."""

    after: Literal[QUIET_AFTER] = Field("wait", description="wait (the table waits), pass (the server passes "
                                        "for the seat) or bot (the bot named by `bot` chooses for it).")
    seconds: float = Field(60.0, gt=0, le=MAX_QUIET_SECONDS, description="How long a seat may stay quiet.")
    bot: StrictStr = Field("heuristic", description="The bot that takes over (with after: bot).")


class OnlineBody(Body):
    """A competitive game (``mode``, ``board``) or a co-op mission (``mission``, ``difficulty``),
    one entry in ``seats`` per seat in turn order: ``human`` or a registered bot's name."""

    mode: Optional[Literal["competitive", "mission"]] = Field(None, description="Default: mission when a "
                                                              "mission is given.")
    mission: Optional[StrictStr] = Field(None, description="A shipped mission id (GET /api/rooms/options).",
                                         examples=["lockstep"])
    difficulty: Optional[Literal[DIFFICULTIES]] = Field(None, description="A mission's difficulty (default normal).")
    board: Optional[Literal[BUILTIN_BOARDS]] = Field(None, description="A built-in board (a mission's own board).")
    seats: list[StrictStr] = Field(..., min_length=1, max_length=MAX_PLAYERS,
                                   description="human, or a bot's name (GET /api/bots), per seat in turn order.",
                                   examples=[["human", "human", "greedy"]])
    quiet: Optional[QuietBody] = None


class OnlineJoinBody(Body):
    name: StrictStr = Field(..., description=f"The player's name (1-{MAX_NAME} characters).", examples=["Anna"])
    seat: Optional[StrictInt] = Field(None, ge=0, description="A free human seat (0-based); default the lowest.")


class TapBody(Body):
    """A selection on the seat's own sheet with one colour and one number die (the puzzle page's tap)."""

    colour: Literal[COLOUR_FACES] = Field(..., description="The colour die picked (x: the joker).")
    number: Literal[NUMBER_FACES] = Field(..., description="The number die picked (?: the joker).")
    cells: list[StrictStr] = Field(default_factory=list, max_length=6, description='Cells selected, like "H4".')


class MoveBody(Body):
    roll: StrictInt = Field(..., ge=1, description="The roll in play the phone showed (another one: 409).")
    move: StrictStr = Field(..., max_length=80, description='The move as text: "b4 G4 G5 H4 H5" or "pass".',
                            examples=["pass"])


class AnalyseBody(Body):
    """A seat's analysis after the end (``nochmal analyse --seat``): the best score it could have
    reached with the dice open to it and the others' moves as they were."""

    seat: StrictInt = Field(..., ge=0, lt=MAX_PLAYERS, description="The seat (0-based).")
    time_limit: float = Field(2.0, gt=0, le=10, description="Seconds per solve (one per roll).")


# --- answers -----------------------------------------------------------------------------------
class OnlineCreated(BaseModel):
    id: str
    url: str
    qr: str
    creator_token: str
    commitment: str = Field(..., description="SHA-256 of the seed's decimal text; the seed is shown at the end.")


class OnlineSeated(BaseModel):
    seat: int
    seat_token: str
    version: int


class Offer(BaseModel):
    """What the seat may do now."""

    state: Literal["not started", "choosing", "waiting", "chosen", "over"]
    dice: Optional[dict] = Field(None, description="The dice the seat may pick from (Roll.to_json).")
    move: Optional[str] = Field(None, description="The seat's choice in this roll, once made.")
    quiet_in: Optional[float] = Field(None, description="Seconds left before the quiet-seat rule acts.")


class OnlineSeat(BaseModel):
    seat: int
    name: Optional[str]
    bot: Optional[str] = Field(None, description="The bot's name, for a bot seat.")
    taken: bool
    state: str = Field(..., description="not started, choosing, waiting (for the active player), chosen, over.")
    dice: Optional[dict] = Field(None, description="The dice the seat may pick from while it is choosing.")
    cells: list[str]
    jokers_used: int
    score: int


class OnlineRoom(BaseModel):
    id: str
    version: int
    mode: str
    board: str
    mission: Optional[str] = None
    difficulty: Optional[str] = None
    commitment: str
    quiet: dict
    started: bool
    roll: Optional[int] = Field(None, description="The roll in play (from 1).")
    dice: Optional[dict] = None
    active: Optional[int] = Field(None, description="The active seat (0-based).")
    seats: list[OnlineSeat]
    last: Optional[dict] = Field(None, description="The last roll ended: its number, dice and every seat's move.")
    over: bool
    scores: list[int]
    winners: Optional[list[int]] = None
    outcome: Optional[dict] = Field(None, description="A mission's outcome (won on, or what was missing).")
    seed: Optional[int] = Field(None, description="Revealed when the game is over.")
    seed_text: Optional[str] = Field(None, description="The seed as text (JavaScript's numbers hold 53 bits).")
    you: Optional[dict] = Field(None, description="With a seat token: the seat and its offer.")
    svgs: Optional[dict[str, str]] = Field(None, description="Every seat's sheet drawn (nochmal/svg.py), by seat.")


class TapAnswer(BaseModel):
    ok: bool
    reason: Optional[str]
    extend: list[str]
    move: Optional[str]


class MoveKept(BaseModel):
    version: int
    move: str
    room: OnlineRoom
