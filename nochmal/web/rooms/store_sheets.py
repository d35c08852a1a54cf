"""A seat's sheet in the rooms' store: replaced, tapped (two phones on one seat merge), a
mis-tap undone (docs/rooms.md). Part of RoomStore (store.py), whose transaction, log and race
marks it uses."""

from __future__ import annotations

import json

from nochmal.i18n import say, say_n
from nochmal.web.errors import WebError
from nochmal.web.rooms.model import RoomMode, RoomSpec, SheetState
from nochmal.web.rooms.records import Room, SheetTap, TapDone


class SheetEdits:
    """RoomStore's sheet edits; every method is one transaction."""

    def set_sheet(self, code: str, seat: int, state: SheetState, seen_version: int | None,
                  overrides: dict[str, str | None] | None = None) -> tuple[Room, int]:
        """Store a seat's sheet; with ``seen_version`` refuse (409) when another phone on the
        same seat changed it meanwhile. ``overrides`` (a competitive room's, else None): the
        race is marked in the same transaction (_mark_race). Returns (the room as this edit
        left it, read in its transaction: an edit racing it is not in it; the sheet version)."""
        with self._tx(code) as db:
            row = db.execute("SELECT sheet_version, name FROM seats WHERE code = ? AND seat = ?",
                             (code, seat)).fetchone()
            if row is None:
                raise WebError(say("seat %(seat)s is not taken in this room", seat=seat + 1), "seat", 404)
            if seen_version is not None and seen_version != row[0]:
                raise WebError(say("%(name)s's sheet changed on another phone (sheet version %(now)s, yours was made on "
                                   "version %(seen)s): read it again before replacing it", name=row[1], now=row[0],
                                   seen=seen_version), "version", 409)
            sheet_version = row[0] + 1
            db.execute("UPDATE seats SET crossed = ?, jokers_used = ?, later_columns = ?, later_colours = ?, "
                       "sheet_version = ? WHERE code = ? AND seat = ?",
                       (f"{state.crossed:x}", state.jokers_used, state.later_columns, state.later_colours,
                        sheet_version, code, seat))
            if overrides is not None:
                self._mark_race(db, code, seat, state, overrides)
            payload = {"crossed": f"{state.crossed:x}", "jokers_used": state.jokers_used,
                       "later_columns": state.later_columns, "later_colours": state.later_colours,
                       "sheet_version": sheet_version}
            self._bump(db, code, seat, "sheet", payload)
            return self._room(code, db), sheet_version

    def tap_sheet(self, code: str, seat: int, board, tap: SheetTap, seen_version: int,
                  spec: RoomSpec | None = None) -> TapDone:
        """A tap applied to the seat's sheet as it is now, in one transaction (docs/rooms.md, two
        phones on one seat): taps on other cells from another phone meanwhile are kept, a tap
        the sheet already shows changes nothing. Refused (409, in the seat's name) only for a
        real conflict: a cell the tap changes that another phone changed the other way since
        the sheet version the tapping phone showed. ``spec``: the room's, as the caller read it
        (it never changes): a mission's tap then skips the race unread, and a competitive
        tap's TapDone has the room before it too (read in the same transaction)."""
        with self._tx(code) as db:
            prior = self._room(code, db) if spec is not None and spec.mode is RoomMode.COMPETITIVE else None
            row = db.execute("SELECT crossed, jokers_used, later_columns, later_colours, sheet_version, name "
                             "FROM seats WHERE code = ? AND seat = ?", (code, seat)).fetchone()
            if row is None:
                raise WebError(say("seat %(seat)s is not taken in this room", seat=seat + 1), "seat", 404)
            now = SheetState(int(row[0], 16), row[1], row[2], row[3])
            # the edits since the tapping phone's version: none to read when it showed the latest
            # (a tap late in a game would otherwise parse every earlier edit of the seat)
            since = _states_since(db, code, seat, seen_version) if seen_version < row[4] else []
            _refuse_conflict(board, row[5], now.crossed, tap, since)
            jokers = now.jokers_used + tap.jokers
            if not 0 <= jokers <= board.jokers:
                raise WebError(say("%(name)s has no joker crossed off to take back", name=row[5]) if jokers < 0 else
                               say("%(name)s has crossed off all %(jokers)s jokers", name=row[5], jokers=board.jokers),
                               "jokers", 409)
            after = SheetState((now.crossed | tap.cross) & ~tap.uncross, jokers, now.later_columns, now.later_colours)
            already = _already_words(board, now.crossed, tap)
            if after == now:
                room = self._room(code, db)
                return TapDone(room.version, row[4], False, already, room, prior)
            sheet_version = row[4] + 1
            db.execute("UPDATE seats SET crossed = ?, jokers_used = ?, sheet_version = ? WHERE code = ? AND seat = ?",
                       (f"{after.crossed:x}", after.jokers_used, sheet_version, code, seat))
            if spec is None or spec.mode is RoomMode.COMPETITIVE:
                self._mark_race(db, code, seat, after, {})
            payload = {"crossed": f"{after.crossed:x}", "jokers_used": after.jokers_used,
                       "later_columns": after.later_columns, "later_colours": after.later_colours,
                       "sheet_version": sheet_version,
                       "tap": {"cross": board.cells_of(tap.cross), "uncross": board.cells_of(tap.uncross),
                               "jokers": tap.jokers}}
            version = self._bump(db, code, seat, "sheet", payload)
            return TapDone(version, sheet_version, True, already, self._room(code, db), prior)

    def undo_sheet(self, code: str, seat: int, seen_version: int) -> tuple[Room, int, SheetState, SheetState]:
        """Take back the seat's last sheet edit still in effect (docs/rooms.md, *A mis-tap*):
        the sheet as it was before it, stored as an edit of its own (logged, durable); a
        second undo goes one edit further back, it never redoes. 409 when the phone saw
        another sheet version or nothing is left to take back. Returns (the room as the undo
        left it, read in its transaction; the sheet version, the sheet before the undo, after it)."""
        with self._tx(code) as db:
            row = db.execute("SELECT crossed, jokers_used, later_columns, later_colours, sheet_version FROM seats "
                             "WHERE code = ? AND seat = ?", (code, seat)).fetchone()
            if row is None:
                raise WebError(say("seat %(seat)s is not taken in this room", seat=seat + 1), "seat", 404)
            if seen_version != row[4]:
                raise WebError(say("this sheet changed on another phone meanwhile: look at it again, then undo"),
                               "version", 409)
            found = _before_last_edit(db, code, seat)
            if found is None:
                raise WebError(say("nothing to undo on this sheet"), "undo", 409)
            undone, before = found
            sheet_version = row[4] + 1
            db.execute("UPDATE seats SET crossed = ?, jokers_used = ?, later_columns = ?, later_colours = ?, "
                       "sheet_version = ? WHERE code = ? AND seat = ?",
                       (f"{before.crossed:x}", before.jokers_used, before.later_columns, before.later_colours,
                        sheet_version, code, seat))
            self._mark_race(db, code, seat, before, {})  # a completion undone leaves the race
            payload = {"crossed": f"{before.crossed:x}", "jokers_used": before.jokers_used,
                       "later_columns": before.later_columns, "later_colours": before.later_colours,
                       "sheet_version": sheet_version, "undoes": undone}
            self._bump(db, code, seat, "undo", payload)
            return self._room(code, db), sheet_version, SheetState(int(row[0], 16), row[1], row[2], row[3]), before


def _states_since(db, code: str, seat: int, seen_version: int) -> list[int]:
    """The seat's crossed cells after each sheet edit since sheet version ``seen_version``
    (every edit logs the whole sheet)."""
    rows = db.execute("SELECT payload FROM edits WHERE code = ? AND seat = ? AND kind IN ('sheet', 'undo') "
                      "ORDER BY version", (code, seat))
    states = (json.loads(payload) for (payload,) in rows)
    return [int(data["crossed"], 16) for data in states if data.get("sheet_version", 0) > seen_version]


def _refuse_conflict(board, name: str, crossed: int, tap: SheetTap, since: list[int]) -> None:
    """409 when a cell the tap would change was changed the other way on another phone since the
    tapping phone's version: crossed there and uncrossed again, or the reverse."""
    ever_crossed = ever_clear = 0
    for state in since:
        ever_crossed |= state
        ever_clear |= ~state
    undone = tap.cross & ~crossed & ever_crossed  # the other phone crossed it, then uncrossed it
    redone = tap.uncross & crossed & ever_clear   # the other phone uncrossed it, then crossed it again
    if undone or redone:
        cells = board.cells_of(undone or redone)
        values = {"name": name, "cells": tuple(cells)}
        if undone:
            raise WebError(say_n("%(name)s's sheet: %(cells)s was just uncrossed on another phone; tap it again to "
                                 "cross it", "%(name)s's sheet: %(cells)s were just uncrossed on another phone; tap "
                                 "them again to cross them", len(cells), **values), "cross", 409)
        raise WebError(say_n("%(name)s's sheet: %(cells)s was just crossed again on another phone; tap it again to "
                             "uncross it", "%(name)s's sheet: %(cells)s were just crossed again on another phone; "
                             "tap them again to uncross them", len(cells), **values), "uncross", 409)


def _already_words(board, crossed: int, tap: SheetTap) -> str:
    """The cells a tap asked for that the sheet already showed: "H4 was already crossed"."""
    parts = []
    for mask, what in ((tap.cross & crossed, "crossed"), (tap.uncross & ~crossed, "uncrossed")):
        cells = board.cells_of(mask)
        if cells:
            parts.append(f"{', '.join(cells)} {'was' if len(cells) == 1 else 'were'} already {what}")
    return "; ".join(parts)


def _before_last_edit(db, code: str, seat: int) -> tuple[int, SheetState] | None:
    """The version of the seat's last sheet edit not yet undone, and the sheet before it
    (every edit logs the whole sheet; a join starts from an empty one); None when there is
    none, or the sheet before it is not in the log (an imported seat's first edit)."""
    rows = db.execute("SELECT version, kind, payload FROM edits WHERE code = ? AND seat = ? "
                      "AND kind IN ('join', 'sheet', 'undo') ORDER BY version DESC", (code, seat))
    undone: set[int] = set()
    target = None
    for version, kind, payload in rows:
        data = json.loads(payload)
        if kind == "join":
            return None if target is None else (target, SheetState())
        if target is not None:
            return target, SheetState(int(data["crossed"], 16), data["jokers_used"], data["later_columns"],
                                      data["later_colours"])
        if kind == "undo":
            undone.add(data["undoes"])
        elif version not in undone:
            target = version
    return None
