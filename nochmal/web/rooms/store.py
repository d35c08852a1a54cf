"""Rooms, seats and every edit, on either database (store_db.py: SQLite in the data folder, or
PostgreSQL): every method is one transaction, committed before the request that made it is
answered, so a server killed at any moment keeps every edit it acknowledged. Seat tokens and
handover secrets are stored only as SHA-256 hashes. Crossed cells are stored as hex text
(105 bits fit neither database's integer). The tables: store_schema.py.
"""

from __future__ import annotations

import hmac
import json
import logging
import time
from pathlib import Path

from nochmal.i18n import N_, Message, say, say_n
from nochmal.web.errors import WebError
from nochmal.web.rooms.model import MAX_SEATS, RoomSpec, SheetState, new_code, new_secret, secret_hash
from nochmal.web.rooms.records import RaceMark, RollStep, Room, Seat, SheetTap, TapDone
from nochmal.web.rooms.store_db import Database
from nochmal.web.rooms.store_open import open_database
from nochmal.web.rooms.store_dice import RollDice
from nochmal.web.rooms.store_race import RaceAndRolls
from nochmal.web.rooms.store_schema import DB_NAME, PART, STEPS
from nochmal.web.rooms.store_sheets import SheetEdits

__all__ = ["RaceMark", "RollStep", "Room", "RoomStore", "Seat", "SheetTap", "TapDone"]
log = logging.getLogger(__name__)


class RoomStore(SheetEdits, RaceAndRolls, RollDice):  # RollDice: this roll's dice (store_dice.py)
    """All room data; every method is one transaction. The sheets' edits are in
    store_sheets.py, the rolls and the race in store_race.py, the tables in store_schema.py."""

    def __init__(self, data_dir: str | Path | None = None, url: str | None = None, database: Database | None = None):
        """On ``database``, else on PostgreSQL at ``url``, else on the SQLite file in ``data_dir``
        (None: in memory, the app without a data folder; tests); its tables migrated to this
        version. A database that cannot be used is a StorageError naming it (nothing written)."""
        self.db = database if database is not None else open_database(data_dir, url, DB_NAME)
        self.path = getattr(self.db, "path", None)  # the SQLite file, if it is one
        self.db.migrate(PART, STEPS)

    def close(self) -> None:
        self.db.close()

    def _tx(self, code: str | None = None):
        """``with store._tx(code) as db``: a write transaction on room ``code`` (None: one
        that makes or deletes rooms), store_db.py Database.tx."""
        return self.db.tx(code)

    def _read(self):
        """``with store._read() as db``: one snapshot for all its reads."""
        return self.db.read()

    # --- reading ---------------------------------------------------------------------------
    def room(self, code: str) -> Room:
        """The room, or WebError 404 (a wrong code and a missing room look the same)."""
        with self._read() as db:
            return self._room(code, db)

    @staticmethod
    def _exists(code: str, db) -> None:
        """WebError 404 as ``_room`` says it, with one query instead of the room's four (a
        tap's token check: docs/figures.md, PostgreSQL)."""
        if db.execute("SELECT 1 FROM rooms WHERE code = ?", (code,)).fetchone() is None:
            raise WebError(say("no room with this code (wrong code, or the room expired)"), "id", 404)

    def _room(self, code: str, db) -> Room:
        """The room in three statements (the seat that counted the roll read with the room's row)."""
        row = db.execute("SELECT spec, rolls_used, version, created, touched, won_on, creator_hash IS NOT NULL, "
                         "creator_seat, (SELECT seat FROM counted_rolls c WHERE c.code = rooms.code "
                         "AND c.roll = rooms.rolls_used) FROM rooms WHERE code = ?", (code,)).fetchone()
        if row is None:
            raise WebError(say("no room with this code (wrong code, or the room expired)"), "id", 404)
        seats = tuple(
            Seat(k, name, SheetState(int(crossed, 16), jokers, lcols, lcolours), sv, bool(free))
            for k, name, crossed, jokers, lcols, lcolours, sv, free in db.execute(
                "SELECT seat, name, crossed, jokers_used, later_columns, later_colours, sheet_version, free "
                "FROM seats WHERE code = ? ORDER BY seat", (code,)))
        race = tuple(RaceMark(*mark) for mark in db.execute(
            "SELECT seat, item, roll, override FROM race WHERE code = ? ORDER BY seat, item", (code,)))
        return Room(code, RoomSpec(**json.loads(row[0])), row[1], row[2], row[3], row[4], seats, row[5],
                    row[8], race, bool(row[6]), row[7])

    def version(self, code: str) -> int | None:
        """The room's version now (None: no such room), one statement: whether a room read
        before is still the room (status.py StatusWorker)."""
        rows = self.db.fetch("SELECT version FROM rooms WHERE code = ?", (code,))
        return rows[0][0] if rows else None

    def seat_check(self, code: str, seat: int) -> tuple[RoomSpec, tuple[str, str] | None]:
        """The room's spec and seat ``seat``'s (token hash, name), None when no seat row is
        there; one statement (a tap's checks need no snapshot of the whole room: docs/figures.md,
        PostgreSQL); WebError 404 as ``_room`` says it."""
        rows = self.db.fetch("SELECT r.spec, s.token_hash, s.name FROM rooms r LEFT JOIN seats s "
                             "ON s.code = r.code AND s.seat = ? WHERE r.code = ?", (seat, code))
        if not rows:
            raise WebError(say("no room with this code (wrong code, or the room expired)"), "id", 404)
        spec, token_hash, name = rows[0]
        return RoomSpec(**json.loads(spec)), (token_hash, name) if token_hash is not None else None

    # --- writing ---------------------------------------------------------------------------
    def create_room(self, spec: RoomSpec, now: float | None = None, creator: str | None = None) -> str:
        """A new room; ``creator`` the token of the phone that made it (kept as its hash: it
        may free a seat or make a new link for it, docs/rooms.md, seats)."""
        with self._tx() as db:
            code = self._insert_room(db, spec, time.time() if now is None else now)
            if creator is not None:
                db.execute("UPDATE rooms SET creator_hash = ? WHERE code = ?", (secret_hash(creator), code))
            return code

    def _insert_room(self, db, spec: RoomSpec, now: float) -> str:
        """A new room with a fresh code, inside the caller's transaction."""
        for _ in range(8):
            code = new_code()
            if db.execute("SELECT 1 FROM rooms WHERE code = ?", (code,)).fetchone() is None:
                break
        else:  # pragma: no cover - 8 collisions in 8e14 codes
            raise WebError(say("could not draw a free room code, try again"), None, 503)
        db.execute("INSERT INTO rooms (code, spec, created, touched) VALUES (?, ?, ?, ?)",
                   (code, json.dumps(spec.to_dict()), now, now))
        return code

    def add_seat(self, code: str, name: str, seat: int | None = None,
                 creator: str | None = None) -> tuple[int, str, int]:
        """``seat`` (the lowest free one when None) for ``name``: (seat, token, room version).
        A freed seat's sheet goes to the phone that sits in it (docs/rooms.md, seats: the paper
        stays on the table). ``creator``: the token this phone made the room with, if it sent
        one; the room then knows the creator's seat, and a used link names it."""
        token = new_secret()
        with self._tx(code) as db:
            room = self._room(code, db)
            limit = min(room.spec.players, MAX_SEATS)
            seat = self._seat_to_take({s.seat: s for s in room.seats if not s.free}, limit, seat)
            if room.seat(seat) is None:
                db.execute("INSERT INTO seats (code, seat, name, token_hash) VALUES (?, ?, ?, ?)",
                           (code, seat, name, secret_hash(token)))
            else:  # "sit", not "join": an undo goes back through the sheet's edits, not to an empty sheet
                db.execute("UPDATE seats SET name = ?, token_hash = ?, free = 0, handover_hash = NULL "
                           "WHERE code = ? AND seat = ?", (name, secret_hash(token), code, seat))
            if creator and self._is_creator(db, code, creator):
                db.execute("UPDATE rooms SET creator_seat = ? WHERE code = ?", (seat, code))
            version = self._bump(db, code, seat, "join" if room.seat(seat) is None else "sit", {"name": name})
        return seat, token, version

    @staticmethod
    def _seat_to_take(held: dict[int, Seat], limit: int, seat: int | None) -> int:
        """The seat a joiner gets: the one picked if no phone holds it, else the lowest free."""
        if seat is None:
            free = [k for k in range(limit) if k not in held]
            if not free:
                raise WebError(say_n("the room is full (%(n)s seat); ask a player to hand a seat over, or the room's "
                                     "creator to free one", "the room is full (%(n)s seats); ask a player to hand a "
                                     "seat over, or the room's creator to free one", limit), None, 409)
            return free[0]
        if not 0 <= seat < limit:
            raise WebError(say("there is no seat %(seat)s in this room (seats 1 to %(limit)s)", seat=seat + 1,
                               limit=limit), "seat", 404)
        if seat in held:
            raise WebError(say("seat %(seat)s is taken by %(name)s; pick a free seat", seat=seat + 1,
                               name=held[seat].name),
                           "seat", 409)
        return seat

    @staticmethod
    def _is_creator(db, code: str, token: str) -> bool:
        row = db.execute("SELECT creator_hash FROM rooms WHERE code = ?", (code,)).fetchone()
        return bool(row and row[0] and secrets_equal(row[0], secret_hash(token)))

    def keeper(self, code: str, token: str | None) -> str:
        """Who may free a seat or make a new link for it (docs/rooms.md, seats): the phone that
        made the room; in a room made before rooms had creators, any seated phone. Their name
        as a used link says it ("ask Anna"); 401 without a token, 403 with another one."""
        if not token:
            raise WebError(say("a token is needed: send 'Authorization: Bearer TOKEN'"), "authorization", 401)
        with self._read() as db:
            room = self._room(code, db)
            if room.has_creator:
                if not self._is_creator(db, code, token):
                    raise WebError(say("only the phone that made the room can free a seat or make a new link for it"),
                                   "authorization", 403)
                seat = room.seat(room.creator_seat) if room.creator_seat is not None else None
                return seat.name if seat is not None else CREATOR
            row = db.execute("SELECT name FROM seats WHERE code = ? AND token_hash = ? AND free = 0",
                             (code, secret_hash(token))).fetchone()
        if row is None:
            raise WebError(say("only a phone holding a seat of this room can free a seat or make a new link for it"),
                           "authorization", 403)
        return row[0]

    def holds(self, code: str, seat: int, token: str | None) -> bool:
        """Whether ``token`` holds ``seat`` (no refusal: a hand-over then asks who else may act)."""
        if not token:
            return False
        with self._read() as db:
            row = db.execute("SELECT token_hash FROM seats WHERE code = ? AND seat = ?", (code, seat)).fetchone()
        return row is not None and secrets_equal(row[0], secret_hash(token))

    def free_seat(self, code: str, seat: int, by: str) -> tuple[str, int]:
        """No phone holds the seat any more (its token and any hand-over link die); its sheet and
        name stay for the next phone to sit in it. Returns (its name, room version)."""
        with self._tx(code) as db:
            row = db.execute("SELECT name, free FROM seats WHERE code = ? AND seat = ?", (code, seat)).fetchone()
            if row is None or row[1]:
                raise WebError(say("seat %(seat)s is already free", seat=seat + 1), "seat", 409)
            db.execute("UPDATE seats SET free = 1, token_hash = ?, handover_hash = NULL WHERE code = ? AND seat = ?",
                       (secret_hash(new_secret()), code, seat))
            return row[0], self._bump(db, code, seat, "free", {"by": by})

    def check_token(self, code: str, seat: int, token: str | None) -> None:
        """401 without a token (no query), 404 for a seat not taken, 403 with a token that does
        not hold this seat (check_holder)."""
        check_holder(seat, token, self.seat_check(code, seat)[1] if token else None)

    def seat_of_token(self, code: str, token: str | None) -> int:
        """The seat a token holds in this room (401/403 otherwise)."""
        if not token:
            raise WebError(say("a seat token is needed: send 'Authorization: Bearer TOKEN'"), "authorization", 401)
        with self._read() as db:
            self._exists(code, db)
            row = db.execute("SELECT seat FROM seats WHERE code = ? AND token_hash = ?",
                             (code, secret_hash(token))).fetchone()
        if row is None:
            raise WebError(say("this token holds no seat in this room"), "authorization", 403)
        return row[0]

    def rename(self, code: str, seat: int, name: str) -> int:
        with self._tx(code) as db:
            db.execute("UPDATE seats SET name = ? WHERE code = ? AND seat = ?", (name, code, seat))
            return self._bump(db, code, seat, "rename", {"name": name})

    def start_handover(self, code: str, seat: int, by: str, reissue: bool = False) -> tuple[str, int | None]:
        """A one-time secret that lets another phone take the seat; ``by`` who made it (a used
        link says whom to ask). The seat's own phone hands it over: its token dies when the link
        is used. ``reissue`` (the room's creator, for a lost phone): the old token dies now, and
        the room's version moves (the old phone is told). Returns (secret, room version or None)."""
        secret = new_secret()
        with self._tx(code) as db:
            sets = "handover_hash = ?, handover_by = ?" + (", token_hash = ?" if reissue else "")
            args = (secret_hash(secret), by) + ((secret_hash(new_secret()),) if reissue else ())
            if db.execute(f"UPDATE seats SET {sets} WHERE code = ? AND seat = ? AND free = 0",
                          (*args, code, seat)).rowcount == 0:
                raise WebError(say("seat %(seat)s is free: a phone takes it by sitting down, no link needed",
                                   seat=seat + 1), "seat", 409)
            version = self._bump(db, code, seat, "reissue", {"by": by}) if reissue else None
        return secret, version

    def claim_handover(self, code: str, seat: int, secret: str) -> tuple[str, int]:
        """The seat for the phone that opened its hand-over link: a new token, the old one dead.
        A link used before, or replaced, says so and whom to ask (docs/rooms.md, seats)."""
        token = new_secret()
        with self._tx(code) as db:
            row = db.execute("SELECT handover_hash, handover_used, handover_by, name, free FROM seats "
                             "WHERE code = ? AND seat = ?", (code, seat)).fetchone()
            if row is None:
                raise WebError(say("seat %(seat)s is not taken in this room", seat=seat + 1), "seat", 404)
            if row[4]:  # freed since the link was made (used or not): the seat waits for any phone
                raise WebError(freed_link_reason(row[3]), "handover", 403)
            if not row[0] or not secrets_equal(row[0], secret_hash(secret)):
                raise WebError(used_link_reason(row[1] is not None and secrets_equal(row[1], secret_hash(secret)),
                                                row[0] is not None, row[2] or row[3]), "handover", 403)
            db.execute("UPDATE seats SET token_hash = ?, handover_hash = NULL, handover_used = ?, free = 0 "
                       "WHERE code = ? AND seat = ?", (secret_hash(token), row[0], code, seat))
            version = self._bump(db, code, seat, "handover", {})
        return token, version

    def import_room(self, spec: RoomSpec, rolls_used: int, seats: list[tuple[str, SheetState]],
                    creator: str | None = None) -> tuple[str, list[str], list[str]]:
        """A new room holding exported sheets; returns the code, one fresh token per seat and
        one handover secret per seat (a browser takes its seat with the handover link, as
        from a player's phone). One transaction: a crash never leaves the room without its seats."""
        tokens, handovers = [], []
        with self._tx() as db:
            code = self._insert_room(db, spec, time.time())
            db.execute("UPDATE rooms SET rolls_used = ?, creator_hash = ? WHERE code = ?",
                       (rolls_used, secret_hash(creator) if creator else None, code))
            for k, (name, state) in enumerate(seats):
                token, handover = new_secret(), new_secret()
                tokens.append(token)
                handovers.append(handover)
                db.execute("INSERT INTO seats (code, seat, name, token_hash, crossed, jokers_used, later_columns, "
                           "later_colours, sheet_version, handover_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?)",
                           (code, k, name, secret_hash(token), f"{state.crossed:x}", state.jokers_used,
                            state.later_columns, state.later_colours, secret_hash(handover)))
                self._import_race(db, code, k, state, spec, rolls_used)
            self._bump(db, code, None, "import", {"seats": len(seats), "rolls_used": rolls_used})
        return code, tokens, handovers

    def expire(self, older_than_seconds: float, now: float | None = None) -> int:
        """Delete rooms untouched for longer than ``older_than_seconds``; how many went."""
        now = time.time() if now is None else now
        with self._tx() as db:
            cur = db.execute("DELETE FROM rooms WHERE touched < ?", (now - older_than_seconds,))
            return cur.rowcount

    def _bump(self, db, code: str, seat: int | None, kind: str, payload: dict) -> int:
        """Next room version, the edit logged under it, the room touched."""
        now = time.time()
        cur = db.execute("UPDATE rooms SET version = version + 1, touched = ? WHERE code = ? RETURNING version",
                         (now, code))
        row = cur.fetchone()
        if row is None:
            raise WebError(say("no room with this code (wrong code, or the room expired)"), "id", 404)
        db.execute("INSERT INTO edits (code, version, seat, kind, payload, at) VALUES (?, ?, ?, ?, ?, ?)",
                   (code, row[0], seat, kind, json.dumps(payload), now))
        return row[0]


CREATOR = N_("the room's creator")  # whom to ask when the creator's seat is free (stored as this English)


def used_link_reason(used: bool, replaced: bool, by: str) -> Message:
    """Why a hand-over link no longer works, in plain words with whom to ask."""
    by = say(CREATOR) if by == CREATOR else by  # said in the asking phone's language
    if used:
        return say("This hand-over link was already used on another phone; ask %(by)s to make a new one.", by=by)
    if replaced:
        return say("This hand-over link was replaced by a newer one; ask %(by)s for the newest.", by=by)
    return say("This hand-over link no longer works (the seat was freed or handed over since); ask %(by)s for a "
               "new one.", by=by)


def freed_link_reason(name: str) -> Message:
    """A hand-over link of a seat freed since: any phone may sit in it (docs/rooms.md, seats)."""
    return say("This hand-over link no longer works: %(name)s's seat was freed; sit down in it here and its sheet "
               "comes with it.", name=name)


def check_holder(seat: int, token: str | None, holder: tuple[str, str] | None) -> None:
    """``token`` holds ``seat``, whose row (token hash, name) is ``holder`` (None: no row): 401
    without a token, 404 for a seat not taken, 403 for another token (RoomStore.check_token)."""
    if not token:
        raise WebError(say("a seat token is needed: send 'Authorization: Bearer TOKEN'"), "authorization", 401)
    if holder is None:
        raise WebError(say("seat %(seat)s is not taken in this room", seat=seat + 1), "seat", 404)
    if not secrets_equal(holder[0], secret_hash(token)):
        raise WebError(say("this phone no longer holds %(name)s's seat (seat %(seat)s): it was handed over, "
                           "freed or given a new link", name=holder[1], seat=seat + 1), "authorization", 403)


def secrets_equal(a: str, b: str) -> bool:
    """Constant-time comparison of two token hashes."""
    return hmac.compare_digest(a, b)

