"""The rolls and the race in the rooms' store: a roll counted or taken back by its number, a
mission's win kept, and a competitive room's completions with their first / later values
(docs/rooms.md, the rolls and the race). Part of RoomStore (store.py), whose transaction and
log it uses."""

from __future__ import annotations

import json

from nochmal.i18n import say
from nochmal.web.errors import WebError
from nochmal.web.rooms.model import RoomMode, RoomSpec, SheetState, board_of
from nochmal.web.rooms.race import completed_items, item_words, later_items, later_masks, scored_later
from nochmal.web.rooms.records import RaceMark, RollStep


class RaceAndRolls:
    """RoomStore's rolls and race; every public method is one transaction."""

    def _mark_race(self, db, code: str, seat: int, state: SheetState, overrides: dict[str, str | None]) -> None:
        """Competitive: the seat's completions marked with the roll in play (one more than the
        rolls counted: docs/rooms.md, the roll in play), the ones it no longer has dropped,
        ``overrides`` set by hand, then every seat's first/later values derived again. Nothing
        in a mission room (no race): any change of a sheet may call it."""
        spec_text, rolls_used = db.execute("SELECT spec, rolls_used FROM rooms WHERE code = ?", (code,)).fetchone()
        spec = RoomSpec(**json.loads(spec_text))
        if spec.mode is not RoomMode.COMPETITIVE:
            return
        board = board_of(spec)
        done = completed_items(board, state.crossed)
        marked = {item for (item,) in db.execute("SELECT item FROM race WHERE code = ? AND seat = ?", (code, seat))}
        for item in marked - done:
            db.execute("DELETE FROM race WHERE code = ? AND seat = ? AND item = ?", (code, seat, item))
        for item in sorted(done - marked):
            db.execute("INSERT INTO race (code, seat, item, roll) VALUES (?, ?, ?, ?)", (code, seat, item, rolls_used + 1))
        for item, value in overrides.items():
            db.execute("UPDATE race SET override = ? WHERE code = ? AND seat = ? AND item = ?", (value, code, seat, item))
        self._derive_later(db, code, board)

    def _derive_later(self, db, code: str, board) -> None:
        """Every seat's later columns and colours as the race marks give them (race.py)."""
        marks = [RaceMark(*m) for m in db.execute("SELECT seat, item, roll, override FROM race WHERE code = ?", (code,))]
        later = scored_later(marks)
        for (k,) in db.execute("SELECT seat FROM seats WHERE code = ?", (code,)).fetchall():
            cols, colours = later_masks(later.get(k, set()), board)
            db.execute("UPDATE seats SET later_columns = ?, later_colours = ? WHERE code = ? AND seat = ?",
                       (cols, colours, code, k))

    def _import_race(self, db, code: str, seat: int, state: SheetState, spec: RoomSpec, rolls_used: int) -> None:
        """An imported competitive sheet's completions marked on the imported count (their
        rolls are not in the export), its later values kept by hand."""
        if spec.mode is not RoomMode.COMPETITIVE:
            return
        board = board_of(spec)
        later = later_items(board, state.later_columns, state.later_colours)
        for item in sorted(completed_items(board, state.crossed)):
            db.execute("INSERT INTO race (code, seat, item, roll, override) VALUES (?, ?, ?, ?, ?)",
                       (code, seat, item, max(rolls_used, 1), "later" if item in later else None))

    def set_race_override(self, code: str, seat: int, item: str, value: str | None) -> int:
        """A seat's hand-set first / later (None: as the rolls say) for an item it completed."""
        with self._tx(code) as db:
            row = db.execute("SELECT 1 FROM race WHERE code = ? AND seat = ? AND item = ?", (code, seat, item)).fetchone()
            if row is None:
                raise WebError(say("%(item)s is not complete on this sheet", item=item_words(item)), "item", 409)
            db.execute("UPDATE race SET override = ? WHERE code = ? AND seat = ? AND item = ?", (value, code, seat, item))
            spec_text = db.execute("SELECT spec FROM rooms WHERE code = ?", (code,)).fetchone()[0]
            self._derive_later(db, code, board_of(RoomSpec(**json.loads(spec_text))))
            return self._bump(db, code, seat, "race", {"item": item, "override": value})

    def step_roll(self, code: str, seat: int, roll: int, undo: bool) -> RollStep:
        """Count roll ``roll`` as done (``undo`` False) or take it back (True), by its number:
        asked twice (two phones, a double tap), the second is a no-op, never a second count."""
        with self._tx(code) as db:
            used = db.execute("SELECT rolls_used FROM rooms WHERE code = ?", (code,)).fetchone()[0]
            counter = db.execute("SELECT seat FROM counted_rolls WHERE code = ? AND roll = ?", (code, roll)).fetchone()
            counter = counter[0] if counter else None
            target = roll - 1 if undo else roll
            if used == target or (not undo and used > roll) or (undo and used < roll):
                version = db.execute("SELECT version FROM rooms WHERE code = ?", (code,)).fetchone()[0]
                return RollStep(version, used, roll, False, counter)
            if undo and used > roll:
                raise WebError(say("roll %(used)s was counted after roll %(roll)s: take that back first", used=used, roll=roll),
                               "undo", 409)
            if not undo and used < roll - 1:
                raise WebError(say("roll %(now)s is being played, not roll %(roll)s: count that first", now=used + 1,
                                   roll=roll), "roll", 409)
            db.execute("UPDATE rooms SET rolls_used = ? WHERE code = ?", (target, code))
            if undo:
                db.execute("DELETE FROM counted_rolls WHERE code = ? AND roll >= ?", (code, roll))
            else:
                db.execute("INSERT INTO counted_rolls (code, roll, seat) VALUES (?, ?, ?) "
                           "ON CONFLICT (code, roll) DO UPDATE SET seat = excluded.seat", (code, roll, seat))
                counter = seat
            version = self._bump(db, code, seat, "rolls", {"rolls_used": target, "undo" if undo else "roll": roll})
        return RollStep(version, target, roll, True, counter)

    def record_win(self, code: str, roll: int) -> int | None:
        """Keep "won on roll N" (once: a room already won keeps its roll); the new version, or
        None when it was already recorded."""
        with self._tx(code) as db:
            if db.execute("UPDATE rooms SET won_on = ? WHERE code = ? AND won_on IS NULL", (roll, code)).rowcount == 0:
                return None
            return self._bump(db, code, None, "won", {"won_on": roll})

    def reopen(self, code: str, seat: int) -> int:
        """Forget the recorded win: a seat asked for it on purpose (the page confirms first)."""
        with self._tx(code) as db:
            db.execute("UPDATE rooms SET won_on = NULL WHERE code = ?", (code,))
            return self._bump(db, code, seat, "reopen", {})

    def set_rolls(self, code: str, seat: int, rolls_used: int) -> int:
        """The rolls used set outright (the older API body; phones count by number: step_roll)."""
        with self._tx(code) as db:
            db.execute("UPDATE rooms SET rolls_used = ? WHERE code = ?", (rolls_used, code))
            db.execute("DELETE FROM counted_rolls WHERE code = ? AND roll > ?", (code, rolls_used))
            return self._bump(db, code, seat, "rolls", {"rolls_used": rolls_used})
