"""The online rooms' service (docs/rooms.md, online games): the store, one game in memory per
room (online_table.py), the room told of every change on the rooms' live hub (hub.py), and a
driver thread that lets bots choose and acts for quiet seats.

A bot's choice is computed in the rooms' worker child (status.py ``StatusWorker.run``): engine
search in the server's process would hold the GIL against every other room's taps, and the
driver thread keeps it off the event loop.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import BrokenExecutor
from pathlib import Path
from typing import Callable

from nochmal.game import Game
from nochmal.i18n import N_, say
from nochmal.record import GameRecord
from nochmal.web.errors import WebError
from nochmal.web.games import tap_answer
from nochmal.web.rooms.model import new_secret, valid_code
from nochmal.web.rooms.online_claim import RETRY, BotClaims
from nochmal.web.rooms.online_model import OnlineSetup, new_seed
from nochmal.web.rooms.online_store import KeptMove, OnlineStore
from nochmal.web.rooms.online_table import OnlineTable

log = logging.getLogger(__name__)
Runner = Callable[..., object]  # runner(fn, *args) -> fn(*args), in a child process


def bot_choice(record: dict, seat: int, bot: str) -> str:
    """In the worker child: bot ``bot``'s move for ``seat``, deciding in the game ``record``
    ends at (the table session's bot turn: its seed from (seed, roll, seat), a mission's
    tactics in a mission)."""
    from nochmal.table.session import TableSession

    session = TableSession.from_record(GameRecord.from_json(record, "online room"), "online room")
    session.seats[seat] = bot
    return str(session.bot_turn(seat))


# a seat's state (OnlineTable.state_of) in a refusal's words
SEAT_STATES = {"over": N_("the game is over"), "not started": N_("the game has not started"),
               "chosen": N_("it has chosen"), "choosing": N_("it is choosing"), "waiting": N_("it waits for the active player")}


class OnlineRooms:
    def __init__(self, data_dir: str | Path | None, hub, runner: Runner,
                 clock: Callable[[], float] = time.monotonic, url: str | None = None,
                 stopping: Callable[[], bool] = lambda: False, expire_days: float = 30.0):
        self.store = OnlineStore(data_dir, url)
        self.hub = hub
        self.runner = runner
        self.clock = clock
        self._stopping = stopping  # the server is stopping (its worker child gone): the driver ends
        self.expire_days = expire_days  # as the table rooms: a room untouched this long is deleted
        self._last_expiry = float("-inf")
        self._tables: dict[str, OnlineTable] = {}
        self._lock = threading.Lock()
        self.changed = threading.Condition()  # notified after every change (the driver, tests)
        self._stop = False
        self.claims = BotClaims(url)  # which games this server's driver plays (online_claim.py)
        self._stale: set[str] = set()  # games another server may have changed since they were loaded here
        if isinstance(getattr(hub, "noticed", None), list):  # the hub shared through PostgreSQL (fanout.py)
            hub.noticed.append(self._noticed)
        self._driver = threading.Thread(target=self._drive, name="online-rooms", daemon=True)
        self._driver.start()

    def stop(self) -> None:
        with self.changed:
            self._stop = True
            self.changed.notify_all()
        self.claims.close()  # another server drives this one's games from now on

    # --- rooms -----------------------------------------------------------------------------
    def table(self, code: str) -> OnlineTable:
        if not valid_code(code):
            raise WebError(say("no online room with this code (wrong code, or the room expired)"), "id", 404)
        with self._lock:
            table = self._tables.get(code)
        if table is None:
            table = OnlineTable(self.store.load(code))  # replays the kept moves through the engine
            with self._lock:
                table = self._tables.setdefault(code, table)
            self._changed(table, publish=False)
        elif self.claims.url is not None:  # several servers: another one may have moved meanwhile
            self._fresh(table)
        return table

    def _noticed(self, code: str) -> None:
        """An event of room ``code`` went through the database (fanout.py, any server's): a
        game held here may have changed on another server; the driver reads it again."""
        with self._lock:
            if code not in self._tables:
                return
            self._stale.add(code)
        with self.changed:
            self.changed.notify_all()

    def _fresh(self, table: OnlineTable) -> None:
        """``table`` as the store holds it now, when another server moved on it (rebuilt
        from the kept moves in place, so whoever holds it sees it; the quiet seats' clocks
        kept). Under the table's lock this server's own moves are kept and applied whole."""
        with self._lock:
            self._stale.discard(table.code)
        with table.lock:
            if self.store.version(table.code) == table.version:
                return
            fresh = OnlineTable(self.store.load(table.code))
            for name, value in vars(fresh).items():
                if name not in ("lock", "offered_at", "drawn"):
                    setattr(table, name, value)
        self._changed(table, publish=False)

    def create(self, setup: OnlineSetup) -> tuple[str, str, str]:
        """A new room: (code, creator token, commitment); the seed drawn now, kept secret."""
        creator = new_secret()
        self._expire_now_and_then()
        code = self.store.create(setup, new_seed(), creator)
        table = self.table(code)
        return code, creator, table.commitment

    def _expire_now_and_then(self) -> None:
        """At most hourly, when a room is made: rooms untouched for ``expire_days`` are deleted,
        and the games leave the memory (a stored one is rebuilt from the store when asked for)."""
        if time.monotonic() - self._last_expiry < 3600:
            return
        self._last_expiry = time.monotonic()
        if self.store.expire(self.expire_days * 86400):
            with self._lock:
                self._tables.clear()

    def sit(self, code: str, name: str, seat: int | None) -> dict:
        table = self.table(code)
        with table.lock:
            k, token, version, starts = self.store.sit(code, table.setup, name, seat)
            table.sat(k, name, version, starts)
        self._changed(table)
        return {"seat": k, "seat_token": token, "version": version}

    def seat_of(self, code: str, token: str | None) -> int | None:
        return self.store.seat_of(code, token)

    def document(self, code: str, token: str | None = None, lang: str = "en") -> dict:
        table = self.table(code)
        seat = self.store.seat_of(code, token)
        return self._document(table, seat, lang)

    def _document(self, table: OnlineTable, seat: int | None = None, lang: str = "en") -> dict:
        """The room with every sheet drawn (``seat``: with its offer), in ``lang``'s words."""
        with table.lock:
            doc = table.document(seat, self.clock(), lang)
            doc["svgs"] = {str(k): table.sheet_svg(k, lang) for k in range(len(table.setup.seats))}
        return doc

    def redrawing(self, table_redraw):
        """The shared hub's redraw (fanout.py: an event drawn in a language no phone on the
        editing server spoke) for both kinds of room: an online room's document (it carries
        its commitment) is drawn here, a table room's sheet event by ``table_redraw``."""
        def redraw(code: str, data: dict, lang: str) -> dict:
            if "commitment" not in data:
                return table_redraw(code, data, lang)
            table = self.table(code)
            if table.version != data.get("version"):  # this server's game is not the event's: as it came
                return data
            doc = self._document(table, None, lang)
            return doc if "svgs" in data else {k: v for k, v in doc.items() if k != "svgs"}
        return redraw

    def tap(self, code: str, seat: int, token: str | None, body: dict, lang: str = "en") -> dict:
        """What the seat's selection allows, the engine's reason said in ``lang`` (the phone's)."""
        table = self.table(code)
        self.store.check_seat(code, seat, token)
        with table.lock:
            view = table.view(seat)
            if view is None:
                raise WebError(say("seat %(seat)s may not choose now (%(state)s)", seat=seat + 1,
                                   state=say(SEAT_STATES[table.state_of(seat)])), "cells", 409)
            return tap_answer(view, body["colour"], body["number"], body.get("cells", []), lang)

    def move(self, code: str, seat: int, token: str | None, roll: int, text: str, lang: str = "en") -> dict:
        self.store.check_seat(code, seat, token)
        table = self.table(code)
        kept = self.choose(table, seat, roll, text, "seat")
        doc = self._document(table, seat, lang)
        return {"version": doc["version"], "move": kept.move, "room": doc}

    def choose(self, table: OnlineTable, seat: int, roll: int, text: str, by: str) -> KeptMove:
        """Check, keep (committed), apply, tell the room: one seat's choice."""
        with table.lock:
            kept = table.check(seat, roll, text)
            kept = KeptMove(kept.roll, kept.seat, kept.move, by)
            table.version = self.store.keep_move(table.code, kept)
            table.keep(kept)
        self._changed(table)
        return kept

    def record(self, code: str) -> dict:
        table = self.table(code)
        with table.lock:
            if not table.game.is_terminal():
                raise WebError(say("the game is not over: its record (and the seed) is shown at the end"), "id", 409)
            return table.record().to_json()

    def analysable(self, code: str, seat: int) -> dict:
        """The record an analysis reads: a finished game's (a mission's is the team's, any seat)."""
        record = self.record(code)
        if seat >= len(record["players"]):
            raise WebError(say("seat: the game has seats 0..%(last)s", last=len(record["players"]) - 1), "seat", 422)
        return record

    # --- telling, driving ------------------------------------------------------------------
    def _changed(self, table: OnlineTable, publish: bool = True) -> None:
        now = self.clock()
        with table.lock:
            offered = table.offered()
            for k in list(table.offered_at):
                if k not in offered:
                    del table.offered_at[k]
            for k in offered:
                table.offered_at.setdefault(k, now)
            if publish:  # the sheets are drawn as at the roll's start: redrawn only when that changes
                drawn = (table.game.rolls_done, table.game.is_terminal(), tuple(sorted(table.names.items())))
                redrawn = drawn != table.drawn
                table.drawn = drawn
                words = {lang: self._document(table, None, lang) if redrawn else table.document(None, now, lang)
                         for lang in self.hub.languages(table.code) or {"en"}}  # each phone its words
                self.hub.publish(table.code, "online", words.get("en") or next(iter(words.values())), table.version,
                                 by_language=words)
        with self.changed:
            self.changed.notify_all()

    def _work(self) -> tuple[list[tuple[OnlineTable, int, int, str, str]], float | None]:
        """What the driver does now: (table, seat, roll, bot or "pass", by) for every seat a
        bot chooses for, in the games this server drives (online_claim.py); and when to look
        again (the next quiet deadline, or a try at a game another server drives)."""
        now = self.clock()
        jobs, deadline = [], None
        with self._lock:
            stale = [self._tables[code] for code in self._stale if code in self._tables]
        for table in stale:  # another server moved: this driver decides on the game as stored
            self._fresh(table)
        with self._lock:
            tables = list(self._tables.values())
        for table in tables:
            found, due = self._jobs_of(table, now)
            if table.game.is_terminal():
                self.claims.let_go(table.code)
            elif (found or due is not None) and not self.claims.holds(table.code):
                found, due = [], now + RETRY  # another server drives it: look again, it may stop
            jobs += found
            deadline = due if deadline is None or (due is not None and due < deadline) else deadline
        return jobs, deadline

    @staticmethod
    def _jobs_of(table: OnlineTable, now: float) -> tuple[list[tuple[OnlineTable, int, int, str, str]], float | None]:
        """One game's driver jobs and its next quiet deadline."""
        jobs, deadline = [], None
        with table.lock:
            quiet = table.setup.quiet
            index = table.roll_index()
            for k in table.offered():
                spec = table.setup.seats[k]
                if spec != "human":
                    jobs.append((table, k, index + 1, spec, "bot"))
                elif quiet.after != "wait" and k in table.offered_at:
                    due = table.offered_at[k] + quiet.seconds
                    if due <= now:
                        jobs.append((table, k, index + 1, "pass" if quiet.after == "pass" else quiet.bot,
                                     "quiet" if quiet.after == "pass" else "bot"))
                    else:
                        deadline = due if deadline is None else min(deadline, due)
        return jobs, deadline

    def _drive(self) -> None:
        while True:
            with self.changed:
                while True:
                    if self._stop:
                        return
                    jobs, deadline = self._work()
                    if jobs:
                        break
                    self.changed.wait(None if deadline is None else max(0.01, deadline - self.clock()))
            for table, seat, roll, who, by in jobs:
                try:
                    self._act(table, seat, roll, who, by)
                except WebError as exc:  # the seat chose meanwhile, or the roll moved on: nothing to do
                    log.info("online room %s: seat %d's choice for roll %d not kept (%s)", table.code, seat + 1, roll,
                             exc)
                except BrokenExecutor:  # the worker child ended (the server stopping): the table waits
                    if self._stopping():
                        return
                    log.warning("online room %s: the worker child is gone; seat %d waits", table.code, seat + 1)
                    time.sleep(1.0)
                except Exception:  # a bot that failed: logged, the table waits
                    if self._stop or self._stopping():
                        return
                    log.exception("online room %s: seat %d could not be played", table.code, seat + 1)
                    time.sleep(1.0)

    def _act(self, table: OnlineTable, seat: int, roll: int, who: str, by: str) -> None:
        if who == "pass":
            self.choose(table, seat, roll, "pass", by)
            return
        with table.lock:
            view: Game | None = table.view(seat)
            if view is None or table.roll_index() != roll - 1:
                return
            record = GameRecord.from_game(view, table.session.seats, table.seed, table.session.extra).to_json()
        move = self.runner(bot_choice, record, seat, who)
        self.choose(table, seat, roll, move, by)

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Until ``predicate()`` holds after some change, at most ``timeout`` seconds (tests)."""
        with self.changed:
            return self.changed.wait_for(predicate, timeout)
