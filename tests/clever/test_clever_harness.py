"""One game loop for both games (docs/clever.md "One state API"): the bot harness plays a
Clever 4ever game and a Noch mal! game through the same function, nochmal/play.py's
play_game; its scores equal those of a loop written here from each game's own dice
(seeded_throw with the throw's key, seeded_roll with the roll's index), and `bench bots
--game clever` prints the harness's table."""

import ast
from pathlib import Path

import pytest
from typer.testing import CliRunner

import nochmal.bots.harness as harness
from nochmal.board import load_board
from nochmal.bots.clever import clever_bot
from nochmal.bots.registry import make_agent
from nochmal.cli import app
from nochmal.cli.bot_cmds import bots_campaign
from nochmal.clever import CleverGame, seeded_throw
from nochmal.dice import seeded_roll
from nochmal.errors import OptionError
from nochmal.game import Game
from nochmal.modes import Mode

ROOT = Path(__file__).resolve().parents[2]


def _oracle_score(game, agent, seed: int) -> int:
    """A solo game played by a loop of its own, the dice from each game's seeded function."""
    while not game.is_terminal():
        if game.is_chance_node():
            if isinstance(game, CleverGame):
                game.apply_roll(seeded_throw(seed, game.throw_key(), game.dice_to_throw()))
            else:
                game.apply_roll(seeded_roll(seed, game.rolls_done, game.dice_per_kind))
        else:
            game.apply_move(agent.choose(game))
    return game.scores()[0]


def test_the_harness_plays_both_games_through_one_loop(monkeypatch):
    kinds = []
    loop = harness.play_game

    def spy(game, agents, seed, visit=None):
        kinds.append(type(game).__name__)
        return loop(game, agents, seed, visit)

    monkeypatch.setattr(harness, "play_game", spy)
    board = load_board("classic")
    clever = harness.run_bench(None, ["random", "greedy"], "solo", (3, 4), game="clever")
    nochmal = harness.run_bench(board, ["random", "greedy"], "solo", (3, 4))
    assert kinds == ["CleverGame"] * 4 + ["Game"] * 4
    for seed_i, seed in enumerate((3, 4)):
        for name in ("random", "greedy"):
            want = _oracle_score(CleverGame(1), clever_bot(name, seed), seed)
            assert clever.per_seed["score"][name][seed_i] == want
            want = _oracle_score(Game(board, 1, mode=Mode.SOLO), make_agent(name, seed), seed)
            assert nochmal.per_seed["score"][name][seed_i] == want
    assert clever.game == "clever" and nochmal.game == "nochmal"


def test_the_seam_gives_each_games_own_dice():
    clever, nochmal = CleverGame(2), Game(load_board("classic"), 2)
    assert clever.seeded_outcome(9) == seeded_throw(9, clever.throw_key(), clever.dice_to_throw())
    assert nochmal.seeded_outcome(9) == seeded_roll(9, 0, nochmal.dice_per_kind)


def test_no_module_of_the_bots_or_the_batch_runner_throws_dice_itself():
    """The loop lives once, in nochmal/play.py: nothing under nochmal/bots or nochmal/batch calls
    apply_roll with a seeded outcome (hints.py applies the roll the user typed)."""
    found = []
    for folder in ("nochmal/bots", "nochmal/batch"):
        for path in sorted((ROOT / folder).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "apply_roll":
                    if "seed" in ast.unparse(node):
                        found.append(f"{path.name}:{node.lineno}")
    assert found == []


def test_a_clever_table_rotates_the_seats_and_counts_wins():
    result = harness.run_bench(None, ["random", "greedy"], "table", (5, 5), players=2, game="clever")
    figures = {f.bot: f for f in result.bots}
    assert figures["random"].games == figures["greedy"].games == 2
    assert figures["random"].win_rate + figures["greedy"].win_rate == pytest.approx(1.0)


def test_an_unknown_game_or_bot_is_refused():
    with pytest.raises(OptionError, match="--game 'chess'"):
        harness.run_bench(None, ["random"], "solo", (1, 1), game="chess")
    with pytest.raises(OptionError, match="'heuristic'; known bots: random, greedy"):
        bots_campaign("heuristic", "solo", 1, "classic", "clever")


def test_bench_bots_prints_the_table_for_clever():
    out = CliRunner().invoke(app, ["bench", "bots", "--game", "clever", "--bots", "random,greedy",
                                   "--seeds", "1..2", "--workers", "1"])
    assert out.exit_code == 0, out.output
    assert "Clever 4ever solo" in out.output and "board" not in out.output
    assert "paired score: greedy - random" in out.output
    bad = CliRunner().invoke(app, ["bench", "bots", "--game", "clever", "--bots", "heuristic", "--seeds", "1..2"])
    assert bad.exit_code != 0 and "known bots: random, greedy" in bad.output
