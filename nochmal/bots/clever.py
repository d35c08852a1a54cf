"""Clever 4ever bots (docs/clever.md "Bots"): ``random`` and ``greedy``, with the agent
interface of nochmal/agents.py (``choose(game)`` returns one of ``game.legal_moves()`` and
leaves the game as it was), and the seeded game loop that plays them. ``random`` is the
core's RandomAgent itself: it needs only the shared state API (nochmal/clever/state_api.py).

The greedy bot looks one action ahead: it tries each legal action (push, read, pop) and
keeps the one whose state is worth most: the sheet by ``worth`` (the score so far plus a
guess at what half-done columns, fields, unused actions, pending "?" and foxes will bring),
plus the takes its active turn still has dice for. It does not look at throws to come: a
re-roll when the best entry gains less than REROLL_BELOW over passing the throw.
The weights were set on seeds 0-59 (docs/clever.md "Bots").
"""

from __future__ import annotations

from typing import Callable

from nochmal.agents import RandomAgent
from nochmal.clever.actions import REROLL, Action
from nochmal.clever.game import CleverGame
from nochmal.clever.scoring import area_points
from nochmal.clever.sheet import Sheet, blue_bit
from nochmal.clever.sheetdata import SheetFacts
from nochmal.errors import BotError
from nochmal.play import play_game

# what an unused slot, a pending "?" and a fox are guessed to be worth (points)
ACTION_WORTH = {"reroll": 3.0, "plus-one": 6.0, "polish": 2.0}
QUESTION_WORTH = 6.0
FOX_WORTH = 12.0
PARTIAL = 0.7  # share of a half-done column's or field's points counted before it is done
TAKE_WORTH = 8.0  # a take still to come in this active turn, while dice are left to take
REROLL_BELOW = 2.0  # a throw whose best entry gains less than this is thrown again, if it can be


def worth(facts: SheetFacts, sheet: Sheet, pending: int = 0, rest: float = 1.0) -> float:
    """The score so far plus the guessed worth of what is under way (see the module doc);
    ``rest``: the share of the game still to play, which unused actions are worth."""
    points = area_points(facts, sheet)
    value = float(sum(points.values())) + sheet.foxes * max(min(points.values()), FOX_WORTH)
    rows = sheet.yellow
    for c, col_points in enumerate(facts.yellow_points):
        filled = sum(1 for r in rows if len(r) > c)
        if filled < len(rows):
            value += PARTIAL * col_points * filled / len(rows)
    top = rows[0]
    if top:  # columns the top row can no longer reach (it ascends, 6 at most)
        reach = len(top) + 6 - top[-1]
        value -= PARTIAL * sum(facts.yellow_points[reach:])
    for c, col_points in enumerate(facts.blue_points):
        if sum(1 for r in range(6) if sheet.blue & blue_bit(r, c)) == 1:
            value += PARTIAL * col_points / 2
    cells = sheet.grey_cells(facts)
    for c, col_points in enumerate(facts.grey_points):
        filled = sum(1 for r in range(facts.grey_rows) if (r, c) in cells)
        if filled < facts.grey_rows:
            value += PARTIAL * col_points * filled / facts.grey_rows
    low, up = sheet.green
    for i in range(min(len(low), len(up)), max(len(low), len(up))):
        half = (low[i] if i < len(low) else up[i]) + 3.5
        value += PARTIAL * half * (2 if i >= facts.green_double_from else 1)
    value += rest * sum(ACTION_WORTH[a] * sheet.left(a) for a in ACTION_WORTH) + QUESTION_WORTH * pending
    return value


def _worth_now(game: CleverGame, seat: int) -> float:
    """``worth`` of the seat's sheet, plus the takes its active turn still has dice for."""
    rest = (game.rounds - game.round + 1) / game.rounds
    value = worth(game.facts, game.sheets[seat], len(game.pending[seat]), rest)
    if game.phase == "active" and game.active == seat:
        value += TAKE_WORTH * min(3 - game.picks, game.where.count("pool"))
    return value


class GreedyCleverAgent:
    """One action ahead by ``worth``; ties go to the first legal action."""

    name = "greedy"

    def __init__(self, seed: int = 0):
        self.seed = seed

    def choose(self, game: CleverGame) -> Action:
        seat = game.current_player()
        moves = game.legal_moves()
        best, best_value, idle = None, float("-inf"), float("-inf")
        for move in moves:
            if move == REROLL:
                continue
            game.push(move)
            value = _worth_now(game, seat)
            game.pop()
            if not move.enters:
                idle = max(idle, value)
            if value > best_value:
                best, best_value = move, value
        if REROLL in moves and best_value - idle < REROLL_BELOW:  # a poor throw: throw again
            return REROLL
        return best


CLEVER_BOTS: dict[str, Callable[..., object]] = {"random": RandomAgent, "greedy": GreedyCleverAgent}


def clever_bot(name: str, seed: int = 0):
    """A Clever 4ever bot by name (BotError naming the known ones)."""
    if name not in CLEVER_BOTS:
        raise BotError(f"unknown Clever 4ever bot {name!r}; bots: {', '.join(CLEVER_BOTS)}")
    return CLEVER_BOTS[name](seed=seed)


def play(game: CleverGame, agents: list, seed: int, visit: Callable[[CleverGame], None] | None = None) -> CleverGame:
    """Play ``game`` to its end with the one game loop of both games (nochmal/play.py)."""
    return play_game(game, agents, seed, visit)
