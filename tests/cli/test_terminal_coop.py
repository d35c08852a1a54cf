"""Co-op games at the terminal serve the mission: the hint is
missions.tactics.mission_hint's ranking, and a bot teammate plays MissionAgent's choice
(its own bot only breaks ties). Oracle: both asked again in the replayed position."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from nochmal.bots.registry import make_agent
from nochmal.cli import app
from nochmal.missions.coop import record_game
from nochmal.missions.loader import load_mission
from nochmal.missions.tactics import MissionAgent, mission_hint
from nochmal.record import GameRecord
from nochmal.table.setup import bot_seed

runner = CliRunner()


def test_coop_hint_and_bot_teammate_serve_the_mission(tmp_path):
    path = tmp_path / "coop.json"
    lines = ["hint", "1", "hint", "1", "hint", "1", "quit"]
    res = runner.invoke(app, ["play", "--mission", "star-hunt", "--seat", "human", "--seat", "greedy",
                              "--seed", "11", "--save", str(path)], input="\n".join(lines) + "\n")
    assert res.exit_code == 0, res.output
    shown = re.findall(r" hint 1: (.+?)   \(value for the mission ([-\d.]+)\)", res.output)
    assert len(shown) == 3
    record = GameRecord.load(path)
    mission = load_mission("star-hunt")
    game = record.new_game(record_game)
    hints_checked = bots_checked = 0
    for t, (roll, moves) in enumerate(record.rolls):
        game.apply_roll(roll)
        for p, move in moves:
            if record.players[p] == "greedy":
                agent = MissionAgent(mission, make_agent("greedy", bot_seed(record.seed, game.rolls_done, p)))
                assert agent.choose(game.clone()) == move
                bots_checked += 1
            else:
                best, value = mission_hint(mission, game.clone(), top=3)[0]
                assert shown[hints_checked] == (str(best), f"{value:.2f}")
                hints_checked += 1
            game.apply_move(move)
    assert hints_checked == 3 and bots_checked >= 3
