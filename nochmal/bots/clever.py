"""Clever 4ever bots (docs/clever.md "Bots"): ``random`` and ``greedy``, with the agent
interface of nochmal/agents.py (``choose(game)`` returns one of ``game.legal_moves()`` and
leaves the game as it was), and the seeded game loop that plays them.

The greedy bot looks one action ahead: it tries each legal action (push, read, pop) and
keeps the one whose sheet is worth most by ``worth``: the score so far plus a guess at what
half-done columns, fields and unused actions will bring. It never throws: a re-roll only
when no entry gains anything.
"""

from __future__ import annotations

import random
from typing import Callable

from nochmal.clever.actions import DONE, PASS, REROLL, Action
from nochmal.clever.game import CleverGame
from nochmal.clever.scoring import area_points
from nochmal.clever.sheet import Sheet, blue_bit
from nochmal.clever.sheetdata import SheetFacts
from nochmal.errors import BotError

# what an unused slot, a pending "?" and a fox are guessed to be worth (points)
ACTION_WORTH = {"reroll": 3.0, "plus-one": 6.0, "polish": 2.0}
QUESTION_WORTH = 6.0
FOX_WORTH = 12.0
PARTIAL = 0.5  # share of a half-done column's or field's points counted before it is done


class RandomCleverAgent:
    """Uniform over the legal actions; seeded, so reproducible."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, game: CleverGame) -> Action:
        moves = game.legal_moves()
        return moves[self.rng.randrange(len(moves))]


def worth(facts: SheetFacts, sheet: Sheet, pending: int = 0) -> float:
    """The score so far plus the guessed worth of what is under way (see the module doc)."""
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
    value += sum(ACTION_WORTH[a] * sheet.left(a) for a in ACTION_WORTH) + QUESTION_WORTH * pending
    return value


class GreedyCleverAgent:
    """One action ahead by ``worth``; ties go to the first legal action."""

    name = "greedy"

    def __init__(self, seed: int = 0):
        self.seed = seed

    def choose(self, game: CleverGame) -> Action:
        seat = game.current_player()
        moves = game.legal_moves()
        before = worth(game.facts, game.sheets[seat], len(game.pending[seat]))
        best, best_value = None, float("-inf")
        for move in moves:
            if move in (REROLL, PASS, DONE) or (move.kind == "take" and not move.enters):
                continue
            game.push(move)
            value = worth(game.facts, game.sheets[seat], len(game.pending[seat]))
            game.pop()
            if value > best_value:
                best, best_value = move, value
        if best is not None and best_value > before:
            return best
        if REROLL in moves:
            return REROLL
        return next((m for m in moves if m in (PASS, DONE) or (m.kind == "take" and not m.enters)), best or moves[0])


CLEVER_BOTS: dict[str, Callable[..., object]] = {"random": RandomCleverAgent, "greedy": GreedyCleverAgent}


def clever_bot(name: str, seed: int = 0):
    """A Clever 4ever bot by name (BotError naming the known ones)."""
    if name not in CLEVER_BOTS:
        raise BotError(f"unknown Clever 4ever bot {name!r}; bots: {', '.join(CLEVER_BOTS)}")
    return CLEVER_BOTS[name](seed=seed)


def play(game: CleverGame, agents: list, seed: int, visit: Callable[[CleverGame], None] | None = None) -> CleverGame:
    """Play ``game`` to its end: seeded throws at chance nodes, each seat's agent at its
    decisions; ``visit(game)`` after every step."""
    while not game.is_terminal():
        seat = game.current_player()
        if seat < 0:
            game.apply_roll(game.seeded_throw(seed))
        else:
            game.apply_move(agents[seat].choose(game))
        if visit:
            visit(game)
    return game
