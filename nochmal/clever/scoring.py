"""Final scoring (docs/clever.md "Scoring"): each area's points, then the foxes times the
lowest area's points."""

from __future__ import annotations

from nochmal.clever.sheet import Sheet, blue_bit
from nochmal.clever.sheetdata import AREAS, MAX_DIE, SheetFacts


def yellow_points(facts: SheetFacts, sheet: Sheet) -> int:
    _, minus, plus = sheet.yellow
    full = min(len(row) for row in sheet.yellow)
    return sum(plus) - sum(minus) + sum(facts.yellow_points[:full])


def blue_points(facts: SheetFacts, sheet: Sheet) -> int:
    points = sum(facts.blue_points[c] for c in range(MAX_DIE)
                 if sum(1 for r in range(MAX_DIE) if sheet.blue & blue_bit(r, c)) >= 2)
    anti = sum(1 for r in range(MAX_DIE) if sheet.blue & blue_bit(r, MAX_DIE - 1 - r))
    return points + (facts.blue_anti_diagonal_points if anti >= 2 else 0)


def grey_column_points(facts: SheetFacts, cells: set[tuple[int, int]]) -> int:
    """The points of the grey columns whose every cell is among ``cells`` (0-based)."""
    return sum(points for c, points in enumerate(facts.grey_points)
               if all((r, c) in cells for r in range(facts.grey_rows)))


def grey_points(facts: SheetFacts, sheet: Sheet) -> int:
    return grey_column_points(facts, sheet.grey_cells(facts))


def green_points(facts: SheetFacts, sheet: Sheet) -> int:
    low, up = sheet.green
    return sum((a + b) * (2 if i >= facts.green_double_from else 1) for i, (a, b) in enumerate(zip(low, up)))


def pink_points(facts: SheetFacts, sheet: Sheet) -> int:
    if not sheet.pink:
        return 0
    return facts.pink_points[len(sheet.pink) - 1] + sum(facts.pink_circle_points.get(v, 0) for v in sheet.pink)


AREA_SCORERS = {"yellow": yellow_points, "blue": blue_points, "grey": grey_points, "green": green_points,
                "pink": pink_points}


def area_points(facts: SheetFacts, sheet: Sheet) -> dict[str, int]:
    return {area: AREA_SCORERS[area](facts, sheet) for area in AREAS}


def score(facts: SheetFacts, sheet: Sheet) -> int:
    """Areas plus foxes x the lowest area (a negative lowest area costs points: the rule
    as written; docs/clever.md)."""
    points = area_points(facts, sheet)
    return sum(points.values()) + sheet.foxes * min(points.values())
