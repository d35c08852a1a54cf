"""One player's Clever 4ever sheet and the five areas' rules: where a number may be entered
and what entering it does (docs/clever.md "The areas"). Immutable: entering returns a new
sheet and the bonuses the entry triggered, in the order printed."""

from __future__ import annotations

from dataclasses import dataclass, replace

from nochmal.clever.errors import IllegalActionError, InvalidActionError
from nochmal.clever.options import CleverRules
from nochmal.clever.sheetdata import ACTIONS, AREAS, MAX_DIE, SheetFacts, clever4ever
from nochmal.errors import quoted
from nochmal.fileio import is_decimal
from nochmal.i18n import say

YELLOW_ROWS = ("top", "mid", "bottom")  # ascending, minus, plus
GREEN_HALVES = ("low", "up")


@dataclass(frozen=True, order=True)
class Place:
    """Where a number goes: an area and a spot in it. The spot is the yellow row, the blue
    column (the number is the row), the grey segment, the green half; pink has one spot."""

    area: str
    spot: int = 0

    def text(self, facts: SheetFacts | None = None) -> str:
        if self.area == "yellow":
            return f"yellow:{YELLOW_ROWS[self.spot]}"
        if self.area == "blue":
            return f"blue:{self.spot + 1}"
        if self.area == "grey":
            r, c = (facts or clever4ever()).segments[self.spot].cells[0]
            return f"grey:{r + 1},{c + 1}"
        if self.area == "green":
            return f"green:{GREEN_HALVES[self.spot]}"
        return "pink"

    __str__ = text

    @classmethod
    def parse(cls, text: str, facts: SheetFacts | None = None) -> "Place":
        """``yellow:top|mid|bottom``, ``blue:COLUMN``, ``grey:ROW,COLUMN`` (any cell of the
        segment), ``green:low|up``, ``pink``."""
        area, _, spot = text.partition(":")
        bad = InvalidActionError(say("bad place %(text)s: expected %(places)s", text=quoted(text),
                                     places="yellow:top|mid|bottom, blue:COLUMN, grey:ROW,COLUMN, green:low|up, pink"))
        if area == "yellow" and spot in YELLOW_ROWS:
            return cls("yellow", YELLOW_ROWS.index(spot))
        if area == "green" and spot in GREEN_HALVES:
            return cls("green", GREEN_HALVES.index(spot))
        if area == "pink" and not spot:
            return cls("pink", 0)
        if area == "blue" and is_decimal(spot) and 1 <= int(spot) <= MAX_DIE:
            return cls("blue", int(spot) - 1)
        if area == "grey":
            r, _, c = spot.partition(",")
            if is_decimal(r) and is_decimal(c):
                cell = (int(r) - 1, int(c) - 1)
                for seg in (facts or clever4ever()).segments:
                    if cell in seg.cells:
                        return cls("grey", seg.index)
        raise bad


@dataclass(frozen=True)
class Sheet:
    """The numbers and crosses on one sheet, the foxes, and the action tracks (unlocked and
    used slots per action, in ACTIONS order)."""

    yellow: tuple[tuple[int, ...], ...] = ((), (), ())
    blue: int = 0  # bit row * 6 + column
    grey: int = 0  # bit per crossed segment
    green: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())  # lower halves, upper halves
    pink: tuple[int, ...] = ()
    foxes: int = 0
    unlocked: tuple[int, int, int] = (0, 0, 0)
    used: tuple[int, int, int] = (0, 0, 0)

    def left(self, action: str) -> int:
        """Unlocked, unused slots of an action track."""
        i = ACTIONS.index(action)
        return self.unlocked[i] - self.used[i]

    def use(self, action: str, count: int = 1) -> "Sheet":
        i = ACTIONS.index(action)
        used = list(self.used)
        used[i] += count
        return replace(self, used=tuple(used))

    def grey_cells(self, facts: SheetFacts) -> set[tuple[int, int]]:
        return {cell for seg in facts.segments if self.grey >> seg.index & 1 for cell in seg.cells}


def blue_bit(row: int, col: int) -> int:
    return 1 << (row * MAX_DIE + col)


def places(facts: SheetFacts, rules: CleverRules, sheet: Sheet, area: str, value: int) -> list[Place]:
    """Every spot of ``area`` (not blue: there the column comes from the white die) where
    ``value`` may be entered now."""
    if area == "yellow":
        out = []
        for r, row in enumerate(sheet.yellow):
            if len(row) < facts.yellow_columns and (r != 0 or not row or value > row[-1]):
                out.append(Place("yellow", r))
        return out
    if area == "grey":
        if sheet.grey == 0:
            near = facts.start_segments
        else:
            near = {n for seg in facts.segments if sheet.grey >> seg.index & 1 for n in facts.neighbours[seg.index]}
        return [Place("grey", s) for s in sorted(near)
                if not sheet.grey >> s & 1 and len(facts.segments[s].cells) <= value]
    if area == "green":
        low, up = sheet.green
        out = []
        if len(low) < facts.green_fields:
            out.append(Place("green", 0))
        if len(up) < facts.green_fields and (not rules.green_upper_needs_lower or len(up) < len(low)):
            out.append(Place("green", 1))
        return out
    if area == "pink":
        return [Place("pink")] if len(sheet.pink) < facts.pink_fields else []
    if area == "blue":
        raise IllegalActionError("a blue entry takes a row and a column (blue_free), not one number")
    raise InvalidActionError(f"no area {area!r}")


def blue_free(sheet: Sheet, row: int, col: int) -> bool:
    """Whether the blue cell (row, column), 0-based, is free."""
    return 0 <= row < MAX_DIE and 0 <= col < MAX_DIE and not sheet.blue & blue_bit(row, col)


def enter(facts: SheetFacts, rules: CleverRules, sheet: Sheet, place: Place, value: int) -> tuple[Sheet, list[str]]:
    """Enter ``value`` at ``place`` (already checked legal); return the new sheet and the
    bonuses triggered, in printed order. For blue, ``value`` is the row (1-6)."""
    area = place.area
    if area == "yellow":
        row = sheet.yellow[place.spot]
        bonus = facts.yellow_bonuses[place.spot][len(row)]
        rows = list(sheet.yellow)
        rows[place.spot] = row + (value,)
        return replace(sheet, yellow=tuple(rows)), [bonus] if bonus else []
    if area == "blue":
        row, col = value - 1, place.spot
        blue = sheet.blue | blue_bit(row, col)
        got = []
        in_row = sum(1 for c in range(MAX_DIE) if blue & blue_bit(row, c))
        if in_row == 2 and facts.blue_row_bonuses[row]:
            got.append(facts.blue_row_bonuses[row])
        if row == col and facts.blue_diagonal_bonus:
            if sum(1 for i in range(MAX_DIE) if blue & blue_bit(i, i)) == 2:
                got.append(facts.blue_diagonal_bonus)
        return replace(sheet, blue=blue), got
    if area == "grey":
        seg = facts.segments[place.spot]
        grey = sheet.grey | 1 << seg.index
        got = list(seg.bonuses)
        shade_done = all(grey >> s.index & 1 for s in facts.segments if s.shade == seg.shade)
        if shade_done:
            got.append("fox")
        return replace(sheet, grey=grey), got
    if area == "green":
        halves = list(sheet.green)
        i = len(halves[place.spot])
        halves[place.spot] = halves[place.spot] + (value,)
        bonus = facts.green_bonuses[i] if place.spot == 0 else None
        return replace(sheet, green=tuple(halves)), [bonus] if bonus else []
    if area == "pink":
        pink = sheet.pink + (value,)
        got = []
        bonus = facts.pink_bonuses[len(sheet.pink)]
        if bonus and value in facts.pink_bonus_numbers:
            got.append(bonus)
        if value == 3:  # a 3 writes a 3 into the next field too (docs/clever.md "Pink")
            while len(pink) < facts.pink_fields:
                pink += (3,)
                if not rules.pink_three_chains:
                    break
        return replace(sheet, pink=pink), got
    raise InvalidActionError(f"no area {area!r}")


def is_area(name: str) -> bool:
    return name in AREAS
