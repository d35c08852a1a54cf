"""Saving at the terminal: a --save path that cannot be written is refused before
the first roll; the game-over screen comes before the 'record saved' line; puzzle --save
confirms; leaving a resumed game with unsaved choices says so."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from nochmal.cli import app
from nochmal.move import PASS
from nochmal.record import GameRecord

runner = CliRunner()


def run(args, lines):
    return runner.invoke(app, args, input="".join(line + "\n" for line in lines))


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("command", [["play", "--seed", "3"], ["puzzle", "--seed", "3", "--planner-time", "0"]])
@pytest.mark.parametrize("where", ["missing-folder/g.json", "."])
def test_unwritable_save_path_is_refused_before_the_first_roll(tmp_path, command, where):
    target = tmp_path / where
    res = run([*command, "--save", str(target)], ["pass"] * 30)
    assert res.exit_code == 1
    assert "roll 1" not in res.output  # no game was played to be lost
    assert res.stderr.startswith("error: ") and res.stderr.count("\n") == 1
    assert str(target) in res.stderr


@pytest.mark.parametrize("command", [["play", "--seed", "3"], ["puzzle", "--seed", "3", "--planner-time", "0"]])
def test_game_over_screen_then_the_saved_line(tmp_path, command):
    path = tmp_path / "g.json"
    res = run([*command, "--save", str(path)], ["pass"] * 30)
    assert res.exit_code == 0, res.output
    text = flat(res.stdout)
    assert "game over" in text and f"record saved to {path}" in text
    assert text.index("game over") < text.index(f"record saved to {path}")
    GameRecord.load(path).verify()


def test_leaving_a_resumed_game_names_the_unsaved_choices(tmp_path):
    saved = tmp_path / "part.json"
    res = run(["play", "--seed", "4"], ["pass", "pass", f"save {saved}", "quit"])
    assert res.exit_code == 0 and "game saved in" in flat(res.output)
    before = saved.read_text()
    # resume, choose once more, and let the input end (the same path as Ctrl-C)
    res = run(["play", "--resume", str(saved)], ["pass"])
    assert res.exit_code == 1
    assert f"the choices since {saved} was written are not saved" in flat(res.output)
    # resume and leave at once: nothing is lost
    res = run(["play", "--resume", str(saved)], ["quit"])
    assert res.exit_code == 0 and f"game saved in {saved}" in flat(res.output)
    assert saved.read_text() == before
    assert [moves for _, moves in GameRecord.load(saved).rolls][:2] == [[(0, PASS)], [(0, PASS)]]
