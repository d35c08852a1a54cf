"""The rooms' status worker (nochmal/web/rooms/status.py): when it computes a room's full status.

The quiet time is read from a clock the tests move (``FakeClock``), and every check waits for
a status to arrive: no test depends on how fast the machine runs the worker's thread."""

import dataclasses
import json
import threading
import time

import pytest

from nochmal.web.rooms import status as status_module
from nochmal.web.rooms.model import RoomSpec, SheetState
from nochmal.web.rooms.status import QUIET_SECONDS, StatusWorker
from nochmal.web.rooms.store import Room, Seat

ARRIVAL = 30.0  # seconds: how long a test waits for a status it expects (a failure, not a pace)


def competitive_room(crossed: int = 0, code: str = "abc") -> Room:
    """A 2-seat competitive room (its full status is computed in the worker's own thread)."""
    spec = RoomSpec(mode="competitive", board="classic", players=2)
    seats = (Seat(0, "Anna", SheetState(crossed=crossed), 1), Seat(1, "Ben", SheetState(), 1))
    return Room(code=code, spec=spec, rolls_used=0, version=1, created=0.0, touched=0.0, seats=seats)


class FakeClock:
    """The worker's ``time`` module with a monotonic clock the test sets; the real
    perf_counter (the worker's timings)."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def perf_counter(self) -> float:
        return time.perf_counter()


@pytest.fixture
def clock(monkeypatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(status_module, "time", fake)
    return fake


def start_worker(rooms: dict) -> tuple[StatusWorker, list, threading.Condition]:
    """A worker over ``rooms`` (code -> latest Room); ``published`` lists what it hands out,
    and the condition is notified on each."""
    published: list = []
    arrived = threading.Condition()

    def publish(code, data):
        with arrived:
            published.append((code, data))
            arrived.notify_all()

    return StatusWorker(lambda code: rooms[code], publish), published, arrived


def wait_for(arrived: threading.Condition, published: list, count: int) -> list[str]:
    """The codes published once there are ``count`` (fails after ARRIVAL seconds without)."""
    with arrived:
        assert arrived.wait_for(lambda: len(published) >= count, ARRIVAL), f"{len(published)} of {count} statuses"
        return [code for code, _ in published]


def request_due(worker: StatusWorker, clock: FakeClock, room: Room) -> None:
    """Request ``room`` as if it had been waiting the full quiet time already."""
    now = clock.now
    clock.now = now - QUIET_SECONDS
    worker.request(room)
    clock.now = now


def test_readers_polling_faster_than_the_quiet_time_do_not_postpone_the_status(clock):
    # the CI failure of 2026-12-01: every GET of a room re-queued it, so a client polling
    # every 0.2 s (< QUIET_SECONDS) kept the full status from ever being computed
    rooms = {"abc": competitive_room()}
    worker, published, arrived = start_worker(rooms)
    try:
        for _ in range(10):  # two quiet times of polls, each a fifth of one after the last
            worker.request(rooms["abc"])
            clock.now += QUIET_SECONDS / 5
        assert wait_for(arrived, published, 1) == ["abc"], "a reader polling the same state starved the status worker"
        assert published[0][1]["status"]["complete"]
    finally:
        worker.stop()


def test_an_edit_restarts_the_quiet_time(clock):
    # a player tapping cells in a row: only the state after the last tap is computed
    last = competitive_room(crossed=(1 << 5) - 1)
    rooms = {"abc": competitive_room()}
    worker, published, arrived = start_worker(rooms)
    try:
        for cell in range(5):  # five edits, each before the quiet time is over (the first 1.2 quiet times ago)
            rooms["abc"] = competitive_room(crossed=(1 << (cell + 1)) - 1)
            worker.request(rooms["abc"])
            clock.now += 0.3 * QUIET_SECONDS
        # a room due now, queued after abc: abc, were it due too, would be published first
        rooms["due"] = competitive_room(code="due")
        request_due(worker, clock, rooms["due"])
        assert wait_for(arrived, published, 1) == ["due"]
        clock.now += QUIET_SECONDS  # the quiet time after the last edit is over
        assert wait_for(arrived, published, 2) == ["due", "abc"]
        assert published[1][1] == {"version": 1, "status": worker.cached(last)}  # the last state's status
        rooms["end"] = competitive_room(code="end")
        request_due(worker, clock, rooms["end"])
        assert wait_for(arrived, published, 3) == ["due", "abc", "end"]  # one status for abc, no other
    finally:
        worker.stop()


def test_an_edit_through_another_server_restarts_the_quiet_time(clock):
    # a room's phones on two servers: the other's edits (fanout.py tells of each) restart the
    # quiet time of a status waiting here, so the two do not work out the room in turn
    rooms = {"abc": competitive_room()}
    worker, published, arrived = start_worker(rooms)
    try:
        worker.request(rooms["abc"])  # an edit here
        for cell in range(5):  # five on the other server, each before the quiet time is over
            clock.now += 0.3 * QUIET_SECONDS
            rooms["abc"] = competitive_room(crossed=(1 << (cell + 1)) - 1)
            worker.room_changed("abc")
        worker.room_changed("elsewhere")  # a room with no status waiting here: nothing to do
        # a room due now, queued after abc: abc, were it due (1.5 quiet times after the edit
        # here), would be published first
        rooms["due"] = competitive_room(code="due")
        request_due(worker, clock, rooms["due"])
        assert wait_for(arrived, published, 1) == ["due"]
        clock.now += QUIET_SECONDS
        assert wait_for(arrived, published, 2) == ["due", "abc"]
        assert published[1][1]["status"] == worker.cached(rooms["abc"])  # the last state's status
        rooms["end"] = competitive_room(code="end")
        request_due(worker, clock, rooms["end"])
        assert wait_for(arrived, published, 3) == ["due", "abc", "end"]  # nothing for "elsewhere"
    finally:
        worker.stop()


class TableGuard:
    """fanout.py StatusGuard's part the worker uses, over the statuses published so far, each
    read back as from the database (a JSON copy, not the worker's own object)."""

    def __init__(self, published: list, rooms: dict) -> None:
        self.published_list = published
        self.rooms = rooms  # code -> the room as the database has it now

    def hold(self, code: str) -> bool:
        return True

    def release(self, code: str) -> None:
        pass

    def close(self) -> None:
        pass

    def now(self, code: str) -> tuple[int | None, dict | None]:
        last = next((data for done, data in reversed(self.published_list) if done == code), None)
        room = self.rooms.get(code)
        return (room.version if room else None), json.loads(json.dumps(last)) if last else None


def test_a_version_asked_for_again_is_not_published_twice(clock):
    # the two-server test saw one version's status twice: a reader asked for the room again
    # while its status was computed, and the second run found it published and in its cache
    rooms = {"abc": competitive_room()}
    worker, published, arrived = start_worker(rooms)
    worker.guard = TableGuard(published, rooms)
    try:
        request_due(worker, clock, rooms["abc"])
        assert wait_for(arrived, published, 1) == ["abc"]
        request_due(worker, clock, rooms["abc"])  # the same version again
        rooms["end"] = competitive_room(code="end")
        request_due(worker, clock, rooms["end"])  # queued after it: abc's second run is over once end's is out
        assert wait_for(arrived, published, 2) == ["abc", "end"], "a version's status published twice"
        # an undo back to an earlier state is a new version: its status (cached) is published for it
        rooms["abc"] = dataclasses.replace(rooms["abc"], version=2)
        request_due(worker, clock, rooms["abc"])
        assert wait_for(arrived, published, 3) == ["abc", "end", "abc"] and published[2][1]["version"] == 2
    finally:
        worker.stop()


def test_stop_ends_the_worker_and_a_second_stop_is_harmless():
    # review finding: ending the child after stop() raised AttributeError (the pool's process
    # table is None once shut down), printed at interpreter exit; and the app never stopped the
    # worker. A second stop() ends the child again, as the exit hook does
    worker, _, _ = start_worker({"abc": competitive_room()})
    worker.stop()
    assert worker.join(5) and not worker.alive
    worker.stop()


def test_the_app_stops_the_rooms_worker_on_shutdown(tmp_path):
    from fastapi.testclient import TestClient

    from nochmal.web import create_app

    app = create_app(tmp_path)
    with TestClient(app):
        worker = app.state.rooms.worker
        assert worker.alive
    assert worker.join(5) and not worker.alive


def test_the_room_a_request_gave_is_read_again_only_after_an_edit(clock):
    # a tap hands the worker the room its transaction read; when the quiet time ends the worker
    # asks only the room's version (one statement) and reads the room again only when another
    # edit (here, or on another server) came since: the status is of the room as it is then
    rooms = {"abc": competitive_room()}
    loads: list[str] = []
    published: list = []
    arrived = threading.Condition()

    def load(code):
        loads.append(code)
        return rooms[code]

    def publish(code, data):
        with arrived:
            published.append((code, data))
            arrived.notify_all()

    worker = StatusWorker(load, publish, room_version=lambda code: rooms[code].version)
    try:
        request_due(worker, clock, rooms["abc"])
        assert wait_for(arrived, published, 1) == ["abc"] and loads == []  # the given room, not read again
        given = rooms["abc"]
        rooms["abc"] = dataclasses.replace(competitive_room(crossed=0b111), version=2)  # an edit since the request
        request_due(worker, clock, dataclasses.replace(given, seats=given.seats[:1]))  # (another state: not cached)
        assert wait_for(arrived, published, 2) == ["abc", "abc"] and loads == ["abc"]
        assert published[1][1] == {"version": 2, "status": worker.cached(rooms["abc"])}  # the room as it is now
    finally:
        worker.stop()
