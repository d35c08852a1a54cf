"""Difficulty levels as bot names, ordered by measured strength (benchmarks/RESULTS.md, ## Bots).

easy = greedy (one ply, points now), medium = heuristic (one ply, tuned evaluation),
hard = lookahead (expectimax over the next roll). The order was checked on held-out seeds
with ``nochmal bench bots``; see the figures there.
"""

from __future__ import annotations

from nochmal.agents import AGENTS, register_agent

LEVELS = {"easy": "greedy", "medium": "heuristic", "hard": "lookahead"}


def _level_factory(bot: str):
    def make(seed: int = 0):
        agent = AGENTS[bot](seed=seed)
        return agent

    return make


for _level, _bot in LEVELS.items():
    register_agent(_level, _level_factory(_bot))
