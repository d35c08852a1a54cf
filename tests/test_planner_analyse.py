"""Post-game analysis: constructed cases with losses worked out by hand, and losses against
the exhaustive oracle of test_planner_core on random short games."""

from __future__ import annotations

import random

import pytest

from nochmal.agents import RandomAgent
from nochmal.board import load_board
from nochmal.dice import Roll
from nochmal.game import Game
from nochmal.move import PASS, Move
from nochmal.play import play_solo
from nochmal.record import GameRecord
from nochmal.rules import RuleSettings
from nochmal.solver.analyse import analyse
from nochmal.solver.instance import Instance, InstanceError
from nochmal.solver.validate import validate

from test_planner_core import SMALL, exhaustive_best, random_rolls

BLUE_1 = Roll(("b", "b"), ("1", "1"))
YELLOW_2 = Roll(("y", "y"), ("2", "2"))


def record_of(rolls: list[Roll], moves: list[Move], rules: RuleSettings | None = None) -> GameRecord:
    rules = rules or RuleSettings(solo_rolls=len(rolls))
    game = Game(SMALL, 1, rules, "solo")
    for roll, move in zip(rolls, moves):
        game.apply_roll(roll)
        game.apply_move(move)
    assert game.is_terminal()
    return GameRecord.from_game(game, ["me"], None)


def test_pass_on_a_star_loses_two_on_that_roll():
    # SMALL: start column C; C2 is a blue star, so b1 C2 is worth +2; yellow can never be
    # anchored after a pass, so the pass on roll 1 costs 2 and roll 2 costs nothing.
    rec = record_of([BLUE_1, YELLOW_2], [PASS, PASS])
    result = analyse(rec, time_limit=20)
    assert [r.loss for r in result.losses] == [2, 0]
    assert result.optimum - result.actual_score == 2
    assert all(r.proven for r in result.losses)
    assert result.worst(1)[0].roll == 1


def test_loss_lands_on_the_roll_that_wasted_the_chance():
    # b1 C1 gains nothing at once but keeps y2 A1 B1 (star B1, +2) open; passing on roll 2
    # throws it away: the loss belongs to roll 2, not roll 1.
    rec = record_of([BLUE_1, YELLOW_2], [Move.parse("b1 C1"), PASS])
    result = analyse(rec, time_limit=20)
    assert [r.loss for r in result.losses] == [0, 2]
    assert result.losses[1].best == "y2 A1 B1"
    validate(Instance(SMALL, [BLUE_1, YELLOW_2], RuleSettings(solo_rolls=2)), result.plan)


@pytest.mark.parametrize("seed", range(4))
def test_losses_match_exhaustive_oracle(seed):
    rng = random.Random(seed)
    rolls = random_rolls(rng, 4)
    rules = RuleSettings(solo_rolls=4)
    game = Game(SMALL, 1, rules, "solo")
    agent = RandomAgent(seed)
    for roll in rolls:
        game.apply_roll(roll)
        game.apply_move(agent.choose(game))
    rec = GameRecord.from_game(game, ["random"], None)
    values = []
    for t in range(len(rolls)):
        inst = Instance.from_record(rec, after_turn=t)
        values.append(exhaustive_best(inst))
    values.append(game.sheets[0].score())
    result = analyse(rec, time_limit=20)
    assert [r.loss for r in result.losses] == [values[t] - values[t + 1] for t in range(len(rolls))]
    assert result.optimum == values[0]


def test_analyse_rejects_unfinished_and_non_solo_records():
    game = Game(SMALL, 1, RuleSettings(solo_rolls=3), "solo")
    game.apply_roll(BLUE_1)
    game.apply_move(PASS)
    with pytest.raises(InstanceError, match="not finished"):
        analyse(GameRecord.from_game(game, ["me"], None))
    comp = play_solo(load_board("classic"), RandomAgent(1), 1, RuleSettings(solo_rolls=2))
    comp.mode = "competitive"
    with pytest.raises(InstanceError, match="solo"):
        analyse(comp)
