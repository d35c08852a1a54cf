"""`nochmal leaderboard` and `nochmal puzzle --submit` (docs/cli.md): a finished puzzle goes to
a live server's board, a refusal is one line and exit 1, and the data folder's entries are
listed and removed (moderation)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from nochmal.cli import app
from nochmal.record import GameRecord
from webserver import LiveServer

from leaderboard_support import human_record

runner = CliRunner()
SEED = 5


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with LiveServer(tmp_path_factory.mktemp("boards")) as srv:
        yield srv


def test_a_puzzle_played_at_the_terminal_is_submitted_to_the_open_board(server, tmp_path):
    saved = tmp_path / "p.json"
    res = runner.invoke(app, ["puzzle", "--seed", str(SEED), "--open", "--planner-time", "0", "--save", str(saved),
                              "--submit", server.url, "--name", "Terminal Tom", "--json"],
                        input="1\n0\n" * 40)
    assert res.exit_code == 0, res.output
    submitted = json.loads(res.stdout)["submitted"]
    score = GameRecord.load(saved).verify().scores()[0]
    assert submitted["entry"]["score"] == score and submitted["leaderboard"]["open"] and submitted["token"]
    # the same record again, by the submit command: the name is taken without its token
    res = runner.invoke(app, ["leaderboard", "submit", str(saved), "--url", server.url, "--name", "terminal tom"])
    assert res.exit_code == 1 and res.stderr.count("\n") == 1 and "409" in res.stderr and "taken" in res.stderr
    res = runner.invoke(app, ["leaderboard", "submit", str(saved), "--url", server.url, "--name", "Terminal Tom",
                              "--token", submitted["token"]])
    assert res.exit_code == 0 and "earlier game stays" in res.stdout


def test_a_refused_or_unreachable_submission_is_one_line(server, tmp_path):
    forged = human_record(SEED)
    forged["rolls"][0]["moves"][0]["move"] = "y5 A1"
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged), encoding="utf-8")
    res = runner.invoke(app, ["leaderboard", "submit", str(path), "--url", server.url, "--name", "Mallory"])
    assert res.exit_code == 1 and res.stderr.count("\n") == 1 and "illegal move" in res.stderr
    res = runner.invoke(app, ["leaderboard", "submit", str(path), "--url", "http://127.0.0.1:1", "--name", "M"])
    assert res.exit_code == 1 and res.stderr.startswith("error: cannot reach") and res.stderr.count("\n") == 1
    res = runner.invoke(app, ["puzzle", "--seed", "5", "--submit", server.url])
    assert res.exit_code == 2 and "--name" in res.stderr
    res = runner.invoke(app, ["puzzle", "--seed", "5", "--planner-time", "0", "--submit", server.url, "--name", "Q"],
                        input="quit\n")
    assert res.exit_code == 0 and "not submitted" in res.stdout


def test_list_and_remove_entries_of_a_data_folder(server, tmp_path):
    path = tmp_path / "g.json"
    path.write_text(json.dumps(human_record(SEED, "random")), encoding="utf-8")
    assert runner.invoke(app, ["leaderboard", "submit", str(path), "--url", server.url, "--name", "Rude"]).exit_code == 0
    data = str(server.app.state.data_dir)
    listed = json.loads(runner.invoke(app, ["leaderboard", "list", str(SEED), "--data", data, "--json"]).stdout)
    assert "Rude" in [e["name"] for e in listed["entries"]]
    res = runner.invoke(app, ["leaderboard", "remove", str(SEED), "rude", "--data", data])
    assert res.exit_code == 0 and "removed 1" in res.stdout
    board = json.loads(runner.invoke(app, ["leaderboard", "list", str(SEED), "--data", data, "--json"]).stdout)
    assert "Rude" not in [e["name"] for e in board["entries"]]
    res = runner.invoke(app, ["leaderboard", "remove", str(SEED), "rude", "--data", data])
    assert res.exit_code == 1 and "no entry named" in res.stderr
    res = runner.invoke(app, ["leaderboard", "list", "--data", str(tmp_path)])
    assert res.exit_code == 1 and "no leaderboards here" in res.stderr
