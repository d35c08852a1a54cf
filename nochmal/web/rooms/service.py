"""The rooms service (docs/rooms.md): the storage, the live hub and the status worker behind
the routes, each edit committed, the room told, the answer made in one thread hop."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from fastapi import Depends, Request

from nochmal.i18n import LANGUAGES, Message, said, say
from nochmal.svg import sheets_svg
from nochmal.web.errors import WebError
from nochmal.web.language import board_label
from nochmal.web.limits import RateLimit, env_days
from nochmal.web.rooms import bodies
from nochmal.web.rooms.fanout import shared_hub
from nochmal.web.rooms.hub import StreamLimits
from nochmal.web.rooms.model import RoomMode, SheetState, board_of, parse_roll_request, parse_sheet_edit, shipped_mission
from nochmal.web.rooms.race import completed_items, is_colour, later_items, race_item
from nochmal.web.rooms.request import (checked_body, checked_code, checked_seat, handover_url, qr_svg, room_url,
                                       seat_of, small_number)
from nochmal.web.rooms.rolls import in_play_document, roll_message
from nochmal.web.rooms.status import StatusWorker, claimed_by_others, quick_status, rolls_in_play, room_sheets, seat_label
from nochmal.web.rooms.store import Room, RoomStore, SheetTap, check_holder
from nochmal.web.rooms.words import wire


@dataclass
class RoomSettings:
    rooms_per_minute: int = 10  # room creations per client address and minute
    expire_days: float = field(default_factory=lambda: env_days("NOCHMAL_ROOMS_EXPIRE_DAYS", 30.0))  # rooms untouched this long are deleted
    split_seconds: float = 3.0  # CP-SAT time limit of a team split
    streams: StreamLimits = field(default_factory=StreamLimits)  # live streams open at once (hub.py)
    database: str | None = None  # a postgresql:// URL: live updates shared with the other servers (fanout.py)


class Rooms:
    """The rooms service: storage, the live hub, the status worker, the settings."""

    def __init__(self, data_dir: str | Path, settings: RoomSettings | None = None):
        self.settings = settings or RoomSettings()
        self.store = RoomStore(data_dir, self.settings.database)  # SQLite in data_dir, or PostgreSQL
        self.hub, guard = shared_hub(self.settings.database, self.settings.streams)
        if guard is not None:
            self.hub.redraw = self.redraw
        self.rate = RateLimit(self.settings.rooms_per_minute, "new rooms")
        self.worker = StatusWorker(self.store.room, self._publish_status, self.settings.split_seconds, guard=guard,
                                   room_version=self.store.version)
        if guard is not None:  # every server's edits restart a room's quiet time here (status.py room_changed)
            self.hub.noticed.append(self.worker.room_changed)
        self.store.expire(self.settings.expire_days * 86400)
        self._last_expiry = time.monotonic()

    def _publish_status(self, code: str, data: dict) -> None:
        # no event id: a status may describe an older version than the browser has seen, and
        # its Last-Event-ID must stay the newest edit (else every reconnect needs a snapshot)
        self.hub.publish(code, "status", data)

    def expire_now_and_then(self) -> None:
        if time.monotonic() - self._last_expiry > 3600:
            self._last_expiry = time.monotonic()
            self.store.expire(self.settings.expire_days * 86400)

    # --- documents -------------------------------------------------------------------------
    def room_document(self, room: Room, base_url: str) -> dict:
        spec = room.spec
        board = board_of(spec)
        sheets = room_sheets(room)
        seats = []
        for k in range(spec.players):
            seat = room.seat(k)
            doc = {"seat": k, "name": seat.name if seat else None, "taken": seat is not None and not seat.free,
                   "sheet_version": seat.sheet_version if seat else 0, "score": sheets[k].score()}
            doc.update((seat.state if seat else SheetState()).to_dict(board))
            seats.append(doc)
        status = self.worker.cached(room)
        if status is None:
            status = quick_status(room)
            self.worker.request(room)
        out = {"id": room.code, "url": room_url(base_url, room.code), "mode": spec.mode, "board": spec.board,
               "board_labels": {lang: board_label(spec.board, lang) for lang in LANGUAGES},
               "players": spec.players, "mission": spec.mission, "difficulty": spec.difficulty,
               "rolls_used": room.rolls_used, "version": room.version,
               "expires": room.touched + self.settings.expire_days * 86400, "seats": seats, "status": status,
               "in_play": in_play_document(room), "won_on": room.won_on, "has_creator": room.has_creator}
        if spec.mode is RoomMode.MISSION:
            mission = shipped_mission(spec.mission)
            out["mission_name"] = mission.name
            out["mission_names"] = {lang: mission.name_in(lang) for lang in LANGUAGES}  # each phone its own
            out["budget"] = mission.budget(spec.players, spec.difficulty)
        return out

    def seat_svg(self, room: Room, k: int, lang: str = "en") -> str:
        """Seat k's sheet drawn in ``lang``'s words (a phone's language: docs/rooms.md, Languages)."""
        sheet = room_sheets(room)[k]
        seat = room.seat(k)
        cols, colours = claimed_by_others(room, k)
        title = seat.name if seat else said(say("seat %(n)s (free)", n=k + 1), lang)
        svg = sheets_svg([(title, sheet)], cols, colours, lang=lang)
        return svg[svg.index("<svg"):]

    def redraw(self, code: str, data: dict, lang: str) -> dict:
        """A sheet event made on another server, its sheets drawn in ``lang`` (fanout.py)."""
        room = self.store.room(code)
        return {**data, "svgs": {j: self.seat_svg(room, int(j), lang) for j in data.get("svgs", {})}}

    def publish_sheet(self, room: Room, k: int, redraw_all: bool, doc: dict | None = None) -> None:
        """The edit to every phone, its sheets drawn once per language the room's phones speak."""
        doc = doc or self.room_document(room, "")
        data = {"version": room.version, "seat": k, "sheet": doc["seats"][k], "status": doc["status"],
                "in_play": doc["in_play"], "won_on": doc["won_on"]}
        if redraw_all:  # the race: other seats' first/later values follow from this edit too
            data["seats"] = doc["seats"]
        drawn = range(room.spec.players) if redraw_all else [k]
        words = {lang: {**data, "svgs": {str(j): self.seat_svg(room, j, lang) for j in drawn}}
                 for lang in self.hub.languages(room.code) or {"en"}}
        # (a phone of another language that connects meanwhile gets one of these; its snapshot is its own)
        self.hub.publish(room.code, "sheet", words.get("en") or next(iter(words.values())), room.version,
                         by_language=words)

    def edit_sheet(self, code: str, seat: str, token: str | None, raw: bytes, base_url: str) -> dict:
        """PUT .../seats/{seat}/sheet in one thread hop: the token, then the body, the commit,
        the event to the room, the answer."""
        room = self.store.room(checked_code(code))
        k = checked_seat(seat, room)
        self.store.check_token(code, k, token)
        edit = parse_sheet_edit(checked_body(raw, bodies.SheetBody), board_of(room.spec), room.spec.mode)
        before = [first_claims(room, j) for j in range(room.spec.players)]
        # the room as this edit left it (read in its transaction): its answer and its event
        # carry its own version, not a later edit's made meanwhile
        done, sheet_version = self.store.set_sheet(code, k, edit.state, edit.version, race_overrides(room, edit))
        room, doc = self.hold_win(done, base_url)
        # a seat scoring a column or colour first strikes that first value on the other sheets
        redraw_all = room.spec.mode is RoomMode.COMPETITIVE and \
            [first_claims(room, j) for j in range(room.spec.players)] != before
        self.publish_sheet(room, k, redraw_all, doc)
        return {"version": room.version, "sheet_version": sheet_version, "seat": doc["seats"][k],
                "status": doc["status"]}

    def tap_sheet(self, code: str, seat: str, token: str | None, raw: bytes, base_url: str) -> dict:
        """PATCH .../seats/{seat}/sheet: a tap applied to the sheet as it is now (taps from two
        phones on one seat merge), the room told, the answer; as edit_sheet otherwise."""
        # the room's spec and the seat's holder in one statement, not the whole room: the tap's
        # transaction reads the room it leaves (docs/figures.md, PostgreSQL: what runs per tap)
        spec, holder = self.store.seat_check(checked_code(code), int(seat) if small_number(seat) else -1)
        k = seat_of(seat, spec.players)
        check_holder(k, token, holder)
        body = checked_body(raw, bodies.TapBody)
        board = board_of(spec)
        done = self.store.tap_sheet(code, k, board, parse_tap(body, board), body["version"], spec)
        room, doc = self.hold_win(done.room, base_url, body.get("roll"))  # as edit_sheet: the tap's own version
        if done.changed:
            redraw_all = done.before is not None and \
                [first_claims(room, j) for j in range(spec.players)] != \
                [first_claims(done.before, j) for j in range(spec.players)]
            self.publish_sheet(room, k, redraw_all, doc)
        return {"version": room.version, "sheet_version": done.sheet_version, "seat": doc["seats"][k],
                "status": doc["status"], "message": done.message}

    def free_seat(self, code: str, seat: str, token: str | None) -> dict:
        """DELETE .../seats/{seat}: the creator frees a seat (a lost phone); its sheet waits."""
        room = self.store.room(checked_code(code))
        k = checked_seat(seat, room)
        by = self.store.keeper(code, token)
        name, version = self.store.free_seat(code, k, by)
        room = self.store.room(code)
        self.publish_sheet(room, k, False)
        note = say("%(by)s freed %(name)s's seat: this phone no longer holds it; any phone may sit in it and gets "
                   "its sheet.", by=by, name=name)
        self.hub.publish(code, "seat", {"version": version, "seat": k, "text": str(note), "said": wire(note)}, version)
        return {"version": version, "seat": k, "name": name}

    def handover(self, code: str, seat: str, token: str | None, base_url: str) -> dict:
        """POST .../seats/{seat}/handover: the seat's own phone hands it over (its token dies
        when the link is used); the room's creator makes a new link for a lost phone (the old
        token dies now, and a phone still holding it is told)."""
        room = self.store.room(checked_code(code))
        k = checked_seat(seat, room)
        own = self.store.holds(code, k, token)
        by = seat_label(room, k) if own else self.store.keeper(code, token)
        secret, version = self.store.start_handover(code, k, by, reissue=not own)
        if version is not None:
            note = say("%(by)s made a new link for %(name)s's seat: this phone no longer holds it.", by=by,
                       name=seat_label(room, k))
            self.hub.publish(code, "seat", {"version": version, "seat": k, "text": str(note), "said": wire(note)},
                             version)
        url = handover_url(base_url, code, k, secret)
        return {"seat": k, "url": url, "handover": secret, "qr_svg": qr_svg(url)}

    def hold_win(self, room: Room, base_url: str, tapped_on: int | None = None) -> tuple[Room, dict]:
        """The room and its document, a mission's win recorded the first time its status says
        won: on the roll in play, or the earlier one the winning tap was made on (a late cross
        of a counted roll: docs/rooms.md, the win); kept until a seat reopens it."""
        doc = self.room_document(room, base_url)
        if room.spec.mode is RoomMode.MISSION and room.won_on is None and doc["status"].get("state") == "won":
            roll = rolls_in_play(room) if tapped_on is None else min(tapped_on, rolls_in_play(room))
            if self.store.record_win(room.code, roll) is not None:
                room = self.store.room(room.code)
                doc = self.room_document(room, base_url)
        return room, doc

    def publish_rolls(self, room: Room, doc: dict, message: Message | None) -> None:
        self.hub.publish(room.code, "rolls", {"version": room.version, "rolls_used": room.rolls_used,
                                              "status": doc["status"], "in_play": doc["in_play"], "won_on": doc["won_on"],
                                              **message_fields(message)}, room.version)

    def count_rolls(self, code: str, token: str | None, raw: bytes, base_url: str) -> dict:
        """PUT .../rolls: a roll counted or taken back by its number (a repeat changes nothing
        and says who counted it), or the count set outright; the room told when it changed."""
        self.store.room(checked_code(code))
        k = self.store.seat_of_token(code, token)
        ask = parse_roll_request(checked_body(raw, bodies.RollsBody))
        if ask.kind == "rolls_used":
            self.store.set_rolls(code, k, ask.value)
            changed, message = True, None
        else:
            step = self.store.step_roll(code, k, ask.value, ask.kind == "undo")
            changed, message = step.changed, roll_message(self.store.room(code), step, ask.kind == "undo")
        room, doc = self.hold_win(self.store.room(code), base_url)
        if changed:
            self.publish_rolls(room, doc, message)
        return {"version": room.version, "rolls_used": room.rolls_used, "status": doc["status"],
                **message_fields(message), "in_play": doc["in_play"], "won_on": doc["won_on"]}

    def override_race(self, code: str, seat: str, token: str | None, raw: bytes, base_url: str) -> dict:
        """PUT .../seats/{seat}/race: the seat's own first / later for an item it completed."""
        room = self.store.room(checked_code(code))
        k = checked_seat(seat, room)
        self.store.check_token(code, k, token)
        body = checked_body(raw, bodies.RaceBody)
        if room.spec.mode is not RoomMode.COMPETITIVE:
            raise WebError(say("a mission has no race: every column and colour scores its first value"), "item", 422)
        item = race_item(body["item"], board_of(room.spec))
        self.store.set_race_override(code, k, item, None if body["value"] == "auto" else body["value"])
        room = self.store.room(code)
        doc = self.room_document(room, base_url)
        self.publish_sheet(room, k, True, doc)
        seat_doc = doc["seats"][k]
        return {"version": room.version, "sheet_version": seat_doc["sheet_version"], "seat": seat_doc,
                "status": doc["status"]}

    def reopen(self, code: str, token: str | None, raw: bytes, base_url: str) -> dict:
        """POST .../reopen: the recorded win forgotten, when a seat asks for it on purpose."""
        room = self.store.room(checked_code(code))
        k = self.store.seat_of_token(code, token)
        seen = checked_body(raw, bodies.ReopenBody)["won_on"]
        if room.won_on != seen:
            if room.won_on:
                raise WebError(say("the room's win is on roll %(won)s, not roll %(seen)s: reload and look again",
                                   won=room.won_on, seen=seen), "won_on", 409)
            raise WebError(say("the room is not won, not roll %(seen)s: reload and look again", seen=seen),
                           "won_on", 409)
        self.store.reopen(code, k)
        room = self.store.room(code)
        doc = self.room_document(room, base_url)
        self.publish_rolls(room, doc, say("%(name)s reopened the game (it was won on roll %(roll)s)",
                                          name=seat_label(room, k), roll=seen))
        return {"version": room.version, "won_on": room.won_on}

    def undo_sheet(self, code: str, seat: str, token: str | None, raw: bytes, base_url: str) -> dict:
        """POST .../seats/{seat}/undo: the seat's last sheet edit taken back, said in words."""
        room = self.store.room(checked_code(code))
        k = checked_seat(seat, room)
        self.store.check_token(code, k, token)
        seen = checked_body(raw, bodies.UndoBody)["version"]
        room, sheet_version, before, after = self.store.undo_sheet(code, k, seen)  # as edit_sheet
        version = room.version
        doc = self.room_document(room, base_url)
        self.publish_sheet(room, k, room.spec.mode is RoomMode.COMPETITIVE, doc)
        undone = undo_words(board_of(room.spec), before, after)
        return {"version": version, "sheet_version": sheet_version, "seat": doc["seats"][k], "status": doc["status"],
                "undone": str(undone), "undone_said": wire(undone)}


def message_fields(message: Message | None) -> dict:
    """A note for every phone: ``message`` in English (API clients read it), ``message_said``
    for each page to say in its language (words.py); none: both empty."""
    return {"message": str(message) if message is not None else "", "message_said": wire(message)}


def undo_words(board, before: SheetState, after: SheetState) -> Message:
    """What an undo took back, as a player says it: "A1 uncrossed", "H4 crossed again"."""
    parts = []
    gone, back = before.crossed & ~after.crossed, after.crossed & ~before.crossed
    if gone:
        parts.append(say("%(cells)s uncrossed", cells=" ".join(board.cells_of(gone))))
    if back:
        parts.append(say("%(cells)s crossed again", cells=" ".join(board.cells_of(back))))
    if before.jokers_used != after.jokers_used:
        parts.append(say("jokers used %(before)s → %(after)s", before=before.jokers_used, after=after.jokers_used))
    if (before.later_columns, before.later_colours) != (after.later_columns, after.later_colours):
        parts.append(say("first/later as before"))
    if not parts:
        return say("nothing changed")
    return parts[0] if len(parts) == 1 else Message("%(parts)s", {"parts": tuple(parts)})  # (no words of its own)


def parse_tap(body: dict, board) -> SheetTap:
    """A tap's cells as board masks (422 naming the cell: ``cross.0``); a cell both crossed and
    uncrossed, or a tap that names nothing, is no tap."""
    masks = {}
    for key in ("cross", "uncross"):
        masks[key] = 0
        for k, name in enumerate(body.get(key, [])):
            try:
                masks[key] |= 1 << board.bit(name)
            except KeyError:
                raise WebError(say("%(key)s.%(k)s: %(name)s is not a cell of the %(board)s board", key=key, k=k,
                                   name=repr(name[:10]), board=board.name), f"{key}.{k}", 422) from None
    if masks["cross"] & masks["uncross"]:
        raise WebError(say("a cell cannot be crossed and uncrossed in one tap"), "uncross", 422)
    if not (masks["cross"] or masks["uncross"] or body.get("jokers")):
        raise WebError(say("a tap names cells to cross or uncross, or a joker (1 or -1)"), "cross", 422)
    return SheetTap(masks["cross"], masks["uncross"], body.get("jokers", 0))


def race_overrides(room: Room, edit) -> dict[str, str | None] | None:
    """A competitive edit's hand-set first/later (None in a mission: no race): an edit that
    names later_columns / later_colours sets each complete column / colour of that kind."""
    if room.spec.mode is not RoomMode.COMPETITIVE:
        return None
    board = board_of(room.spec)
    done = completed_items(board, edit.state.crossed)
    later = later_items(board, edit.state.later_columns, edit.state.later_colours)
    kinds = {"later_columns": False, "later_colours": True}
    return {item: ("later" if item in later else "first") for field, colour in kinds.items() if field in edit.fields
            for item in done if is_colour(item) == colour}


def first_claims(room: Room, k: int) -> tuple[int, int]:
    sheet = room_sheets(room)[k]
    return sheet.cols_upper, sheet.colours_upper



async def rooms_service(request: Request) -> Rooms:
    """The rooms service that install() (nochmal/web/rooms/__init__.py) put on the app: the
    rooms' own dependency, beside the service (nochmal/web/deps.py has the app's)."""
    return request.app.state.rooms


RoomsService = Annotated[Rooms, Depends(rooms_service)]


async def room_store(rooms: RoomsService) -> RoomStore:
    return rooms.store


Store = Annotated[RoomStore, Depends(room_store)]
