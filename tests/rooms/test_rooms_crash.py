"""A real server process killed with SIGKILL in the middle of a stream of edits, restarted
on the same data folder: every edit it acknowledged is there.

Each seat's edit k replaces its sheet by the first k+1 cells of a fixed order, so the stored
sheet tells exactly which edit it holds: it must be the last acknowledged one or a later
one that was in flight when the process died (stored but never answered).
"""

from __future__ import annotations

import threading
import time

import httpx

from nochmal.board import load_board
from rooms_support import crash, free_port, serving

BOARD = load_board("classic")
ORDER = [f"{c}{r}" for r in range(1, 8) for c in "ABCDEFGHIJKLMNO"]


def test_sigkill_keeps_every_acknowledged_edit(tmp_path):
    data = tmp_path / "data"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with serving(data, port) as proc:
        code = httpx.post(url + "/api/rooms", json={"mode": "competitive", "players": 4}).json()["id"]
        tokens = [httpx.post(f"{url}/api/rooms/{code}/seats", json={"name": f"P{k}"}).json()["seat_token"]
                  for k in range(4)]
        acked = [-1] * 4  # per seat: the last edit answered 200
        stop = threading.Event()

        def writer(seat: int) -> None:
            with httpx.Client(timeout=5) as http:
                sheet_version = 0  # a new seat's; each answer gives the next
                for k in range(len(ORDER)):
                    if stop.is_set():
                        return
                    try:
                        res = http.put(f"{url}/api/rooms/{code}/seats/{seat}/sheet",
                                       json={"cells": ORDER[: k + 1], "version": sheet_version},
                                       headers={"Authorization": f"Bearer {tokens[seat]}"})
                    except httpx.HTTPError:
                        return  # the server died mid-request: not acknowledged
                    if res.status_code != 200:
                        return
                    sheet_version = res.json()["sheet_version"]
                    acked[seat] = k

        threads = [threading.Thread(target=writer, args=(s,)) for s in range(4)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 120
        while min(acked) < 5 and time.monotonic() < deadline:  # a loaded machine answers slowly
            time.sleep(0.05)
        crash(proc)  # mid-stream: the writers are still sending
        stop.set()
        for t in threads:
            t.join(10)
        assert min(acked) >= 3, f"too few edits before the kill: {acked}"
        assert max(acked) < len(ORDER) - 1, "the stream ended before the kill; the test proves nothing"
    with serving(data, port):
        room = httpx.get(f"{url}/api/rooms/{code}").json()
        for seat in range(4):
            cells = set(room["seats"][seat]["cells"])
            held = len(cells) - 1  # the edit the stored sheet is
            assert cells == set(ORDER[: held + 1]), "a stored sheet is not one of the edits sent"
            assert held >= acked[seat], f"seat {seat}: edit {acked[seat]} was acknowledged, only {held} stored"
            assert held <= acked[seat] + 1, "more than one unanswered edit stored"
        # the old tokens still hold their seats after the restart
        res = httpx.put(f"{url}/api/rooms/{code}/seats/0/sheet",
                        json={"cells": [], "version": room["seats"][0]["sheet_version"]},
                        headers={"Authorization": f"Bearer {tokens[0]}"})
        assert res.status_code == 200


def test_an_import_that_fails_halfway_leaves_no_room(tmp_path, monkeypatch):
    # review finding: import_room created the room in one transaction and its seats in a
    # second; a failure between them left an empty room behind
    import sqlite3
    from contextlib import closing

    import pytest

    import nochmal.web.rooms.store as store_module
    from nochmal.web.rooms.model import RoomSpec, SheetState
    from nochmal.web.rooms.store import RoomStore

    store = RoomStore(tmp_path)
    calls = []
    real_hash = store_module.secret_hash

    def failing_hash(secret):
        calls.append(secret)
        if len(calls) == 2:  # the second seat's token
            raise RuntimeError("disk full")
        return real_hash(secret)

    monkeypatch.setattr(store_module, "secret_hash", failing_hash)
    spec = RoomSpec(mode="competitive", board="classic", players=2)
    with pytest.raises(RuntimeError):
        store.import_room(spec, 3, [("Anna", SheetState()), ("Ben", SheetState())])
    with closing(sqlite3.connect(store.path)) as db:  # what another process would read
        assert db.execute("SELECT COUNT(*) FROM rooms").fetchone()[0] == 0
        assert db.execute("SELECT COUNT(*) FROM seats").fetchone()[0] == 0
    monkeypatch.setattr(store_module, "secret_hash", real_hash)
    code, tokens, handovers = store.import_room(spec, 3, [("Anna", SheetState()), ("Ben", SheetState())])
    assert len(tokens) == len(handovers) == 2 and [s.name for s in store.room(code).seats] == ["Anna", "Ben"]
