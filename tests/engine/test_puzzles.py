"""Puzzle seeds and the shipped optima table (nochmal/puzzles.py), and where the front ends
show it (nochmal/terminal/planner.py, the web game state)."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest
from typer.testing import CliRunner

from nochmal import puzzles
from nochmal.board import load_board, read_board_file
from nochmal.cache import clear_caches
from nochmal.cli import app
from nochmal.errors import OptionError
from nochmal.puzzles import (OPTIMA_FILE, PuzzleOptimum, daily_seed, known_optimum, optima_document, optima_text,
                             parse_daily_range, parse_optima)
from nochmal.rules import RuleSettings
from nochmal.terminal.planner import planner_best

# the proofs asserted here come from CP-SAT's deterministic limits (tests/conftest.py cpsat_by_work)
pytestmark = pytest.mark.usefixtures("cpsat_by_work")


def test_daily_range_crosses_month_and_year_ends():
    assert parse_daily_range("2026-12-30..2027-01-02") == [20261230, 20261231, 20270101, 20270102]
    assert parse_daily_range("2028-02-28..2028-03-01") == [20280228, 20280229, 20280301]  # a leap year
    assert parse_daily_range("2026-12-01") == [20261201]
    # the campaign's range: one seed per day of 2026-12-01 .. 2027-12-31, each the day's daily seed
    seeds = parse_daily_range("2026-12-01..2027-12-31")
    assert len(seeds) == 31 + 365 and seeds[-1] == 20271231
    assert seeds == [daily_seed(date(2026, 12, 1) + timedelta(days=k)) for k in range(len(seeds))]


@pytest.mark.parametrize("text", ["2026-13-01", "2026-12-02..2026-12-01", "1..100", "2026-12-01..2046-12-01", ""])
def test_bad_daily_ranges_are_refused_with_the_option(text):
    with pytest.raises(OptionError, match="--daily"):
        parse_daily_range(text)


def test_optima_text_round_trips_and_sorts_by_seed():
    optima = [PuzzleOptimum(20261201, 80, 80, True), PuzzleOptimum(3, 70, 75, False)]
    text = optima_text(optima_document(optima, "classic", 30, 60.0))
    settings, table = parse_optima(json.loads(text), "x.json")
    assert settings == {"board": "classic", "rolls": 30, "time_limit": 60.0}
    assert table == {o.seed: o for o in optima}
    assert text.index('"3"') < text.index('"20261201"') and text.count("\n") == 4  # one line per seed


@pytest.mark.parametrize("entry", [{"best": 80, "bound": 79, "proven": False}, {"best": 80, "bound": 80, "proven": False},
                                   {"best": 70, "bound": 80, "proven": True}, {"best": 80, "bound": 80},
                                   {"best": True, "bound": 80, "proven": False}])
def test_inconsistent_optima_entries_are_refused_with_their_key(entry):
    doc = {"format": puzzles.OPTIMA_FORMAT, "board": "classic", "rolls": 30, "time_limit": 60, "seeds": {"12": entry}}
    with pytest.raises(ValueError, match=r"x\.json: seeds\.12"):
        parse_optima(doc, "x.json")


@pytest.fixture
def fake_table(monkeypatch, tmp_path_factory):
    """Installs a table of these optima as the shipped file (nochmal/puzzles.py OPTIMA_FILE),
    read afresh; the real one is read again after the test."""
    def install(optima: list[PuzzleOptimum], board="classic", rolls=30) -> None:
        path = tmp_path_factory.mktemp("optima") / "optima.json"
        path.write_text(optima_text(optima_document(optima, board, rolls, 60.0)), encoding="utf-8")
        monkeypatch.setattr(puzzles, "OPTIMA_FILE", path)
        clear_caches("puzzles.")

    yield install
    clear_caches("puzzles.")


def test_known_optimum_only_for_the_campaigns_game(fake_table, tmp_path):
    fake_table([PuzzleOptimum(5, 81, 81, True)])
    classic, rules = load_board("classic"), RuleSettings()
    assert known_optimum(classic, 5, rules) == PuzzleOptimum(5, 81, 81, True)
    assert known_optimum(classic, 6, rules) is None  # not in the table
    assert known_optimum(load_board("red"), 5, rules) is None
    assert known_optimum(classic, 5, RuleSettings(bridging=True)) is None
    assert known_optimum(classic, 5, RuleSettings(solo_rolls=12)) is None
    # a board file that calls itself classic is not the built-in board the campaign solved
    copy = tmp_path / "classic.toml"
    copy.write_text((OPTIMA_FILE.parent.parent.parent / "boards" / "classic.toml").read_text())
    assert read_board_file(copy).name == "classic" and known_optimum(read_board_file(copy), 5, rules) is None


def test_the_puzzle_end_takes_a_proven_entry_without_solving(fake_table):
    # 999 points is far above anything the planner could find: only the table says it
    fake_table([PuzzleOptimum(5, 999, 999, True)])
    best = planner_best(load_board("classic"), 5, RuleSettings(), 5.0)
    assert best["source"] == "table" and best["score"] == 999 and best["proven"] and best["elapsed"] == 0
    res = CliRunner().invoke(app, ["puzzle", "--seed", "5", "--json", "--planner-time", "5"], input="0\n" * 40)
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["best"] == 999 and data["planner"]["source"] == "table"
    assert "best possible score for seed 5: 999 (the planner's proof, shipped with nochmal)" in res.stderr


def test_an_unproven_entry_narrows_the_planners_answer(fake_table):
    # the planner alone on 3 rolls proves its optimum; a (made-up) entry with a lower bound of
    # play and a higher bound shows the two combined: the best of both, the tighter bound
    rules = RuleSettings(solo_rolls=3)
    alone = planner_best(load_board("classic"), 5, rules, 10.0)
    assert alone["proven"] and alone["source"] == "planner"
    fake_table([PuzzleOptimum(5, alone["score"] - 1, alone["score"] + 4, False)], rolls=3)
    both = planner_best(load_board("classic"), 5, rules, 10.0)
    assert both["score"] == alone["score"] and both["bound"] == alone["score"] and both["proven"]


def test_the_shipped_table_is_valid_and_names_the_campaign():
    if not OPTIMA_FILE.exists():
        pytest.fail(f"{OPTIMA_FILE} is missing: the package ships the puzzle optima")
    settings, table = parse_optima(json.loads(OPTIMA_FILE.read_text()), str(OPTIMA_FILE))
    assert settings["board"] == "classic" and settings["rolls"] == 30
    assert table, "the shipped table holds no seed"
    assert all(seed == o.seed for seed, o in table.items())


@pytest.mark.slow
def test_a_shipped_entry_agrees_with_a_fresh_solve():
    # an independent run of the planner can neither beat the shipped bound nor prove a bound
    # below the shipped best (which a replayed plan reached)
    from nochmal.solver.cpsat import solve
    from nochmal.solver.instance import Instance

    _, table = parse_optima(json.loads(OPTIMA_FILE.read_text()), str(OPTIMA_FILE))
    entry = table[min(table)]
    plan = solve(Instance.from_seed(entry.seed, load_board("classic"), RuleSettings()), time_limit=10)
    assert plan.total <= entry.bound
    assert plan.bound is None or plan.bound >= entry.best


def test_the_web_puzzle_shows_the_table_at_the_end(fake_table, tmp_path):
    from fastapi.testclient import TestClient

    from nochmal.web import create_app

    fake_table([PuzzleOptimum(9, 999, 999, True)])
    with TestClient(create_app(tmp_path)) as client:
        state = client.post("/api/games", json={"kind": "puzzle", "seed": 9}).json()
        assert "known_best" not in state  # not while the puzzle is played
        for _ in range(30):
            state = client.post(f"/api/games/{state['id']}/move", params={"svg": False}, json={"move": "pass"}).json()
        assert state["over"] and state["known_best"] == {"best": 999, "bound": 999, "proven": True}
        other = client.post("/api/games", json={"kind": "puzzle", "seed": 10}).json()
        for _ in range(30):
            other = client.post(f"/api/games/{other['id']}/move", params={"svg": False}, json={"move": "pass"}).json()
        assert other["over"] and other["known_best"] is None  # a seed not in the table


def test_puzzle_help_names_both_seed_ranges_of_the_table():
    """The help says which seeds the shipped table covers: the daily ones and 1..100."""
    result = CliRunner().invoke(app, ["puzzle", "--help"], env={"COLUMNS": "300"})
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert "the daily seeds of 2026-12-01 through 2027-12-31 and the seeds 1..100" in text
