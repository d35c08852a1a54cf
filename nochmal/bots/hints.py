"""Hints: the best few choices for the deciding player, with their estimated value.

The look-ahead bot ranks the choices (expectimax over the next roll, in solo over the next
two, the tuned evaluation as leaf, in solo with the n-tuple residual); the value shown is
its estimate of the final score of the sheet if that choice is taken (in the race, adjusted
for the race as the bot sees it). In a co-op mission the score is not what wins: front ends
hint with nochmal.missions.tactics.mission_hint there (this layer knows no missions).
"""

from __future__ import annotations

from nochmal.bots.heuristic import END_BONUS, choice_move
from nochmal.bots.lookahead import LookaheadAgent
from nochmal.dice import Roll
from nochmal.errors import OptionError, OutOfTurnError
from nochmal.game import Game
from nochmal.i18n import say
from nochmal.modes import Mode
from nochmal.move import Move
from nochmal.position import Position
from nochmal.rules import RuleSettings

_AGENTS: dict[int, LookaheadAgent] = {}


def hint(game: Game, top: int = 3) -> list[tuple[Move, float]]:
    """The ``top`` best moves for ``game.current_player()``, best first, with values."""
    if game.current_player() < 0:
        raise OutOfTurnError("no decision is pending: a hint needs a rolled position")
    if top < 1:
        raise OptionError(f"top must be at least 1, got {top}")
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


FREE_ROLL_GUARD = 3  # a race position past the first three rolls (one player: free pick anyway)


# what the refusals call the inputs: the command's options (`nochmal hint`); the web names its fields
OPTION_NAMES = {"roll": "--roll", "solo": "--solo", "rolls_left": "--rolls-left"}


def build_hint_game(board, sheet, roll: Roll, solo: bool, rolls_left: int | None,
                    bridging: bool = False, names: dict[str, str] = OPTION_NAMES) -> Game:
    """A one-player game at the decision on ``roll`` with ``sheet`` and ``rolls_left`` rolls after it
    (`nochmal hint` and the web's /api/hint; the refusals are Messages naming the inputs by ``names``)."""
    rules = RuleSettings(bridging=bridging)
    if rolls_left is not None and not 0 <= rolls_left <= rules.solo_rolls - 1:
        raise OptionError(say("%(option)s %(value)s: must be 0..%(most)s", option=names["rolls_left"], value=rolls_left,
                              most=rules.solo_rolls - 1))
    if solo:
        left = 15 if rolls_left is None else rolls_left
        position = Position(Mode.SOLO, (sheet,), rules.solo_rolls - 1 - left, rules.solo_rolls)
    else:
        limit = None if rolls_left is None else FREE_ROLL_GUARD + rolls_left + 1
        position = Position(Mode.COMPETITIVE, (sheet,), FREE_ROLL_GUARD, limit)
    game = Game.from_position(position, rules)
    if game.is_terminal():
        raise OutOfTurnError(say("the sheet has two colours complete: the race is over, there is nothing to choose"))
    if len(roll.colours) != game.dice_per_kind:
        counts = {"option": names["roll"], "colours": len(roll.colours), "numbers": len(roll.numbers),
                  "n": game.dice_per_kind}
        raise OptionError(say("%(option)s has %(colours)s colour and %(numbers)s number dice; solo rolls %(n)s of each",
                              **counts) if solo else
                          say("%(option)s has %(colours)s colour and %(numbers)s number dice; the race rolls %(n)s of "
                              "each (use %(solo)s for 2+2)", **counts, solo=names["solo"]))
    game.apply_roll(roll)
    return game
