"""Hints: the best few choices for the deciding player, with their estimated value.

The look-ahead bot ranks the choices (expectimax over the next roll, in solo over the next
two, the tuned evaluation as leaf, in solo with the n-tuple residual); the value shown is
its estimate of the final score of the sheet if that choice is taken (in the race, adjusted
for the race as the bot sees it). In a co-op mission the score is not the goal: front ends
hint with nochmal.missions.tactics.mission_hint there (this layer knows no missions).
"""

from __future__ import annotations

from nochmal.bots.heuristic import END_BONUS, choice_move
from nochmal.bots.lookahead import LookaheadAgent
from nochmal.errors import NochmalError
from nochmal.game import Game
from nochmal.move import Move

_AGENTS: dict[int, LookaheadAgent] = {}


def hint(game: Game, top: int = 3) -> list[tuple[Move, float]]:
    """The ``top`` best moves for ``game.current_player()``, best first, with values."""
    if game.current_player() < 0:
        raise NochmalError("no decision is pending: a hint needs a rolled position")
    if top < 1:
        raise NochmalError(f"top must be at least 1, got {top}")
    agent = _AGENTS.get(top)
    if agent is None:  # every choice shown is valued the same way (two rolls deep in solo)
        agent = _AGENTS[top] = LookaheadAgent(width=max(12, top), deep=top, tuples=True)
    out = []
    for value, choice in agent.rank(game)[:top]:
        if value >= END_BONUS / 2:
            value -= END_BONUS  # ending the race while ahead: show the final score itself
        elif value <= -END_BONUS / 2:
            value += END_BONUS
        out.append((choice_move(game, choice), round(value, 2)))
    return out
