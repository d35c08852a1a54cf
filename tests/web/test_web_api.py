"""The JSON API (/api) through an HTTP client: every endpoint's happy path and its bad inputs.

Oracles are independent of the web layer: the engine itself (Game, seeded rolls, records
replayed by GameRecord.verify), the CLI's --json output for the same question.
"""

from __future__ import annotations

import json
import re
import time

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

import nochmal as nm
from nochmal.bots import make_agent
from nochmal.cli import app as cli_app
from nochmal.dice import seeded_roll, seeded_rolls
from nochmal.game import Game
from nochmal.record import GameRecord
from nochmal.rules import RuleSettings
from nochmal.web import create_app


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(tmp_path, job_time_cap=8.0, abandon_after=30.0, max_body=200_000)) as c:
        yield c


def cli_json(args: list[str]) -> dict:
    res = CliRunner().invoke(cli_app, args + ["--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def assert_error(resp, status: int, field: str | None = None, text: str = "") -> dict:
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert set(body) == {"error", "field"} and body["error"]
    if field is not None:
        assert body["field"] == field, body
    assert text in body["error"], body
    assert "Traceback" not in body["error"]
    return body


# --- facts ---------------------------------------------------------------------------------
def test_health_and_openapi(client):
    assert client.get("/api/health").json() == {"ok": True, "version": nm.__dict__.get("__version__") or
                                                client.get("/api/health").json()["version"]}
    spec = client.get("/openapi.json").json()
    for path in ("/api/health", "/api/games", "/api/games/{game_id}/tap", "/api/jobs/solve", "/api/records"):
        assert path in spec["paths"]
    for page in ("/docs", "/redoc"):  # served offline: every script and style comes from the app itself
        html = client.get(page)
        assert html.status_code == 200
        assets = re.findall(r'(?:src|href)="([^"]+)"', html.text)
        assert any(a.endswith(".js") for a in assets), html.text
        for url in assets:
            assert url.startswith("/"), f"{page} loads {url} from outside"
            assert client.get(url).status_code == 200, url


def test_boards_rolls_score_moves_match_the_cli(client, tmp_path):
    assert client.get("/api/boards").json() == cli_json(["board", "list"])
    assert client.get("/api/boards/purple").json() == cli_json(["board", "show", "purple"])
    assert client.get("/api/boards/classic/svg").text.count('class="cell"') == 105
    assert client.get("/api/rolls", params={"seed": 7, "count": 5, "solo": True}).json() == \
        cli_json(["rolls", "--seed", "7", "--count", "5", "--solo"])
    sheet = nm.format_typed_sheet(nm.Sheet.from_cells(nm.load_board("classic"), ["H1", "H2", "H3", "H4", "G4"]))
    (tmp_path / "s.txt").write_text(sheet)
    assert client.post("/api/score", json={"board": "classic", "sheet": sheet}).json() == \
        cli_json(["score", str(tmp_path / "s.txt")])
    got = client.post("/api/moves", json={"sheet": sheet, "colour": "b", "count": 3}).json()
    assert got == cli_json(["moves", "--sheet", str(tmp_path / "s.txt"), "--colour", "b", "--count", "3"])
    assert got["placements"]


def test_fact_endpoints_refuse_bad_input_naming_the_field(client):
    assert_error(client.get("/api/boards/nope"), 400, "board", "unknown board")
    assert client.get("/api/boards/..%2F..%2Fetc%2Fpasswd").status_code in (400, 404)
    assert_error(client.get("/api/rolls", params={"seed": "abc"}), 422, "seed")
    assert_error(client.get("/api/rolls", params={"seed": -1}), 422, "seed")
    assert_error(client.get("/api/rolls", params={"seed": 1, "count": 100000}), 422, "count")
    assert_error(client.post("/api/score", json={"board": "classic", "sheet": "xx\n"}), 400, "sheet")
    # a sheet no legal game can produce (column A alone, not connected to H): refused with the
    # reasons as the CLI refuses it, answered with allow_impossible as with --allow-impossible
    far = nm.format_typed_sheet(nm.Sheet.from_cells(nm.load_board("classic"), [f"A{r}" for r in range(1, 8)]))
    for path, extra in (("/api/score", {}), ("/api/moves", {"colour": "b", "count": 2}),
                        ("/api/hint", {"roll": {"colours": ["y", "b"], "numbers": ["3", "?"]}, "solo": True})):
        assert_error(client.post(path, json={"sheet": far, **extra}), 400, "sheet", "impossible sheet")
        assert client.post(path, json={"sheet": far, "allow_impossible": True, **extra}).status_code == 200
    assert_error(client.post("/api/score", json={"board": 5}), 422, "board")
    assert_error(client.post("/api/moves", json={"colour": "z", "count": 2}), 422, "colour")
    assert_error(client.post("/api/moves", json={"colour": "b", "count": "many"}), 422, "count")
    assert_error(client.post("/api/moves", content=b"{not json", headers={"content-type": "application/json"}), 422)
    assert_error(client.get("/api/missions/nope"), 400, "mission")
    assert_error(client.get("/api/nothing-here"), 404)


def test_missions_bots_and_daily(client):
    ids = [m["id"] for m in client.get("/api/missions").json()]
    assert "star-hunt" in ids
    assert client.get("/api/missions/star-hunt").json() == cli_json(["mission", "show", "star-hunt"]) | {
        "path": client.get("/api/missions/star-hunt").json()["path"]}
    assert "greedy" in client.get("/api/bots").json()["bots"]
    assert client.get("/api/daily").json()["seed"] == int(client.get("/api/daily").json()["date"].replace("-", ""))


def test_stateless_hint_matches_the_cli(client, tmp_path):
    sheet = nm.format_typed_sheet(nm.Sheet.empty(nm.load_board("classic")))
    (tmp_path / "s.txt").write_text(sheet)
    roll = {"colours": ["y", "b"], "numbers": ["3", "?"]}
    got = client.post("/api/hint", json={"sheet": sheet, "roll": roll, "solo": True}).json()
    want = cli_json(["hint", "--sheet", str(tmp_path / "s.txt"), "--roll", json.dumps(roll), "--solo"])
    assert got == want
    assert_error(client.post("/api/hint", json={"roll": {"colours": ["q"], "numbers": ["1"]}}), 400, "roll")
    assert_error(client.post("/api/hint", json={"roll": {"colours": ["y"], "numbers": ["1", "2"]}}), 400, "roll")
    assert_error(client.post("/api/hint", json={"roll": "y/3"}), 422, "roll")


# --- games ---------------------------------------------------------------------------------
def test_puzzle_game_by_the_api_equals_the_engine(client):
    state = client.post("/api/games", json={"kind": "puzzle", "seed": 9}).json()
    gid = state["id"]
    assert state["mode"] == "solo" and state["dice"] == seeded_roll(9, 0, 2).to_json()
    assert len(state["sheets_svg"]) == 1 and 'data-cell="H4"' in state["sheets_svg"][0]
    game = Game(nm.load_board("classic"), 1, mode="solo")
    agent = make_agent("greedy")
    for k in range(30):
        game.apply_roll(seeded_roll(9, k, 2))
        move = agent.choose(game)
        if not move.is_pass:  # the tap answer for the whole selection names the move
            tap = client.post(f"/api/games/{gid}/tap", json={"colour": move.colour_face, "number": move.number_face,
                                                             "cells": list(move.cells)}).json()
            assert tap["ok"] and tap["move"] == str(move)
        state = client.post(f"/api/games/{gid}/move", params={"svg": False}, json={"move": str(move)}).json()
        game.apply_move(move)
        assert state["sheets"] == [s.text() for s in game.sheets]
    assert state["over"] and state["scores"] == game.scores() and state["rating"] == nm.rating(game.scores()[0])
    record = GameRecord.from_json(client.get(f"/api/games/{gid}/record").json())
    assert record.verify().scores() == game.scores() and record.seed == 9
    svg = client.get(f"/api/games/{gid}/svg").text
    assert "seed 9" in svg and "solo puzzle" in svg
    assert client.get(f"/api/games/{gid}/rolls").json()["rolls"] == [r.to_json() for r in seeded_rolls(9, 30, 2)]
    sheet = client.get(f"/api/games/{gid}/sheet", params={"after": 30}).text
    assert sheet.count('data-crossed="1"') == game.sheets[0].crossed.bit_count()
    assert_error(client.post(f"/api/games/{gid}/move", json={"move": "pass"}), 409, "move")


def test_the_svg_of_an_unfinished_game_frames_it_clear_of_its_labels(client):
    """The dashed frame of an unfinished game ran through the '1st/later/colours/jokers'
    labels and the score line (both at x = 8): it now keeps clear of every text of the sheet."""
    import xml.etree.ElementTree as ET

    gid = client.post("/api/games", json={"kind": "puzzle", "seed": 9}).json()["id"]
    client.post(f"/api/games/{gid}/move", json={"move": "pass"})
    ns = "{http://www.w3.org/2000/svg}"
    root = ET.fromstring(client.get(f"/api/games/{gid}/svg").text.split("?>", 1)[1])
    sheet = next(g for g in root.iter(ns + "g") if g.get("class") == "sheet")
    frame = next(r for r in sheet.iter(ns + "rect") if r.get("class") == "unfinished")
    x, w, stroke = float(frame.get("x")), float(frame.get("width")), float(frame.get("stroke-width"))
    starts = [float(t.get("x")) for t in sheet.iter(ns + "text") if t.get("text-anchor") is None]
    assert {"1st", "later", "colours", "jokers"} <= {t.text for t in sheet.iter(ns + "text")}
    assert x + stroke < min(starts), (x, min(starts))
    assert 0 < x and x + w <= float(root.get("width"))


def test_tap_answers_extensions_and_the_engines_refusal(client):
    state = client.post("/api/games", json={"kind": "puzzle", "seed": 42}).json()
    gid = state["id"]
    roll = seeded_roll(42, 0, 2)
    game = Game(nm.load_board("classic"), 1, mode="solo")
    game.apply_roll(roll)
    cf, nf = roll.colours[0], roll.numbers[0]
    legal = [m for m in game.legal_moves() if not m.is_pass and m.colour_face == cf and m.number_face == nf]
    everything = client.post(f"/api/games/{gid}/tap", json={"colour": cf, "number": nf, "cells": []}).json()
    assert set(everything["extend"]) == {c for m in legal for c in m.cells}
    first = legal[0].cells[0]
    part = client.post(f"/api/games/{gid}/tap", json={"colour": cf, "number": nf, "cells": [first]}).json()
    assert part["ok"] and set(part["extend"]) == {c for m in legal if first in m.cells for c in m.cells} - {first}
    refused = client.post(f"/api/games/{gid}/tap", json={"colour": cf, "number": nf, "cells": ["A1"]}).json()
    assert not refused["ok"] and refused["reason"].split(":")[0] in ("wrong colour", "not anchored")
    assert_error(client.post(f"/api/games/{gid}/tap", json={"colour": "q", "number": nf, "cells": []}), 422, "colour")
    missing = next(f for f in "ygbro" if f not in roll.colours and "x" not in roll.colours)
    assert_error(client.post(f"/api/games/{gid}/tap", json={"colour": missing, "number": nf, "cells": []}), 422,
                 "colour", "no colour die")
    assert_error(client.post(f"/api/games/{gid}/tap", json={"colour": cf, "number": nf, "cells": ["Z99"]}), 400, "cells")
    assert_error(client.post(f"/api/games/{gid}/tap", json={"colour": cf, "number": nf, "cells": ["H1", "H1"]}), 400,
                 "cells", "twice")
    assert_error(client.post(f"/api/games/{gid}/tap", json={"colour": cf, "number": nf, "cells": ["h1", "H1"]}), 400,
                 "cells", "twice")  # one cell in two spellings
    for bad in ("4H", "H", "H100", "Ä4"):  # refused by nochmal.move's parse_cell, in its words
        assert_error(client.post(f"/api/games/{gid}/tap", json={"colour": cf, "number": nf, "cells": [bad]}), 400,
                     "cells", f"bad cell name {bad!r}: expected a column letter and row, like H4")
    assert_error(client.post(f"/api/games/{gid}/move", json={"move": "b4 A1 A2"}), 422, "move", "not allowed")
    assert_error(client.post(f"/api/games/{gid}/move", json={"move": "zz"}), 400, "move", "bad choice")
    assert_error(client.post(f"/api/games/{gid}/move", json={"move": 4}), 422, "move")
    assert_error(client.post(f"/api/games/{gid}/move", json={}), 422, "move")


def test_tap_with_joker_dice_names_the_joker_move_and_counts_the_jokers_a_pick_needs(client):
    """The tap's joker faces are the core's COLOUR_JOKER / NUMBER_JOKER: a whole selection
    picked with them is the engine's joker move; with no jokers left the pick is refused."""
    from nochmal.move import COLOUR_JOKER, NUMBER_JOKER

    seed = next(s for s in range(200) if {COLOUR_JOKER} <= set(seeded_roll(s, 0, 2).colours)
                and NUMBER_JOKER in seeded_roll(s, 0, 2).numbers)
    gid = client.post("/api/games", json={"kind": "puzzle", "seed": seed}).json()["id"]
    game = Game(nm.load_board("classic"), 1, mode="solo")
    game.apply_roll(seeded_roll(seed, 0, 2))
    both = next(m for m in game.legal_moves() if m.colour_face == COLOUR_JOKER and m.number_face == NUMBER_JOKER)
    tap = client.post(f"/api/games/{gid}/tap", json={"colour": COLOUR_JOKER, "number": NUMBER_JOKER,
                                                     "cells": list(both.cells)}).json()
    assert tap["ok"] and tap["move"] == str(both) and str(both).startswith(COLOUR_JOKER)
    web = client.app.state.games.get(gid)  # spend every joker but one: a two-joker pick is refused
    web.game.sheets[0].jokers_used = web.game.board.jokers - 1
    refused = client.post(f"/api/games/{gid}/tap", json={"colour": COLOUR_JOKER, "number": NUMBER_JOKER,
                                                         "cells": []}).json()
    assert not refused["ok"] and refused["reason"] == "no jokers left: this pick needs 2, 1 left"


def test_undo_reload_and_restart_keep_the_game(client, tmp_path):
    state = client.post("/api/games", json={"kind": "play", "seats": ["human:Anna", "greedy"], "seed": 4}).json()
    gid = state["id"]
    assert state["names"] == ["Anna", "greedy (seat 2)"]
    first = state["dice"]
    state = client.post(f"/api/games/{gid}/move", json={"move": "pass"}).json()
    assert state["rolls"] == 1 and state["log"][-1]["name"] == "greedy (seat 2)"  # the bot answered
    again = client.get(f"/api/games/{gid}").json()
    assert again["sheets"] == state["sheets"] and again["rolls"] == state["rolls"]
    state = client.post(f"/api/games/{gid}/undo").json()
    assert state["rolls"] == 0 and state["dice"] == first
    assert_error(client.post(f"/api/games/{gid}/undo"), 409, "undo")
    state = client.post(f"/api/games/{gid}/move", json={"move": "pass"}).json()
    # a new server on the same data folder continues the same game
    with TestClient(create_app(tmp_path)) as fresh:
        restored = fresh.get(f"/api/games/{gid}").json()
    assert restored["sheets"] == state["sheets"] and restored["dice"] == state["dice"]
    assert_error(client.get("/api/games/does-not-exist-but-looks-ok"), 404, "game")
    assert client.get("/api/games/..%2Fetc").status_code == 404
    assert_error(client.get("/api/games/short"), 404, "game")


def test_new_game_bad_inputs(client):
    assert_error(client.post("/api/games", json={"kind": "play", "seats": ["human", "nobot"]}), 400, "seats", "unknown bot")
    assert_error(client.post("/api/games", json={"kind": "play", "seats": ["greedy"]}), 400, "seats")
    assert_error(client.post("/api/games", json={"kind": "play", "seats": ["human"] * 7}), 422, "seats")
    assert_error(client.post("/api/games", json={"kind": "play", "board": "nope"}), 400, "board")
    assert_error(client.post("/api/games", json={"kind": "play", "seed": -3}), 422, "seed")
    assert_error(client.post("/api/games", json={"kind": "play", "seed": "x"}), 422, "seed")
    assert_error(client.post("/api/games", json={"kind": "chess"}), 422, "kind")
    assert_error(client.post("/api/games", json={"kind": "play", "mission": "nope"}), 400, "mission")
    assert_error(client.post("/api/games", json={"kind": "play", "mission": "star-hunt", "seats": ["human"] * 5}),
                 400, "seats")
    assert_error(client.post("/api/games", json={"kind": "puzzle", "seats": ["human", "greedy"]}), 400, "seats")


def test_coop_game_state_has_the_mission_and_hints(client):
    state = client.post("/api/games", json={"kind": "play", "seats": ["human", "greedy"], "mission": "lockstep",
                                            "difficulty": "easy", "seed": 2}).json()
    assert state["mode"] == "coop" and state["mission"]["id"] == "lockstep"
    assert state["mission"]["budget"] == state["roll_limit"] and state["mission"]["objectives"]
    hints = client.get(f"/api/games/{state['id']}/hint").json()["hints"]
    assert 1 <= len(hints) <= 3 and [h["rank"] for h in hints] == list(range(1, len(hints) + 1))
    assert_error(client.get(f"/api/games/{state['id']}/rolls"), 403, "rolls")
    opened = client.post(f"/api/games/{state['id']}/open").json()
    assert opened["open"] and len(opened["upcoming"]) == 3


# --- records -------------------------------------------------------------------------------
def _record_bytes(seed=3) -> bytes:
    rec = nm.play_competitive(nm.load_board("classic"), [make_agent("greedy"), make_agent("random", 1)], seed=seed)
    return rec.dumps().encode()


def test_record_upload_and_turns(client, tmp_path):
    data = _record_bytes()
    rec = GameRecord.loads(data.decode())
    final = rec.verify()
    summary = client.post("/api/records", files={"file": ("g.json", data, "application/json")}).json()
    assert summary["turns"] == len(rec.rolls) and summary["scores"] == final.scores() and summary["over"]
    (tmp_path / "g.json").write_bytes(data)  # the keys and values of the CLI's verified replay
    cli = cli_json(["replay", str(tmp_path / "g.json"), "--verify"])
    assert cli.pop("file") and cli["verified"] is True
    assert {k: summary[k] for k in cli} == cli
    rid = summary["id"]
    assert client.get(f"/api/records/{rid}").json() == summary
    turn = client.get(f"/api/records/{rid}/turns/3").json()
    states = [rec.new_game()] + [g.clone() for _, g in rec.replay()]
    assert turn["dice"] == rec.rolls[2][0].to_json() and turn["sheets"] == [s.text() for s in states[3].sheets]
    assert [m["move"] for m in turn["moves"]] == [str(m) for _, m in rec.rolls[2][1]]
    assert len(turn["sheets_svg"]) == 2
    assert "competitive" in client.get(f"/api/records/{rid}/svg").text
    assert_error(client.get(f"/api/records/{rid}/turns/999"), 404, "turn")
    assert_error(client.get(f"/api/records/{rid}/turns/x"), 422, "turn")


def test_record_upload_bad_inputs(client):
    def up(content: bytes):
        return client.post("/api/records", files={"file": ("g.json", content, "application/json")})

    assert_error(up(b"{broken"), 422, "file", "broken JSON")
    assert_error(up(b"\xff\xfe\x00"), 422, "file", "UTF-8")
    assert_error(up(b'{"format": "other"}'), 422, "file", "not a nochmal game record")
    good = json.loads(_record_bytes())
    good["rolls"][2]["moves"][0]["move"] = "b5 A1 A2 A3 A4 A5"
    assert_error(up(json.dumps(good).encode()), 422, "file", "turn 3")
    forged = json.loads(_record_bytes())  # a stored result the replay does not give: refused, as --verify does
    forged["result"]["scores"] = [s + 1 for s in forged["result"]["scores"]]
    assert_error(up(json.dumps(forged).encode()), 422, "file", "recorded scores")
    sneaky = json.loads(_record_bytes())
    sneaky["extra"] = {"mission": "x", "mission_file": "/etc/passwd", "difficulty": "easy"}
    assert_error(up(json.dumps(sneaky).encode()), 422, "file", "mission file")
    assert_error(up(b" " * 300_000), 413, "body")  # over the app's cap (200 kB in this fixture)
    assert_error(client.post("/api/records"), 422, "file")
    assert_error(client.get("/api/records/AAAAAAAAAAAAAAAAAAAAAA"), 404, "record")


# --- jobs ----------------------------------------------------------------------------------
def _wait(client, job_id: str, hang_guard: float = 600.0) -> dict:
    """The job once it is done (polled, as the page does); past ``hang_guard`` seconds the job
    as it is, which the caller's state assert then shows: a hang, never a pace."""
    deadline = time.monotonic() + hang_guard
    while True:
        job = client.get(f"/api/jobs/{job_id}").json()
        if job["done"] or time.monotonic() > deadline:
            return job
        time.sleep(0.3)


def test_a_job_stops_by_work_as_the_process_that_submits_it(client, request):
    """Under cpsat_by_work (tests/conftest.py) the job's process, a child of a fork server
    started before (whose environment the test's does not reach), searches as this process
    does: the same plan, down to the branches and conflicts counted, so a proof a web test
    asserts comes from work done."""
    from nochmal.solver.cpsat import solve
    from nochmal.solver.instance import Instance

    first = client.post("/api/jobs/solve", json={"rolls": [seeded_roll(7, 0, 2).to_json()], "time_limit": 1})
    assert _wait(client, first.json()["id"])["state"] == "done"  # the fork server runs, as in a long session
    request.getfixturevalue("cpsat_by_work")
    rolls = [r.to_json() for r in seeded_rolls(7, 8, 2)]  # (two workers on the clock count other branches)
    job = client.post("/api/jobs/solve", json={"rolls": rolls, "time_limit": 3})
    job = _wait(client, job.json()["id"])
    assert job["state"] == "done", job
    here = solve(Instance.from_rolls_json(rolls, "rolls", nm.load_board("classic")), time_limit=3).to_json()
    assert "branches" in here["note"]
    assert (job["result"]["note"], job["result"]["steps"]) == (here["note"], here["steps"])


def test_solve_job_runs_with_progress_and_a_validated_plan(client):
    rolls = [r.to_json() for r in seeded_rolls(7, 5, 2)]
    job = client.post("/api/jobs/solve", json={"rolls": rolls, "time_limit": 3})
    assert job.status_code == 202 and job.json()["state"] in ("queued", "running")
    job = _wait(client, job.json()["id"])
    assert job["state"] == "done", job
    plan = job["result"]
    assert plan["instance"]["rolls"] == rolls  # the keys of `nochmal solve --json`
    # an independent check: the plan's moves replayed by the engine give its total
    game = Game(nm.load_board("classic"), 1, RuleSettings(solo_rolls=5), mode="solo")
    for roll, step in zip(seeded_rolls(7, 5, 2), plan["steps"]):
        game.apply_roll(roll)
        game.apply_move(nm.Move.parse(step["move"]))
    assert game.scores()[0] == plan["total"]
    assert plan["bound"] is None or plan["bound"] >= plan["total"]
    sheet = client.get(f"/api/jobs/{job['id']}/sheet", params={"after": 5}).text
    assert sheet.count('data-crossed="1"') == game.sheets[0].crossed.bit_count()


def test_jobs_cancel_abandon_and_bad_inputs(client, tmp_path):
    job = client.post("/api/jobs/solve", json={"seed": 3, "time_limit": 60}).json()
    cancelled = client.post(f"/api/jobs/{job['id']}/cancel").json()
    assert _wait(client, cancelled["id"])["state"] == "cancelled"
    with TestClient(create_app(None, abandon_after=1.0)) as other:
        job = other.post("/api/jobs/solve", json={"seed": 3, "time_limit": 60}).json()
        manager = other.app.state.jobs  # nobody polls (a GET would keep the job alive): the job is stopped
        deadline = time.monotonic() + 60  # (a failure after a minute, not a pace)
        while manager.jobs[job["id"]].state != "abandoned" and time.monotonic() < deadline:
            time.sleep(0.1)
        assert other.get(f"/api/jobs/{job['id']}").json()["state"] == "abandoned"
    assert_error(client.get("/api/jobs/AAAAAAAAAAAAAAAAAAAAAA"), 404, "job")
    assert_error(client.post("/api/jobs/AAAAAAAAAAAAAAAAAAAAAA/cancel"), 404, "job")
    assert_error(client.post("/api/jobs/solve", json={}), 400, "seed")
    assert_error(client.post("/api/jobs/solve", json={"seed": 1, "board": "nope"}), 400, "board")
    assert_error(client.post("/api/jobs/solve", json={"seed": 1, "time_limit": "soon"}), 422, "time_limit")
    assert_error(client.post("/api/jobs/solve", json={"rolls": [{"colours": ["y", "q"], "numbers": ["1", "2"]}]}),
                 400, "rolls.0")
    assert_error(client.post("/api/jobs/solve", json={"rolls": [{"colours": ["y", "b", "g"], "numbers": ["1", "2", "3"]}]}),
                 400, "rolls.0", "solo roll")
    assert_error(client.post("/api/jobs/analyse", json={}), 400, "record_id")
    assert_error(client.post("/api/jobs/analyse", json={"record_id": "AAAAAAAAAAAAAAAAAAAAAA"}), 404, "record")
    rid = client.post("/api/records", files={"file": ("g.json", _record_bytes(), "application/json")}).json()["id"]
    assert_error(client.post("/api/jobs/analyse", json={"record_id": rid}), 400, "seat", "one seat at a time (1..2)")
    assert_error(client.post("/api/jobs/analyse", json={"record_id": rid, "seat": 3}), 400, "seat", "seats 1..2, not 3")
    assert_error(client.post("/api/jobs/analyse", json={"record_id": rid, "seat": 0}), 422, "seat")
    assert_error(client.post("/api/jobs/analyse", json={"record_id": rid, "seat": "two"}), 422, "seat")
    from nochmal.missions.coop import mission_record, play_mission
    from nochmal.missions.loader import shipped_mission

    mission = shipped_mission("lockstep")
    game, _ = play_mission(mission, "easy", [make_agent("greedy"), make_agent("greedy")], seed=5)
    coop = mission_record(mission, "easy", game, ["greedy", "greedy"], 5).dumps().encode()
    cid = client.post("/api/records", files={"file": ("c.json", coop, "application/json")}).json()["id"]
    assert_error(client.post("/api/jobs/analyse", json={"record_id": cid}), 400, "record_id", "co-op")
    assert_error(client.get(f"/api/jobs/{cancelled['id']}/sheet", params={"after": 1}), 409, "job")


def _short_competitive_record(rolls: int = 4, seed: int = 5) -> GameRecord:
    """A finished 2-seat competitive game cut at ``rolls`` rolls (the rule's roll limit): short solves."""
    from nochmal.game import Mode
    from nochmal.play import play_game

    game = play_game(Game(nm.load_board("classic"), 2, mode=Mode.COMPETITIVE, roll_limit=rolls),
                     [make_agent("greedy"), make_agent("random", 1)], seed)
    return GameRecord.from_game(game, ["greedy", "random"], seed)


@pytest.mark.usefixtures("cpsat_by_work")  # the proofs asserted come from work done, in the job too
def test_analyse_job_for_one_seat_of_a_competitive_record_matches_the_cli(client, tmp_path):
    """The web job answers what `nochmal analyse --seat 2 --json` answers (proven optimum and
    per-roll losses; both exact on a 4-roll game), one loss per roll of the record."""
    record = _short_competitive_record()
    path = tmp_path / "race.json"
    record.save(path)
    rid = client.post("/api/records", files={"file": ("race.json", path.read_bytes(), "application/json")}).json()["id"]
    job = client.post("/api/jobs/analyse", json={"record_id": rid, "seat": 2, "time_limit": 10})
    assert job.status_code == 202, job.text
    job = _wait(client, job.json()["id"])
    assert job["state"] == "done", job
    got = job["result"]
    want = cli_json(["analyse", str(path), "--seat", "2", "--time-limit", "10"])["seats"][0]
    assert got["seat"] == 2 and got["name"] == want["name"]
    assert got["optimum_proven"] and want["optimum_proven"]
    assert (got["actual_score"], got["optimum"]) == (want["actual_score"], want["optimum"])
    assert [r["roll"] for r in got["losses"]] == list(range(1, len(record.rolls) + 1))
    assert [(r["loss"], r["actual"]) for r in got["losses"]] == [(r["loss"], r["actual"]) for r in want["losses"]]
    assert got["open_dice"] == want["open_dice"]
    assert job["progress"]["solves_done"] == len(record.rolls)


def test_mission_status_matches_the_cli(client, tmp_path):
    board = nm.load_board("classic")
    texts = [nm.format_typed_sheet(nm.Sheet.from_cells(board, cells)) for cells in (["H1", "H2", "H3"], ["H4"])]
    for i, text in enumerate(texts):
        (tmp_path / f"sheets.{i}").write_text(text)
    got = client.post("/api/missions/lockstep/status", json={"difficulty": "normal", "rolls_used": 3, "sheets": texts,
                                                            "crosses": True}).json()
    import os

    cwd = os.getcwd()
    os.chdir(tmp_path)  # the CLI names the sheets by their file names: sheets.0, sheets.1
    try:
        want = cli_json(["mission", "status", "lockstep", "-d", "normal", "-k", "3", "sheets.0", "sheets.1"])
    finally:
        os.chdir(cwd)
    assert got == want
    assert_error(client.post("/api/missions/lockstep/status", json={"difficulty": "normal", "rolls_used": 3,
                                                                   "sheets": ["xx"]}), 400, "sheets.0")
    assert_error(client.post("/api/missions/lockstep/status", json={"difficulty": "mild", "rolls_used": 3,
                                                                   "sheets": texts}), 422, "difficulty")


# --- never a 500 -------------------------------------------------------------------------------
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

JSON = st.recursive(st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=False, allow_infinity=False)
                    | st.text(max_size=12),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=12)
FIELDS = ["kind", "seed", "board", "seats", "mission", "difficulty", "open", "colour", "number", "cells", "move",
          "sheet", "count", "roll", "rolls", "time_limit", "record_id", "game_id", "solo", "top", "rolls_used",
          "sheets"]
BODIES = st.one_of(JSON, st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=5))


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    with TestClient(create_app(tmp_path_factory.mktemp("fuzz"), job_time_cap=2.0, abandon_after=1.0)) as c:
        gid = c.post("/api/games", json={"kind": "play", "seats": ["human", "greedy"], "seed": 1}).json()["id"]
        yield c, gid


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=BODIES, which=st.integers(0, 8))
def test_any_json_body_gets_a_json_answer_never_a_500(shared, body, which):
    client, gid = shared
    path = ["/api/games", f"/api/games/{gid}/tap", f"/api/games/{gid}/move", "/api/score", "/api/moves", "/api/hint",
            "/api/missions/lockstep/status", "/api/jobs/analyse", "/api/games/" + gid + "/undo"][which]
    resp = client.post(path, json=body)
    assert resp.status_code < 500, (path, body, resp.text)
    data = resp.json()
    if resp.status_code >= 400:
        assert set(data) == {"error", "field"} and "Traceback" not in data["error"]


@pytest.mark.parametrize("content, words", [
    (b'{"a":' * 12_000, "nested too deeply"),
    (b'{"seed": 1' + b"0" * 5000 + b"}", "too many digits"),
], ids=["nested", "huge-number"])
def test_hostile_json_is_a_422_never_a_500(client, content, words):
    """A deeply nested or huge-number upload was a 500 (RecursionError, ValueError): the
    web's JSON parsers now go through nochmal/fileio.py load_json_text like the CLI's."""
    up = client.post("/api/records", files={"file": ("g.json", content, "application/json")})
    assert_error(up, 422, "file", words)
    code = client.post("/api/rooms", json={"mission": "lockstep", "players": 1}).json()["id"]
    as_json = {"content-type": "application/json"}
    assert_error(client.post("/api/rooms", content=content, headers=as_json), 422, "body", words)
    assert_error(client.post(f"/api/rooms/{code}/seats", content=content, headers=as_json), 422, "body", words)
    assert_error(client.post("/api/rooms/import", content=content, headers=as_json), 422, "room.json", words)


@pytest.mark.parametrize("path", ["/api/games", "/api/score", "/api/jobs/solve", "/api/moves"])
@pytest.mark.parametrize("content, words", [
    (b"not json", "not valid JSON: broken JSON at line 1, column 1"),
    (b"[" * 12_000 + b"]" * 12_000, "nested too deeply"),
    (b'{"seed": 1' + b"0" * 5000 + b"}", "too many digits"),
    (b"[1, 2]", "must be a JSON object, not an array"),
    (b'"classic"', "must be a JSON object, not a string"),
    (b"", "the body is empty"),
], ids=["not-json", "nested", "huge-number", "array", "string", "empty"])
def test_a_body_unusable_as_a_whole_is_a_422_naming_the_body(client, path, content, words):
    """These were '0: JSON decode error' with field '0', or 400 'There was an error parsing
    the body' / a top-level array with field null: now field 'body' and the reader's reason."""
    resp = client.post(path, content=content, headers={"content-type": "application/json"})
    assert_error(resp, 422, "body", words)


def test_unknown_keys_in_a_body_are_refused_naming_the_key(client):
    """/api/score answered {"seed": 1} as if it were {}: every body model now forbids extra keys."""
    gid = client.post("/api/games", json={"kind": "puzzle", "seed": 3}).json()["id"]
    for path, body, key in (("/api/score", {"seed": 1}, "seed"),
                            ("/api/moves", {"colour": "b", "count": 3, "bridge": True}, "bridge"),
                            ("/api/hint", {"roll": {"colours": ["y", "b"], "numbers": ["1", "2"]}, "top_n": 2}, "top_n"),
                            ("/api/games", {"kind": "puzzle", "sede": 4}, "sede"),
                            (f"/api/games/{gid}/tap", {"colour": "y", "number": "1", "cell": "A1"}, "cell"),
                            (f"/api/games/{gid}/move", {"move": "pass", "why": 1}, "why"),
                            ("/api/jobs/solve", {"seed": 1, "timeout": 3}, "timeout"),
                            ("/api/jobs/analyse", {"record_id": "AAAAAAAAAAAAAAAAAAAAAA", "seats": 2}, "seats"),
                            ("/api/missions/lockstep/status", {"difficulty": "easy", "rolls_used": 0,
                                                              "sheets": [""], "extra": 1}, "extra")):
        assert_error(client.post(path, json=body), 422, key, f"{key}: unknown key")
    # a nested model too: the roll inside a hint body
    assert_error(client.post("/api/hint", json={"roll": {"colours": ["y", "b"], "numbers": ["1", "2"], "x": 1}}),
                 422, "roll.x", "unknown key")
    assert client.post("/api/score", json={"board": "classic", "sheet": ""}).status_code == 200


def test_waiting_jobs_are_capped_with_a_503(tmp_path):
    """Each queued job is a thread in the server; a client looping on POST /api/jobs/solve
    could queue without end. No slot runs here (max_jobs=0), so every job waits."""
    from nochmal.web.jobs import FINAL

    app = create_app(tmp_path / "data", max_jobs=0)
    with TestClient(app) as client:
        cap = app.state.jobs.max_waiting
        ids = []
        for seed in range(cap):
            resp = client.post("/api/jobs/solve", json={"seed": seed, "count": 2, "time_limit": 1})
            assert resp.status_code == 202, resp.text
            ids.append(resp.json()["id"])
        assert_error(client.post("/api/jobs/solve", json={"seed": 99, "count": 2}), 503, "job", "busy")
        client.post(f"/api/jobs/{ids[0]}/cancel")  # a cancelled job no longer counts as waiting
        assert client.post("/api/jobs/solve", json={"seed": 99, "count": 2, "time_limit": 1}).status_code == 202
    deadline = time.monotonic() + 120  # shutdown stops the waiting ones: no thread is left waiting (a hang guard)
    while not all(job.state in FINAL for job in app.state.jobs.jobs.values()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert all(job.state == "cancelled" for job in app.state.jobs.jobs.values())


def test_new_games_and_uploads_are_rate_limited_and_old_files_pruned(tmp_path):
    """Review finding: /api/games and /api/records had no rate limit and the data folder only
    grew. A client gets 429 past games_per_minute; files not written for keep_days go at the
    next start (a game in memory stays)."""
    import os
    import time

    with TestClient(create_app(tmp_path, games_per_minute=3)) as c:
        ids = [c.post("/api/games", json={"kind": "puzzle", "seed": k}).json()["id"] for k in range(3)]
        assert_error(c.post("/api/games", json={"kind": "puzzle", "seed": 9}), 429)
        record = c.get(f"/api/games/{ids[0]}/record").text
        for _ in range(3):
            assert c.post("/api/records", files={"file": ("g.json", record)}).status_code in (200, 201)
        assert_error(c.post("/api/records", files={"file": ("g.json", record)}), 429)
    games = sorted((tmp_path / "games").glob("*.json"))
    assert len(games) == 3
    old = time.time() - 91 * 86400
    os.utime(games[0], (old, old))  # left alone for 91 days
    with TestClient(create_app(tmp_path)) as c:
        assert len(list((tmp_path / "games").glob("*.json"))) == 2
        assert_error(c.get(f"/api/games/{games[0].stem}"), 404, "game")
        assert c.get(f"/api/games/{games[1].stem}").status_code == 200
