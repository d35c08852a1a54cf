"""The Clever 4ever sheet as SVG for the /clever page (docs/clever.md "The web page"): the five
areas in their colours as the pad has them, each field an element with an id the page outlines
and taps (``targets``: the fields an entering action would fill)."""

from __future__ import annotations

from html import escape

from nochmal.clever import Action, CleverGame
from nochmal.clever.sheet import Sheet
from nochmal.clever.sheetdata import SheetFacts

CELL = 34
FILL = {"yellow": "#f7d94c", "blue": "#6fa8dc", "grey": "#b7b7b7", "green": "#93c47d", "pink": "#e69ac6"}
SHADE = {"W": "#ffffff", "L": "#d9d9d9", "D": "#8c8c8c"}
# where each area's grid starts (x, y) in the drawing's units
ORIGIN = {"yellow": (10, 34), "blue": (236, 34), "grey": (10, 298), "green": (10, 480), "pink": (10, 590)}
WIDTH, HEIGHT = 574, 640


def targets(game: CleverGame, action: Action, seat: int = 0) -> list[str]:
    """The ids of the fields ``action`` would fill on the seat's sheet (none for a non-entry)."""
    place, sheet = action.place, game.sheets[seat]
    if place is None:
        return []
    if place.area == "yellow":
        return [f"y{place.spot}-{len(sheet.yellow[place.spot])}"]
    if place.area == "blue":
        return [f"b{action.number - 1}-{place.spot}"]
    if place.area == "grey":
        return [f"g{r}-{c}" for r, c in game.facts.segments[place.spot].cells]
    if place.area == "green":
        return [f"n{place.spot}-{len(sheet.green[place.spot])}"]
    return [f"p{len(sheet.pink)}"]


def _cell(cid: str, x: float, y: float, fill: str, text: str = "", crossed: bool = False) -> str:
    mark = (f'<text x="{x + CELL / 2}" y="{y + CELL / 2 + 6}" text-anchor="middle" font-size="18">{escape(text)}</text>'
            if text else "")
    if crossed:
        mark += (f'<path d="M{x + 6} {y + 6}L{x + CELL - 6} {y + CELL - 6}M{x + CELL - 6} {y + 6}L{x + 6} {y + CELL - 6}" '
                 'stroke="#222" stroke-width="3"/>')
    return (f'<g class="field" id="{cid}"><rect x="{x}" y="{y}" width="{CELL - 2}" height="{CELL - 2}" rx="4" '
            f'fill="{fill}" stroke="#555"/>{mark}</g>')


def _title(area: str, label: str, points: int) -> str:
    x, y = ORIGIN[area]
    return f'<text x="{x}" y="{y - 8}" font-size="15" font-weight="bold">{escape(label)}: {points}</text>'


def sheet_svg(facts: SheetFacts, sheet: Sheet, points: dict[str, int], labels: dict[str, str]) -> str:
    """The sheet; ``labels``: each area's name in the page's language."""
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" class="clever-sheet">']
    for area, fill in FILL.items():
        parts.append(_title(area, labels[area], points[area]))
    x0, y0 = ORIGIN["yellow"]
    for r, row in enumerate(sheet.yellow):
        for c in range(len(facts.yellow_points)):
            parts.append(_cell(f"y{r}-{c}", x0 + c * CELL, y0 + r * CELL, FILL["yellow"],
                               str(row[c]) if c < len(row) else ""))
    x0, y0 = ORIGIN["blue"]
    for r in range(6):
        for c in range(6):
            parts.append(_cell(f"b{r}-{c}", x0 + c * CELL, y0 + r * CELL, FILL["blue"],
                               crossed=bool(sheet.blue >> (r * 6 + c) & 1)))
    x0, y0 = ORIGIN["grey"]
    crossed = sheet.grey_cells(facts)
    for r, shades in enumerate(facts.grey_shades):
        for c, shade in enumerate(shades):
            parts.append(_cell(f"g{r}-{c}", x0 + c * CELL, y0 + r * CELL, SHADE[shade], crossed=(r, c) in crossed))
    x0, y0 = ORIGIN["green"]
    for half in (1, 0):  # the upper halves above the lower ones, as printed
        row = sheet.green[half]
        for i in range(len(facts.green_bonuses)):
            parts.append(_cell(f"n{half}-{i}", x0 + i * CELL, y0 + (1 - half) * CELL, FILL["green"],
                               str(row[i]) if i < len(row) else ""))
    x0, y0 = ORIGIN["pink"]
    for i in range(len(facts.pink_points)):
        parts.append(_cell(f"p{i}", x0 + i * CELL, y0, FILL["pink"], str(sheet.pink[i]) if i < len(sheet.pink) else ""))
    parts.append("</svg>")
    return "".join(parts)
