"""Who should do what, as a player says it (docs/rooms.md, *Who should do what*).

The figures are the missions' own (docs/missions.md §5-6): the split (missions/split/) says
which columns, colours, stars or cells each sheet takes and the rolls its path needs; this
module only words it ("Anna: columns H, I and J, about 9 rolls") and makes sure every
player has something to aim for:

- a player the split leaves idle takes over an item of a slowest share of two or more
  items when the team then needs no more rolls (the work shared out);
- where no share can give an item up, the idle player races for the item of a slowest share
  it finishes in the fewest rolls: whoever completes it first, it counts for the team;
- a score target (team target) has nothing to split: each player aims at the columns,
  colours and stars worth the most points per roll on their own sheet, the rolls from the
  same fewest-crosses figures (missions/split/figures.py) the split uses, the points from the
  board under the team rules (every column at its first value, every colour 5, every star
  crossed its penalty saved).

The technical words (the split's method, its bounds) stay in the status's ``team`` field.
"""

from __future__ import annotations

from dataclasses import dataclass

from nochmal.board import COLOUR_NAMES, COLOURS, COLUMN_LETTERS
from nochmal.missions.model import Mission
from nochmal.missions.split.figures import sheet_figures
from nochmal.missions.split.instance import Split, units_target
from nochmal.sheet import Sheet
from nochmal.i18n import Message, say, say_n
from nochmal.web.rooms.words import and_words, colour_word, wire

MOST_AIMS = 4  # items named per player for a score target: a short list a player can keep in mind
KINDS = ("column", "colour", "star", "cell")  # the split's item names start with one of these



@dataclass(frozen=True)
class Aim:
    """What one player should aim for: ``items`` as the split names them ("column H"),
    ``rolls`` about how many rolls it takes, ``helps`` the seat whose share it races for."""

    seat: int
    name: str
    items: tuple[str, ...]
    rolls: int
    helps: str | None = None
    points: int | None = None  # a score target: the points the items add

    def text(self) -> Message:
        """The aim in words, as data for every phone's language (words.py)."""
        if not self.items:
            if self.points is not None:
                return say("%(name)s: no column or colour fits in the rolls left", name=self.name)
            return say("%(name)s: your part is done", name=self.name)
        values = {"name": self.name, "what": items_text(self.items),
                  "rolls": say_n("%(n)s roll", "%(n)s rolls", self.rolls)}
        if self.helps is not None:
            return say("%(name)s: help %(helps)s with %(what)s, about %(rolls)s (the first to finish it counts)",
                       helps=self.helps, **values)
        if self.points is not None:
            return say("%(name)s: %(what)s, about %(points)s in %(rolls)s",
                       points=say_n("%(n)s point", "%(n)s points", self.points), **values)
        return say("%(name)s: %(what)s, about %(rolls)s", **values)

    def to_dict(self) -> dict:
        text = self.text()
        return {"seat": self.seat, "name": self.name, "items": list(self.items), "rolls": self.rolls,
                "helps": self.helps, "points": self.points, "text": str(text), "said": wire(text)}


def items_text(items) -> Message:
    """``("column H", "column I", "colour green")`` as "columns H and I, colour green"."""
    groups: dict[str, list[str]] = {}
    for item in items:
        kind, _, what = item.partition(" ")
        groups.setdefault(kind, []).append(what)
    parts = []
    for kind in sorted(groups, key=lambda k: KINDS.index(k) if k in KINDS else len(KINDS)):
        names = groups[kind]
        if kind == "colour":
            names = [colour_word(name) for name in names]
        parts.append(kind_words(kind, names))
    return Message("%(parts)s", {"parts": tuple(parts)})  # (no words of its own)


def kind_words(kind: str, names: list) -> Message | str:
    """"column H", "columns H and I" (a count's words in every language)."""
    n, listed = len(names), and_words(names)
    if kind == "column":
        return say_n("column %(names)s", "columns %(names)s", n, names=listed)
    if kind == "colour":
        return say_n("colour %(names)s", "colours %(names)s", n, names=listed)
    if kind == "star":
        return say_n("star %(names)s", "stars %(names)s", n, names=listed)
    if kind == "cell":
        return say_n("cell %(names)s", "cells %(names)s", n, names=listed)
    return " ".join([kind, *map(str, names)])  # (an item the split names otherwise: as it is)


def split_advice(split: Split, labels: list[str]) -> list[Aim]:
    """One aim per seat from the split. A seat the split leaves idle takes over an item of a
    slowest share of two or more items when the team then needs no more rolls (the work
    shared out); where no share can give one up, it races for the item of a slowest share
    it finishes soonest; with nothing it may take, its part is done."""
    inst = split.instance
    if not inst.demands:
        return []
    units = [list(plan.units) for plan in split.plans]
    rolls = [plan.rolls for plan in split.plans]
    helps: dict[int, int] = {}  # racing seat -> the seat whose item it races for
    for p in range(len(units)):
        if units[p] or _share(split, units, rolls, p):
            continue
        race = _race_for(split, units, rolls, p)
        if race is not None:
            helps[p], u, rolls[p] = race
            units[p] = [u]
    return [Aim(p, labels[p], tuple(inst.units[u].name for u in mine), rolls[p],
                helps=labels[helps[p]] if p in helps else None) for p, mine in enumerate(units)]


def _unit_rolls(split: Split, p: int, units) -> int:
    """The rolls sheet p's path for ``units`` takes (the split's own figures)."""
    inst = split.instance
    return sheet_figures(inst.sheets[p], units_target(inst, p, tuple(units)))[2] if units else 0


def _share(split: Split, units: list[list[int]], rolls: list[int], p: int) -> bool:
    """Move to idle seat p the unit of a slowest share (two or more units) that leaves the
    two sheets' slower one fastest, when the team's rolls do not grow; False if none."""
    inst = split.instance
    slowest = max(rolls)
    best = None
    for q in range(len(units)):
        if q == p or rolls[q] != slowest or len(units[q]) < 2:
            continue
        for u in units[q]:
            if inst.units[u].masks[p] is None:
                continue  # not p's to do
            rest = [x for x in units[q] if x != u]
            mine, theirs = _unit_rolls(split, p, [u]), _unit_rolls(split, q, rest)
            key = (max(mine, theirs), mine + theirs)
            if key[0] <= slowest and (best is None or key < best[0]):
                best = (key, q, u, rest, mine, theirs)
    if best is None:
        return False
    _, q, u, rest, rolls[p], rolls[q] = best
    units[p], units[q] = [u], rest
    return True


def _race_for(split: Split, units: list[list[int]], rolls: list[int], p: int) -> tuple[int, int, int] | None:
    """(seat, unit, rolls): the unit of a slowest share that p may take and finishes in the
    fewest rolls, to race for it; None if p may take none."""
    inst = split.instance
    slowest = max(rolls)
    best = None
    for q in range(len(units)):
        if q == p or rolls[q] != slowest:
            continue
        for u in units[q]:
            if inst.units[u].masks[p] is not None:
                mine = _unit_rolls(split, p, [u])
                if best is None or mine < best[2]:
                    best = (q, u, mine)
    return best


def score_advice(mission: Mission, sheets: list[Sheet], labels: list[str], rolls_left: int) -> list[Aim]:
    """A score target: per seat, up to MOST_AIMS items worth the most points per roll that
    fit in the rolls left on that sheet (every sheet's score adds to the team's)."""
    if not any(obj.kind == "score" for obj in mission.objectives) or rolls_left <= 0:
        return []
    return [_best_points(sheet, p, labels[p], rolls_left) for p, sheet in enumerate(sheets)]


def _best_points(sheet: Sheet, p: int, name: str, rolls_left: int) -> Aim:
    """The columns, colours and stars (each star crossed saves its penalty) worth the most
    points per roll on this sheet, taken in that order while all of them together still fit
    in the rolls left (their rolls worked out together: they share cells)."""
    board = sheet.board
    options = [(f"column {COLUMN_LETTERS[c]}", board.column_mask[c], board.column_points_first[c])
               for c in range(board.cols)]
    options += [(f"colour {COLOUR_NAMES[colour]}", board.colour_mask[colour], board.colour_bonus_first)
                for colour in COLOURS]
    options += [(f"star {cell}", board.mask_of([cell]), board.star_penalty)
                for cell in board.cells_of(board.star_mask & ~sheet.crossed)]
    ranked = []
    for item, mask, points in options:
        if mask & ~sheet.crossed:  # (a done one's points are counted already)
            rolls = sheet_figures(sheet, mask)[2]
            if rolls <= rolls_left:
                ranked.append((-points / max(rolls, 1), rolls, item, mask, points))
    ranked.sort()
    chosen, target, rolls, points = [], 0, 0, 0
    for _, _, item, mask, value in ranked:
        if len(chosen) == MOST_AIMS:
            break
        together = sheet_figures(sheet, target | mask)[2]
        if together <= rolls_left:
            chosen.append(item)
            target, rolls, points = target | mask, together, points + value
    return Aim(p, name, tuple(chosen), rolls, points=points) if chosen else Aim(p, name, (), 0, points=0)
