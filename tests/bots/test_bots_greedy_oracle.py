"""The greedy bot against the engine's own scoring.

The rule of immediate points is written once, nochmal/agents.py best_placement (the greedy
bot's loop and placement_gains); this test holds it to the rule as the engine applies it:
a move's immediate gain net of jokers is the change of the mover's score when
Game.apply_move plays it (first or later values as the race decides).
"""

from __future__ import annotations

import random

import pytest

from nochmal.agents import PASS, GreedyAgent, placement_gains
from nochmal.board import load_board
from nochmal.dice import seeded_roll
from nochmal.game import Game
from nochmal.placements import placement_index


def score_delta(game: Game, player: int, move) -> int:
    """The mover's score after the roll, with this move and every other seat passing (the
    engine applies a roll's moves together, when the last seat has moved)."""
    after = game.clone()
    after.apply_move(move)
    rolls = after.rolls_done
    while not after.is_terminal() and after.current_player() >= 0 and after.rolls_done == rolls:
        after.apply_move(PASS)
    return after.sheets[player].score() - game.sheets[player].score()


def every_placement(game: Game):
    """(choice placed on a mask, its key) for every legal placement of every dice choice."""
    player = game.current_player()
    sheet = game.sheets[player]
    query = placement_index(game.board, game.rules.bridging).query
    for pick in game.choices():
        for mask in query(sheet.crossed, sheet.anchored, pick.colour, pick.count):
            yield pick.placed(mask)


@pytest.mark.parametrize("players", [1, 2, 3])
def test_greedy_takes_the_largest_score_change_as_the_engine_plays_it(players):
    board = load_board("classic")
    rng = random.Random(players)
    decisions = 0
    for seed in range(6 if players == 1 else 3):
        game = Game(board, players, mode="solo" if players == 1 else "competitive")
        while not game.is_terminal():
            player = game.current_player()
            if player < 0:
                game.apply_roll(seeded_roll(seed, game.rolls_done, game.dice_per_kind))
                continue
            placed = list(every_placement(game))
            claims = game.race_claims
            keys = []
            for choice in placed:
                delta = score_delta(game, player, choice.move(board))
                gain = placement_gains(board, game.sheets[player].crossed, (choice.mask,), *claims)[0]
                assert gain - choice.cost == delta, (str(choice.move(board)), game.position())
                keys.append((delta, choice.count, -choice.cost))
            best = max(keys, default=(0, 0, 0))
            chosen = GreedyAgent().choose(game)
            if best <= (0, 0, 0):
                assert chosen.is_pass
            else:
                got = (score_delta(game, player, chosen), len(chosen.cells), -chosen.joker_cost)
                assert got == best
            decisions += 1
            # play on with a random legal move, so the positions vary (not greedy's own path)
            game.apply_move(rng.choice(placed).move(board) if placed and rng.random() < 0.8 else chosen)
    assert decisions > 30
