"""The rooms' request and answer bodies as pydantic models: what /docs and /openapi.json show.

A request body is first checked for its shape here (types, known keys, no lone surrogates:
nochmal/web/schemas.py Body; a refusal is the app's 422 naming the field), then for its
meaning by model.py (a shipped mission, a cell of the board, the players a mission takes),
which also reads imported rooms. Integers are strict: ``"2"`` is not a number of players.
"""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, model_serializer

from nochmal.board import BUILTIN_BOARDS
from nochmal.dice import COLOUR_FACES, NUMBER_FACES
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


class JoinBody(Body):
    """Sit down: a name, and the seat picked (0-based; the lowest free one when left out)."""

    name: StrictStr = Field(..., description=f"The player's name (1-{MAX_NAME} characters, no control characters).",
                            examples=["Anna"])
    seat: Optional[StrictInt] = Field(None, ge=0, description="The seat to take (0-based; people see it from 1): "
                                      "a free one, or a freed one whose sheet it takes over.")


class TapBody(Body):
    """A tap: an edit relative to the seat's sheet as it is on the server (docs/rooms.md, two
    phones on one seat), so taps from two phones on different cells both count."""

    cross: list[StrictStr] = Field(default_factory=list, description='Cells to cross, named like "H4".')
    uncross: list[StrictStr] = Field(default_factory=list, description="Cells to uncross.")
    jokers: StrictInt = Field(0, ge=-1, le=1, description="One joker more (1) or fewer (-1).")
    version: StrictInt = Field(..., ge=0, description="The seat's sheet_version the phone showed when tapped: "
                               "a cell another phone changed the other way since is refused with 409.")
    roll: Optional[StrictInt] = Field(None, ge=1, le=MAX_ROLLS_USED, description="The roll in play the phone "
                                      "showed when tapped: a win by this tap is recorded on it (a late cross of a "
                                      "roll already counted), at most the roll in play.")


class RollsBody(Body):
    """One of: ``roll`` (roll N is done: counted once however often it is sent), ``undo``
    (take roll N back), or ``rolls_used`` (set the count outright, the older body)."""

    roll: Optional[StrictInt] = Field(None, ge=1, le=MAX_ROLLS_USED, description="The roll just finished: "
                                      "counts it once; sent again it changes nothing and says who counted it.")
    undo: Optional[StrictInt] = Field(None, ge=1, le=MAX_ROLLS_USED, description="The last counted roll, "
                                      "to take back.")
    rolls_used: Optional[StrictInt] = Field(None, ge=0, le=MAX_ROLLS_USED, description="Rolls used so far, "
                                            "set outright.")


class RaceBody(Body):
    """A seat's hand-set first / later for a column or colour it completed (competitive)."""

    item: StrictStr = Field(..., description='A column letter ("H") or a colour name ("green").', examples=["H"])
    value: Literal["first", "later", "auto"] = Field(..., description="auto: as the rolls of the completions say.")


class ReopenBody(Body):
    won_on: StrictInt = Field(..., ge=1, description="The roll the room says the mission was won on (a stale "
                              "reopen is refused with 409).")


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


class UndoBody(Body):
    """Take back the seat's last sheet edit (a mis-tap): the sheet version the phone shows."""

    version: StrictInt = Field(..., ge=0, description="The seat's sheet_version last read (a stale undo is "
                               "refused with 409).")


class RollFaces(Body):
    """A roll's dice as nochmal.dice.Roll writes them (``Roll.to_json``)."""

    colours: list[Literal[COLOUR_FACES]] = Field(..., min_length=1, max_length=3, description="The colour dice: "
                                                 "y g b r o, x the joker (3; 2 in a one-player mission).")
    numbers: list[Literal[NUMBER_FACES]] = Field(..., min_length=1, max_length=3, description="The number dice: "
                                                 "1-5, ? the joker.")


class DiceBody(Body):
    """This roll's dice, entered by any seat (docs/rooms.md, this roll's advice)."""

    roll: StrictInt = Field(..., ge=1, le=MAX_ROLLS_USED, description="The roll in play (another one: 409).")
    dice: RollFaces


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
    creator_token: str = Field(..., description="Kept by the phone that made the room: sent as 'Authorization: "
                               "Bearer TOKEN', it frees a seat or makes a new link for it (a lost phone).")


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


def _unset_left_out(data: dict, keys: tuple[str, ...]) -> dict:
    """An answer as the stream sends it: ``keys`` only where they hold something."""
    return {k: v for k, v in data.items() if v is not None or k not in keys}


class Said(BaseModel):
    """A sentence as data, for phones of several languages (words.py; docs/rooms.md,
    Languages): the English msgid and its values (plain, or sentences themselves), said by
    each page with its catalog (/api/i18n/LANG)."""

    msgid: str
    values: dict[str, Any] = Field(default_factory=dict)
    plural: Optional[str] = Field(None, description="A count's words: the English plural, the form picked by `n`.")
    n: Optional[int] = None

    @model_serializer(mode="wrap")
    def _as_sent(self, handler):
        """As words.py sends it on the stream: no plural and n for a sentence without a count."""
        return _unset_left_out(handler(self), ("plural", "n"))


class SheetWarning(BaseModel):
    """A sheet no legal game gives, said on that sheet (docs/rooms.md, A mis-tap)."""

    seat: int = Field(..., description="The seat (0-based; people see the name).")
    sheet: int = Field(..., description="The seat numbered from 1.")
    file: str = Field(..., description="The seat's name (the key `nochmal mission status --json` names its file by).")
    name: str
    cells: list[str] = Field(..., description="The crosses that break it (not connected to column H).")
    problems: list[str] = Field(..., description="What is wrong, in plain words.")
    left_out: bool = Field(..., description="True: the team status leaves the sheet out; false: it counts it "
                           "without `cells`.")
    warning: str = Field(..., description='What the status counted: "Ben\'s sheet is counted without A1: ...".')
    warning_said: Optional[Said] = Field(None, description="`warning` as data, for the page's language.")
    problems_said: list[Said] = Field(default_factory=list, description="`problems` as data.")
    reasons: list[str] = Field(..., description="The check's own words (nochmal.impossible).")


class Aim(BaseModel):
    """What one player should do next, in words (docs/rooms.md, Who should do what)."""

    seat: int
    name: str
    items: list[str] = Field(..., description='As the split names them: "column H", "colour green", "star E2".')
    rolls: int = Field(..., description="About how many rolls the items take on that sheet.")
    helps: Optional[str] = Field(None, description="The seat whose item this player races for.")
    points: Optional[int] = Field(None, description="A score target: the points the items add.")
    text: str = Field(..., description='"Anna: columns G, H and I, about 11 rolls".')
    said: Optional[Said] = Field(None, description="`text` as data, for the page's language.")


class RoomStatus(BaseModel):
    """Mission: the schema of `nochmal mission status --json` plus the team split, the sheet
    warnings and the advice; competitive: scores and the race. Fields not listed pass as they are."""

    model_config = ConfigDict(extra="allow")

    mode: str
    complete: bool = Field(..., description="False: the fewest crosses and the split are still being worked out.")
    impossible: list[SheetWarning] = Field(default_factory=list)
    advice: Optional[list[Aim]] = Field(None, description="Mission, once complete: one aim per seat.")


class SheetSaved(BaseModel):
    version: int
    sheet_version: int
    seat: SeatSheet
    status: RoomStatus = Field(..., description="The room's status after the edit (as in GET /api/rooms/ID).")


class SheetTapped(SheetSaved):
    message: str = Field("", description='What the sheet already showed, if anything: "H4 was already crossed".')
    message_said: Optional[Said] = Field(None, description="`message` as data, for the page's language.")


class SeatFreed(BaseModel):
    version: int
    seat: int
    name: str = Field(..., description="The name the seat keeps with its sheet until a phone sits in it.")


class SheetUndone(SheetSaved):
    undone: str = Field(..., description='What the undo took back, in words ("A1 uncrossed").')
    undone_said: Optional[Said] = Field(None, description="`undone` as data, for the page's language.")


class LastRoll(BaseModel):
    roll: int
    counted_by: Optional[str] = Field(None, description="The name of the seat that counted it (unknown in an "
                                      "imported room).")


class InPlay(BaseModel):
    """The roll in play and its active player (seat order from seat 1): docs/rooms.md, the rolls."""

    roll: Optional[int] = Field(..., description="The roll in play (None: the last roll is counted: a mission's "
                                "budget, a competitive game's end).")
    seat: int = Field(..., description="The active player's seat (0-based; people see the name).")
    name: str
    name_said: Optional[Said] = Field(None, description="A free seat's label as data, for the page's language "
                                      "(absent for a player's name).")
    last: Optional[LastRoll] = Field(..., description="The last counted roll (None before roll 1 is counted).")

    @model_serializer(mode="wrap")
    def _as_sent(self, handler):
        """As rolls.py sends it: ``name_said`` only for a free seat."""
        return _unset_left_out(handler(self), ("name_said",))


class RollsSet(BaseModel):
    version: int
    rolls_used: int
    status: RoomStatus = Field(..., description="The room's status after the count (as in GET /api/rooms/ID).")
    message: str = Field("", description='What happened, in words: "Anna counted roll 5", "Anna already '
                         'counted roll 5", "Undid roll 5 (counted by Anna)".')
    message_said: Optional[Said] = Field(None, description="`message` as data, for the page's language.")
    in_play: Optional[InPlay] = None
    won_on: Optional[int] = None


class Reopened(BaseModel):
    version: int
    won_on: Optional[int]


class HandoverLink(BaseModel):
    seat: int
    url: str = Field(..., description="Open on the other browser: it takes the seat.")
    handover: str = Field(..., description="The one-time secret in the link.")
    qr_svg: str = Field(..., description="The link as a QR code (SVG), for the other phone's camera.")


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
    status: RoomStatus = Field(..., description="Mission: the schema of `nochmal mission status --json` plus the "
                               "team split, the sheet warnings and the advice; competitive: scores and the race.")
    in_play: InPlay
    won_on: Optional[int] = Field(None, description="The roll the mission was won on, kept until a seat reopens it.")
    has_creator: bool = Field(False, description="False: a room made before rooms had creators; any seated phone "
                              "may free a seat or make a new link for it.")
    mission_name: Optional[str] = None
    mission_names: Optional[dict[str, str]] = Field(None, description="The mission's name in each language (de, en, "
                                                    "nl, fr, pl): each phone shows its own.")
    board_labels: dict[str, str] = Field(default_factory=dict, description="The board's name in each language.")
    budget: Optional[int] = None


class AdvisedMove(BaseModel):
    """One player's move with this roll's dice (docs/rooms.md, this roll's advice)."""

    seat: int
    name: str
    active: bool = Field(..., description="The active player: picks first.")
    dice: RollFaces = Field(..., description="The dice this player may use.")
    dice_from: str = Field(..., description='"all six dice" or "what Ben leaves: green, red · 2, ?".')
    dice_from_said: Optional[Said] = Field(None, description="`dice_from` as data, for the page's language.")
    move: str = Field(..., description='The move (nochmal.move notation): "b3 H4 H5 I5", "pass".')
    cells: list[str]
    text: str = Field(..., description='"Anna: blue 3 — cross H4, H5, I5", "Anna: pass".')
    said: Optional[Said] = Field(None, description="`text` as data, for the page's language.")


class RollAdvice(BaseModel):
    version: int = Field(..., description="The room's version of the entry (the event's id).")
    roll: int
    title: str = Field(..., description='"This roll (Roll 5, Ben rolls)".')
    title_said: Optional[Said] = Field(None, description="`title` as data, for the page's language.")
    active: int = Field(..., description="The active player's seat.")
    dice: RollFaces
    seat: int = Field(..., description="The seat that entered the dice.")
    entered_by: str
    moves: list[AdvisedMove] = Field(..., description="Per player, the active player first.")


class RollAdviceKept(BaseModel):
    advice: Optional[RollAdvice] = Field(..., description="None: no dice entered for the roll in play.")
    dice_per_kind: int = Field(..., description="Colour dice the room rolls, and number dice: 3 (2 in a one-player "
                               "mission).")


class ImportedSeat(BaseModel):
    seat: int
    name: str
    seat_token: str
    handover_url: str = Field(..., description="A browser takes this seat by opening it.")


class Imported(BaseModel):
    id: str
    url: str
    creator_token: str = Field(..., description="The importing phone is the new room's creator (see RoomCreated).")
    seats: list[ImportedSeat]
