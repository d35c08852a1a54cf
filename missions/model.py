"""What a co-op mission is, as plain immutable data (docs/missions.md).

A mission is data, not code: objectives in a small vocabulary (kinds ``columns``,
``colours``, ``stars``, ``cells``, ``score``, ``jokers_left``; scopes ``team``, ``each``,
``any``) and roll budgets per player count and difficulty. The loader builds these from TOML
files and rejects anything it cannot evaluate; the checker evaluates them on sheets.
"""

from __future__ import annotations

from dataclasses import dataclass

from nochmal.board import COLOURS, COLUMN_LETTERS, Board
from nochmal.errors import NochmalError
from nochmal.game import MAX_COOP_PLAYERS
from nochmal.i18n import TERMS, Message, say, say_n
from nochmal.placements import MAX_COUNT

KINDS = ("columns", "colours", "stars", "cells", "score", "jokers_left")
SCOPES = ("team", "each", "any")
DIFFICULTIES = ("easy", "normal", "hard")
# The state of a mission, for results, the status check, the CLI and the web alike
WON = "won"
LOST = "lost"
IN_PROGRESS = "in progress"
STATES = (WON, LOST, IN_PROGRESS)
PLAYER_COUNTS = tuple(range(1, MAX_COOP_PLAYERS + 1))  # (1, 2, 3, 4)
SOURCES = ("project", "print", "user")


class MissionError(NochmalError):
    """A mission file is broken, or a mission is asked for something it does not define."""

    def __init__(self, source: str, problems: list[str]):
        self.source = source
        self.problems = [str(p) for p in problems]  # a reader's reason may be a Message: English here
        super().__init__(f"{source}: " + "; ".join(self.problems))


@dataclass(frozen=True)
class Objective:
    """One objective. Only the parameters of its kind are set.

    columns: column indices; colours: colour letters; count: how many stars / colours;
    cells: cell names; at_least: score or jokers threshold per player count (1-4).
    """

    kind: str
    scope: str
    columns: tuple[int, ...] | None = None
    colours: tuple[str, ...] | None = None
    count: int | None = None
    cells: tuple[str, ...] | None = None
    at_least: tuple[tuple[int, int], ...] | None = None  # ((players, value), ...)

    def threshold(self, players: int) -> int:
        """The ``at_least`` value for this many players."""
        if self.at_least is None:
            raise MissionError(self.kind, ["objective has no at_least"])
        return dict(self.at_least)[players]

    def describe(self, players: int | None = None) -> str:
        """A one-line English description, e.g. ``columns G H I complete on each sheet``."""
        return str(self.description(players))

    def description(self, players: int | None = None) -> Message:
        """The description as a Message (what, then where), said in a player's language
        where one is known (docs/web.md "Languages")."""
        where = {"team": say("on the team's sheets together"), "each": say("on every sheet"),
                 "any": say("on at least one sheet")}[self.scope]
        team = self.scope == "team"
        if self.kind == "columns":
            what = say("columns %(columns)s complete", columns=" ".join(COLUMN_LETTERS[c] for c in self.columns))
            where = say("(each on at least one sheet)") if team else where
        elif self.kind == "colours":
            if self.colours is not None:
                what = say("colours %(colours)s complete", colours=tuple(say(TERMS[c]) for c in self.colours))
                where = say("(each on at least one sheet)") if team else where
            else:
                what = say_n("%(n)s colour complete", "%(n)s colours complete", self.count)
                where = say("(distinct colours, counted over all sheets)") if team else where
        elif self.kind == "stars":
            what = say_n("%(n)s star cell crossed", "%(n)s star cells crossed", self.count)
            where = say("(each on at least one sheet)") if team else where
        elif self.kind == "cells":
            what = say("cells %(cells)s crossed", cells=" ".join(self.cells))
            where = say("(each on at least one sheet)") if team else where
        elif self.kind == "score":
            what = say("score at least %(target)s", target=self._threshold_text(players))
            where = say("(sum of the team's scores, every column at its first value)") if team else where
        else:
            what = say("at least %(target)s unused joker(s)", target=self._threshold_text(players))
            where = say("(summed over the team)") if team else where
        return Message("%(what)s %(where)s", {"what": what, "where": where})  # no words of its own: not in the catalogs

    def _threshold_text(self, players: int | None) -> str:
        values = dict(self.at_least or ())
        if players is not None and players in values:
            return str(values[players])
        if len(set(values.values())) == 1:
            return str(next(iter(values.values())))
        return ", ".join(f"{v} for {p} player(s)" for p, v in sorted(values.items()))

    def to_dict(self) -> dict:
        out: dict = {"kind": self.kind, "scope": self.scope}
        if self.columns is not None:
            out["columns"] = [COLUMN_LETTERS[c] for c in self.columns]
        if self.colours is not None:
            out["colours"] = list(self.colours)
        if self.count is not None:
            out["count"] = self.count
        if self.cells is not None:
            out["cells"] = list(self.cells)
        if self.at_least is not None:
            out["at_least"] = {str(p): v for p, v in self.at_least}
        return out


@dataclass(frozen=True)
class Mission:
    """A co-op mission: objectives plus roll budgets per player count and difficulty."""

    id: str
    name: str
    source: str
    description: str
    objectives: tuple[Objective, ...]
    budgets: tuple[tuple[int, tuple[tuple[str, int], ...]], ...]  # ((players, ((difficulty, rolls), ...)), ...)
    board: str = "classic"
    path: str = ""
    # the name and description per language (``[names]``, ``[descriptions]``; docs/missions.md §2),
    # each either empty or holding every one of nochmal.i18n.LANGUAGES
    names: tuple[tuple[str, str], ...] = ()
    descriptions: tuple[tuple[str, str], ...] = ()

    def name_in(self, lang: str) -> str:
        """The name in ``lang``; ``name`` where the file gives no translations."""
        return dict(self.names).get(lang, self.name)

    def description_in(self, lang: str) -> str:
        """The description in ``lang``; ``description`` where the file gives no translations."""
        return dict(self.descriptions).get(lang, self.description)

    def budget(self, players: int, difficulty: str) -> int:
        """Rolls the team has (MissionError if not defined)."""
        if difficulty not in DIFFICULTIES:
            raise MissionError(self.path or self.id, [f"difficulty {difficulty!r} is not one of {', '.join(DIFFICULTIES)}"])
        table = dict(self.budgets)
        if players not in table:
            raise MissionError(self.path or self.id, [f"no roll budget for {players} player(s) "
                                                      f"(defined: {', '.join(str(p) for p in sorted(table))})"])
        return dict(table[players])[difficulty]

    def budget_table(self) -> dict[int, dict[str, int]]:
        return {p: dict(row) for p, row in self.budgets}

    def to_dict(self) -> dict:
        return {"id": self.id, "name": self.name, "source": self.source, "description": self.description,
                "board": self.board, "objectives": [o.to_dict() for o in self.objectives],
                "budgets": {str(p): row for p, row in self.budget_table().items()}, "path": self.path}


# --- a cheap lower bound on the rolls a mission needs ----------------------------------------
#
# On each roll every sheet crosses at most MAX_COUNT (5) cells, all in one block (docs/rules.md §3).
# So crossing a set of cells on one sheet takes at least sum over blocks of
# ceil(cells in the block / 5) rolls ("block slots"); and splitting such a set over several
# sheets never needs fewer slots in total, so a team of p sheets needs ceil(slots / p) rolls.
# Anchoring is ignored: the bound is cheap and never too high.


_BLOCK_MASKS: dict[int, tuple[Board, tuple[int, ...]]] = {}  # id(board) -> (board, its blocks' masks)


def block_slots(board: Board, mask: int) -> int:
    """Rolls one sheet needs at least to cross every cell of ``mask`` (from an empty sheet).
    (A plain loop over the blocks' masks: a room's status asks it some hundred times.)"""
    entry = _BLOCK_MASKS.get(id(board))
    if entry is None or entry[0] is not board:
        if len(_BLOCK_MASKS) > 64:
            _BLOCK_MASKS.clear()
        entry = _BLOCK_MASKS[id(board)] = (board, tuple(block.mask for block in board.blocks))
    total = 0
    for block in entry[1]:
        cells = mask & block
        if cells:
            total += (cells.bit_count() + MAX_COUNT - 1) // MAX_COUNT
    return total


def _star_slots(board: Board, count: int) -> int:
    """Fewest block slots that cross ``count`` stars: the blocks richest in stars first."""
    per_block = sorted(((block.mask & board.star_mask).bit_count() for block in board.blocks), reverse=True)
    slots = 0
    for stars in per_block:
        if count <= 0:
            break
        take = min(stars, count)
        slots += -(-take // MAX_COUNT)
        count -= take
    return slots


def objective_slots(objective: Objective, board: Board) -> int:
    """Block slots the objective needs on one sheet (0 for score and jokers targets)."""
    kind = objective.kind
    if kind == "columns":
        return block_slots(board, sum(board.column_mask[c] for c in objective.columns))
    if kind == "colours" and objective.colours is not None:
        return block_slots(board, sum(board.colour_mask[c] for c in objective.colours))
    if kind == "colours":
        costs = sorted(block_slots(board, board.colour_mask[c]) for c in COLOURS)
        return sum(costs[: objective.count])
    if kind == "cells":
        return block_slots(board, board.mask_of(objective.cells))
    if kind == "stars":
        return _star_slots(board, objective.count)
    return 0


def rolls_lower_bound(objectives, board: Board, players: int) -> int:
    """Rolls a team of ``players`` needs at least to meet every objective (never too high).

    ``each`` objectives with fixed cells are united (every sheet needs all of them);
    ``team`` objectives may be split over the sheets.
    """
    each_mask = 0
    bound = 0
    for objective in objectives:
        slots = objective_slots(objective, board)
        if objective.scope == "team":
            bound = max(bound, -(-slots // players))
        else:
            bound = max(bound, slots)
        if objective.scope == "each":
            each_mask |= target_mask(objective, board) or 0
    return max(bound, block_slots(board, each_mask))


def target_mask(objective: Objective, board: Board) -> int | None:
    """The cells a sheet must cross for the objective on its own; None when not fixed
    (a count of colours or stars, a score, jokers)."""
    if objective.kind == "columns":
        return sum(board.column_mask[c] for c in objective.columns)
    if objective.kind == "colours" and objective.colours is not None:
        return sum(board.colour_mask[c] for c in objective.colours)
    if objective.kind == "cells":
        return board.mask_of(objective.cells)
    return None
