"""The planner tests' shared pieces: a small board, random rolls, and the exhaustive optimum
through the engine's own legal moves (an oracle that knows nothing of the planner)."""

from __future__ import annotations

import random

from nochmal.board import Board
from nochmal.dice import Roll
from nochmal.game import Game
from nochmal.sheet import Sheet
from nochmal.solver.instance import Instance
from nochmal.solver.validate import new_game

SMALL = Board.from_grid(["yYbbg", "ygBrr", "oGgrO", "oobRy"], strict=False, jokers=2)


def exhaustive_best(instance: Instance) -> int:
    """Best final score over every sequence of legal moves (engine's legal_moves), memoised
    on the sheet state; knows nothing of the planner."""
    memo: dict = {}

    def best(game: Game, t: int) -> int:
        if t == len(instance.rolls):
            assert game.is_terminal()
            return game.sheets[0].score()
        key = (t, game.sheets[0])
        if key in memo:
            return memo[key]
        game.apply_roll(instance.rolls[t])
        value = None
        for move in game.legal_moves():
            child = game.clone()
            child.apply_move(move)
            v = best(child, t + 1)
            value = v if value is None else max(value, v)
        memo[key] = value
        return value

    return best(new_game(instance), 0)


def random_rolls(rng: random.Random, n: int, joker_weight: float = 1.0) -> list[Roll]:
    cols = "ygbrox"
    nums = "12345?"
    return [Roll(tuple(rng.choice(cols) for _ in range(2)), tuple(rng.choice(nums) for _ in range(2)))
            for _ in range(n)]


def small_instance(seed: int, rolls: int = 6, start: Sheet | None = None) -> Instance:
    """``rolls`` random rolls (seeded) on the small board, from ``start`` or an empty sheet."""
    return Instance(SMALL, random_rolls(random.Random(seed), rolls), start=start)
