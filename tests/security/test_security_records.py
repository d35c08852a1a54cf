"""Uploaded records and web games against a client that means harm (docs/security.md): no
request names a file on the server, an upload costs the server its size and not every
replayed state, its replay never holds up the event loop, an address may store only so
much, and a damaged stored game, record or data folder is one clear line, never a traceback.

Oracles: the engine's full replay (nochmal.table.stepper.replay_states and turn_data) for the
states worked out on demand; spies on the mission loader's file reader for "no file is opened".
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import re
import socket
import subprocess
import sys
import threading
import tracemalloc
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import nochmal as nm
from nochmal.bots import make_agent
from nochmal.errors import NochmalError
from nochmal.game import Game, Mode
from nochmal.missions.coop import mission_outcome_line, mission_record, play_mission, record_game
from nochmal.missions.loader import builtin_missions, shipped_mission
from nochmal.move import Move
from nochmal.play import play_game
from nochmal.record import GameRecord
from nochmal.table.stepper import replay_states, turn_data
from nochmal.web import create_app

CLI = [sys.executable, "-c", "from nochmal.cli import main; main()"]
MB = 1_000_000


# --- helpers ---------------------------------------------------------------------------------
@pytest.fixture
def data(tmp_path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def client(data):
    with TestClient(create_app(data)) as c:
        yield c


def upload(client, content: bytes | str | dict):
    if isinstance(content, dict):
        content = json.dumps(content)
    if isinstance(content, str):
        content = content.encode()
    return client.post("/api/records", files={"file": ("g.json", content, "application/json")})


def assert_error(resp, status: int, field: str | None, text: str = "") -> dict:
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert set(body) == {"error", "field"} and body["error"], body
    assert body["field"] == field, body
    assert text in body["error"], body
    assert "Traceback" not in body["error"]
    return body


def coop_record(ref: str | None = None) -> dict:
    """A finished 2-seat lockstep record (as `nochmal mission play --save` writes it), its
    mission reference replaced by ``ref``."""
    mission = shipped_mission("lockstep")
    game, _ = play_mission(mission, "easy", [make_agent("greedy"), make_agent("greedy")], seed=5)
    data = mission_record(mission, "easy", game, ["greedy", "greedy"], 5).to_json()
    if ref is not None:
        data["extra"]["mission"] = ref
    return data


class Passer:
    """Passes every decision (always legal): the game lasts its roll limit."""

    name = "passer"

    def choose(self, game: Game) -> Move:
        return Move.parse("pass")


def passing_record(rolls: int, seats: int, seed: int = 1) -> GameRecord:
    """The largest records the reader takes are of this shape (benchmarks/bench_uploads.py)."""
    game = Game(nm.load_board("classic"), seats, mode=Mode.COMPETITIVE, roll_limit=rolls)
    play_game(game, [Passer()] * seats, seed)
    return GameRecord.from_game(game, [f"human:P{p + 1}" for p in range(seats)], seed)


@pytest.fixture
def mission_reads(monkeypatch) -> list:
    """Every file the mission loader is asked to read (none is opened: the read is refused)."""
    import nochmal.missions.loader as loader

    builtin_missions()  # the shipped missions are read once per process: before the spy
    calls = []

    def spy(path, error, *args, **kwargs):
        calls.append(str(path))
        raise error("the test refuses to open it")

    monkeypatch.setattr(loader, "read_text_file", spy)
    return calls


# --- item: a request names a file on the server --------------------------------------------------
@pytest.mark.parametrize("ref", ["/dev/stdin", "/etc/shadow", "/etc/passwd", "../x.toml", "/nonexistent/x.toml",
                                 "/tmp", "lockstep.toml", "./lockstep", "missions/lockstep.toml"])
def test_a_mission_path_in_an_uploaded_record_is_a_422_naming_extra_mission(client, mission_reads, ref):
    body = assert_error(upload(client, coop_record(ref)), 422, "extra.mission", "unknown mission")
    assert mission_reads == [], f"the server tried to read {mission_reads}"
    assert "lockstep" in body["error"]  # the shipped ids are named, as for any unknown id


@pytest.mark.parametrize("ref", [["lockstep"], {"id": "lockstep"}, 5, True])
def test_a_mission_reference_that_is_no_text_is_a_422_naming_extra_mission(client, ref):
    assert_error(upload(client, coop_record(ref)), 422, "extra.mission", "unknown mission")


def test_a_planted_mission_file_is_never_loaded(client, tmp_path, mission_reads):
    planted = tmp_path / "planted.toml"
    text = (Path(shipped_mission("lockstep").path)).read_text().replace('id = "lockstep"', 'id = "planted"')
    planted.write_text(text)
    for ref in (str(planted), f"../../../../../../..{planted}"):
        assert_error(upload(client, coop_record(ref)), 422, "extra.mission")
    assert mission_reads == []


def test_the_answer_does_not_tell_files_apart(client, tmp_path):
    """An existing file, a missing one, a folder and a TOML file: the same answer but for the
    name echoed (the old answers said 'No such file', 'Is a directory', 'not valid TOML')."""
    (tmp_path / "real.toml").write_text('api_key = "secret"\n')
    refs = ["/etc/passwd", "/nonexistent/passwd", "/etc", str(tmp_path / "real.toml")]
    texts = set()
    for ref in refs:
        body = assert_error(upload(client, coop_record(ref)), 422, "extra.mission")
        texts.add(re.sub(r"unknown mission .*; missions:", "unknown mission REF; missions:", body["error"]))
        assert "api_key" not in body["error"]
    assert len(texts) == 1, texts


def test_a_fifo_named_as_the_mission_does_not_hang_the_server(client, tmp_path):
    fifo = tmp_path / "mission.toml"
    os.mkfifo(fifo)
    answer = {}
    worker = threading.Thread(target=lambda: answer.update(resp=upload(client, coop_record(str(fifo)))), daemon=True)
    worker.start()
    worker.join(60)  # a hang guard only: the answer comes at once
    if worker.is_alive():  # the server is blocked opening the FIFO: give it an end, then fail
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        worker.join(60)
        pytest.fail("the upload blocked on the FIFO named in extra.mission")
    assert_error(answer["resp"], 422, "extra.mission")
    assert client.get("/api/health").status_code == 200


def test_a_stored_game_naming_a_mission_path_is_not_loaded(data, tmp_path, mission_reads, caplog):
    planted = tmp_path / "planted.toml"
    planted.write_text(Path(shipped_mission("lockstep").path).read_text())
    with TestClient(create_app(data)) as c:
        game = c.post("/api/games", json={"seats": ["human", "greedy"], "mission": "lockstep"}).json()
    path = data / "games" / f"{game['id']}.json"
    stored = json.loads(path.read_text())
    assert stored["extra"]["mission"] == "lockstep"
    stored["extra"]["mission"] = str(planted)
    path.write_text(json.dumps(stored))
    with TestClient(create_app(data)) as c, caplog.at_level(logging.ERROR):
        assert_error(c.get(f"/api/games/{game['id']}"), 500, "game", "cannot be read")
    assert mission_reads == []


def test_the_picture_line_of_a_record_finds_its_mission_by_the_callers_resolver(mission_reads):
    """The web draws a co-op record with the shipped-only resolver: a path is an unknown
    mission, and the loader opens nothing."""
    from nochmal.web.games import web_mission

    record = GameRecord.from_json(coop_record())
    final = record.verify("r", record_game)
    assert mission_outcome_line(record, final, web_mission).startswith("mission lockstep (easy): ")
    record.extra["mission"] = "/etc/passwd"
    line = mission_outcome_line(record, final, web_mission)
    assert "outcome unknown" in line and "unknown mission" in line
    assert mission_reads == []


# --- item: memory and event-loop exhaustion by uploads -------------------------------------------
def test_a_stored_record_costs_its_text_not_its_states(client):
    store = client.app.state.records
    record = passing_record(300, 6)
    text = record.dumps()
    rid = upload(client, text).json()["id"]
    assert store.memory_bytes() < 1.5 * len(text) + 10_000  # the text and a summary, no list of states
    assert store.cursors.used == 0  # no replayed game is kept for an upload nobody looks at
    assert client.get(f"/api/records/{rid}/turns/150", params={"svg": False}).status_code == 200
    from nochmal.web.records import cursor_bytes

    assert store.cursors.used == cursor_bytes(GameRecord.loads(text)) <= store.cursors.max_bytes


def test_the_largest_upload_keeps_at_most_5_mb(data):
    """A 6-seat record of 1000 rolls (the most a record holds) kept about 119 MB (every
    replayed state); now its text, and a replay cursor of a few MB once it is viewed."""
    text = json.dumps(passing_record(1000, 6).to_json())
    with TestClient(create_app(data)) as c:
        assert upload(c, passing_record(3, 2).dumps()).status_code == 200  # imports and first-use caches
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            resp = upload(c, text)
            gc.collect()
            kept = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        assert resp.status_code == 200, resp.text
        assert kept < 5 * MB, f"one upload keeps {kept / MB:.1f} MB"


def _oracle_check(client, rid: str, record: GameRecord, turns: list[int]) -> None:
    states = replay_states(record, "oracle")
    for t in turns:
        got = client.get(f"/api/records/{rid}/turns/{t}").json()
        svgs = got.pop("sheets_svg")
        assert got == json.loads(json.dumps(turn_data(record, states, t))), f"turn {t}"
        assert [s.count('data-crossed="1"') for s in svgs] == [s.crossed.bit_count() for s in states[t].sheets]


def _records() -> dict[str, GameRecord]:
    solo = nm.play_solo(nm.load_board("classic"), make_agent("greedy"), 4)
    race = nm.play_competitive(nm.load_board("classic"), [make_agent("greedy", i) for i in range(3)], seed=6)
    coop = GameRecord.from_json(coop_record())
    cut = GameRecord.from_json(race.to_json())  # an unfinished game stopped inside its last roll
    cut.rolls = [(roll, list(moves)) for roll, moves in cut.rolls[:12]]
    cut.rolls[-1] = (cut.rolls[-1][0], cut.rolls[-1][1][:1])
    cut.result = None
    return {"solo": solo, "race": race, "coop": coop, "cut": cut}


@pytest.mark.parametrize("name", ["solo", "race", "coop", "cut"])
def test_every_turn_answers_as_a_full_replay_in_any_order(client, name):
    record = _records()[name]
    rid = upload(client, record.dumps()).json()["id"]
    n = len(record.rolls)
    order = list(range(n, -1, -1)) + [n // 2, 1, n, 0, n - 1, 2] + list(range(n + 1))
    _oracle_check(client, rid, record, order)
    assert_error(client.get(f"/api/records/{rid}/turns/{n + 1}"), 404, "turn")
    assert_error(client.get(f"/api/records/{rid}/turns/-1"), 404, "turn")


def test_cursors_leave_the_cache_by_its_bytes_and_come_back_the_same(client):
    from nochmal.web.records import CursorCache, cursor_bytes

    records = _records()
    store = client.app.state.records
    store.cursors = CursorCache(max(cursor_bytes(r) for r in records.values()))  # room for one or two
    ids = {name: upload(client, r.dumps()).json()["id"] for name, r in records.items()}
    for _ in range(2):
        for name, record in records.items():
            n = len(record.rolls)
            _oracle_check(client, ids[name], record, [n, n // 2, 0])
            assert ids[name] in store.cursors.entries
            assert store.cursors.used <= store.cursors.max_bytes
            assert len(store.cursors.entries) < len(records)


def test_the_replay_of_an_upload_runs_off_the_event_loop(client, monkeypatch):
    import nochmal.web.records as records

    seen = []
    real = records.parse_record

    def spy(text):
        try:
            asyncio.get_running_loop()
            seen.append("event loop")
        except RuntimeError:
            seen.append(threading.current_thread().name)
        return real(text)

    monkeypatch.setattr(records, "parse_record", spy)
    assert upload(client, passing_record(5, 2).dumps()).status_code == 200
    assert len(seen) == 1 and seen[0] != "event loop", seen


def test_an_address_stores_so_many_bytes_a_day_then_429_with_the_reason(data):
    from nochmal.web.limits import UploadQuota

    text = passing_record(20, 2).dumps()
    app = create_app(data)
    app.state.records.quota = UploadQuota(per_client=int(2.5 * len(text)), in_all=100 * len(text))
    with TestClient(app) as c, TestClient(app, client=("10.0.0.2", 4000)) as other:
        for _ in range(2):
            assert upload(c, text).status_code == 200
        assert_error(upload(c, text), 429, "file", "bytes of records a day from one address")
        assert upload(other, text).status_code == 200  # another address has its own share
    assert len(list((data / "records").glob("*.json"))) == 3  # the refused one is not stored


def test_all_addresses_together_store_so_many_bytes_a_day(data):
    from nochmal.web.limits import UploadQuota

    text = passing_record(20, 2).dumps()
    app = create_app(data)
    app.state.records.quota = UploadQuota(per_client=100 * len(text), in_all=int(1.5 * len(text)))
    with TestClient(app) as c, TestClient(app, client=("10.0.0.2", 4000)) as other:
        assert upload(c, text).status_code == 200
        assert_error(upload(other, text), 429, "file", "from all addresses together")


def test_the_quota_forgets_after_a_day():
    from nochmal.web.limits import UploadQuota
    from nochmal.web.errors import WebError

    quota = UploadQuota(per_client=1000, in_all=1500)
    quota.charge("a", 600, now=0)
    with pytest.raises(WebError) as exc:
        quota.check("a", 500, now=10)
    assert exc.value.status == 429 and exc.value.field == "file"
    quota.check("b", 500, now=10)
    quota.charge("b", 800, now=10)
    with pytest.raises(WebError):
        quota.charge("c", 200, now=20)  # 600 + 800 + 200 over all addresses' 1500
    quota.charge("a", 900, now=86_411)  # a day later the first uploads no longer count


# --- item: 500s ----------------------------------------------------------------------------------
def test_a_lone_surrogate_in_a_seat_name_is_a_422_and_no_game_is_written(client, data):
    resp = client.post("/api/games", content=b'{"seats": ["human:\\ud800", "greedy"]}',
                       headers={"content-type": "application/json"})
    assert_error(resp, 422, "seats.0", "lone surrogate")
    assert list((data / "games").glob("*.json")) == []


def test_a_lone_surrogate_in_an_uploaded_players_name_is_a_422_naming_it(client, data):
    record = json.loads(nm.play_solo(nm.load_board("classic"), make_agent("greedy"), 4).dumps())
    record["players"][0] = "human:\ud800"
    assert_error(upload(client, json.dumps(record)), 422, "file", "players.0")
    assert list((data / "records").glob("*.json")) == []


def _older_servers_game(text: str) -> str:
    data = json.loads(text)
    data["players"][0] = "human:\ud800"  # json.dumps escapes it: the file is valid JSON
    return json.dumps(data)


@pytest.mark.parametrize("damage", ["surrogate", "truncated", "garbage", "illegal move"])
def test_a_damaged_stored_game_is_a_logged_500_naming_the_game(data, caplog, damage):
    with TestClient(create_app(data)) as c:
        gid = c.post("/api/games", json={"seats": ["human", "greedy"], "seed": 4}).json()["id"]
        c.post(f"/api/games/{gid}/move", json={"move": "pass"})
    path = data / "games" / f"{gid}.json"
    text = path.read_text()
    broken = {"surrogate": _older_servers_game(text), "truncated": text[: len(text) // 2], "garbage": "\x00" * 50,
              "illegal move": text.replace('"move": "pass"', '"move": "b9 A1"', 1)}[damage]
    path.write_text(broken)
    with TestClient(create_app(data)) as c, caplog.at_level(logging.ERROR, logger="nochmal.web.games"):
        for resp in (c.get(f"/api/games/{gid}"), c.get(f"/api/games/{gid}/record"),
                     c.post(f"/api/games/{gid}/move", json={"move": "pass"})):
            assert_error(resp, 500, "game", "cannot be read")
        assert c.get("/api/health").status_code == 200
    assert any(gid in r.getMessage() for r in caplog.records), "the damage is logged for the server's owner"
    assert path.read_text() == broken  # not replaced, not removed


@pytest.mark.parametrize("damage", ["truncated", "surrogate", "forged"])
def test_a_damaged_stored_record_is_a_logged_500_naming_the_record(data, caplog, damage):
    record = nm.play_solo(nm.load_board("classic"), make_agent("greedy"), 4)
    with TestClient(create_app(data)) as c:
        rid = upload(c, record.dumps()).json()["id"]
    path = data / "records" / f"{rid}.json"
    text = path.read_text()
    forged = json.loads(text)
    forged["result"]["scores"] = [forged["result"]["scores"][0] + 1]
    broken = {"truncated": text[: len(text) // 2], "surrogate": _older_servers_game(text),
              "forged": json.dumps(forged)}[damage]
    path.write_text(broken)
    with TestClient(create_app(data)) as c, caplog.at_level(logging.ERROR, logger="nochmal.web.games"):
        for url in (f"/api/records/{rid}", f"/api/records/{rid}/turns/3", f"/api/records/{rid}/svg"):
            assert_error(c.get(url), 500, "record", "cannot be read")
    assert any(rid in r.getMessage() for r in caplog.records)
    assert path.read_text() == broken


def test_integers_of_thousands_of_digits_are_a_4xx(client):
    big = "9" * 5000
    rid = upload(client, nm.play_solo(nm.load_board("classic"), make_agent("greedy"), 4).dumps()).json()["id"]
    gid = client.post("/api/games", json={"kind": "puzzle", "seed": 3}).json()["id"]
    for resp in (client.get(f"/api/records/{rid}/turns/{big}"), client.get("/api/rolls", params={"seed": big}),
                 client.get(f"/api/games/{gid}/sheet", params={"after": big}),
                 client.get(f"/api/games/{gid}/sheet", params={"after": 3, "seat": big}),
                 client.post("/api/games", content=f'{{"kind": "puzzle", "seed": {big}}}'.encode(),
                             headers={"content-type": "application/json"}),
                 client.post("/api/jobs/analyse", content=f'{{"record_id": "{rid}", "seat": {big}}}'.encode(),
                             headers={"content-type": "application/json"})):
        assert 400 <= resp.status_code < 500, resp.text
        assert set(resp.json()) == {"error", "field"}


# --- item: a damaged data folder -----------------------------------------------------------------
@pytest.mark.parametrize("folder", ["games", "records"])
def test_a_file_where_a_data_folder_belongs_is_one_error_line(data, folder):
    data.mkdir()
    (data / folder).write_text("not a folder\n")
    with pytest.raises(NochmalError) as exc:
        create_app(data)
    message = str(exc.value)
    assert str(data / folder) in message and "not a folder" in message and "\n" not in message
    assert (data / folder).read_text() == "not a folder\n"


def test_serve_with_a_file_for_the_games_folder_exits_1_with_one_line(data):
    data.mkdir()
    (data / "games").write_text("mine\n")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    res = subprocess.run(CLI + ["serve", "--port", str(port), "--data", str(data)], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 1, res.stderr
    assert res.stderr.startswith("error: ") and str(data / "games") in res.stderr
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert (data / "games").read_text() == "mine\n"
