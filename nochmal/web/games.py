"""Games played on the web: server-side state keyed by an unguessable id.

A ``WebGame`` wraps a table session (``nochmal.table.session.TableSession``, the one the
terminal prints around: same seeded dice, same bot seeds, same undo, same records): the
pages read its state as JSON. After every change the game's record is written atomically
to ``DATA/games/ID.json``, so a reload, a second tab or a restarted server continues
exactly where the game was (the record replays to the same position: dice come from the
seed, bot choices from (seed, roll, seat)).
"""

from __future__ import annotations

import dataclasses
import logging
import re
import secrets
import threading
import time
from pathlib import Path

from nochmal.board import BUILTIN_BOARDS, Board, load_board
from nochmal.dice import resolutions, seeded_rolls
from nochmal.errors import IllegalMoveError, NochmalError, StorageError, quoted
from nochmal.fileio import atomic_write_text, read_text_file
from nochmal.game import rating
from nochmal.i18n import Message, said, say, say_n
from nochmal.modes import Mode
from nochmal.puzzles import known_optimum
from nochmal.seats import is_human, seat_name
from nochmal.move import COLOUR_JOKER, NUMBER_JOKER, Move
from nochmal.record import GameRecord
from nochmal.rules import RuleSettings
from nochmal.table.session import TableSession
from nochmal.table.setup import parse_seats
from nochmal.svg import SheetPicture, pictures_svg, sheet_title
from nochmal.web.limits import prune_folder
from nochmal.web.errors import WebError

log = logging.getLogger(__name__)

ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{16,32}$")
LOG_LIMIT = 60  # moves shown in the game's log
UPCOMING = 3  # rolls shown ahead in an open puzzle


def new_id() -> str:
    return secrets.token_urlsafe(16)


def check_id(value: str, field: str = "id") -> str:
    """An id from a request; never used as a path before it matches ID_PATTERN."""
    if not ID_PATTERN.match(value or ""):
        raise WebError(say("%(field)s %(value)s is not an id of this app", field=field, value=repr(value)), field, 404)
    return value


def builtin_board(name: str, field: str = "board") -> Board:
    """A built-in board by name: the web never loads a board (or anything) from a path."""
    if name not in BUILTIN_BOARDS:
        raise WebError(say("unknown board %(board)s; boards: %(boards)s", board=repr(name), boards=BUILTIN_BOARDS), field)
    return load_board(name)


def builtin_mission(mission_id, field: str = "mission", status: int = 400):
    """A shipped mission by id: the web never reads a mission file (a path is an unknown id)."""
    from nochmal.missions.loader import builtin_missions, shipped_mission

    mission = shipped_mission(mission_id) if isinstance(mission_id, str) else None
    if mission is None:
        raise WebError(say("%(field)s: unknown mission %(mission)s; missions: %(missions)s", field=field,
                           mission=quoted(mission_id), missions=tuple(m.id for m in builtin_missions())), field, status)
    return mission


def web_mission(ref):
    """The mission of a record (uploaded, or a stored game): the resolver the web gives to
    nochmal.missions.coop, so that only shipped ids reach a loader and no file is opened."""
    return builtin_mission(ref, "extra.mission", 422)


def damaged(what: str, item_id: str, exc: Exception) -> WebError:
    """A stored game or record the server cannot read back is the server's fault, not the
    client's: a 500 with the reason, logged for whoever runs the server."""
    log.error("stored %s %s cannot be read: %s", what, item_id, exc)
    return WebError(f"the stored {what} {item_id} cannot be read ({exc}); the server's data folder is damaged",
                    what, 500)


class WebGame:
    """One game: the table session, who may act, and its place on disk."""

    def __init__(self, game_id: str, session: TableSession, kind: str, path: Path | None):
        self.id = game_id
        self.session = session
        self.kind = kind  # "puzzle" or "play"
        self.path = path
        self.lock = threading.Lock()

    # --- building ----------------------------------------------------------------------------
    @classmethod
    def start(cls, game_id: str, path: Path | None, kind: str, seats: list[str], seed: int, board: Board,
              mission=None, difficulty: str | None = None, open_rolls: bool = False) -> "WebGame":
        extra: dict = {}
        if kind == "puzzle":
            extra = {"puzzle": True, "open": open_rolls}
        if mission is not None:
            extra = {"mission": mission.id, "difficulty": difficulty}
        if open_rolls:
            extra["open"] = True  # the record says so, and a reload keeps the rolls shown
        session = TableSession(board, seats, seed, RuleSettings(), mission=mission, difficulty=difficulty,
                               extra=extra, open_rolls=open_rolls)
        web = cls(game_id, session, kind, path)
        web.advance()
        return web

    @classmethod
    def from_record(cls, game_id: str, record: GameRecord, path: Path | None) -> "WebGame":
        """A saved game, replayed to where it stopped (finished ones too)."""
        if "mission_file" in record.extra:
            raise WebError(say("records naming a mission file cannot be continued here"), "record")
        session = TableSession.from_record(dataclasses.replace(record, result=None), str(path or game_id),
                                           missions=web_mission)
        kind = "puzzle" if record.extra.get("puzzle") else "play"
        return cls(game_id, session, kind, path)

    # --- acting ------------------------------------------------------------------------------
    @property
    def game(self):
        return self.session.game

    def advance(self) -> None:
        """Roll the dice and let the bots decide until a human must choose or the game ends."""
        self.session.advance()

    def human_to_move(self) -> int | None:
        return self.session.human_to_move()

    def play(self, text: str) -> Move:
        """Apply a human's move (notation or pass) and let the bots answer."""
        if self.human_to_move() is None:
            raise WebError(say("no human is to move in this game now"), "move", 409)
        try:
            move = Move.parse(text)
        except NochmalError as exc:
            raise WebError(exc.message, "move") from None
        for name in move.cells:
            try:
                self.game.board.bit(name)
            except KeyError:
                raise WebError(say("cell %(cell)s is not on the %(board)s board", cell=name, board=self.game.board.name),
                               "move") from None
        try:
            self.game.apply_move(move)
        except IllegalMoveError as exc:
            raise WebError(say("not allowed: %(reason)s", reason=exc.message), "move", 422) from None
        self.advance()
        return move

    def undo(self) -> None:
        if self.session.undo() is None:
            raise WebError(say("nothing to undo"), "undo", 409)
        self.advance()

    def open_rolls(self) -> None:
        """The open-information switch: every roll is shown from now on (the record says so)."""
        self.session.open_rolls = True
        self.session.extra["open"] = True

    def tap(self, colour_face: str, number_face: str, cells: list[str], lang: str = "en") -> dict:
        """What the selected cells allow with this pick of dice (``tap_answer``)."""
        if self.human_to_move() is None:
            raise WebError(say("no human is to move in this game now"), "cells", 409)
        return tap_answer(self.game, colour_face, number_face, cells, lang)

    # --- reading -----------------------------------------------------------------------------
    def record(self) -> GameRecord:
        return self.session.record()

    def save(self) -> None:
        if self.path is not None:
            atomic_write_text(self.path, self.record().dumps())

    def sheet_svg(self, p: int, game=None, lang: str = "en") -> str:
        game = game or self.game
        claims = game.race_claims
        title = sheet_title(self.session.seats, p, game.sheets[p], lang=lang)
        return pictures_svg([SheetPicture(title, game.sheets[p], claims.columns, claims.colours)], lang=lang)

    def state(self, with_svg: bool = True, lang: str = "en") -> dict:
        """Everything a page shows, as JSON; the keys of `nochmal play --json` plus the view
        (the drawings in ``lang``)."""
        s, g = self.session, self.game
        to_move = g.current_player() if g.current_player() >= 0 else None
        data = s.result()
        data.update({
            "id": self.id, "kind": self.kind, "names": [seat_name(s.seats, p) for p in range(g.n_players)],
            "humans": [is_human(x) for x in s.seats], "roll_limit": g.roll_limit,
            "roll": g.rolls_done + 1 if g.roll is not None else None,
            "to_move": to_move, "human_to_move": self.human_to_move(), "active_player": g.active_player,
            "dice": g.roll.to_json() if g.roll is not None else None,
            "available": g.available_dice().to_json() if to_move is not None else None,
            "jokers_left": [sh.jokers_left for sh in g.sheets],
            "open": s.open_rolls, "upcoming": self._upcoming(), "log": self._log(),
            "can_undo": any(is_human(s.seats[q]) for _, ms in g.history for q, _ in ms),
        })
        if g.mode is Mode.SOLO and g.is_terminal():
            data["rating"] = rating(g.sheets[0].score())
            known = known_optimum(g.board, s.seed, g.rules)  # the shipped campaign's figure, at once
            data["known_best"] = known.to_dict() if known is not None else None
        if s.mission is not None:
            res = s.mission_outcome()
            data["mission"] = {"id": s.mission.id, "name": s.mission.name, "difficulty": s.difficulty,
                               "description": (s.mission.description or "").strip(), **res.to_dict(lang),
                               "text": res.text()}
        if with_svg:
            data["sheets_svg"] = [self.sheet_svg(p, lang=lang) for p in range(g.n_players)]
        return data

    def _upcoming(self) -> list[dict]:
        s, g = self.session, self.game
        if not s.open_rolls:
            return []
        limit = g.roll_limit or 30
        start = g.rolls_done + (1 if g.roll is not None else 0)
        return [r.to_json() for r in seeded_rolls(s.seed, max(0, min(UPCOMING, limit - start)), g.dice_per_kind, start)]

    def all_rolls(self) -> list[dict]:
        """Every roll of the game: open puzzles and finished games only."""
        s, g = self.session, self.game
        if not (s.open_rolls or g.is_terminal()):
            raise WebError(say("the rolls of this game are hidden until it ends (start an open puzzle to see them)"),
                           "rolls", 403)
        return [r.to_json() for r in seeded_rolls(s.seed, g.roll_limit or g.rolls_done, g.dice_per_kind)]

    def _log(self) -> list[dict]:
        out = []
        for t, (roll, moves) in enumerate(self.game.history, 1):
            for p, move in moves:
                out.append({"roll": t, "dice": roll.text(), "player": p,
                            "name": seat_name(self.session.seats, p), "move": str(move)})
        return out[-LOG_LIMIT:]


def tap_answer(game, colour_face: str, number_face: str, cells: list[str], lang: str = "en") -> dict:
    """What the selected cells allow the deciding player of ``game`` with this pick of dice:
    the cells that may be added, the move when the selection is a whole placement, or the
    engine's reason why not, said in ``lang`` (the puzzle and play pages, and the online rooms' seats)."""
    p = game.current_player()
    board = game.board
    dice = game.available_dice()
    if colour_face not in dice.colours:
        raise WebError(say("no colour die %(die)s available (dice: %(dice)s)", die=repr(colour_face), dice=dice.text()),
                       "colour", 422)
    if number_face not in dice.numbers:
        raise WebError(say("no number die %(die)s available (dice: %(dice)s)", die=repr(number_face), dice=dice.text()),
                       "number", 422)
    sheet = game.sheets[p]
    try:
        mask = board.mask_of(cells)
    except KeyError as exc:
        raise WebError(say("cell %(cell)s is not on the %(board)s board", cell=exc.args[0], board=board.name),
                       "cells") from None
    options = resolutions(colour_face, number_face, sheet.jokers_left)
    if not options:
        needs = (colour_face == COLOUR_JOKER) + (number_face == NUMBER_JOKER)
        reason = say("no jokers left: this pick needs %(needs)s, %(left)s left", needs=needs, left=sheet.jokers_left)
        return {"ok": False, "reason": reason.in_language(lang), "extend": [], "move": None}
    extend, complete = 0, None
    for colour, count, _cost in options:
        if len(cells) > count:
            continue
        for placement in sheet.placements(colour, count, game.rules.bridging):
            if placement & mask == mask:
                extend |= placement
                if placement == mask:
                    complete = Move.of(colour, count, cells, colour_face == COLOUR_JOKER,
                                       number_face == NUMBER_JOKER)
    if extend:
        return {"ok": True, "reason": None, "extend": board.cells_of(extend & ~mask),
                "move": str(complete) if complete else None}
    return {"ok": False, "reason": said(_refusal(game, sheet, options, mask, cells), lang), "extend": [], "move": None}


def _refusal(game, sheet, options, mask: int, cells: list[str]) -> Message:
    """The engine's reason a selection can be no part of a legal placement."""
    board = game.board
    if not cells:
        return say("no legal placement with this pick of dice: pick others or pass")
    colours = sorted({c for c, _, _ in options})
    colour = colours[0] if len(colours) == 1 else board.colour_of_bit(board.bit(cells[0]))
    counts = sorted({n for c, n, _ in options if c == colour}) or [len(cells)]
    if len(cells) > counts[-1]:
        return say("too many cells: the pick allows %(allowed)s, %(selected)s selected", allowed=counts[-1],
                   selected=len(cells))
    try:  # the selection on its own, as a placement of its size: the engine names the flaw
        sheet.check_placement(colour, len(cells), mask, game.rules.bridging)
    except IllegalMoveError as exc:
        return exc.message
    want = counts[0]
    for n in counts[1:]:  # "1 or 2 or 3", each "or" in the page's language
        want = say("%(some)s or %(one)s", some=want, one=n)
    return say_n("no legal placement of %(counts)s cell contains %(cells)s",  # the form of the last count: "1 or 2 cells"
                 "no legal placement of %(counts)s cells contains %(cells)s", counts[-1], counts=want, cells=" ".join(cells))


class KeptOnDisk:
    """A folder of ``ID.json`` files kept ``keep_days`` after their last write: pruned at
    start and then at most hourly, when something new is stored (the data folder must not
    grow without end on a long-running server)."""

    def __init__(self, folder: Path | None, keep_days: float):
        self.folder = folder
        if folder is not None:
            make_folder(folder)
        self.keep_days = keep_days
        self._last_prune = float("-inf")
        self.prune_now_and_then()

    def in_memory(self) -> set[str]:
        return set()

    def prune_now_and_then(self) -> int:
        if time.monotonic() - self._last_prune < 3600:
            return 0
        self._last_prune = time.monotonic()
        return prune_folder(self.folder, self.keep_days * 86400, self.in_memory())


def make_folder(folder: Path) -> None:
    """The folder, made if missing; StorageError (one line) if it cannot be: a file in its
    place is never replaced."""
    if folder.exists() and not folder.is_dir():
        raise StorageError(f"{folder}: not a folder, but the web app keeps its files there; "
                           "move it away or give another --data folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"{folder}: cannot create the folder ({exc.strerror or exc}); "
                           "give another --data folder") from None


class GameStore(KeptOnDisk):
    """Games in memory (the most recently used), each also on disk as its record
    (DATA/games/ID.json) for ``keep_days`` after its last move."""

    def __init__(self, folder: Path | None, limit: int = 2000, keep_days: float = 90.0):
        self.games: dict[str, WebGame] = {}
        self.limit = limit
        self.lock = threading.Lock()
        super().__init__(folder, keep_days)

    def in_memory(self) -> set[str]:
        with self.lock:
            return set(self.games)

    def _path(self, game_id: str) -> Path | None:
        return None if self.folder is None else self.folder / f"{game_id}.json"

    def create(self, **kw) -> WebGame:
        game_id = new_id()
        web = WebGame.start(game_id, self._path(game_id), **kw)
        web.save()
        with self.lock:
            if len(self.games) >= self.limit:  # the oldest leave memory; they stay on disk
                self.games.pop(next(iter(self.games)))
            self.games[game_id] = web
        return web

    def get(self, game_id: str) -> WebGame:
        check_id(game_id, "game")
        with self.lock:
            web = self.games.get(game_id)
            if web is not None:  # least recently used leaves memory first: a game in play stays
                self.games[game_id] = self.games.pop(game_id)
        if web is not None:
            return web
        path = self._path(game_id)
        if path is None or not path.is_file():
            raise WebError(say("no game %(id)s (games live as long as the server's data folder)", id=repr(game_id)),
                           "game", 404)
        try:
            text = read_text_file(path, lambda reason: NochmalError(f"game {game_id}: {reason}"))
            web = WebGame.from_record(game_id, GameRecord.loads(text, f"game {game_id}"), path)
        except NochmalError as exc:
            raise damaged("game", game_id, exc) from None
        with self.lock:
            self.games.setdefault(game_id, web)
            return self.games[game_id]


def parse_seat_list(seats: list[str]) -> list[str]:
    try:
        return parse_seats(seats, "seat")
    except NochmalError as exc:
        raise WebError(exc.message, "seats") from None


__all__ = ["WebGame", "GameStore", "WebError", "check_id", "builtin_board", "builtin_mission", "new_id",
           "parse_seat_list", "web_mission", "damaged", "make_folder"]
