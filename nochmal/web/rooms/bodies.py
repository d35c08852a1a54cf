"""The rooms' request and answer bodies as pydantic models: what /docs and /openapi.json show.

A request body is first checked for its shape here (types, known keys, no lone surrogates:
nochmal/web/schemas.py Body; a refusal is the app's 422 naming the field), then for its
meaning by model.py (a shipped mission, a cell of the board, the players a mission takes),
which also reads imported rooms. Integers are strict: ``"2"`` is not a number of players.
"""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, Field, StrictInt, StrictStr

from nochmal.board import BUILTIN_BOARDS
from nochmal.missions.model import DIFFICULTIES, PLAYER_COUNTS
from nochmal.seats import MAX_NAME
from nochmal.web.rooms.model import MAX_ROLLS_USED, MAX_SEATS, MODES
from nochmal.web.schemas import Body

MODE_NAMES = tuple(mode.value for mode in MODES)


# --- requests ----------------------------------------------------------------------------------
class RoomBody(Body):
    """A mission room (``mission``, ``difficulty``) or a competitive one (``mode``, ``board``)."""

    mode: Optional[Literal[MODE_NAMES]] = Field(None, description="Default: mission when a mission is given.")
    mission: Optional[StrictStr] = Field(None, description="A shipped mission id (GET /api/rooms/options).",
                                         examples=["lockstep"])
    difficulty: Optional[Literal[DIFFICULTIES]] = Field(None, description="A mission's difficulty (default normal).")
    players: StrictInt = Field(..., ge=1, le=MAX_SEATS, description="Seats of the room (a mission takes "
                               f"{PLAYER_COUNTS[0]}-{PLAYER_COUNTS[-1]}).")
    board: Optional[Literal[BUILTIN_BOARDS]] = Field(None, description="A built-in board (a mission's own board).")


class NameBody(Body):
    name: StrictStr = Field(..., description=f"The player's name (1-{MAX_NAME} characters, no control characters).",
                            examples=["Anna"])


class RollsBody(Body):
    rolls_used: StrictInt = Field(..., ge=0, le=MAX_ROLLS_USED, description="Rolls of the dice used so far.")


class ClaimBody(Body):
    handover: StrictStr = Field(..., description="The secret from the handover link (after #...&handover=).")


class SheetBody(Body):
    """A seat's whole sheet: ``cells`` (with jokers and race markers) or a typed ``text``."""

    cells: Optional[list[StrictStr]] = Field(None, description='Every crossed cell, named like "H4".')
    jokers_used: StrictInt = Field(0, ge=0, description="Jokers crossed off (up to the board's).")
    later_columns: list[StrictStr] = Field(default_factory=list, description="Competitive: complete columns "
                                           "scored at the later value (letters).")
    later_colours: list[StrictStr] = Field(default_factory=list, description="Competitive: complete colours "
                                           "scored at the later value (y g b r o).")
    text: Optional[StrictStr] = Field(None, description="Or the typed sheet (7 lines of 15, x = crossed).")
    version: Optional[StrictInt] = Field(None, ge=0, description="The seat's sheet_version last read (required: "
                                         "a stale edit is refused with 409).")


class ExportedSeat(BaseModel):
    seat: Optional[int] = None
    name: str
    file: Optional[str] = Field(None, description="The typed sheet's file in the zip.")
    text: str = Field(..., description="The typed sheet.")


class RoomExport(BaseModel):
    """room.json of an exported room (GET /api/rooms/ID/export)."""

    format: Literal["nochmal-room"]
    version: Literal[1]
    room: Optional[str] = Field(None, description="The exported room's code (not reused).")
    mode: Literal[MODE_NAMES]
    board: Literal[BUILTIN_BOARDS]
    players: int = Field(..., ge=1, le=MAX_SEATS)
    mission: Optional[str] = None
    difficulty: Optional[Literal[DIFFICULTIES]] = None
    rolls_used: int = Field(..., ge=0, le=MAX_ROLLS_USED)
    seats: list[ExportedSeat]


def json_body(model: type[Body]) -> dict:
    """A JSON request body for the OpenAPI document (``openapi_extra``): api.py reads the body
    itself, after the room, the seat and the token (``checked_body``)."""
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": inline_schema(model)}}}}


def import_body_schema() -> dict:
    """The import's request body for the OpenAPI document: an exported zip, or its room.json
    (read by hand, api.parse_export: the format is told by the bytes)."""
    return {"requestBody": {"required": True, "content": {
        "application/zip": {"schema": {"type": "string", "format": "binary"}},
        "application/json": {"schema": inline_schema(RoomExport)}}}}


def inline_schema(model: type[BaseModel]) -> dict:
    """``model``'s JSON schema with its ``$defs`` written in place: inside the OpenAPI document a
    ``#/$defs/...`` reference would point at the document's root, where there are none."""
    schema = model.model_json_schema()
    defs = schema.pop("$defs", {})

    def resolve(node):
        if isinstance(node, dict):
            ref = node.get("$ref", "")
            if ref.startswith("#/$defs/"):
                return resolve(defs[ref.rsplit("/", 1)[1]])
            return {key: resolve(value) for key, value in node.items()}
        if isinstance(node, list):
            return [resolve(item) for item in node]
        return node

    return resolve(schema)


# --- answers -----------------------------------------------------------------------------------
class MissionOption(BaseModel):
    id: str
    name: str
    description: str


class Options(BaseModel):
    missions: list[MissionOption]
    difficulties: list[str]
    mission_players: list[int]
    boards: list[str]
    max_seats: int


class RoomCreated(BaseModel):
    id: str = Field(..., description="The room's code.")
    url: str = Field(..., description="The room's page, to share.")
    qr: str = Field(..., description="The room's link as a QR code (SVG).")


class SeatTaken(BaseModel):
    seat: int
    seat_token: str = Field(..., description="Send as 'Authorization: Bearer TOKEN' with this seat's edits.")
    version: int = Field(..., description="The room's version after the change.")


class Renamed(BaseModel):
    version: int
    seat: int
    name: str


class SeatSheet(BaseModel):
    seat: int
    name: Optional[str]
    taken: bool
    sheet_version: int
    score: int
    cells: list[str]
    jokers_used: int
    later_columns: list[str]
    later_colours: list[str]


class SheetSaved(BaseModel):
    version: int
    sheet_version: int
    seat: SeatSheet
    status: dict[str, Any] = Field(..., description="The room's status after the edit (as in GET /api/rooms/ID).")


class RollsSet(BaseModel):
    version: int
    rolls_used: int
    status: dict[str, Any]


class HandoverLink(BaseModel):
    seat: int
    url: str = Field(..., description="Open on the other browser: it takes the seat.")
    handover: str = Field(..., description="The one-time secret in the link.")


class RoomDocument(BaseModel):
    id: str
    url: str
    mode: str
    board: str
    players: int
    mission: Optional[str]
    difficulty: Optional[str]
    rolls_used: int
    version: int
    expires: float = Field(..., description="When the room is deleted unless edited (Unix time).")
    seats: list[SeatSheet]
    status: dict[str, Any] = Field(..., description="Mission: the schema of `nochmal mission status --json` plus "
                                   "the team split; competitive: scores and the race.")
    mission_name: Optional[str] = None
    budget: Optional[int] = None


class ImportedSeat(BaseModel):
    seat: int
    name: str
    seat_token: str
    handover_url: str = Field(..., description="A browser takes this seat by opening it.")


class Imported(BaseModel):
    id: str
    url: str
    seats: list[ImportedSeat]
