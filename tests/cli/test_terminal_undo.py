"""Undo at the terminal takes states off the game's stack (Game.push/pop) instead
of replaying the history. Oracles: a session whose replay path is disabled still undoes;
a resumed game (rebuilt from its record) undoes into the saved part; the record after
undos equals a session fed only the choices that were kept."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from nochmal.cli import app
from nochmal.record import GameRecord
from nochmal.table.session import TableSession

runner = CliRunner()


def run(args, lines):
    return runner.invoke(app, args, input="".join(line + "\n" for line in lines))


def test_undo_does_not_replay(tmp_path, monkeypatch):
    def no_replay(self, *args, **kwargs):
        raise AssertionError("undo replayed the history")

    monkeypatch.setattr(TableSession, "rebuild", no_replay)
    monkeypatch.setattr(GameRecord, "replay", no_replay)
    seats = ["--seat", "human:Ann", "--seat", "greedy", "--seat", "human:Ben"]
    undone = tmp_path / "undone.json"
    res = run(["play", *seats, "--seed", "8", "--save", str(undone)],
              ["1", "1", "undo", "undo", "2", "pass", "undo", "pass", "pass", "pass", "quit"])
    assert res.exit_code == 0, res.output
    assert res.output.count("took back") == 3
    moves = [m["move"] for r in json.loads(undone.read_text())["rolls"] for m in r["moves"]]
    assert any(m != "pass" for m in moves)  # the greedy bot and '2' crossed cells
    kept = tmp_path / "kept.json"
    res = run(["play", *seats, "--seed", "8", "--save", str(kept)], ["2", "pass", "pass", "pass", "quit"])
    assert res.exit_code == 0, res.output
    assert json.loads(undone.read_text())["rolls"] == json.loads(kept.read_text())["rolls"]


def test_undo_reaches_into_a_resumed_game(tmp_path):
    saved = tmp_path / "part.json"
    res = run(["play", "--seed", "5"], ["1", "pass", f"save {saved}", "quit"])
    assert res.exit_code == 0, res.output
    first = json.loads(saved.read_text())["rolls"][0]["moves"][0]["move"]
    assert first != "pass"  # seed 5's first roll has placements: '1' took one
    again = tmp_path / "again.json"
    res = run(["play", "--resume", str(saved), "--save", str(again)], ["undo", "undo", "pass", "quit"])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "took back your 'pass' in the roll before" in text
    assert f"took back your '{first}' in the roll before" in text
    fresh = tmp_path / "fresh.json"
    res = run(["play", "--seed", "5", "--save", str(fresh)], ["pass", "quit"])
    assert json.loads(again.read_text())["rolls"] == json.loads(fresh.read_text())["rolls"]
