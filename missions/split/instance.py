"""The split's instance and answer as plain data: the units (a missing item and the cells each
sheet would cross for it), the demands over them, and a split of the units across the sheets
with its per-sheet plans; :func:`check_split` validates a split without any solver.
"""

from __future__ import annotations

from dataclasses import dataclass

from nochmal.missions.measures.crosses import CrossesEstimate
from nochmal.missions.model import Mission
from nochmal.missions.objectives import items_needed, objective_items
from nochmal.sheet import Sheet


CROSSES_PER_ROLL = 5  # docs/rules.md: a roll's placement is at most 5 cells (a number die shows 1-5 or '?')
SPLIT_SECONDS = 3.0  # CP-SAT time limit of one split


def rolls_for(crosses: int) -> int:
    """Rolls a sheet needs for ``crosses`` further crosses at 5 a roll."""
    return -(-crosses // CROSSES_PER_ROLL)


@dataclass(frozen=True)
class Unit:
    """One missing item: ``masks[p]`` are the cells sheet p would still cross for it (None:
    not sheet p's to do, e.g. another sheet's own column in an ``each`` objective)."""

    name: str
    objective: int
    masks: tuple[int | None, ...]


@dataclass(frozen=True)
class Demand:
    """At least ``need`` of ``units`` must be done; demands sharing a ``group`` are
    alternatives (one of them suffices)."""

    units: tuple[int, ...]
    need: int
    group: int | None = None


@dataclass(frozen=True)
class SplitInstance:
    sheets: tuple[Sheet, ...]
    units: tuple[Unit, ...]
    demands: tuple[Demand, ...]
    has_cells: bool = True  # False: the mission has no cell objectives (only score or jokers targets)


def split_instance(mission: Mission, sheets) -> SplitInstance:
    """Units and demands for every set objective (columns, colours, stars, cells) not yet met.

    team: each item no sheet has done is a unit any sheet may take (``need`` more of them);
    each: a sheet's own open items are units only it may take; any: per sheet one
    alternative demand over that sheet's open items. Score and jokers objectives have no
    cells to split (see :func:`score_bounds` and :func:`lost_early`).
    """
    sheets = tuple(sheets)
    n = len(sheets)
    units: list[Unit] = []
    demands: list[Demand] = []
    group = 0
    for k, obj in enumerate(mission.objectives):
        if obj.kind in ("score", "jokers_left"):
            continue
        items = objective_items(obj, sheets[0].board)
        need = items_needed(obj, items)
        done = [[m & ~s.crossed == 0 for _, m in items] for s in sheets]
        label = _item_label(obj.kind)
        if obj.scope == "team":
            pooled = [any(d[i] for d in done) for i in range(len(items))]
            more = need - sum(pooled)
            if more <= 0:
                continue
            ids = []
            for i, (name, mask) in enumerate(items):
                if not pooled[i]:
                    ids.append(len(units))
                    units.append(Unit(f"{label} {name}", k, tuple(mask & ~s.crossed for s in sheets)))
            demands.append(Demand(tuple(ids), more))
            continue
        per_sheet = []
        for p in range(n):
            more = need - sum(done[p])
            ids = []
            for i, (name, mask) in enumerate(items):
                if not done[p][i] and more > 0:
                    ids.append(len(units))
                    masks = tuple(mask & ~sheets[p].crossed if q == p else None for q in range(n))
                    units.append(Unit(f"{label} {name}", k, masks))
            per_sheet.append((tuple(ids), more))
        if obj.scope == "each":
            demands.extend(Demand(ids, more) for ids, more in per_sheet if more > 0)
        elif all(more > 0 for _, more in per_sheet):  # any: nobody has it yet
            demands.extend(Demand(ids, more, group) for ids, more in per_sheet)
            group += 1
    return SplitInstance(sheets, tuple(units), tuple(demands), has_cells=has_cell_objectives(mission))


def has_cell_objectives(mission: Mission) -> bool:
    """Whether the mission has anything to split (a score or jokers target has not)."""
    return any(obj.kind not in ("score", "jokers_left") for obj in mission.objectives)


def _item_label(kind: str) -> str:
    return {"columns": "column", "colours": "colour", "stars": "star", "cells": "cell"}[kind]


@dataclass(frozen=True)
class SheetPlan:
    """What one sheet should do: its units, the crosses (exact or an interval) and a path."""

    units: tuple[int, ...]
    crosses: CrossesEstimate
    rolls_lower: int = 0  # the fewest rolls for these units: at least this (sheet_figures) ...
    rolls_upper: int = 0  # ... and the crossing path takes this many (one block per roll)

    @property
    def rolls(self) -> int:
        return self.rolls_upper

    def rolls_text(self) -> str:
        return str(self.rolls_upper) if self.rolls_lower == self.rolls_upper else \
            f"{self.rolls_lower}..{self.rolls_upper}"


@dataclass(frozen=True)
class Split:
    """The fewest rolls that finish the set objectives: ``rolls_lower`` .. ``rolls_upper``
    (equal when proven), and the plan per sheet that achieves ``rolls_upper``."""

    instance: SplitInstance
    rolls_lower: int
    rolls_upper: int
    plans: tuple[SheetPlan, ...]
    method: str

    @property
    def exact(self) -> bool:
        return self.rolls_lower == self.rolls_upper

    def to_dict(self) -> dict:
        inst = self.instance
        return {
            "has_cells": inst.has_cells,
            "rolls": self.rolls_upper if self.exact else None, "exact": self.exact,
            "rolls_lower": self.rolls_lower, "rolls_upper": self.rolls_upper, "method": self.method,
            "sheets": [{"sheet": p + 1, "items": [inst.units[u].name for u in plan.units],
                        "crosses": plan.crosses.to_dict(), "rolls": plan.rolls,
                        "rolls_lower": plan.rolls_lower}
                       for p, plan in enumerate(self.plans)],
        }

    def lines(self) -> list[str]:
        """Human-readable lines: the total, then one line per sheet with work to do."""
        inst = self.instance
        if not inst.has_cells:
            return ["nothing to split: the mission has no cell objectives (columns, colours, stars, cells)"]
        if not inst.demands:
            return ["nothing left to split: every cell objective is met"]
        total = str(self.rolls_upper) if self.exact else f"{self.rolls_lower}..{self.rolls_upper} (bounds)"
        out = [f"fewest rolls for the cell objectives: {total} (slowest sheet; at most "
               f"{CROSSES_PER_ROLL} crosses a roll, all in one block; {self.method})"]
        for p, plan in enumerate(self.plans):
            if not plan.units:
                out.append(f"  sheet {p + 1}: nothing needed")
                continue
            longer = len(plan.crosses.cells) > plan.crosses.upper  # the path trades crosses for rolls
            out.append(f"  sheet {p + 1}: {', '.join(inst.units[u].name for u in plan.units)} — "
                       f"{plan.crosses.text()} crosses" + (f" (the path: {len(plan.crosses.cells)}, in fewer rolls)"
                                                           if longer else "") + f", {plan.rolls_text()} roll(s)")
        return out


def check_split(inst: SplitInstance, split: list[tuple[int, ...]]) -> list[str]:
    """Solver-free check that a split of units to sheets meets every demand (empty: ok)."""
    problems = []
    done = set()
    for p, units in enumerate(split):
        for u in units:
            if inst.units[u].masks[p] is None:
                problems.append(f"{inst.units[u].name} is not sheet {p + 1}'s to do")
            done.add(u)
    groups: dict[int, bool] = {}
    for d in inst.demands:
        ok = sum(1 for u in d.units if u in done) >= d.need
        if d.group is None:
            if not ok:
                problems.append(f"only {sum(1 for u in d.units if u in done)} of {d.need} needed units done")
        else:
            groups[d.group] = groups.get(d.group, False) or ok
    problems.extend(f"no sheet meets alternative group {g}" for g, ok in groups.items() if not ok)
    return problems


def units_target(inst: SplitInstance, p: int, units) -> int:
    """The open cells sheet p crosses to do ``units`` (their masks on that sheet, joined)."""
    mask = 0
    for u in units:
        mask |= inst.units[u].masks[p]
    return mask
