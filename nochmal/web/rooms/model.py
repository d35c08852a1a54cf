"""Rooms as plain data, and the checks every client request goes through.

A room is a table: a mission (with difficulty and player count) or a plain competitive /
solo game on a board, with up to 6 seats. Every seat owns one sheet. A request's shape is
checked by its model (bodies.py), its meaning here (a shipped mission, a cell of the board),
as is every imported room; every refusal is ONE reason naming the field (``RequestProblem``,
the app's WebError, answered as a 4xx JSON body ``{"error": ..., "field": ...}``), a field
inside a list by its dotted path (``cells.1``) as the app's models name it.

Nothing a client sends names a file (docs/web.md, docs/security.md: nothing in a request is used as a file
path): a mission is a shipped one by id (``shipped_mission``), a board a built-in one by
name (``board_of``).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field
from enum import StrEnum

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


class RequestProblem(WebError):
    """The app's WebError (nochmal/web/errors.py), status first: a request the rooms refuse."""

    def __init__(self, status: int, reason: str, field: str | None = None):
        super().__init__(reason, field, status)


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
        raise RequestProblem(422, f"board must be one of {', '.join(BUILTIN_BOARDS)}", "board")
    return load_board(spec.board)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def need_object(data, what: str = "body") -> dict:
    if not isinstance(data, dict):
        raise RequestProblem(422, f"the {what} must be a JSON object", what)
    return data


def _unknown_keys(data: dict, allowed: set[str]) -> None:
    for key in sorted(set(data) - allowed):
        raise RequestProblem(422, f"unknown field {key!r} (known: {', '.join(sorted(allowed))})", key)


def parse_room_spec(data) -> RoomSpec:
    """``{"mission": "lockstep", "difficulty": "normal", "players": 2}`` or
    ``{"mode": "competitive", "board": "classic", "players": 3}``."""
    data = need_object(data)
    _unknown_keys(data, {"mode", "mission", "difficulty", "players", "board"})
    mode = data.get("mode", RoomMode.MISSION if "mission" in data else None)
    if mode not in MODES:
        raise RequestProblem(422, f"mode must be one of {', '.join(MODES)} (or give a mission)", "mode")
    players = data.get("players")
    if not _is_int(players):
        raise RequestProblem(422, "players must be a whole number", "players")
    if mode == RoomMode.MISSION:
        mission_id = data.get("mission")
        ids = shipped_mission_ids()
        if not isinstance(mission_id, str) or mission_id not in ids:
            raise RequestProblem(422, f"mission must be one of {', '.join(ids)}", "mission")
        difficulty = data.get("difficulty", "normal")
        if difficulty not in DIFFICULTIES:
            raise RequestProblem(422, f"difficulty must be one of {', '.join(DIFFICULTIES)}", "difficulty")
        if players not in PLAYER_COUNTS:
            raise RequestProblem(422, f"a mission has {PLAYER_COUNTS[0]}-{PLAYER_COUNTS[-1]} players, not {players}",
                                 "players")
        mission = shipped_mission(mission_id)
        if "board" in data and data["board"] != mission.board:
            raise RequestProblem(422, f"mission {mission_id} is played on the {mission.board} board", "board")
        return RoomSpec(RoomMode.MISSION, mission.board, players, mission_id, difficulty)
    for key in ("mission", "difficulty"):
        if key in data:
            raise RequestProblem(422, f"{key} belongs to a mission room, not a competitive one", key)
    board = data.get("board", "classic")
    if board not in BUILTIN_BOARDS:
        raise RequestProblem(422, f"board must be one of {', '.join(BUILTIN_BOARDS)}", "board")
    if not 1 <= players <= MAX_SEATS:
        raise RequestProblem(422, f"a game has 1-{MAX_SEATS} players, not {players}", "players")
    return RoomSpec(RoomMode.COMPETITIVE, board, players)


def parse_name(data) -> str:
    data = need_object(data)
    _unknown_keys(data, {"name"})
    return checked_name(data.get("name"), "name")


def checked_name(name, where: str) -> str:
    """A seat's name (a join, a rename, an imported seat), checked as every player's name is."""
    if not isinstance(name, str):
        raise RequestProblem(422, f"{where} must be a non-empty text", where)
    try:
        return player_name(name)
    except ValueError as exc:
        raise RequestProblem(422, f"{where}: {exc}", where) from None


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
    crosses (issue 19: conflicting edits never silently overwrite each other). It is checked
    after the other fields, so that a malformed field is named first."""
    edit = _parse_sheet_fields(data, board, mode)
    if edit.version is None:
        raise RequestProblem(422, "version is missing: send the seat's sheet_version you last saw (GET /api/rooms/ID); "
                                  "a stale edit is then refused (409) instead of overwriting another phone's", "version")
    return edit


def _parse_sheet_fields(data, board: Board, mode: RoomMode) -> SheetEdit:
    data = need_object(data)
    _unknown_keys(data, {"cells", "jokers_used", "later_columns", "later_colours", "text", "version"})
    version = data.get("version")
    if version is not None and not (_is_int(version) and version >= 0):
        raise RequestProblem(422, "version must be a whole number (the sheet version you saw)", "version")
    if "text" in data:
        for key in ("cells", "jokers_used", "later_columns", "later_colours"):
            if key in data:
                raise RequestProblem(422, f"give either text or {key}, not both", key)
        return SheetEdit(typed_sheet_state(data["text"], board, mode, "text"), version, {"text"})
    if "cells" not in data:
        raise RequestProblem(422, "cells is missing (a list of crossed cells like \"H4\")", "cells")
    cells = data["cells"]
    if not isinstance(cells, list):
        raise RequestProblem(422, "cells must be a list of cell names like \"H4\"", "cells")
    crossed = 0
    for k, name in enumerate(cells):
        if not isinstance(name, str):
            raise RequestProblem(422, f"cells.{k} must be a cell name like \"H4\"", f"cells.{k}")
        try:
            crossed |= 1 << board.bit(name)
        except KeyError:
            raise RequestProblem(422, f"cells.{k}: {name[:10]!r} is not a cell of the {board.name} board "
                                      f"(A1..{COLUMN_LETTERS[board.cols - 1]}{board.rows})", f"cells.{k}") from None
    jokers = data.get("jokers_used", 0)
    if not _is_int(jokers) or not 0 <= jokers <= board.jokers:
        raise RequestProblem(422, f"jokers_used must be a whole number 0..{board.jokers}", "jokers_used")
    later_cols = _letters(data.get("later_columns", []), COLUMN_LETTERS[: board.cols], "later_columns", "column letter")
    later_colours = _letters(data.get("later_colours", []), COLOURS, "later_colours", "colour letter (y g b r o)")
    if mode is RoomMode.MISSION and (later_cols or later_colours):
        field_name = "later_columns" if later_cols else "later_colours"
        raise RequestProblem(422, "a mission has no race: every column and colour scores its first value", field_name)
    probe = Sheet(board, crossed)
    if later_cols & ~probe.complete_columns():
        raise RequestProblem(422, "later_columns names a column that is not complete", "later_columns")
    if later_colours & ~probe.complete_colours():
        raise RequestProblem(422, "later_colours names a colour that is not complete", "later_colours")
    return SheetEdit(SheetState(crossed, jokers, later_cols, later_colours), version, set(data))


def typed_sheet_state(text, board: Board, mode: RoomMode, where: str) -> SheetState:
    """A typed sheet from a client (an edit's ``text``, an imported seat) as a SheetState;
    a mission refuses race markers (later_columns / later_colours)."""
    if not isinstance(text, str):
        raise RequestProblem(422, f"{where} must be the typed sheet (7 lines of 15 characters)", where)
    try:
        sheet = parse_typed_sheet(text, board, where)
    except NochmalError as exc:
        raise RequestProblem(422, str(exc), where) from None
    if mode is RoomMode.MISSION and (sheet.cols_lower or sheet.colours_lower):
        raise RequestProblem(422, "a mission has no race: every column scores its first value", where)
    return SheetState(sheet.crossed, sheet.jokers_used, sheet.cols_lower, sheet.colours_lower)


def _letters(value, alphabet: str, where: str, what: str) -> int:
    if not isinstance(value, list):
        raise RequestProblem(422, f"{where} must be a list of {what}s", where)
    mask = 0
    for k, item in enumerate(value):
        if not isinstance(item, str) or len(item) != 1 or item.upper() not in alphabet.upper():
            raise RequestProblem(422, f"{where}.{k} must be a {what}", f"{where}.{k}")
        mask |= 1 << alphabet.upper().index(item.upper())
    return mask


def parse_rolls(data) -> int:
    data = need_object(data)
    _unknown_keys(data, {"rolls_used"})
    value = data.get("rolls_used")
    if not _is_int(value) or not 0 <= value <= MAX_ROLLS_USED:
        raise RequestProblem(422, f"rolls_used must be a whole number 0..{MAX_ROLLS_USED}", "rolls_used")
    return value
