"""The answers /openapi.json promises (nochmal/web/responses.py): every route that documents a
JSON answer by a model is called here, and its answer must validate against that model. The
models describe without filtering, so nothing else would notice an answer drifting away
from what /docs shows."""

from __future__ import annotations

import io
import time

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from pydantic import TypeAdapter

from nochmal.web import create_app

EMPTY = "\n".join(["." * 15] * 7)


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    with TestClient(create_app(tmp_path_factory.mktemp("web"), job_time_cap=5.0)) as c:
        yield c


def documented_routes(app) -> dict[tuple[str, str], tuple[int, object]]:
    """(method, path) -> (status, model) of every route whose JSON answer has a model."""
    out = {}
    for route in app.routes:
        if isinstance(route, APIRoute):
            for status, answer in route.responses.items():
                if "model" in answer:
                    for method in route.methods:
                        out[(method, route.path)] = (int(status), answer["model"])
    return out


def examples(client) -> dict[tuple[str, str], object]:
    """One request per documented route, on real games, a record and a job."""
    puzzle = client.post("/api/games", json={"kind": "puzzle", "seed": 5}).json()["id"]
    coop = client.post("/api/games", json={"seats": ["human:Ann", "greedy"], "seed": 9, "mission": "lockstep",
                                           "difficulty": "easy"}).json()["id"]
    record = client.get(f"/api/games/{coop}/record").content
    upload = client.post("/api/records", files={"file": ("r.json", io.BytesIO(record), "application/json")})
    rec = upload.json()["id"]
    solve = client.post("/api/jobs/solve", json={"seed": 3, "count": 2, "time_limit": 1})
    job = solve.json()["id"]
    deadline = time.monotonic() + 600  # a hang guard: the 2-roll solve takes a second
    while not client.get(f"/api/jobs/{job}").json()["done"]:
        assert time.monotonic() < deadline, "the solve job hung"
        time.sleep(0.2)
    roll = {"colours": ["y", "x"], "numbers": ["3", "?"]}
    return {
        ("GET", "/api/health"): lambda: client.get("/api/health"),
        ("GET", "/api/boards"): lambda: client.get("/api/boards"),
        ("GET", "/api/boards/{name}"): lambda: client.get("/api/boards/purple"),
        ("GET", "/api/rolls"): lambda: client.get("/api/rolls", params={"seed": 5, "count": 3}),
        ("GET", "/api/daily"): lambda: client.get("/api/daily"),
        ("POST", "/api/score"): lambda: client.post("/api/score", json={"sheet": EMPTY}),
        ("POST", "/api/moves"): lambda: client.post("/api/moves", json={"colour": "g", "count": 1}),
        ("POST", "/api/hint"): lambda: client.post("/api/hint", json={"roll": roll, "solo": True}),
        ("GET", "/api/bots"): lambda: client.get("/api/bots"),
        ("GET", "/api/missions"): lambda: client.get("/api/missions"),
        ("GET", "/api/missions/{mission_id}"): lambda: client.get("/api/missions/lockstep"),
        ("POST", "/api/missions/{mission_id}/status"): lambda: client.post(
            "/api/missions/lockstep/status", json={"difficulty": "easy", "rolls_used": 3, "sheets": [EMPTY, EMPTY]}),
        ("POST", "/api/games"): lambda: client.post("/api/games", json={"kind": "puzzle", "seed": 7}),
        ("GET", "/api/games/{game_id}"): lambda: client.get(f"/api/games/{coop}"),
        ("POST", "/api/games/{game_id}/tap"): lambda: client.post(
            f"/api/games/{puzzle}/tap", json={"colour": "x", "number": "3", "cells": []}),
        ("POST", "/api/games/{game_id}/move"): lambda: client.post(f"/api/games/{puzzle}/move", json={"move": "pass"}),
        ("POST", "/api/games/{game_id}/undo"): lambda: client.post(f"/api/games/{puzzle}/undo"),
        ("POST", "/api/games/{game_id}/open"): lambda: client.post(f"/api/games/{puzzle}/open", params={"svg": False}),
        ("GET", "/api/games/{game_id}/hint"): lambda: client.get(f"/api/games/{coop}/hint"),
        ("GET", "/api/games/{game_id}/rolls"): lambda: client.get(f"/api/games/{puzzle}/rolls"),
        ("GET", "/api/games/{game_id}/record"): lambda: client.get(f"/api/games/{coop}/record"),
        ("POST", "/api/records"): lambda: upload,
        ("GET", "/api/records/{rec_id}"): lambda: client.get(f"/api/records/{rec}"),
        ("GET", "/api/records/{rec_id}/turns/{turn}"): lambda: client.get(f"/api/records/{rec}/turns/1"),
        ("POST", "/api/jobs/solve"): lambda: solve,
        ("POST", "/api/jobs/analyse"): lambda: client.post("/api/jobs/analyse", json={"game_id": puzzle}),
        ("GET", "/api/jobs/{job_id}"): lambda: client.get(f"/api/jobs/{job}"),
        ("POST", "/api/jobs/{job_id}/cancel"): lambda: client.post(f"/api/jobs/{job}/cancel"),
    }


def test_every_documented_answer_has_its_models_shape(client):
    documented = documented_routes(client.app)
    calls = examples(client)
    assert set(documented) <= set(calls), f"no example for {sorted(set(documented) - set(calls))}"
    for key, (status, model) in documented.items():
        answer = calls[key]()
        if key == ("POST", "/api/jobs/analyse"):  # an unfinished puzzle is refused; the model is the job's
            assert answer.status_code == 400, answer.text
            continue
        assert answer.status_code == status, (key, answer.text[:300])
        assert answer.headers["content-type"].startswith("application/json"), key
        TypeAdapter(model).validate_python(answer.json())


def test_every_endpoint_has_its_schemas_in_openapi(client):
    """/openapi.json gives every endpoint (the rooms' too) a schema for its success answer, JSON
    or not (an SVG, a zip, an event stream), and a request schema wherever a body is read:
    docs/web.md sends API users there rather than to the code."""
    spec = client.get("/openapi.json").json()
    unanswered, bodiless = [], []
    for path, operations in spec["paths"].items():
        for method, op in operations.items():
            success = [answer for status, answer in op["responses"].items() if status.startswith("2")]
            if not any(kind.get("schema") for answer in success for kind in answer.get("content", {}).values()):
                unanswered.append(f"{method.upper()} {path}")
            if method in ("post", "put") and not op.get("requestBody") and not no_body(client.app, method, path):
                bodiless.append(f"{method.upper()} {path}")
    assert not unanswered, f"no response schema: {unanswered}"
    assert not bodiless, f"reads a body but shows no request schema: {bodiless}"



# actions named by their path alone: they read no body, so they have no request schema
NO_BODY = {"POST /api/games/{game_id}/undo", "POST /api/games/{game_id}/open", "POST /api/jobs/{job_id}/cancel",
           "POST /api/rooms/{code}/seats/{seat}/handover"}


def no_body(app, method: str, path: str) -> bool:
    return f"{method.upper()} {path}" in NO_BODY
