"""Bad input of every kind to `play`/`puzzle`: the documented exit code and a clear message."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from nochmal.bots.registry import agent_names

from nochmal.cli import app

runner = CliRunner()
CLASSIC = (Path(__file__).resolve().parents[2] / "boards" / "classic.toml").read_text()


def run(args, lines=()):
    return runner.invoke(app, args, input="".join(line + "\n" for line in lines))


def flat(text: str) -> str:
    return " ".join(text.split())


def test_unknown_bot_lists_the_known_ones():
    res = run(["play", "--seat", "human", "--seat", "deep-blue"])
    assert res.exit_code == 2  # a bad option value
    text = flat(res.output)
    assert "'deep-blue': unknown bot" in text
    for name in agent_names():
        assert name in text
    assert "Traceback" not in res.output


def test_unknown_board():
    res = run(["play", "--board", "nosuchpad"])
    assert res.exit_code == 2
    assert "nosuchpad: unknown board" in flat(res.output)


def test_broken_board_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(CLASSIC.replace('"gggyyyyGbbbOyyy"', '"gggyyyyGbbbOyyq"'))
    res = run(["play", "--board", str(bad)])
    assert res.exit_code == 1
    assert "cell O1: unknown colour letter 'q'" in flat(res.output)


def test_missing_and_broken_record_files(tmp_path):
    res = run(["play", "--resume", str(tmp_path / "nope.json")])
    assert res.exit_code == 1 and "cannot read file" in flat(res.output)
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "nochmal-record", ')
    res = run(["play", "--resume", str(broken)])
    assert res.exit_code == 1 and "broken JSON" in flat(res.output)


@pytest.mark.parametrize("args, message", [
    (["play"] + ["--seat", "random"] * 7, "a game has 1-6 seats"),
    (["play", "--seed", "-4"], "--seed -4"),
    (["play", "--seat", "human:"], "give a name after 'human:'"),
    (["puzzle", "--seed", "-1"], "--seed -1"),
    (["puzzle", "--board", "nosuchpad"], "unknown board"),
])
def test_bad_option_values_exit_2(args, message):
    res = run(args)
    assert res.exit_code == 2, res.output
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("error: ")
    assert message in flat(res.output)


def test_usage_errors_exit_2():
    assert run(["play", "--no-such-option"]).exit_code == 2
    assert run(["puzzle", "--seed", "notanumber"]).exit_code == 2


def test_mission_that_does_not_exist():
    res = run(["play", "--mission", "no-such-mission-xyz", "--difficulty", "normal"])
    assert res.exit_code == 1
    assert "Traceback" not in res.output
    assert "mission" in flat(res.output)


def test_wrong_cell_name_in_a_session_is_answered_and_play_goes_on():
    res = run(["play", "--seed", "1"], ["g 1 P1", "g1 H0", "quit"])
    assert res.exit_code == 0
    text = flat(res.output)
    assert "cell P1 is not on the classic board" in text
    assert "bad cell name 'H0'" in text or "cell H0 is not on the classic board" in text


def test_help_has_an_example():
    for cmd in (["play"], ["puzzle"], ["board", "show"], ["board", "list"], ["board", "check"], ["render"],
                ["replay"]):
        res = run([*cmd, "--help"])
        assert res.exit_code == 0
        assert "Example: nochmal" in res.output


def test_a_changed_record_is_refused_on_resume_with_the_replays_reason(tmp_path):
    """A resumed game is the engine's replay of its record (GameRecord.replay): an illegal
    move or a roll that is not the seed's is one line naming the file and the turn, in the
    replay's words (the terminal's own replay loop named neither the move nor the seat)."""
    import json

    saved = tmp_path / "part.json"
    res = run(["play", "--seed", "5", "--seat", "human", "--seat", "greedy"], ["pass", "pass", f"save {saved}", "quit"])
    assert res.exit_code == 0, res.output
    data = json.loads(saved.read_text())
    data["rolls"][0]["moves"][0]["move"] = "y1 A7"  # far from column H: illegal as a first cross
    illegal = tmp_path / "illegal.json"
    illegal.write_text(json.dumps(data))
    res = run(["play", "--resume", str(illegal)])
    assert res.exit_code == 1, res.output
    assert res.stderr.count("\n") == 1 and "Traceback" not in res.output
    text = flat(res.output)
    assert text.startswith(f"error: {illegal}: turn 1, ") and "illegal move 'y1 A7'" in text

    data = json.loads(saved.read_text())
    data["rolls"][1]["dice"] = data["rolls"][0]["dice"]
    rolled = tmp_path / "rolled.json"
    rolled.write_text(json.dumps(data))
    res = run(["play", "--resume", str(rolled)])
    assert res.exit_code == 1, res.output
    assert res.stderr.count("\n") == 1
    assert f"{rolled}: turn 2: roll" in flat(res.output) and "is not roll 2 of seed 5 (" in flat(res.output)
