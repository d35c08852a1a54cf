"""Clever 4ever's bots and commands: the bots choose legal actions and leave the game as it
was; greedy beats random on paired seeds; ``nochmal clever solo`` and ``clever replay``
play, save, verify and refuse a forged record with one line."""

import json

import pytest
from typer.testing import CliRunner

from nochmal.agents import RandomAgent
from nochmal.bots.clever import GreedyCleverAgent, clever_bot, play
from nochmal.cli import app
from nochmal.clever import CleverGame
from nochmal.errors import BotError
from nochmal.terminal.clever_view import draw_game
from clever_support import play_checked

runner = CliRunner()


@pytest.mark.parametrize("bot", ["random", "greedy"])
def test_bots_choose_legal_actions_and_leave_the_game_alone(bot):
    game, _ = play_checked([clever_bot(bot, 3), clever_bot(bot, 4)], 11)
    assert game.is_terminal()


def test_greedy_beats_random_on_paired_seeds():
    seeds = range(8)
    greedy = [play(CleverGame(1), [GreedyCleverAgent(s)], s).scores()[0] for s in seeds]
    rand = [play(CleverGame(1), [RandomAgent(s)], s).scores()[0] for s in seeds]
    assert sum(g > r for g, r in zip(greedy, rand)) >= 7 and sum(greedy) > 1.5 * sum(rand)


def test_unknown_bot_names_the_known_ones():
    with pytest.raises(BotError, match="bots: random, greedy"):
        clever_bot("smart")


def test_the_drawing_shows_every_area_and_the_points():
    game = play(CleverGame(1), [GreedyCleverAgent(0)], 5)
    text = draw_game(game)
    for word in ("YELLOW", "BLUE", "GREY", "GREEN", "PINK", "ACTIONS", f"total {game.scores()[0]}", game.rating()):
        assert word in text
    assert max(len(line) for line in text.splitlines()) <= 80  # a terminal's width


def test_clever_solo_saves_a_record_that_replay_verifies(tmp_path):
    path = tmp_path / "g.json"
    res = runner.invoke(app, ["clever", "solo", "--seed", "7", "--bot", "greedy", "--save", str(path), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    again = runner.invoke(app, ["clever", "replay", str(path), "--json"])
    assert again.exit_code == 0 and json.loads(again.stdout)["scores"] == [out["score"]]
    drawn = runner.invoke(app, ["clever", "solo", "--seed", "7", "--bot", "greedy"])
    assert f"total {out['score']}" in drawn.stdout
    data = json.loads(path.read_text())
    k = next(i for i, s in enumerate(data["steps"]) if "throw" in s and i > 3)
    die = next(iter(data["steps"][k]["throw"]))
    data["steps"][k]["throw"][die] = data["steps"][k]["throw"][die] % 6 + 1
    path.write_text(json.dumps(data))
    bad = runner.invoke(app, ["clever", "replay", str(path)])
    assert bad.exit_code == 1 and bad.stderr.startswith(f"error: step {k + 1}: the throw")
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.output


def test_clever_solo_refuses_bad_options_with_exit_2():
    for args in (["--bot", "smart"], ["--seed", "-1"]):
        res = runner.invoke(app, ["clever", "solo", *args])
        assert res.exit_code == 2 and res.stderr.startswith("error: ")
