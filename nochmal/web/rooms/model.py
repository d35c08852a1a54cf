"""Rooms as plain data, and the checks every client request goes through.

A room is a table: a mission (with difficulty and player count) or a plain competitive /
solo game on a board, with up to 6 seats. Every seat owns one sheet. A request's shape is
checked by its model (bodies.py), its meaning here (a shipped mission, a cell of the board),
as is every imported room; every refusal is ONE reason naming the field (the app's
``WebError``, nochmal/web/errors.py, answered as a 4xx JSON body ``{"error": ...,
"field": ...}``), a field inside a list by its dotted path (``cells.1``) as the app's models name it.

Nothing a client sends names a file (docs/web.md, docs/security.md: nothing in a request is used as a file
path): a mission is a shipped one by id (``shipped_mission``), a board a built-in one by
name (``board_of``).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field
from enum import StrEnum

from nochmal.i18n import N_, say
from nochmal.board import BUILTIN_BOARDS, COLOURS, COLUMN_LETTERS, Board, load_board
from nochmal.errors import NochmalError
from nochmal.game import MAX_PLAYERS
from nochmal.missions.loader import builtin_missions, shipped_mission  # noqa: F401 (the rooms' import)
from nochmal.missions.model import DIFFICULTIES, PLAYER_COUNTS, Mission
from nochmal.seats import player_name
from nochmal.sheet import Sheet, parse_typed_sheet
from nochmal.web.errors import WebError

MAX_SEATS = MAX_PLAYERS  # a room seats the players of one game
MAX_ROLLS_USED = 1000  # the rolls counter's bound (far above any game's)
CODE_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"  # no 0/o, 1/l/i: read aloud at a table
CODE_LENGTH = 10  # 31^10 ~ 8e14 codes (~50 bits): not guessable, short enough to type


class RoomMode(StrEnum):
    """What a room plays, as its API text: a co-op mission (nochmal.modes.Mode.COOP) or the
    competitive game (Mode.COMPETITIVE; one seat is a solo score pad)."""

    MISSION = "mission"
    COMPETITIVE = "competitive"


MODES = tuple(RoomMode)


def new_code() -> str:
    """A fresh room code from the OS's secure random source (never sequential)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def new_secret() -> str:
    """A seat token or handover secret (192 bits)."""
    return secrets.token_urlsafe(24)


def secret_hash(secret: str) -> str:
    """Only hashes of tokens are stored: a copied database file cannot edit seats."""
    return hashlib.sha256(secret.encode()).hexdigest()


def valid_code(code: str) -> bool:
    return len(code) == CODE_LENGTH and all(ch in CODE_ALPHABET for ch in code)


@dataclass(frozen=True)
class RoomSpec:
    """What a room plays: ``mode`` a mission (mission id, difficulty) or the competitive game."""

    mode: RoomMode
    board: str
    players: int
    mission: str | None = None
    difficulty: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "mode", RoomMode(self.mode))  # the stored text loads as the member

    def to_dict(self) -> dict:
        return {"mode": self.mode, "board": self.board, "players": self.players,
                "mission": self.mission, "difficulty": self.difficulty}


def shipped_mission_ids() -> list[str]:
    """Rooms play shipped missions only (never a mission file named by a client):
    missions.loader.shipped_mission by one of these ids."""
    return sorted(m.id for m in builtin_missions())


def board_of(spec: RoomSpec) -> Board:
    """The room's board: a built-in one by name (checked by parse_room_spec; a stored room's
    name is checked again, so that no board name ever reaches the file reader)."""
    if spec.board not in BUILTIN_BOARDS:
        raise WebError(say("board must be one of %(boards)s", boards=BUILTIN_BOARDS), "board", 422)
    return load_board(spec.board)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def need_object(data, what: str = "body") -> dict:
    if not isinstance(data, dict):
        raise WebError(say("the %(what)s must be a JSON object", what=what), what, 422)
    return data


def _unknown_keys(data: dict, allowed: set[str]) -> None:
    for key in sorted(set(data) - allowed):
        raise WebError(say("unknown field %(key)s (known: %(known)s)", key=repr(key), known=tuple(sorted(allowed))), key, 422)


def parse_room_spec(data) -> RoomSpec:
    """``{"mission": "lockstep", "difficulty": "normal", "players": 2}`` or
    ``{"mode": "competitive", "board": "classic", "players": 3}``."""
    data = need_object(data)
    _unknown_keys(data, {"mode", "mission", "difficulty", "players", "board"})
    mode = data.get("mode", RoomMode.MISSION if "mission" in data else None)
    if mode not in MODES:
        raise WebError(say("mode must be one of %(modes)s (or give a mission)", modes=tuple(MODES)), "mode", 422)
    players = data.get("players")
    if not _is_int(players):
        raise WebError(say("players must be a whole number"), "players", 422)
    if mode == RoomMode.MISSION:
        mission_id = data.get("mission")
        ids = shipped_mission_ids()
        if not isinstance(mission_id, str) or mission_id not in ids:
            raise WebError(say("mission must be one of %(missions)s", missions=tuple(ids)), "mission", 422)
        difficulty = data.get("difficulty", "normal")
        if difficulty not in DIFFICULTIES:
            raise WebError(say("difficulty must be one of %(difficulties)s", difficulties=tuple(DIFFICULTIES)),
                           "difficulty", 422)
        if players not in PLAYER_COUNTS:
            raise WebError(say("a mission has %(low)s-%(high)s players, not %(players)s", low=PLAYER_COUNTS[0],
                               high=PLAYER_COUNTS[-1], players=players), "players", 422)
        mission = shipped_mission(mission_id)
        if "board" in data and data["board"] != mission.board:
            raise WebError(say("mission %(mission)s is played on the %(board)s board", mission=mission_id,
                               board=mission.board), "board", 422)
        return RoomSpec(RoomMode.MISSION, mission.board, players, mission_id, difficulty)
    for key in ("mission", "difficulty"):
        if key in data:
            raise WebError(say("%(key)s belongs to a mission room, not a competitive one", key=key), key, 422)
    board = data.get("board", "classic")
    if board not in BUILTIN_BOARDS:
        raise WebError(say("board must be one of %(boards)s", boards=BUILTIN_BOARDS), "board", 422)
    if not 1 <= players <= MAX_SEATS:
        raise WebError(say("a game has 1-%(most)s players, not %(players)s", most=MAX_SEATS, players=players),
                       "players", 422)
    return RoomSpec(RoomMode.COMPETITIVE, board, players)


def parse_name(data) -> str:
    data = need_object(data)
    _unknown_keys(data, {"name"})
    return checked_name(data.get("name"), "name")


def checked_name(name, where: str) -> str:
    """A seat's name (a join, a rename, an imported seat), checked as every player's name is."""
    if not isinstance(name, str):
        raise WebError(say("%(where)s must be a non-empty text", where=where), where, 422)
    try:
        return player_name(name)
    except ValueError as exc:
        raise WebError(say("%(where)s: %(why)s", where=where, why=getattr(exc, "message", str(exc))), where, 422) from None


@dataclass(frozen=True)
class SheetState:
    """What a seat has on paper: crossed cells (a board mask), jokers used, and (competitive)
    the complete columns and colours it scored at the later value."""

    crossed: int = 0
    jokers_used: int = 0
    later_columns: int = 0
    later_colours: int = 0

    def sheet(self, board: Board) -> Sheet:
        """The engine sheet; complete columns/colours score first unless marked later."""
        later_cols = self.later_columns & Sheet(board, self.crossed).complete_columns()
        later_colours = self.later_colours & Sheet(board, self.crossed).complete_colours()
        return Sheet(board, self.crossed, self.jokers_used).with_all_completions_scored(later_cols, later_colours)

    def to_dict(self, board: Board) -> dict:
        return {"cells": board.cells_of(self.crossed), "jokers_used": self.jokers_used,
                "later_columns": [COLUMN_LETTERS[c] for c in range(board.cols) if self.later_columns >> c & 1],
                "later_colours": [c for i, c in enumerate(COLOURS) if self.later_colours >> i & 1]}


@dataclass
class SheetEdit:
    state: SheetState
    version: int | None = None  # the seat's sheet version the client saw (required of a PUT: parse_sheet_edit)
    fields: set[str] = field(default_factory=set)


def parse_sheet_edit(data, board: Board, mode: RoomMode) -> SheetEdit:
    """``{"cells": [...], "jokers_used": 0, "later_columns": [...], "later_colours": [...],
    "version": 3}`` or ``{"text": "<typed sheet>", "version": 3}``.

    ``version`` (the seat's ``sheet_version`` the client last saw) is required: a PUT replaces
    the whole sheet, so without it a stale phone would silently overwrite the other phone's
    crosses (docs/rooms.md: conflicting edits never silently overwrite each other). It is checked
    after the other fields, so that a malformed field is named first."""
    edit = _parse_sheet_fields(data, board, mode)
    if edit.version is None:
        raise WebError(say("version is missing: send the seat's sheet_version you last saw (GET /api/rooms/ID); "
                           "a stale edit is then refused (409) instead of overwriting another phone's"), "version", 422)
    return edit


def _parse_sheet_fields(data, board: Board, mode: RoomMode) -> SheetEdit:
    data = need_object(data)
    _unknown_keys(data, {"cells", "jokers_used", "later_columns", "later_colours", "text", "version"})
    version = data.get("version")
    if version is not None and not (_is_int(version) and version >= 0):
        raise WebError(say("version must be a whole number (the sheet version you saw)"), "version", 422)
    if "text" in data:
        for key in ("cells", "jokers_used", "later_columns", "later_colours"):
            if key in data:
                raise WebError(say("give either text or %(key)s, not both", key=key), key, 422)
        return SheetEdit(typed_sheet_state(data["text"], board, mode, "text"), version, {"text"})
    if "cells" not in data:
        raise WebError(say("cells is missing (a list of crossed cells like \"H4\")"), "cells", 422)
    cells = data["cells"]
    if not isinstance(cells, list):
        raise WebError(say("cells must be a list of cell names like \"H4\""), "cells", 422)
    crossed = 0
    for k, name in enumerate(cells):
        if not isinstance(name, str):
            raise WebError(say("cells.%(k)s must be a cell name like \"H4\"", k=k), f"cells.{k}", 422)
        try:
            crossed |= 1 << board.bit(name)
        except KeyError:
            raise WebError(say("cells.%(k)s: %(name)s is not a cell of the %(board)s board (A1..%(last)s)", k=k,
                               name=repr(name[:10]), board=board.name, last=f"{COLUMN_LETTERS[board.cols - 1]}{board.rows}"),
                           f"cells.{k}", 422) from None
    jokers = data.get("jokers_used", 0)
    if not _is_int(jokers) or not 0 <= jokers <= board.jokers:
        raise WebError(say("jokers_used must be a whole number 0..%(most)s", most=board.jokers), "jokers_used", 422)
    later_cols = _letters(data.get("later_columns", []), COLUMN_LETTERS[: board.cols], "later_columns", "column")
    later_colours = _letters(data.get("later_colours", []), COLOURS, "later_colours", "colour")
    if mode is RoomMode.MISSION and (later_cols or later_colours):
        field_name = "later_columns" if later_cols else "later_colours"
        raise WebError(say("a mission has no race: every column and colour scores its first value"), field_name, 422)
    probe = Sheet(board, crossed)
    if later_cols & ~probe.complete_columns():
        raise WebError(say("later_columns names a column that is not complete"), "later_columns", 422)
    if later_colours & ~probe.complete_colours():
        raise WebError(say("later_colours names a colour that is not complete"), "later_colours", 422)
    return SheetEdit(SheetState(crossed, jokers, later_cols, later_colours), version, set(data))


def typed_sheet_state(text, board: Board, mode: RoomMode, where: str) -> SheetState:
    """A typed sheet from a client (an edit's ``text``, an imported seat) as a SheetState;
    a mission refuses race markers (later_columns / later_colours)."""
    if not isinstance(text, str):
        raise WebError(say("%(where)s must be the typed sheet (7 lines of 15 characters)", where=where), where, 422)
    try:
        sheet = parse_typed_sheet(text, board, where)
    except NochmalError as exc:
        raise WebError(exc.message, where, 422) from None
    if mode is RoomMode.MISSION and (sheet.cols_lower or sheet.colours_lower):
        raise WebError(say("a mission has no race: every column scores its first value"), where, 422)
    return SheetState(sheet.crossed, sheet.jokers_used, sheet.cols_lower, sheet.colours_lower)


# the refusals of a list of letters (_letters), whole sentences per kind of letter
LETTER_WORDS = {
    "column": (N_("%(where)s must be a list of column letters"), N_("%(where)s.%(k)s must be a column letter")),
    "colour": (N_("%(where)s must be a list of colour letters (y g b r o)"),
               N_("%(where)s.%(k)s must be a colour letter (y g b r o)")),
}


def _letters(value, alphabet: str, where: str, what: str) -> int:
    not_list, not_letter = LETTER_WORDS[what]
    if not isinstance(value, list):
        raise WebError(say(not_list, where=where), where, 422)
    mask = 0
    for k, item in enumerate(value):
        if not isinstance(item, str) or len(item) != 1 or item.upper() not in alphabet.upper():
            raise WebError(say(not_letter, where=where, k=k), f"{where}.{k}", 422)
        mask |= 1 << alphabet.upper().index(item.upper())
    return mask


@dataclass(frozen=True)
class RollRequest:
    """A PUT .../rolls: ``roll`` N done, ``undo`` N, or ``rolls_used`` set outright."""

    kind: str
    value: int


ROLL_KINDS = ("roll", "undo", "rolls_used")


def parse_roll_request(data) -> RollRequest:
    """``{"roll": 5}`` (roll 5 is done), ``{"undo": 5}`` (take it back) or ``{"rolls_used": 5}``."""
    data = need_object(data)
    _unknown_keys(data, set(ROLL_KINDS))
    given = [k for k in ROLL_KINDS if k in data]
    if len(given) != 1:
        raise WebError(say("give one of roll (the roll just finished), undo (the roll to take back) or rolls_used"),
                       given[1] if given else "roll", 422)
    kind = given[0]
    if kind == "rolls_used":
        return RollRequest(kind, parse_rolls(data))
    value = data[kind]
    if not _is_int(value) or not 1 <= value <= MAX_ROLLS_USED:
        raise WebError(say("%(key)s must be a roll number 1..%(most)s", key=kind, most=MAX_ROLLS_USED), kind, 422)
    return RollRequest(kind, value)


def parse_rolls(data) -> int:
    data = need_object(data)
    _unknown_keys(data, {"rolls_used"})
    value = data.get("rolls_used")
    if not _is_int(value) or not 0 <= value <= MAX_ROLLS_USED:
        raise WebError(say("rolls_used must be a whole number 0..%(most)s", most=MAX_ROLLS_USED), "rolls_used", 422)
    return value
