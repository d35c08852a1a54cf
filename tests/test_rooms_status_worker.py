"""The rooms' status worker (nochmal/web/rooms/status.py): when it computes a room's full status."""

import threading
import time

from nochmal.web.rooms.model import RoomSpec, SheetState
from nochmal.web.rooms.status import QUIET_SECONDS, StatusWorker
from nochmal.web.rooms.store import Room, Seat


def competitive_room(crossed: int = 0) -> Room:
    """A 2-seat competitive room (its full status is computed in the worker's own thread)."""
    spec = RoomSpec(mode="competitive", board="classic", players=2)
    seats = (Seat(0, "Anna", SheetState(crossed=crossed), 1), Seat(1, "Ben", SheetState(), 1))
    return Room(code="abc", spec=spec, rolls_used=0, version=1, created=0.0, touched=0.0, seats=seats)


def start_worker(room_box: list) -> tuple[StatusWorker, list, threading.Event]:
    published: list = []
    arrived = threading.Event()

    def publish(code, data):
        published.append((code, data))
        arrived.set()

    return StatusWorker(lambda code: room_box[0], publish), published, arrived


def test_readers_polling_faster_than_the_quiet_time_do_not_postpone_the_status():
    # the CI failure of 2026-12-01: every GET of a room re-queued it, so a client polling
    # every 0.2 s (< QUIET_SECONDS) kept the full status from ever being computed
    room_box = [competitive_room()]
    worker, published, arrived = start_worker(room_box)
    try:
        deadline = time.monotonic() + 10 * QUIET_SECONDS
        while not arrived.is_set() and time.monotonic() < deadline:
            worker.request(room_box[0])
            time.sleep(QUIET_SECONDS / 5)
        assert arrived.is_set(), "a reader polling the same state starved the status worker"
        assert published[0][0] == "abc" and published[0][1]["status"]["complete"]
    finally:
        worker.stop()


def test_an_edit_restarts_the_quiet_time():
    # a player tapping cells in a row: only the state after the last tap is computed
    room_box = [competitive_room()]
    worker, published, arrived = start_worker(room_box)
    try:
        for cell in range(5):  # five edits, each before the quiet time is over
            room_box[0] = competitive_room(crossed=(1 << (cell + 1)) - 1)
            worker.request(room_box[0])
            time.sleep(QUIET_SECONDS / 5)
        assert not arrived.is_set()
        assert arrived.wait(10 * QUIET_SECONDS)
        time.sleep(2 * QUIET_SECONDS)
        assert len(published) == 1  # one status, for the last state
    finally:
        worker.stop()


def test_stop_ends_the_worker_and_a_second_stop_is_harmless():
    # review finding: _end_child after stop() raised AttributeError (the pool's process table
    # is None once shut down), printed at interpreter exit; and the app never stopped the worker
    room_box = [competitive_room()]
    worker, _, _ = start_worker(room_box)
    worker.stop()
    worker._thread.join(5)
    assert not worker._thread.is_alive()
    worker.stop()
    worker._end_child()


def test_the_app_stops_the_rooms_worker_on_shutdown(tmp_path):
    from fastapi.testclient import TestClient

    from nochmal.web import create_app

    app = create_app(tmp_path)
    with TestClient(app):
        worker = app.state.rooms.worker
        assert worker._thread.is_alive()
    worker._thread.join(5)
    assert not worker._thread.is_alive()
