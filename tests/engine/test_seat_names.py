"""One naming scheme for seats: nochmal.seats.seat_name, and the command line's
front ends using it: play at the terminal, replay, replay --to and the JSON of replay.
(The SVG titles are drawn by nochmal/svg.py, which the web helper owns.)"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from nochmal.cli import app
from nochmal.seats import seat_name

runner = CliRunner()


@pytest.mark.parametrize("players, names", [
    (["human"], ["you"]),
    (["greedy"], ["greedy (seat 1)"]),
    (["human:Anna", "greedy", "human"], ["Anna", "greedy (seat 2)", "you"]),
    (["human", "human", "random"], ["player 1", "player 2", "random (seat 3)"]),
    (["greedy", "greedy"], ["greedy (seat 1)", "greedy (seat 2)"]),
    (["human:Anna", "human:Ben"], ["Anna", "Ben"]),
])
def test_seat_name(players, names):
    assert [seat_name(players, p) for p in range(len(players))] == names


@pytest.fixture(scope="module")
def table_record(tmp_path_factory):
    """A saved 3-seat game: Anna and an unnamed human pass, greedy plays, for 2 rolls."""
    path = tmp_path_factory.mktemp("t") / "t.json"
    res = runner.invoke(app, ["play", "--seat", "human:Anna", "--seat", "greedy", "--seat", "human",
                              "--seed", "2", "--save", str(path)], input="pass\npass\npass\npass\nquit\n")
    assert res.exit_code == 0, res.output
    assert "Anna> " in res.output and "you> " in res.output and "greedy (seat 2): " in res.output
    return path


NAMES = ["Anna", "greedy (seat 2)", "you"]


def test_replay_and_replay_to_name_the_seats_alike(table_record):
    for args in (["replay", str(table_record)], ["replay", str(table_record), "--to", "1"]):
        out = runner.invoke(app, args).stdout
        titles = [line.split(":")[0] for line in out.splitlines() if line.endswith(" points")]
        assert titles == NAMES, out
        assert "player 0" not in out and "(human" not in out
    moves = runner.invoke(app, ["replay", str(table_record), "--to", "1"]).stdout
    assert [line.strip().split(":")[0] for line in moves.splitlines()
            if line.startswith("  ") and ":" in line] == NAMES


def test_json_numbers_seats_from_1(table_record):
    data = json.loads(runner.invoke(app, ["replay", str(table_record), "--to", "1", "--json"]).stdout)
    assert data["turn"] == 1 and data["names"] == NAMES
    assert [m["seat"] for m in data["moves"]] == [1, 2, 3]
    assert [m["name"] for m in data["moves"]] == NAMES
    whole = json.loads(runner.invoke(app, ["replay", str(table_record), "--json"]).stdout)
    assert whole["names"] == NAMES


@pytest.mark.parametrize("typed, problem", [("a\nb", None), ("A" * 41, "at most 40 characters"),
                                            ("Anna\x07", "control characters"), ("   ", "must not be empty"),
                                            ("  Anna   Lena ", None)])
def test_one_name_check_for_terminal_web_and_rooms(tmp_path, typed, problem):
    """A name typed anywhere is checked once (nochmal.seats.player_name): the terminal's
    human:NAME seat, a web game's seat and a room's seat refuse the same names, with the same
    reason, and keep the same normalised name (review finding: the web took 500-character
    names with line breaks that rooms refused)."""
    from fastapi.testclient import TestClient

    from nochmal.errors import OptionError
    from nochmal.seats import player_name
    from nochmal.table.setup import parse_seats
    from nochmal.web import create_app

    want = None if problem else " ".join(typed.split())
    try:
        got = player_name(typed)
    except ValueError as exc:
        assert problem and problem in str(exc)
    else:
        assert problem is None and got == want
    if problem is None:
        assert parse_seats([f"human:{typed}"]) == [f"human:{want}"]
    else:
        with pytest.raises(OptionError, match=problem):
            parse_seats([f"human:{typed}"])
    with TestClient(create_app(tmp_path)) as client:
        game = client.post("/api/games", json={"kind": "play", "seats": [f"human:{typed}"]})
        room = client.post("/api/rooms", json={"mode": "competitive", "board": "classic", "players": 2}).json()
        seat = client.post(f"/api/rooms/{room['id']}/seats", json={"name": typed})
        if problem is None:
            assert game.status_code in (200, 201) and game.json()["names"] == [want], game.text
            assert seat.status_code in (200, 201), seat.text
        else:
            for resp in (game, seat):
                assert resp.status_code in (400, 422) and problem in resp.json()["error"], resp.text
