"""The HTTP fuzzer: every endpoint of the OpenAPI schema, inputs generated from the schema
(valid and invalid, schemathesis on Hypothesis), against an app that holds real games, a
record, rooms and a job, so that ids in paths often name something that exists. No input may
get a 5xx, and every refusal is the app's one JSON shape ``{"error", "field"}``.

The count of inputs is printed at the end of the run (tests/conftest.py). More inputs:
``NOCHMAL_FUZZ_EXAMPLES=200 pytest tests/test_security_fuzz.py`` (benchmarks/fuzz.py --http).
"""

from __future__ import annotations

import io
import os

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from nochmal.web import create_app

EXAMPLES = int(os.environ.get("NOCHMAL_FUZZ_EXAMPLES", "25"))  # per endpoint and generation mode, at most

APP = create_app(None, job_time_cap=2.0, abandon_after=5.0)
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


def _resources() -> dict[str, list]:
    """Real ids to put in paths, and seat tokens for the Authorization header."""
    client = TestClient(APP)
    puzzle = client.post("/api/games", json={"kind": "puzzle", "seed": 5}).json()
    play = client.post("/api/games", json={"seats": ["human:Ann", "greedy"], "seed": 9}).json()
    record = client.get(f"/api/games/{puzzle['id']}/record").content
    upload = client.post("/api/records", files={"file": ("r.json", io.BytesIO(record), "application/json")}).json()
    job = client.post("/api/jobs/solve", json={"seed": 3, "count": 2, "time_limit": 1}).json()
    rooms, tokens = [], []
    for spec in ({"mode": "competitive", "board": "classic", "players": 2},
                 {"mode": "mission", "mission": "lockstep", "difficulty": "easy", "players": 2}):
        code = client.post("/api/rooms", json=spec).json()["id"]
        rooms.append(code)
        tokens.append(client.post(f"/api/rooms/{code}/seats", json={"name": "Ann"}).json()["seat_token"])
    return {"game_id": [puzzle["id"], play["id"]], "rec_id": [upload["id"]], "job_id": [job["id"]],
            "code": rooms, "seat": ["0", "1"], "token": tokens}


REAL = _resources()


@schema.hook("flatmap_path_parameters")
def real_ids_half_the_time(context, path_parameters):
    """Each id in a path is the generated one or a real one, so handlers past the lookup run."""
    if not path_parameters or context.operation.path.endswith("/events"):  # a real room's stream lasts seconds
        return st.just(path_parameters)
    choices = {k: st.sampled_from([v, *REAL.get(k, [])]) for k, v in path_parameters.items()}
    return st.fixed_dictionaries(choices)


@schema.hook("flatmap_headers")
def a_seat_token_sometimes(context, headers):
    """Room edits need a seat's token: sometimes none, sometimes a real one."""
    tokens = [None, *REAL["token"]]
    return st.sampled_from(tokens).map(
        lambda t: {**(headers or {}), **({"Authorization": f"Bearer {t}"} if t else {})})


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
def test_no_input_gets_a_server_error(case, record_property):
    response = case.call()
    record_property("http_fuzz_inputs", 1)
    assert response.status_code < 500, (case.method, case.formatted_path, case.body, response.text[:300])
    if response.status_code >= 400:
        body = response.json()
        assert set(body) == {"error", "field"} and isinstance(body["error"], str) and body["error"], body


def test_the_schema_describes_every_body():
    """The fuzzer can only reach what the schema describes: every endpoint that reads a body
    declares it (the rooms' bodies were once parsed by hand and invisible here)."""
    spec = APP.openapi()
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            if method in ("post", "put") and not path.endswith(("/undo", "/open", "/cancel", "/handover")):
                assert "requestBody" in op, f"{method.upper()} {path} declares no body"
