"""Mission-aware play in co-op games: rank a player's moves by what they do for the mission.

The bots and the hint bot (nochmal/bots) estimate the final score of one sheet; in a co-op
mission the score rarely matters, the objectives do, and they are pooled over the team's
sheets (missions/objectives.py). So in a co-op game the moves are ranked here, by

1. items completed that the team still needs (a star, a column, a colour, a cell),
   ``ITEM_WEIGHT`` each;
2. progress towards the items still open for this sheet: per item, the share of its
   remaining crosses the move saves (``STEP_WEIGHT``); the remaining crosses of an item are
   its open cells plus the open cells that must be crossed first to reach it (a breadth-first
   search over the sheet's open cells, ``_item_needs``);
3. minus ``WASTE_WEIGHT`` per cell crossed of a team item another sheet has already done
   (the greedy teammate crossed the very star the human had just taken);
4. score objectives count the team-rule score the move adds, jokers-left objectives the
   jokers it spends;

then fewer jokers, then what the seat's own bot would play, then more crosses. Items the
team no longer needs (the objective is met, or a count is reached) weigh nothing.

Lives in missions/ because it reads the mission; the bots below know nothing of missions.
Front ends use ``MissionAgent`` for bot seats and ``mission_hint`` for hints in co-op games.
"""

from __future__ import annotations

from dataclasses import dataclass

from nochmal.errors import OutOfTurnError
from nochmal.game import Game
from nochmal.missions.model import Mission
from nochmal.missions.objectives import items_needed, objective_items, team_score
from nochmal.move import PASS, Move
from nochmal.bitsets import neighbours_of
from nochmal.sheet import Sheet

ITEM_WEIGHT = 100.0
STEP_WEIGHT = 10.0
WASTE_WEIGHT = 5.0
SCORE_WEIGHT = 1.0
JOKER_WEIGHT = 5.0


def _item_needs(sheet: Sheet, items: list[int]) -> list[int]:
    """Per item mask: open cells of the item plus the open cells to cross before the first of
    them is anchored (0 when done; a lower bound on the crosses that finish it, exact for a
    single cell). Unreachable items count as the board size."""
    board = sheet.board
    open_cells = board.full_mask & ~sheet.crossed
    need = [0] * len(items)
    left = [i for i, m in enumerate(items) if m & open_cells]
    layer = sheet.anchored & open_cells  # cells crossable next (1 cross each)
    seen = layer
    depth = 0
    while left and layer:
        still = []
        for i in left:
            if items[i] & layer:
                need[i] = (items[i] & open_cells).bit_count() + depth
            else:
                still.append(i)
        left = still
        depth += 1
        layer = neighbours_of(layer, board.neighbour_mask) & open_cells & ~seen
        seen |= layer
    for i in left:
        need[i] = board.n_cells
    return need


@dataclass(frozen=True)
class _Objective:
    """One set objective prepared for a player's decision: the items this sheet should work
    on (masks), how many more the team needs, and the items another sheet has done."""

    open_items: list[int]
    needs: list[int]  # per open item: _item_needs on the sheet before the move
    still_needed: int
    done_elsewhere: int  # mask: cells of team items done on another sheet


def _prepare(mission: Mission, game: Game, player: int) -> list[_Objective]:
    board = game.board
    sheets = game.sheets
    sheet = sheets[player]
    out = []
    for obj in mission.objectives:
        if obj.kind in ("score", "jokers_left"):
            continue
        items = [mask for _, mask in objective_items(obj, board)]
        need = items_needed(obj, items)
        mine = [m & ~sheet.crossed == 0 for m in items]
        if obj.scope == "team":
            others = [any(m & ~s.crossed == 0 for q, s in enumerate(sheets) if q != player) for m in items]
            done = sum(a or b for a, b in zip(mine, others))
            open_items = [m for m, a, b in zip(items, mine, others) if not a and not b]
            elsewhere = 0
            for m, a, b in zip(items, mine, others):
                if b and not a:
                    elsewhere |= m
        else:  # each / any: this sheet must do them itself
            done = sum(mine)
            open_items = [m for m, a in zip(items, mine) if not a]
            elsewhere = 0
        if need - done > 0:
            out.append(_Objective(open_items, _item_needs(sheet, open_items), need - done, elsewhere))
    return out


def mission_value(mission: Mission, game: Game, move: Move, prepared: list[_Objective] | None = None) -> float:
    """What ``move`` by the deciding player does for the mission (module docstring)."""
    player = game.current_player()
    sheet = game.sheets[player]
    board = game.board
    prepared = _prepare(mission, game, player) if prepared is None else prepared
    if move.is_pass:
        return 0.0
    mask = board.mask_of(move.cells)
    after = sheet.cross(mask, move.joker_cost)
    value = 0.0
    for obj in prepared:
        after_needs = _item_needs(after, obj.open_items)
        completed = sum(1 for n in after_needs if n == 0)
        value += ITEM_WEIGHT * min(completed, obj.still_needed)
        value += STEP_WEIGHT * sum((b - a) / b for b, a in zip(obj.needs, after_needs) if a > 0)
        value -= WASTE_WEIGHT * (mask & obj.done_elsewhere).bit_count()
    for obj in mission.objectives:
        if obj.kind == "score":
            value += SCORE_WEIGHT * (team_score(after) - team_score(sheet))
        elif obj.kind == "jokers_left":
            value -= JOKER_WEIGHT * move.joker_cost
    return value


def rank_moves(mission: Mission, game: Game, preferred: Move | None = None) -> list[tuple[float, Move]]:
    """Every legal move of the deciding player with its mission value, best first; ties go
    to fewer jokers, then ``preferred`` (the seat's own bot's move), then more crosses."""
    if game.current_player() < 0:
        raise OutOfTurnError("no decision is pending: a hint needs a rolled position")
    prepared = _prepare(mission, game, game.current_player())
    scored = []
    for move in game.legal_moves():
        value = mission_value(mission, game, move, prepared)
        scored.append(((round(value, 6), -move.joker_cost, move == preferred, move.count), value, move))
    scored.sort(key=lambda s: s[0], reverse=True)
    return [(value, move) for _, value, move in scored]


def mission_hint(mission: Mission, game: Game, top: int = 3) -> list[tuple[Move, float]]:
    """The ``top`` best moves for the mission with their mission values (the co-op
    counterpart of nochmal.bots.hints.hint)."""
    return [(move, round(value, 2)) for value, move in rank_moves(mission, game)[:top]]


class MissionAgent:
    """A bot seat in a co-op game: the seat's own bot (``base``) decides only between moves
    that are equally good for the mission."""

    def __init__(self, mission: Mission, base=None):
        self.mission = mission
        self.base = base
        self.name = f"mission:{getattr(base, 'name', 'none')}"

    def choose(self, game: Game) -> Move:
        preferred = self.base.choose(game) if self.base is not None else None
        ranked = rank_moves(self.mission, game, preferred)
        return ranked[0][1] if ranked else PASS

