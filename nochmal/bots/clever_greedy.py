"""Clever 4ever's greedy bot (docs/clever.md "Bots"), with the agent interface of
nochmal/agents.py (``choose(game)`` returns one of ``game.legal_moves()`` and leaves the game
as it was); the searching bot (nochmal/bots/clever_search.py) plays its rollouts with it.

The greedy bot looks one action ahead: it tries each legal action (push, read, pop) and
keeps the one whose state is worth most: the sheet by ``worth`` (the score so far plus a
guess at what half-done columns, fields, unused actions, pending "?" and foxes will bring),
plus the takes its active turn still has dice for. It does not look at throws to come: a
re-roll when the best entry gains less than REROLL_BELOW over passing the throw.
The weights were set on seeds 0-59 (docs/clever.md "Bots").
"""

from __future__ import annotations

from nochmal.clever.actions import REROLL, Action
from nochmal.clever.game import CleverGame
from nochmal.clever.scoring import green_points, pink_points, yellow_points
from nochmal.clever.sheet import Sheet, blue_bit
from nochmal.clever.sheetdata import SheetFacts

# what an unused slot, a pending "?" and a fox are guessed to be worth (points)
ACTION_WORTH = {"reroll": 3.0, "plus-one": 6.0, "polish": 2.0}
QUESTION_WORTH = 6.0
FOX_WORTH = 12.0
PARTIAL = 0.7  # share of a half-done column's or field's points counted before it is done
TAKE_WORTH = 8.0  # a take still to come in this active turn, while dice are left to take
REROLL_BELOW = 2.0  # a throw whose best entry gains less than this is thrown again, if it can be


class _Tables:
    """What ``worth`` reads off the sheet's facts, computed once per facts (masks and counts
    instead of cell sets: the search bots call ``worth`` hundreds of thousands of times)."""

    def __init__(self, facts: SheetFacts):
        self.facts = facts  # kept: the cache is keyed by its id
        self.blue_columns = [sum(blue_bit(r, c) for r in range(6)) for c in range(6)]
        self.anti = sum(blue_bit(r, 5 - r) for r in range(6))
        self.grey_columns = [[(c, sum(1 for _, cc in seg.cells if cc == c)) for c in sorted({cc for _, cc in seg.cells})]
                             for seg in facts.segments]
        self.memo: dict[tuple, float] = {}


_TABLES: dict[int, _Tables] = {}
_MEMO_LIMIT = 100_000  # states remembered per facts before the memo starts afresh (about 45 MB)


def _tables(facts: SheetFacts) -> _Tables:
    tables = _TABLES.get(id(facts))
    if tables is None or tables.facts is not facts:
        tables = _TABLES[id(facts)] = _Tables(facts)
    return tables


def _points(facts: SheetFacts, tables: _Tables, sheet: Sheet, grey: list[int]) -> list[int]:
    """The five areas' points in AREAS order: the scorer's own functions for yellow, green and
    pink; blue and grey by masks and the column counts ``grey`` (the same numbers)."""
    blue = sum(p for p, mask in zip(facts.blue_points, tables.blue_columns) if (sheet.blue & mask).bit_count() >= 2)
    if (sheet.blue & tables.anti).bit_count() >= 2:
        blue += facts.blue_anti_diagonal_points
    return [yellow_points(facts, sheet), blue,
            sum(p for p, n in zip(facts.grey_points, grey) if n == facts.grey_rows),
            green_points(facts, sheet), pink_points(facts, sheet)]


def worth(facts: SheetFacts, sheet: Sheet, pending: int = 0, rest: float = 1.0) -> float:
    """The score so far plus the guessed worth of what is under way (see the module doc);
    ``rest``: the share of the game still to play, which unused actions are worth."""
    tables = _tables(facts)
    key = (sheet, pending, rest)
    value = tables.memo.get(key)
    if value is None:
        if len(tables.memo) >= _MEMO_LIMIT:
            tables.memo.clear()
        value = tables.memo[key] = _worth(facts, tables, sheet, pending, rest)
    return value


def _worth(facts: SheetFacts, tables: _Tables, sheet: Sheet, pending: int, rest: float) -> float:
    grey = [0] * len(facts.grey_points)  # crossed cells per grey column
    for seg, columns in enumerate(tables.grey_columns):
        if sheet.grey >> seg & 1:
            for c, n in columns:
                grey[c] += n
    points = _points(facts, tables, sheet, grey)
    value = float(sum(points)) + sheet.foxes * max(min(points), FOX_WORTH)
    rows = sheet.yellow
    for c, col_points in enumerate(facts.yellow_points):
        filled = sum(1 for r in rows if len(r) > c)
        if filled < len(rows):
            value += PARTIAL * col_points * filled / len(rows)
    top = rows[0]
    if top:  # columns the top row can no longer reach (it ascends, 6 at most)
        reach = len(top) + 6 - top[-1]
        value -= PARTIAL * sum(facts.yellow_points[reach:])
    for col_points, mask in zip(facts.blue_points, tables.blue_columns):
        if (sheet.blue & mask).bit_count() == 1:
            value += PARTIAL * col_points / 2
    for col_points, filled in zip(facts.grey_points, grey):
        if filled < facts.grey_rows:
            value += PARTIAL * col_points * filled / facts.grey_rows
    low, up = sheet.green
    for i in range(min(len(low), len(up)), max(len(low), len(up))):
        half = (low[i] if i < len(low) else up[i]) + 3.5
        value += PARTIAL * half * (2 if i >= facts.green_double_from else 1)
    value += rest * sum(ACTION_WORTH[a] * sheet.left(a) for a in ACTION_WORTH) + QUESTION_WORTH * pending
    return value


def worth_now(game: CleverGame, seat: int) -> float:
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
        moves = game.legal_moves()
        ranked = greedy_values(game, game.current_player(), moves)
        if REROLL in moves:
            idle = max((value for value, move in ranked if not move.enters), default=float("-inf"))
            if not ranked or ranked[0][0] - idle < REROLL_BELOW:  # a poor throw: throw again
                return REROLL
        return ranked[0][1]


def greedy_values(game: CleverGame, seat: int, moves: list[Action]) -> list[tuple[float, Action]]:
    """Every legal action but the re-roll with the seat's worth after it (``worth_now``),
    best first; ties in the order of ``moves``."""
    valued = []
    for move in moves:
        if move == REROLL:
            continue
        game.push_legal(move)
        valued.append((worth_now(game, seat), move))
        game.pop()
    order = sorted(range(len(valued)), key=lambda i: -valued[i][0])  # stable: ties keep the legal order
    return [valued[i] for i in order]
