"""What a room shows about the game: mission progress for the team, or the competitive race.

Two speeds. :func:`quick_status` is what ``GET /api/rooms/{id}`` answers at once (objective
progress without search, impossible sheets, scores, the race). :func:`full_status` adds the
fewest further crosses per sheet and the team plan (missions/split/): searches that may
take seconds, so a :class:`StatusWorker` thread computes them in the background, caches the
result per room state (the per-sheet figures are cached per sheet state in
missions/objectives.py and missions/split/) and pushes it to the room's phones.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import OrderedDict, deque
from concurrent.futures import BrokenExecutor
from typing import Callable

from nochmal.missions.coop import mission_status
from nochmal.missions.split import SPLIT_SECONDS, lost_said, status_document, team_plan
from nochmal.i18n import Message, say
from nochmal.sheet import Sheet
from nochmal.web.rooms.advice import score_advice, split_advice
from nochmal.web.rooms.checks import SheetWarning, check_sheet, counted_sheet
from nochmal.web.rooms.model import RoomMode, board_of, shipped_mission
from nochmal.web.rooms.race import race_document
from nochmal.web.rooms.store import Room
from nochmal.web.rooms.words import SeatLabel, wire

log = logging.getLogger(__name__)
QUIET_SECONDS = 0.25  # a room's full status waits until its edits pause this long


def seat_label(room: Room, k: int) -> str:
    """The seat's player's name, or a free seat's label (said in each phone's words: words.py)."""
    seat = room.seat(k)
    return seat.name if seat is not None else SeatLabel(k)


def rolls_in_play(room: Room) -> int:
    """The rolls a sheet may hold crosses of: the counted ones and the roll being played
    (the table crosses first and counts the roll after: docs/rooms.md, the roll in play); a
    mission's last roll once its budget is counted."""
    if room.spec.mode is RoomMode.MISSION:
        budget = shipped_mission(room.spec.mission).budget(room.spec.players, room.spec.difficulty)
        return max(room.rolls_used, min(room.rolls_used + 1, budget))
    return room.rolls_used + 1


def room_sheets(room: Room) -> list[Sheet]:
    """One sheet per seat of the room; a free seat counts as an empty sheet."""
    board = board_of(room.spec)
    out = []
    for k in range(room.spec.players):
        seat = room.seat(k)
        out.append(seat.state.sheet(board) if seat is not None else Sheet.empty(board))
    return out


def sheet_warnings(room: Room, labels: list[str]) -> list[SheetWarning | None]:
    """Per seat: why its sheet cannot come from a legal game (None: it can) in the rolls in
    play; the team status then counts what checks.counted_sheet keeps of it."""
    return [check_sheet(sheet, k, labels[k], rolls_in_play(room)) for k, sheet in enumerate(room_sheets(room))]


def state_key(room: Room) -> tuple:
    """Everything a status depends on (not versions): the names too, so that a seat taken or
    renamed is named in the status at once, not after the next edit."""
    names = tuple(seat_label(room, k) for k in range(room.spec.players))
    return (room.spec, room.rolls_used, tuple(room_sheets(room)), names, room.race)


def quick_status(room: Room) -> dict:
    if room.spec.mode is RoomMode.MISSION:
        return _mission_status(room, full=False)
    return competitive_status(room)


def full_status(room: Room, time_limit: float = SPLIT_SECONDS) -> dict:
    if room.spec.mode is RoomMode.MISSION:
        return _mission_status(room, full=True, time_limit=time_limit)
    return competitive_status(room)


def _mission_status(room: Room, full: bool, time_limit: float = SPLIT_SECONDS) -> dict:
    mission = shipped_mission(room.spec.mission)
    labels = [seat_label(room, k) for k in range(room.spec.players)]
    warnings = sheet_warnings(room, labels)
    board = board_of(room.spec)
    sheets = [counted_sheet(s, w, board) for s, w in zip(room_sheets(room), warnings)]
    st = mission_status(mission, room.spec.difficulty, sheets, room.rolls_used, with_crosses=full,
                        rolls_crossed=rolls_in_play(room))
    plan = team_plan(mission, sheets, st.rolls_left, time_limit) if full and not any(st.impossible) else None
    doc = status_document(st, labels, plan)
    doc["lost_reasons_said"] = wire(lost_said(st, plan))  # each phone's words (rooms.js)
    doc["impossible"] = [w.to_dict() for w in warnings if w is not None]
    for objective, done in zip(doc["objectives"], st.objectives):
        missing = [named_missing(part, labels, line) for part, line in zip(done.missing_parts, done.said_missing)]
        objective["missing"], objective["missing_said"] = [str(m) for m in missing], wire(missing)
        objective["description_said"] = wire(done.objective.description(room.spec.players))  # each phone's words
    if plan is not None:
        aims = split_advice(plan.split, labels) if plan.split.instance.has_cells else \
            score_advice(mission, sheets, labels, st.rolls_left)
        doc["advice"] = [aim.to_dict() for aim in aims]
    doc["mode"] = RoomMode.MISSION
    doc["complete"] = full  # False: fewest crosses and the split are still being computed
    return doc


def named_missing(part: tuple[int | None, str, str], labels: list[str], line=None) -> Message | str:
    """An objective's missing line with the seat's name where the CLI numbers its files
    (missions/objectives.py's missing_parts): "Anna: G, H, I", "Ben (closest): G, H"; its
    items in any language from ``line``, the same line as the objective's Message (a colour's
    name, "2 more of: ...": the value ``rest`` of "sheet %(n)s: %(rest)s")."""
    sheet, role, rest = part
    if isinstance(line, Message):
        rest = line if sheet is None else line.values.get("rest", rest)
    if sheet is None:
        return rest
    if role == "closest":
        return say("%(name)s (closest): %(rest)s", name=labels[sheet], rest=rest)
    if role == "best":
        return say("%(name)s (best): %(rest)s", name=labels[sheet], rest=rest)
    if role:
        return f"{labels[sheet]} ({role}): {rest}"
    return Message("%(name)s: %(rest)s", {"name": labels[sheet], "rest": rest})  # (no words of its own)


def competitive_status(room: Room) -> dict:
    """Every player's score and the race: who scored which column and colour first / later."""
    board = board_of(room.spec)
    sheets = room_sheets(room)
    scores = []
    impossible = []
    for k, sheet in enumerate(sheets):
        scores.append({"seat": k, "name": seat_label(room, k), "score": sheet.score(),
                       "breakdown": sheet.score_breakdown().to_dict()})
        warning = check_sheet(sheet, k, seat_label(room, k), rolls_in_play(room))
        if warning is not None:
            impossible.append(warning.to_dict(counted=False))
    race = race_document(room.race, sheets, [seat_label(room, k) for k in range(len(sheets))], room.rolls_used)
    return {"mode": RoomMode.COMPETITIVE, "board": board.name, "players": room.spec.players,
            "rolls_used": room.rolls_used, "scores": scores, **race, "impossible": impossible, "complete": True}


def claimed_by_others(room: Room, k: int) -> tuple[int, int]:
    """Columns and colours some OTHER seat scored first (struck on seat k's sheet); none in a
    mission room, where nobody races (as nochmal.game.Game.race_claims)."""
    cols = colours = 0
    if room.spec.mode is not RoomMode.COMPETITIVE:
        return cols, colours
    for j, sheet in enumerate(room_sheets(room)):
        if j != k:
            cols |= sheet.cols_upper
            colours |= sheet.colours_upper
    return cols, colours


def preload_searches() -> None:
    """The searches' libraries loaded, then every object so far (theirs: some 90,000) moved out
    of the garbage collector's full passes (gc.freeze): they live as long as the process, and
    a full pass over them took 50-70 ms that fell on a status now and then (two to three per
    bench_rooms status run; one of 6 ms with the freeze). The status child calls it at its
    start; benchmarks/bench_rooms.py does the same before it times statuses."""
    import gc

    import numpy  # noqa: F401  (the Dreyfus-Wagner tables, missions/measures/steiner.py)
    from ortools.sat.python import cp_model  # noqa: F401  (the split and the exact checks, missions/split/)

    from nochmal.missions.measures.steiner import programme

    programme()  # their programme: compiled, else numpy on an install without a C compiler (docs/architecture.md)
    gc.freeze()


def start_status_child(parent: int, searches: bool = True) -> None:
    """The status child's initializer (``parent``: the server's pid). In the child: a lower
    CPU priority (taps come first), exit as soon as the server process is gone (even after
    SIGKILL), and the searches' libraries loaded now, not on the first tap of the child's
    life (OR-Tools alone takes ~350 ms to import; a room's first status may need none of
    them, benchmarks/RESULTS.md, room status). ``searches`` False: the child of
    StatusWorker.run, which a phone waits for (its priority kept) and which runs no search."""
    if searches:
        try:
            os.nice(10)
        except OSError:
            pass
        preload_searches()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


class StatusWorker:
    """One background thread: computes full statuses (in one child process) for rooms that
    changed, newest state only, caches them by state and hands each to ``publish``."""

    def __init__(self, load_room: Callable[[str], Room], publish: Callable[[str, dict], None],
                 time_limit: float = SPLIT_SECONDS, cache_size: int = 512, guard=None,
                 room_version: Callable[[str], int | None] | None = None):
        self._load = load_room
        # the room's version now, one cheap read (RoomStore.version): a status is worked out
        # for the room its request gave while no edit came since (None: always read it again)
        self._version = room_version
        self.guard = guard  # several servers (fanout.py StatusGuard): one computes a room at a time
        self._publish = publish
        self.time_limit = time_limit
        self._cache: OrderedDict = OrderedDict()
        self._todo: OrderedDict = OrderedDict()
        self._cv = threading.Condition()
        self._stop = False
        self._pool = None
        self._quick = None  # the child of run()
        self.cache_size = cache_size
        self.timings: deque[float] = deque(maxlen=10_000)  # seconds per full status computed (benchmarks read it)
        self._thread = threading.Thread(target=self._run, name="room-status", daemon=True)
        self._thread.start()

    def _new_child(self, searches: bool):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        if self._pool is None and self._quick is None:
            # at interpreter exit (Ctrl-C) concurrent.futures would wait for a running search;
            # threading's exit hooks run newest first, so this one ends the children before that
            threading._register_atexit(self._end_child)
        return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=start_status_child, initargs=(os.getpid(), searches))

    def _compute(self, room: Room) -> dict:
        """In a separate process: the searches are Python loops that would hold the GIL and
        slow every tap of every room; the child keeps its per-sheet caches between calls."""
        if self._pool is None:
            self._pool = self._new_child(True)
        try:
            return self._pool.submit(full_status, room, self.time_limit).result()
        except Exception:
            if self._stop:
                raise
            self._pool.shutdown(wait=False, cancel_futures=True)  # a dead child: start a fresh one next time
            self._pool = None
            raise

    def run(self, fn: Callable, *args):
        """``fn(*args)`` in a second child process like the status's, for engine work a phone
        waits for (this roll's advice, dice.py): off the server process for the same reason,
        and never queued behind a split of several seconds."""
        with self._cv:
            if self._stop:
                raise RuntimeError("the server is stopping")
            if self._quick is None:
                self._quick = self._new_child(False)
            pool = self._quick
        try:
            return pool.submit(fn, *args).result()
        except BrokenExecutor:
            with self._cv:
                if self._quick is pool and not self._stop:
                    pool.shutdown(wait=False, cancel_futures=True)  # a dead child: a fresh one next time
                    self._quick = None
            raise

    @property
    def alive(self) -> bool:
        """Whether the worker's thread runs: from its start until :meth:`stop` has ended it
        (the app stops it at shutdown)."""
        return self._thread.is_alive()

    def join(self, timeout: float | None = None) -> bool:
        """Wait, at most ``timeout`` seconds, for the thread to end after :meth:`stop`;
        whether it has."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _end_child(self) -> None:
        self._stop = True
        pools, self._pool, self._quick = (self._pool, self._quick), None, None
        for pool in pools:
            if pool is not None:
                for process in list((getattr(pool, "_processes", None) or {}).values()):  # None once shut down
                    process.terminate()
                pool.shutdown(wait=False, cancel_futures=True)

    def cached(self, room: Room) -> dict | None:
        key = state_key(room)
        with self._cv:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
            return hit

    def request(self, room: Room) -> None:
        """Recompute the room's full status once its state has been unchanged for
        QUIET_SECONDS (a player taps several cells in a row; only the last state matters).
        A request for the state already waiting keeps its place: readers polling faster
        than QUIET_SECONDS must not postpone it forever."""
        key = state_key(room)
        with self._cv:
            waiting = self._todo.get(room.code)
            if waiting is not None and waiting[1] == key:
                if room.version > waiting[2].version:  # the newer room read kept, the place too
                    self._todo[room.code] = (waiting[0], key, room)
                return
            self._todo[room.code] = (time.monotonic(), key, room)
            self._todo.move_to_end(room.code)
            self._cv.notify()

    def room_changed(self, code: str) -> None:
        """An edit of the room through any server (fanout.py tells of each): a status waiting
        here waits for the room's quiet time again, as for an edit made here (docs/rooms.md,
        several servers): each server's quiet time would see only its own phones' taps, and
        two servers could work out a room's status in turn between each other's taps."""
        with self._cv:
            waiting = self._todo.get(code)
            if waiting is not None:
                self._todo[code] = (time.monotonic(), *waiting[1:])
                self._todo.move_to_end(code)

    def _current(self, given: Room, version: int | None) -> Room:
        """The room as it is now: ``given`` (the room read for the request) while the database's
        ``version`` of it is still the same, else read again (an edit since, on any server)."""
        return given if version == given.version else self._load(given.code)

    def stop(self) -> None:
        with self._cv:
            self._stop = True
            self._cv.notify()
        self._end_child()
        if self.guard is not None:  # its database connection (fanout.py)
            self.guard.close()

    def _work_out(self, room: Room, shared: dict | None = None) -> None:
        """The room's full status cached and published; ``shared``: the one a server (another,
        or this one in an earlier run: a reader asked again while it was computed) published for
        this version, cached here and not sent again: each version's status is published once."""
        status = self.cached(room) or shared
        if status is None:
            start = time.perf_counter()
            status = self._compute(room) if room.spec.mode is RoomMode.MISSION else full_status(room)
            self.timings.append(time.perf_counter() - start)
        with self._cv:
            self._cache[state_key(room)] = status
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        if shared is None:
            self._publish(room.code, {"version": room.version, "status": status})

    def _run(self) -> None:
        while True:
            with self._cv:
                code = None
                while code is None and not self._stop:
                    now = time.monotonic()
                    due = [c for c, (at, *_) in self._todo.items() if now - at >= QUIET_SECONDS]
                    if due:
                        code = due[0]
                        given = self._todo.pop(code)[2]
                    elif self._todo:
                        self._cv.wait(QUIET_SECONDS - (now - min(at for at, *_ in self._todo.values())))
                    else:
                        self._cv.wait()
                if self._stop:
                    return
            try:
                if self.guard is None:
                    self._work_out(self._current(given, self._version(code) if self._version else None))
                elif self.guard.hold(code):
                    try:
                        version, last = self.guard.now(code)
                        room = self._current(given, version)
                        self._work_out(room, last["status"] if last and last.get("version") == room.version else None)
                    finally:
                        self.guard.release(code)
                else:  # another server computes this room now: look again when it may be done
                    self.request(given)
            except RuntimeError as exc:  # (BrokenProcessPool is one too)
                if self._stop or "after shutdown" in str(exc):  # exiting: the pool or its child is gone
                    return
                log.exception("room status for %s failed", code)
            except Exception:  # a room that expired meanwhile, or a search that failed: log, go on
                if self._stop:  # the child was ended at exit
                    return
                log.exception("room status for %s failed", code)
