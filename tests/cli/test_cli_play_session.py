"""Scripted sessions of `nochmal play` through typer's CliRunner, input fed line by line.

Oracles: every saved record is replayed and verified by the engine (GameRecord.verify);
the moves typed by a human are checked against the record; bot decisions are checked by
asking a fresh bot in the replayed position; a resumed game is compared with an
uninterrupted session fed the same lines.
"""

from __future__ import annotations

import json
import re

import pytest

from typer.testing import CliRunner

from nochmal.bots.registry import make_agent
from nochmal.board import load_board
from nochmal.dice import seeded_roll
from nochmal.game import Game
from nochmal.move import Move
from nochmal.record import GameRecord

from nochmal.cli import app

runner = CliRunner()


def run(args, lines):
    return runner.invoke(app, args, input="".join(line + "\n" for line in lines))


def flat(text: str) -> str:
    """Whitespace-normalised output (rich may wrap long lines)."""
    return " ".join(text.split())


def dice_form(move: Move) -> str:
    """The move typed as dice plus cells, e.g. 'x ? A1 A2'."""
    return f"{move.colour_face} {move.number_face} " + " ".join(move.cells)


def first_legal_placement(seed: int, rolls_before: list[Move]) -> Move:
    """A legal non-pass move for the next solo roll, found with the engine alone."""
    game = Game(load_board("classic"), 1, mode="solo")
    for i, m in enumerate(rolls_before):
        game.apply_roll(seeded_roll(seed, i, 2))
        game.apply_move(m)
    game.apply_roll(seeded_roll(seed, len(rolls_before), 2))
    moves = [m for m in game.legal_moves() if not m.is_pass and m.joker_cost == 0]
    return max(moves, key=lambda m: (m.count, str(m))) if moves else Move()


def test_solo_typed_moves_are_recorded_and_the_record_verifies(tmp_path):
    seed = 21
    typed = []
    for _ in range(3):
        typed.append(first_legal_placement(seed, typed))
    # roll 1 in dice form, roll 2 in move notation, roll 3 in dice form; then pass to the end
    lines = [dice_form(typed[0]), str(typed[1]), dice_form(typed[2])] + ["pass"] * 27
    out = tmp_path / "solo.json"
    res = run(["play", "--seed", str(seed), "--save", str(out)], lines)
    assert res.exit_code == 0, res.output
    record = GameRecord.load(out)
    game = record.verify()
    assert game.is_terminal()
    assert [ms[0][1] for _, ms in record.rolls[:3]] == [m for m in typed]
    assert all(ms[0][1].is_pass for _, ms in record.rolls[3:])
    assert "score" in res.output and "game over" in res.output


def test_illegal_entries_get_the_engine_reason_and_the_prompt_again(tmp_path):
    seed = 4
    lines = ["b 4 Q9",            # no such cell
             "xb4 G4",             # one cell for a count of 4
             "zz 3 H1",            # bad notation
             "b 4 H1 ZZ",          # bad cell name
             "pass", "quit"]
    res = run(["play", "--seed", str(seed)], lines)
    assert res.exit_code == 0, res.output
    text = flat(res.output)
    assert "cell Q9 is not on the classic board" in text
    assert "bad cell name 'ZZ'" in text
    assert "bad choice 'zz'" in text
    # the second entry is well-formed; the engine's IllegalMoveError reason is shown
    game = Game(load_board("classic"), 1, mode="solo")
    game.apply_roll(seeded_roll(seed, 0, 2))
    try:
        game.apply_move(Move.parse("xb4 G4"))
    except Exception as exc:  # the engine's own message is the oracle
        assert f"not allowed: {exc}" in text
    else:  # pragma: no cover - the move can't be legal with a single cell
        raise AssertionError("xb4 G4 was accepted by the engine")
    # each rejected line was followed by a fresh prompt: 5 prompts before 'pass', then 'quit'
    assert res.output.count("you> ") == 6
    assert "Traceback" not in res.output


def test_input_ending_early_is_an_error_not_a_traceback():
    res = run(["play", "--seed", "3"], ["pass", "pass"])
    assert res.exit_code == 1
    assert "input ended before the game was over" in flat(res.output)


def test_undo_takes_back_the_last_choice_within_the_roll_two_humans_and_a_bot(tmp_path):
    seed = 11
    seats = ["--seat", "human:Ann", "--seat", "human:Ben", "--seat", "greedy"]
    # roll 1: Ann takes placement 1, Ben types undo, Ann passes instead, Ben passes; then both
    # pass until the bot ends the game.
    lines = ["1", "undo", "pass", "pass"] + ["pass"] * 400
    out = tmp_path / "g.json"
    res = run(["play", *seats, "--seed", str(seed), "--save", str(out)], lines)
    assert res.exit_code == 0, res.output
    assert "took back Ann's" in flat(res.output)
    record = GameRecord.load(out)
    game = record.verify()
    assert game.is_terminal()
    roll1 = record.rolls[0][1]
    assert [(p, m.is_pass) for p, m in roll1[:2]] == [(0, True), (1, True)]
    # every bot decision is what a fresh greedy bot chooses in the replayed position
    replay = record.new_game()
    for roll, moves in record.rolls:
        replay.apply_roll(roll)
        for p, m in moves:
            if p == 2:
                assert make_agent("greedy").choose(replay) == m
            replay.apply_move(m)
    assert replay.scores() == game.scores()


def test_save_and_resume_continue_identically(tmp_path):
    seed = 5
    seats = ["--seat", "human:Ann", "--seat", "greedy", "--seat", "human:Ben"]
    first = ["1", "2", "pass", "1", "1", "pass", "3", "1"]
    rest = (["1", "pass", "2"] * 60) + ["pass"] * 300
    full = tmp_path / "full.json"
    res = run(["play", *seats, "--seed", str(seed), "--save", str(full)], first + rest)
    assert res.exit_code == 0, res.output

    saved = tmp_path / "saved.json"
    res1 = run(["play", *seats, "--seed", str(seed)], first + [f"save {saved}", "quit"])
    assert res1.exit_code == 0, res1.output
    assert f"saved to {saved}" in flat(res1.output)
    part = GameRecord.load(saved)
    assert part.result is None and part.players == ["human:Ann", "greedy", "human:Ben"]

    resumed = tmp_path / "resumed.json"
    res2 = run(["play", "--resume", str(saved), "--save", str(resumed)], rest)
    assert res2.exit_code == 0, res2.output
    assert "resumed after" in res2.output
    assert json.loads(full.read_text()) == json.loads(resumed.read_text())
    GameRecord.load(resumed).verify()


def test_resume_of_a_finished_game_and_resume_with_seats_are_refused(tmp_path):
    out = tmp_path / "done.json"
    res = run(["play", "--seed", "2", "--save", str(out)], ["pass"] * 30)
    assert res.exit_code == 0
    res = run(["play", "--resume", str(out)], [])
    assert res.exit_code == 1 and "already over" in flat(res.output)
    res = run(["play", "--resume", str(out), "--seat", "greedy"], [])
    assert res.exit_code == 2 and "leave out --seat" in flat(res.output)


def test_play_json_result_fields(tmp_path):
    res = run(["play", "--seat", "human", "--seat", "random", "--seed", "9", "--json"],
              ["1", "pass"] * 200)
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    for key in ("mode", "board", "seed", "players", "over", "rolls", "scores", "winners", "sheets",
                "outcome", "saved"):
        assert key in data
    assert data["mode"] == "competitive" and data["players"] == ["human", "random"]
    assert data["over"] is True and data["outcome"] == "over"
    assert data["winners"] and set(data["winners"]) <= {0, 1}
    assert len(data["scores"]) == 2


def test_list_numbers_pick_the_listed_move(tmp_path):
    seed = next(s for s in range(100) if len(_first_roll_moves(s)) >= 4)
    out = tmp_path / "l.json"
    res = run(["play", "--seed", str(seed), "--save", str(out)], ["list", "2", "quit"])
    assert res.exit_code == 0, res.output
    listed = [m.group(1) for m in re.finditer(r"^\s+2  (\S.*?)   [+-]\d+ now", res.output, re.M)]
    record = GameRecord.load(out)
    chosen = record.rolls[0][1][0][1]
    assert str(chosen) == listed[0]
    assert chosen in _first_roll_moves(seed)


def _first_roll_moves(seed: int) -> list[Move]:
    game = Game(load_board("classic"), 1, mode="solo")
    game.apply_roll(seeded_roll(seed, 0, 2))
    return [m for m in game.legal_moves() if not m.is_pass]


def test_hint_reports_availability():
    res = run(["play", "--seed", "8"], ["hint", "quit"])
    assert res.exit_code == 0
    assert "hints are unavailable" in res.output or "hint 1:" in res.output


def test_coop_mission_session_and_resume(tmp_path):
    coop = pytest.importorskip("nochmal.missions.coop")
    args = ["play", "--mission", "star-hunt", "--difficulty", "easy", "--seat", "human:Ann", "--seat", "greedy",
            "--seed", "3"]
    lines = ["1", "pass", "2"] * 40 + ["pass"] * 100
    full = tmp_path / "full.json"
    res = run([*args, "--save", str(full), "--json"], lines)
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["mode"] == "coop" and data["over"] is True
    # the mission outcome printed equals the mission module's verdict on the replayed record
    record = GameRecord.load(full)
    assert record.extra == {"mission": "star-hunt", "difficulty": "easy"}
    game = record.verify(str(full), coop.record_game)
    assert data["mission"] == coop.mission_result(coop.load_mission("star-hunt"), game).to_dict()
    assert coop.mission_result(coop.load_mission("star-hunt"), game).text() in flat(res.stderr)
    # save after six lines, resume, and the end is the same
    saved = tmp_path / "part.json"
    res1 = run(args, lines[:6] + [f"save {saved}", "quit"])
    assert res1.exit_code == 0, res1.output
    resumed = tmp_path / "resumed.json"
    res2 = run(["play", "--resume", str(saved), "--save", str(resumed)], lines[6:])
    assert res2.exit_code == 0, res2.output
    assert json.loads(full.read_text()) == json.loads(resumed.read_text())


def test_solo_undo_at_the_start_of_a_roll_takes_back_the_roll_before(tmp_path):
    seed = next(s for s in range(100) if len(_first_roll_moves(s)) >= 2)
    out = tmp_path / "u.json"
    res = run(["play", "--seed", str(seed), "--save", str(out)], ["undo", "1", "undo", "pass", "quit"])
    assert res.exit_code == 0, res.output
    text = flat(res.output)
    assert "nothing to undo" in text and "took back your" in text and "in the roll before" in text
    record = GameRecord.load(out)
    assert record.rolls[0][1] == [(0, Move())]  # the pass replaced the undone choice
    assert len(record.rolls) == 2 and record.rolls[1][1] == []
