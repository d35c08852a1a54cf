"""`nochmal clever play`: humans type actions at the terminal, bots move, through the one
game loop (nochmal/play.py). Typed input drives whole games; the saved record replays, and
in it every human step is what was typed and every bot step is the bot's own choice."""

import pytest
from typer.testing import CliRunner

from nochmal.bots.clever import clever_bot
from nochmal.cli import app
from nochmal.clever import CleverGame, CleverRecord, replay

runner = CliRunner()


def test_a_human_and_a_bot_play_a_whole_game_and_save_it(tmp_path):
    path = tmp_path / "g.json"
    typed = "help\n" + "legal\n1\n" * 800  # the human always takes the first legal action
    out = runner.invoke(app, ["clever", "play", "--seat", "human:Anna", "--seat", "greedy", "--seed", "5",
                              "--save", str(path)], input=typed)
    assert out.exit_code == 0, out.output
    assert "Anna> " in out.output and "take DIE NUMBER PLACE" in out.output
    assert "greedy (seat 2): " in out.output and "throw: " in out.output
    assert "scores: Anna " in out.output and "record written to" in out.output
    record = CleverRecord.load(path)
    assert record.players == ["Anna", "greedy"] and record.seed == 5
    replay(record)  # every step checked against the seed and the rules
    game, bot, humans = CleverGame(2), clever_bot("greedy", 5 * 10 + 1), 0
    for who, step in record.steps:
        if who < 0:
            game.apply_roll(step)
            continue
        want = game.legal_moves()[0] if who == 0 else bot.choose(game)
        assert step == want
        humans += who == 0
        game.apply_move(want)
    assert game.is_terminal() and humans > 20


def test_a_bad_action_gets_one_line_and_the_question_again():
    typed = "take yellow 9 pink\ntake white 1 blue:1\nfly away\n"
    out = runner.invoke(app, ["clever", "play", "--seat", "human", "--seed", "3"], input=typed)
    lines = out.output.splitlines()
    said = [line for line in lines if "(type 'legal' for the list" in line]
    assert len(said) == 3 and "NUMBER 1-6" in said[0] and "fly away" in said[2]
    assert out.output.count("player 1> ") == 4  # asked again after each, then the input ended
    assert out.exit_code == 1 and "input ended" in out.output and "Traceback" not in out.output


def test_a_typed_action_is_played_as_typed():
    game = CleverGame(1)
    game.apply_roll(game.seeded_outcome(3))
    first = game.legal_moves()[2].text(game.facts)
    out = runner.invoke(app, ["clever", "play", "--seat", "human:Ute", "--seed", "3"], input=first + "\n")
    assert out.output.count("Ute> ") == 2  # the action taken, then the next question
    assert out.output.count(first.split()[1] + " ") >= 1 and out.exit_code == 1


@pytest.mark.parametrize("seats, reason", [(["chess"], "unknown Clever 4ever bot 'chess'"),
                                           (["greedy"] * 5, "5 seats")])
def test_bad_seats_are_refused_in_one_line(seats, reason):
    out = runner.invoke(app, ["clever", "play", *[x for s in seats for x in ("--seat", s)]])
    assert out.exit_code != 0 and reason in out.output and "Traceback" not in out.output


def test_bots_alone_play_to_the_end():
    out = runner.invoke(app, ["clever", "play", "--seat", "random", "--seat", "greedy", "--seed", "2"])
    assert out.exit_code == 0, out.output
    assert "won: " in out.output and "random (seat 1): " in out.output
