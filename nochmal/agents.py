"""The one agent interface and the baseline bots.

An agent gets the game at one of its decisions and returns a Move; it must not change the
game. Later bots (heuristic, look-ahead) implement the same ``choose``.
"""

from __future__ import annotations

import random
from typing import Callable, Protocol

from nochmal.board import COLOURS
from nochmal.choice import Choice
from nochmal.errors import NochmalError
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


def _placement_facts(board, mask: int) -> tuple:
    """(star points, columns touched as (column, mask), colour index, colour mask), cached per board."""
    cache = board.__dict__.setdefault("_placement_facts", {})
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
    board = game.board
    new = game.sheets[player].crossed | mask
    gain, cols, ci, cm = _placement_facts(board, mask)
    claimed_cols, claimed_colours = game.race_claims
    for c, m in cols:
        if new & m == m:
            later = claimed_cols >> c & 1
            gain += board.column_points_later[c] if later else board.column_points_first[c]
    if new & cm == cm:
        later = claimed_colours >> ci & 1
        gain += board.colour_bonus_later if later else board.colour_bonus_first
    return gain


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
        # immediate_gain inlined: this loop is the greedy bot's whole cost
        board = game.board
        query = placement_index(board, bridging).query
        facts_cache = board.__dict__.setdefault("_placement_facts", {})
        crossed, anchored = sheet.crossed, sheet.anchored
        claimed_cols, claimed_colours = game.race_claims
        first, later = board.column_points_first, board.column_points_later
        best_key = (0, 0, 0)
        best: Choice | None = None  # unplaced: placed on best_mask once, after the search
        best_mask = 0
        for pick in cheapest.values():
            cost, count = pick.cost, pick.count
            for mask in query(crossed, anchored, pick.colour, count):
                facts = facts_cache.get(mask) or _placement_facts(board, mask)
                gain, cols, ci, cm = facts
                new = crossed | mask
                for c, m in cols:
                    if new & m == m:
                        gain += later[c] if claimed_cols >> c & 1 else first[c]
                if new & cm == cm:
                    gain += board.colour_bonus_later if claimed_colours >> ci & 1 else board.colour_bonus_first
                key = (gain - cost, count, -cost)
                if key > best_key:
                    best_key, best, best_mask = key, pick, mask
        if best is None:
            return PASS
        return best.placed(best_mask).move(board)


AGENTS: dict[str, Callable[..., Agent]] = {"random": RandomAgent, "greedy": GreedyAgent}


def register_agent(name: str, factory: Callable[..., Agent]) -> None:
    """Add a bot to the registry (``factory(seed=...)`` builds it); bot modules call this."""
    AGENTS[name] = factory


def agent_names() -> list[str]:
    import nochmal.bots  # noqa: F401  (registers the stronger bots)

    return list(AGENTS)


def make_agent(name: str, seed: int = 0) -> Agent:
    """An agent by registry name; NochmalError lists the known names."""
    names = agent_names()
    if name not in AGENTS:
        raise NochmalError(f"unknown bot {name!r}; known bots: {', '.join(names)}")
    return AGENTS[name](seed=seed)
