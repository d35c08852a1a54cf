"""This roll's dice in the rooms' store: kept with their advice in the room's log, as an edit of
kind ``dice`` (docs/rooms.md, this roll's advice), so they survive a restart like every
acknowledged edit. Part of RoomStore (store.py), whose transaction and log it uses."""

from __future__ import annotations

import json

from nochmal.i18n import say
from nochmal.web.errors import WebError

DICE_KIND = "dice"  # the kind of the log entry that keeps a roll's dice and advice


class RollDice:
    """RoomStore's dice of the roll in play; every public method is one transaction."""

    def enter_dice(self, code: str, seat: int, roll: int, entry: dict) -> int:
        """Keep ``entry`` (the dice and their advice) for ``roll``, entered by ``seat``; the new
        room version. The roll must still be the one in play (another phone may have counted
        it meanwhile): 409 naming it otherwise. A later entry for the roll replaces this one."""
        with self._tx(code) as db:
            used = db.execute("SELECT rolls_used FROM rooms WHERE code = ?", (code,)).fetchone()
            if used is None:
                raise WebError(say("no room with this code (wrong code, or the room expired)"), "id", 404)
            if used[0] != roll - 1:
                raise WebError(say("roll %(now)s is in play, not roll %(roll)s: these dice are for another roll",
                                   now=used[0] + 1, roll=roll), "roll", 409)
            return self._bump(db, code, seat, DICE_KIND, {"roll": roll, **entry})

    def last_dice(self, code: str) -> tuple[int, dict] | None:
        """The room version and the entry of the dice entered last (for whichever roll), or None."""
        with self._read() as db:
            row = db.execute("SELECT version, payload FROM edits WHERE code = ? AND kind = ? ORDER BY version DESC "
                             "LIMIT 1", (code, DICE_KIND)).fetchone()
        return None if row is None else (row[0], json.loads(row[1]))
