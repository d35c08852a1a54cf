"""Clever 4ever's bots by name (docs/clever.md "Bots") and the seeded game loop that plays
them: ``random`` (the core's RandomAgent itself: it needs only the shared state API,
nochmal/clever/state_api.py), ``greedy`` (nochmal/bots/clever_greedy.py) and ``rollout``
(nochmal/bots/clever_search.py), in the order they are listed to users.
"""

from __future__ import annotations

from typing import Callable

from nochmal.agents import RandomAgent
from nochmal.bots.clever_greedy import GreedyCleverAgent
from nochmal.bots.clever_search import RolloutCleverAgent
from nochmal.clever.game import CleverGame
from nochmal.errors import BotError
from nochmal.play import play_game

__all__ = ["CLEVER_BOTS", "GreedyCleverAgent", "RolloutCleverAgent", "clever_bot", "play"]

CLEVER_BOTS: dict[str, Callable[..., object]] = {"random": RandomAgent, "greedy": GreedyCleverAgent,
                                                 "rollout": RolloutCleverAgent}


def clever_bot(name: str, seed: int = 0):
    """A Clever 4ever bot by name (BotError naming the known ones)."""
    if name not in CLEVER_BOTS:
        raise BotError(f"unknown Clever 4ever bot {name!r}; bots: {', '.join(CLEVER_BOTS)}")
    return CLEVER_BOTS[name](seed=seed)


def play(game: CleverGame, agents: list, seed: int, visit: Callable[[CleverGame], None] | None = None) -> CleverGame:
    """Play ``game`` to its end with the one game loop of both games (nochmal/play.py)."""
    return play_game(game, agents, seed, visit)
