"""The one agent interface and the baseline bots.

An agent gets the game at one of its decisions and returns a Move; it must not change the
game. Later bots (heuristic, look-ahead) implement the same ``choose``.
"""

from __future__ import annotations

import random
from typing import Protocol

from nochmal.board import COLOURS
from nochmal.choice import Choice
from nochmal.game import Game
from nochmal.move import PASS, Move
from nochmal.placements import placement_index


class Agent(Protocol):
    name: str

    def choose(self, game: Game) -> Move:
        """The move for ``game.current_player()`` (legal in ``game``)."""


class RandomAgent:
    """Uniform over the distinct legal moves, pass included; seeded, so reproducible."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, game: Game) -> Move:
        moves = game.legal_moves()
        return moves[self.rng.randrange(len(moves))]


def placement_facts(board, mask: int) -> tuple:
    """(star points, columns touched as (column, mask), colour index, colour mask), cached
    per board (Board.placement_facts)."""
    cache = board.placement_facts
    facts = cache.get(mask)
    if facts is None:
        bits = [b for b in range(board.n_cells) if mask >> b & 1]
        cols = sorted({board.index_of_bit[b] % board.cols for b in bits})
        colour = board.colour_of_bit(bits[0])
        facts = ((mask & board.star_mask).bit_count() * board.star_penalty,
                 tuple((c, board.column_mask[c]) for c in cols),
                 COLOURS.index(colour), board.colour_mask[colour])
        cache[mask] = facts
    return facts


def immediate_gain(game: Game, player: int, colour: str, mask: int) -> int:
    """Points this placement adds at once (stars, columns, colour), before joker cost.

    Columns and colours count their first value unless someone claimed them in an earlier
    roll (a same-roll tie still scores first, so this is exact for the deciding player).
    """
    return placement_gains(game.board, game.sheets[player].crossed, (mask,), *game.race_claims)[0]


_FLOOR = (-(10 ** 9), 0, 0)


def best_placement(board, crossed: int, anchored: int, picks, query, claimed_cols: int, claimed_colours: int,
                   floor: tuple[int, int, int] = (0, 0, 0)) -> tuple[tuple[int, int, int], Choice | None, int]:
    """The rule of immediate points, written once: a placement scores the stars it crosses,
    the columns and the colour it completes (later values for what the race has claimed:
    Game.race_claims). Among the placements of ``picks`` (``query(crossed, anchored, colour,
    count)`` lists each pick's masks: placements.PlacementIndex.query), the one with the
    largest key (points - the pick's joker cost, cells, -cost) above ``floor``: (key, pick,
    mask); pick None when none is above. The greedy bot's whole cost is this loop, so it
    takes all its picks in one call (a call per mask made greedy games 7-10 % slower,
    benchmarks/RESULTS.md)."""
    facts_cache = board.placement_facts
    first, later = board.column_points_first, board.column_points_later
    bonus_first, bonus_later = board.colour_bonus_first, board.colour_bonus_later
    best_key, best, best_mask = floor, None, 0
    for pick in picks:
        cost, count = pick.cost, pick.count
        for mask in query(crossed, anchored, pick.colour, count):
            gain, cols, ci, cm = facts_cache.get(mask) or placement_facts(board, mask)
            new = crossed | mask
            for c, m in cols:
                if new & m == m:
                    gain += later[c] if claimed_cols >> c & 1 else first[c]
            if new & cm == cm:
                gain += bonus_later if claimed_colours >> ci & 1 else bonus_first
            key = (gain - cost, count, -cost)
            if key > best_key:
                best_key, best, best_mask = key, pick, mask
    return best_key, best, best_mask


_FREE = Choice("", "", "", 0, 0)  # a pick of no cost: best_placement's key then starts with the points


def placement_gains(board, crossed: int, masks, claimed_cols: int, claimed_colours: int) -> list[int]:
    """The immediate points of each placement in ``masks`` on a sheet with ``crossed``
    (best_placement's rule, one mask at a time)."""
    return [best_placement(board, crossed, 0, (_FREE,), lambda *_, m=mask: (m,), claimed_cols, claimed_colours,
                           _FLOOR)[0][0] for mask in masks]


class GreedyAgent:
    """One-ply greedy: the most immediate points net of joker cost; ties to more crosses.

    Passes when every placement would lose points (a joker spent for nothing).
    """

    name = "greedy"

    def __init__(self, seed: int = 0):
        self.seed = seed

    def choose(self, game: Game) -> Move:
        player = game.current_player()
        sheet = game.sheets[player]
        bridging = game.rules.bridging
        cheapest: dict[tuple[str, int], Choice] = {}  # (colour, count) -> its cheapest pick
        for pick in game.choices():
            known = cheapest.get((pick.colour, pick.count))
            if known is None or pick.cost < known.cost:
                cheapest[pick.colour, pick.count] = pick
        board = game.board
        query = placement_index(board, bridging).query
        crossed, anchored = sheet.crossed, sheet.anchored
        claimed_cols, claimed_colours = game.race_claims
        _, best, best_mask = best_placement(board, crossed, anchored, cheapest.values(), query,
                                            claimed_cols, claimed_colours)
        if best is None:
            return PASS
        return best.placed(best_mask).move(board)

