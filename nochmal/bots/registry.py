"""The bot registry, written out: every bot a name can build, the core's baseline bots and
the stronger ones of this package, in the order they are listed to users.

The rules core (nochmal.agents) defines the Agent interface and the baseline bots but knows
nothing of this package; everything that builds bots by name imports from here.
"""

from __future__ import annotations

from typing import Callable

from nochmal.agents import Agent, GreedyAgent, RandomAgent
from nochmal.bots.heuristic import HeuristicAgent
from nochmal.bots.levels import LEVELS
from nochmal.bots.lookahead import LookaheadAgent
from nochmal.errors import BotError

_BOTS: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
    # the same one ply, the evaluation plus the n-tuple residual learned by self-play (solo only)
    "ntuple": lambda seed=0: HeuristicAgent(seed=seed, tuples=True),
    # in solo the leaf is the evaluation plus the n-tuple residual (nochmal.bots.tuples); the
    # choice was made on tuning seeds 1..200 (benchmarks/RESULTS.md, Bots, fourth session)
    "lookahead": lambda seed=0: LookaheadAgent(seed=seed, tuples=True),
    "lookahead1": lambda seed=0: LookaheadAgent(seed=seed, deep=0, tuples=True),
}


def _level(bot: str) -> Callable[..., Agent]:
    def make(seed: int = 0) -> Agent:
        return _BOTS[bot](seed=seed)

    return make


AGENTS: dict[str, Callable[..., Agent]] = {**_BOTS, **{level: _level(bot) for level, bot in LEVELS.items()}}


def agent_names() -> list[str]:
    return list(AGENTS)


def make_agent(name: str, seed: int = 0) -> Agent:
    """An agent by registry name (``factory(seed=...)``); BotError lists the known names."""
    factory = AGENTS.get(name)
    if factory is None:
        raise BotError(f"unknown bot {name!r}; known bots: {', '.join(AGENTS)}")
    return factory(seed=seed)
