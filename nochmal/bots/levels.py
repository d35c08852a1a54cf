"""Difficulty levels as bot names, ordered by measured strength (benchmarks/RESULTS.md, ## Bots).

easy = greedy (one ply, points now), medium = heuristic (one ply, tuned evaluation),
hard = lookahead (expectimax over the next roll). The order was checked on held-out seeds
with ``nochmal bench bots``; see the figures there. nochmal.bots.registry builds them.
"""

from __future__ import annotations

LEVELS = {"easy": "greedy", "medium": "heuristic", "hard": "lookahead"}
