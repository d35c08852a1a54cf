"""A web game is a table session (nochmal/table/session.py) kept as its record: a new server
on the same data folder replays the record through the engine and continues the same game,
a co-op mission's and a finished one's too. Oracles: the first server's own answers, and
the engine's replay of the stored record (GameRecord.verify)."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from nochmal.missions.coop import record_game
from nochmal.record import GameRecord
from nochmal.web import create_app


def restored(tmp_path, game_id: str) -> dict:
    with TestClient(create_app(tmp_path)) as fresh:
        return fresh.get(f"/api/games/{game_id}").json()


def test_a_coop_game_continues_on_a_new_server_with_its_mission(tmp_path):
    with TestClient(create_app(tmp_path)) as client:
        state = client.post("/api/games", json={"kind": "play", "seats": ["human", "greedy"], "mission": "lockstep",
                                                "difficulty": "easy", "seed": 2}).json()
        game_id = state["id"]
        for _ in range(2):
            before = client.post(f"/api/games/{game_id}/move", json={"move": "pass"}).json()
        client.post(f"/api/games/{game_id}/move", json={"move": "pass"})
        state = client.get(f"/api/games/{game_id}").json()
    assert state["rolls"] == 3 and state["log"][-1]["name"] == "greedy (seat 2)"  # the bot teammate answered
    again = restored(tmp_path, game_id)
    assert again == state
    assert again["mission"]["id"] == "lockstep" and again["mission"]["budget"] == again["roll_limit"]
    stored = GameRecord.loads((tmp_path / "games" / f"{game_id}.json").read_text())
    assert stored.verify("stored", record_game).scores() == again["scores"]
    # the replayed states are on the undo stack as if played on this server: undo reaches
    # back into them, and the game goes on from there
    with TestClient(create_app(tmp_path)) as fresh:
        undone = fresh.post(f"/api/games/{game_id}/undo").json()
        assert undone["rolls"] == 2 and undone["sheets"] == before["sheets"] and undone["dice"] == before["dice"]
        moved = fresh.post(f"/api/games/{game_id}/move", json={"move": "pass"}).json()
    assert moved == state


def test_a_finished_puzzle_reads_back_as_it_ended(tmp_path):
    with TestClient(create_app(tmp_path)) as client:
        state = client.post("/api/games", json={"kind": "puzzle", "seed": 6}).json()
        game_id = state["id"]
        while not state["over"]:
            state = client.post(f"/api/games/{game_id}/move", json={"move": "pass"}).json()
        state = client.get(f"/api/games/{game_id}").json()
    assert state["rolls"] == 30 and state["rating"]
    again = restored(tmp_path, game_id)
    assert again == state
    stored = json.loads((tmp_path / "games" / f"{game_id}.json").read_text())
    assert stored["result"]["scores"] == again["scores"]
