"""Game.push / Game.pop: taking back rolls and moves restores exactly the earlier position.

The oracle is replay from scratch: the position after pops must equal a fresh game that
had only the remaining actions applied.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

import nochmal as nm
from nochmal.board import load_board
from nochmal.dice import Roll, seeded_roll
from nochmal.game import CHANCE, Game
from nochmal.move import Move

BOARD = load_board("classic")


def fingerprint(game: Game) -> tuple:
    """Everything a player or a bot can observe of a position."""
    player = game.current_player()
    deciding = player >= 0
    return (tuple(game.sheets), game.rolls_done, game.roll, game.claimed_columns, game.claimed_colours,
            player, game.is_terminal(), [(r, list(ms)) for r, ms in game.history],
            game.available_dice() if deciding else None,
            game.legal_moves() if deciding else None, game.scores())


def new_game(players: int, mode: str) -> Game:
    return Game(BOARD, players, mode=mode, roll_limit=12 if mode == "coop" else None)


def play(players: int, mode: str, seed: int, steps: int) -> tuple[Game, list]:
    """A game with up to ``steps`` actions: seeded rolls, random legal moves (jokers too)."""
    rng = random.Random(seed)
    game = new_game(players, mode)
    actions: list = []
    for _ in range(steps):
        if game.is_terminal():
            break
        if game.current_player() == CHANCE:
            action = seeded_roll(seed, game.rolls_done, game.dice_per_kind)
        else:
            moves = game.legal_moves()
            # prefer real placements so sheets, claims and joker counts change
            action = moves[rng.randrange(1, len(moves))] if len(moves) > 1 and rng.random() < 0.9 else moves[0]
        game.push(action)
        actions.append(action)
    return game, actions


def replayed(players: int, mode: str, actions: list) -> Game:
    game = new_game(players, mode)
    for a in actions:
        if isinstance(a, Roll):
            game.apply_roll(a)
        else:
            game.apply_move(a)
    return game


@settings(max_examples=40, deadline=None)
@given(setup=st.sampled_from([(1, "solo"), (2, "competitive"), (3, "competitive"), (2, "coop")]),
       seed=st.integers(0, 10 ** 6), steps=st.integers(1, 140), back=st.integers(0, 140))
def test_pop_restores_the_position_of_a_replay(setup, seed, steps, back):
    players, mode = setup
    game, actions = play(players, mode, seed, steps)
    assert game.undo_depth == len(actions)
    back = min(back, len(actions))
    undone = [game.pop() for _ in range(back)]
    assert undone == actions[len(actions) - back:][::-1]  # pop returns what it takes back
    kept = actions[: len(actions) - back]
    assert fingerprint(game) == fingerprint(replayed(players, mode, kept))
    # and play goes on from there as from the replay
    if not game.is_terminal() and back:
        game.push(undone[-1])
        assert fingerprint(game) == fingerprint(replayed(players, mode, kept + [undone[-1]]))


def test_pop_undoes_a_roll_end_with_scoring_and_the_game_end():
    # competitive: the two-colour end and a claimed column are taken back with the last move
    game, actions = play(2, "competitive", 7, 10_000)
    assert game.is_terminal()
    before = replayed(2, "competitive", actions[:-1])
    last = game.pop()
    assert last == actions[-1] and isinstance(last, Move)
    assert not game.is_terminal() and fingerprint(game) == fingerprint(before)


def test_pop_on_a_fresh_game_names_the_problem():
    game = Game(BOARD, 1)
    with pytest.raises(nm.NochmalError, match="nothing to take back"):
        game.pop()
    game.push(seeded_roll(1, 0, 2))
    assert isinstance(game.pop(), Roll) and game.current_player() == CHANCE and not game.history


def test_a_clone_keeps_its_own_undo_stack():
    game, actions = play(2, "competitive", 3, 20)
    other = game.clone()
    game.pop()
    assert other.undo_depth == len(actions)
    assert fingerprint(other) == fingerprint(replayed(2, "competitive", actions))
