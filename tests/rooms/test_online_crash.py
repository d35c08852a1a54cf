"""An online room's server killed with SIGKILL while two seats keep choosing, started again on
the same data folder: every acknowledged move is there (at most the one in flight more), the
roll in play has the same dice, and the game goes on from the same turn."""

from __future__ import annotations

import threading
import time

import httpx

from online_support import API, auth, biggest_move
from rooms_support import crash, free_port, serving


def test_sigkill_mid_game_keeps_every_acknowledged_move(tmp_path):
    data = tmp_path / "data"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    dice_seen: dict[int, dict] = {}  # roll -> its dice, as the phones were shown them
    acked = [0]  # moves answered 200
    with serving(data, port) as proc:
        code = httpx.post(url + API, json={"mode": "competitive", "seats": ["human", "human"]}).json()["id"]
        tokens = [httpx.post(f"{url}{API}/{code}/seats", json={"name": n}).json()["seat_token"] for n in ("A", "B")]
        stop = threading.Event()

        def player() -> None:  # both seats, in turn: whichever may choose, chooses
            with httpx.Client(timeout=5) as http:
                while not stop.is_set():
                    try:
                        for seat, token in enumerate(tokens):
                            doc = http.get(f"{url}{API}/{code}", headers=auth(token)).json()
                            if doc["over"]:
                                return
                            dice_seen[doc["roll"]] = doc["dice"]
                            if doc["you"]["offer"]["state"] != "choosing":
                                continue
                            res = http.post(f"{url}{API}/{code}/seats/{seat}/move", headers=auth(token),
                                            json={"roll": doc["roll"], "move": biggest_move(doc, seat)})
                            if res.status_code != 200:
                                return
                            acked[0] += 1
                    except httpx.HTTPError:
                        return  # the server died mid-request: not acknowledged

        thread = threading.Thread(target=player)
        thread.start()
        deadline = time.monotonic() + 120  # a hang guard: a loaded machine answers slowly
        while acked[0] < 9 and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        crash(proc)
        stop.set()
        thread.join(10)
        assert acked[0] >= 9, "too few moves before the kill"
    with serving(data, port):
        doc = httpx.get(f"{url}{API}/{code}", headers=auth(tokens[0])).json()
        assert not doc["over"], "the game ended before the kill; the test proves nothing"
        stored = 2 * (doc["roll"] - 1) + sum(s["state"] == "chosen" for s in doc["seats"])
        assert acked[0] <= stored <= acked[0] + 1, (acked[0], stored)
        assert doc["dice"] == dice_seen.get(doc["roll"], doc["dice"])
        # the game goes on: every seat offered chooses, the roll ends, the next is rolled
        for seat, token in [*enumerate(tokens)] * 2:  # twice: a passive seat waits for the active one
            mine = httpx.get(f"{url}{API}/{code}", headers=auth(token)).json()
            if mine["roll"] == doc["roll"] and mine["you"]["offer"]["state"] == "choosing":
                res = httpx.post(f"{url}{API}/{code}/seats/{seat}/move", headers=auth(token),
                                 json={"roll": mine["roll"], "move": "pass"})
                assert res.status_code == 200, res.text
        after = httpx.get(f"{url}{API}/{code}").json()
        assert after["roll"] == doc["roll"] + 1 or after["over"]
