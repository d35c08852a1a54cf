"""What a co-op mission is, as plain immutable data (missions.md).

A mission is data, not code: objectives in a small vocabulary (kinds ``columns``,
``colours``, ``stars``, ``cells``, ``score``, ``jokers_left``; scopes ``team``, ``each``,
``any``) and roll budgets per player count and difficulty. The loader builds these from TOML
files and rejects anything it cannot evaluate; the checker evaluates them on sheets.
"""

from __future__ import annotations

from dataclasses import dataclass

from nochmal.board import COLOUR_NAMES, COLUMN_LETTERS
from nochmal.errors import NochmalError

KINDS = ("columns", "colours", "stars", "cells", "score", "jokers_left")
SCOPES = ("team", "each", "any")
DIFFICULTIES = ("easy", "normal", "hard")
PLAYER_COUNTS = (1, 2, 3, 4)
SOURCES = ("project", "print", "user")


class MissionError(NochmalError):
    """A mission file is broken, or a mission is asked for something it does not define."""

    def __init__(self, source: str, problems: list[str]):
        self.source = source
        self.problems = list(problems)
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
        where = {"team": "on the team's sheets together", "each": "on every sheet", "any": "on at least one sheet"}[self.scope]
        if self.kind == "columns":
            what = "columns " + " ".join(COLUMN_LETTERS[c] for c in self.columns) + " complete"
            if self.scope == "team":
                where = "(each on at least one sheet)"
        elif self.kind == "colours":
            if self.colours is not None:
                what = "colours " + ", ".join(COLOUR_NAMES[c] for c in self.colours) + " complete"
                if self.scope == "team":
                    where = "(each on at least one sheet)"
            else:
                what = f"{self.count} colour(s) complete"
                if self.scope == "team":
                    where = "(distinct colours, counted over all sheets)"
        elif self.kind == "stars":
            what = f"{self.count} star cell(s) crossed"
            if self.scope == "team":
                where = "(each on at least one sheet)"
        elif self.kind == "cells":
            what = "cells " + " ".join(self.cells) + " crossed"
            if self.scope == "team":
                where = "(each on at least one sheet)"
        elif self.kind == "score":
            target = self._threshold_text(players)
            what = f"score at least {target}"
            if self.scope == "team":
                where = "(sum of the team's scores, every column at its first value)"
        else:
            target = self._threshold_text(players)
            what = f"at least {target} unused joker(s)"
            if self.scope == "team":
                where = "(summed over the team)"
        return f"{what} {where}"

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
