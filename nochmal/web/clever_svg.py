"""The Clever 4ever sheet drawn as the pad is, for the /clever page (docs/clever.md "The web
page"): each area with its printed bonus symbols, points rows and running score, the round
track and the action tracks, all read off the sheet's data (``SheetFacts``), never retyped.

Each area is one or more SVG *pieces* drawn at one unit per CSS pixel; the page lays them out
with flex-wrap, so a phone stacks them (a grey cell stays 33 px wide at 360 px) and a wide
screen puts them side by side as the pad has them. Every field is a ``<g class="field">`` with
the id ``targets`` names (the fields an entering action would fill)."""

from __future__ import annotations

from html import escape

from nochmal.clever import Action, CleverGame
from nochmal.clever.sheet import Sheet
from nochmal.clever.sheetdata import ACTIONS, AREAS, SHADES, SheetFacts

C = 36  # a field's pitch; the rect is C - 3 wide (33 px on every screen: docs/web.md "Clever 4ever")
BOX = C - 3
FILL = {"yellow": "#f7d94c", "blue": "#6fa8dc", "grey": "#b7b7b7", "green": "#93c47d", "pink": "#e69ac6"}
SHADE = {"W": "#ffffff", "L": "#d9d9d9", "D": "#8c8c8c"}
# the "?" symbols' colours as printed: grey's are orange and pink's purple (the data file's header)
QUESTION = {"yellow": "#c9a100", "blue": "#2f6db5", "grey": "#ef7d17", "green": "#3d8b37", "pink": "#8e44ad",
            "any": "#111111"}
INK = "#222"
GREY_LEFT = 3  # room for the start segments' red frame
PIECE = 8  # at most this many grey columns, green or pink fields per piece (a phone is 340 px wide)


def _split(n: int) -> list[range]:
    """0..n in pieces of at most PIECE, as even as can be (pink 6 + 6, green 6 + 5)."""
    count = -(-n // PIECE)
    size = -(-n // count)
    return [range(i, min(i + size, n)) for i in range(0, n, size)]


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


def _text(x: float, y: float, text: str, size: int = 13, weight: str = "normal", fill: str = INK) -> str:
    return (f'<text x="{x:g}" y="{y:g}" text-anchor="middle" font-size="{size}" font-weight="{weight}" '
            f'fill="{fill}">{escape(text)}</text>')


def symbol(bonus: str, cx: float, cy: float, r: float, names: dict[str, str]) -> str:
    """A bonus as the pad prints it (a coloured "?", the re-roll arrow, +1, a silver circle, a
    fox), with its name in the page's language as the tooltip."""
    title = f'<title>{escape(names.get(bonus, bonus))}</title>'
    if bonus.startswith("?"):
        body = (f'<circle cx="{cx:g}" cy="{cy:g}" r="{r:g}" fill="{QUESTION[bonus[1:]]}" stroke="{INK}"/>'
                + _text(cx, cy + r * 0.42, "?", round(r * 1.25), "bold", "#fff"))
    elif bonus == "reroll":
        body = (f'<circle cx="{cx:g}" cy="{cy:g}" r="{r:g}" fill="#fff" stroke="{INK}"/>'
                f'<path d="M{cx + r * .5:g} {cy - r * .35:g}A{r * .55:g} {r * .55:g} 0 1 0 {cx + r * .55:g} {cy + r * .2:g}" '
                f'fill="none" stroke="{INK}" stroke-width="{max(1.5, r / 5):g}"/>'
                f'<path d="M{cx + r * .15:g} {cy - r * .55:g}L{cx + r * .62:g} {cy - r * .45:g}L{cx + r * .55:g} {cy + r * .02:g}Z" fill="{INK}"/>')
    elif bonus == "plus-one":
        body = (f'<rect x="{cx - r:g}" y="{cy - r:g}" width="{2 * r:g}" height="{2 * r:g}" rx="{r / 3:g}" fill="{INK}"/>'
                + _text(cx, cy + r * 0.38, "+1", round(r * 1.05), "bold", "#fff"))
    elif bonus == "polish":
        body = (f'<circle cx="{cx:g}" cy="{cy:g}" r="{r:g}" fill="#c3c7cd" stroke="#555"/>'
                f'<ellipse cx="{cx - r * .3:g}" cy="{cy - r * .35:g}" rx="{r * .35:g}" ry="{r * .2:g}" fill="#fff"/>')
    else:  # fox: a head with two ears
        pts = [(-1, -.9), (-.45, -.35), (.45, -.35), (1, -.9), (.8, .1), (0, 1), (-.8, .1)]
        body = (f'<polygon points="{" ".join(f"{cx + r * a:g},{cy + r * b:g}" for a, b in pts)}" fill="#e8731a" stroke="{INK}"/>'
                f'<circle cx="{cx - r * .3:g}" cy="{cy - r * .05:g}" r="{r * .1:g}" fill="{INK}"/>'
                f'<circle cx="{cx + r * .3:g}" cy="{cy - r * .05:g}" r="{r * .1:g}" fill="{INK}"/>')
    return f'<g class="bonus" data-bonus="{escape(bonus)}">{title}{body}</g>'


def _cross(x: float, y: float) -> str:
    return (f'<path d="M{x + 6} {y + 6}L{x + BOX - 6} {y + BOX - 6}M{x + BOX - 6} {y + 6}L{x + 6} {y + BOX - 6}" '
            f'stroke="{INK}" stroke-width="3"/>')


def _field(cid: str, x: float, y: float, fill: str, text: str = "", crossed: bool = False, inner: str = "") -> str:
    """A tappable field: its rect, the printed symbol (``inner``), the number or cross entered."""
    shift = 3 if inner else 0  # beside a printed corner symbol: a little left and down
    mark = _text(x + BOX / 2 - shift, y + BOX / 2 + 6 + shift, text, 18, "bold") if text else ""
    return (f'<g class="field" id="{cid}"><rect x="{x:g}" y="{y:g}" width="{BOX}" height="{BOX}" rx="4" '
            f'fill="{fill}" stroke="#555"/>{inner}{mark}{_cross(x, y) if crossed else ""}</g>')


def _svg(width: float, height: float, label: str, body: list[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="cl-piece" width="{width:g}" height="{height:g}" '
            f'viewBox="0 0 {width:g} {height:g}" role="img" aria-label="{escape(label)}">{"".join(body)}</svg>')


def _corner(bonus: str | None, x: float, y: float, names: dict[str, str]) -> str:
    """A field's printed bonus, small in its top right corner (the number goes in the middle)."""
    return symbol(bonus, x + BOX - 8, y + 8, 6.5, names) if bonus else ""


def _yellow(facts: SheetFacts, sheet: Sheet, label: str, names: dict[str, str]) -> list[str]:
    left, top = 20, 4
    body = []
    for r, row in enumerate(sheet.yellow):
        y = top + r * C
        body.append(_text(left / 2, y + BOX / 2 + 5, ("<", "−", "+")[r], 16, "bold"))  # ascending, minus, plus
        for c in range(facts.yellow_columns):
            x = left + c * C
            body.append(_field(f"y{r}-{c}", x, y, FILL["yellow"], str(row[c]) if c < len(row) else "",
                               inner=_corner(facts.yellow_bonuses[r][c], x, y, names)))
    y = top + facts.yellow_rows * C + 14
    body += [_text(left + c * C + BOX / 2, y, str(p), 13, "bold") for c, p in enumerate(facts.yellow_points)]
    return [_svg(left + facts.yellow_columns * C, y + 6, label, body)]


def _blue(facts: SheetFacts, sheet: Sheet, label: str, names: dict[str, str]) -> list[str]:
    n, left, top = facts.blue_size, 20, 20
    end = left + n * C
    body = [_text(left + c * C + BOX / 2, 14, str(c + 1), 12) for c in range(n)]  # the white die picks the column
    for r in range(n):
        y = top + r * C
        body.append(_text(left / 2, y + BOX / 2 + 5, str(r + 1), 12))  # the blue die picks the row
        for c in range(n):
            body.append(_field(f"b{r}-{c}", left + c * C, y, FILL["blue"], crossed=bool(sheet.blue >> (r * n + c) & 1)))
        if facts.blue_row_bonuses[r]:
            body.append(symbol(facts.blue_row_bonuses[r], end + 13, y + BOX / 2, 10, names))
    body.append(f'<path d="M{left + 3} {top + 3}L{end - 6} {top + n * C - 6}" stroke="#fff" stroke-dasharray="4 4" '
                'stroke-width="2" pointer-events="none"/>')
    body.append(f'<path d="M{end - 6} {top + 3}L{left + 3} {top + n * C - 6}" stroke="#1c4f86" stroke-dasharray="2 5" '
                'stroke-width="2" pointer-events="none"/>')
    body.append(_text(end + 13, 14, str(facts.blue_anti_diagonal_points), 13, "bold", "#1c4f86"))
    y = top + n * C + 14
    body += [_text(left + c * C + BOX / 2, y, str(p), 13, "bold") for c, p in enumerate(facts.blue_points)]
    if facts.blue_diagonal_bonus:
        body.append(symbol(facts.blue_diagonal_bonus, end + 13, y - 4, 10, names))
    return [_svg(end + 26, y + 6, label, body)]


def _frame(cells: set[tuple[int, int]], cols: range, top: float) -> str:
    """The red frame around a start segment: the edges its cells share with no other of its cells."""
    d = []
    for r, c in cells:
        if c not in cols:
            continue
        x, y = GREY_LEFT + (c - cols.start) * C - 1.5, top + r * C - 1.5
        for (dr, dc), seg in (((-1, 0), f"M{x} {y}h{C}"), ((1, 0), f"M{x} {y + C}h{C}"),
                              ((0, -1), f"M{x} {y}v{C}"), ((0, 1), f"M{x + C} {y}v{C}")):
            if (r + dr, c + dc) not in cells:
                d.append(seg)
    return f'<path d="{"".join(d)}" stroke="#d0021b" stroke-width="3" fill="none" pointer-events="none"/>' if d else ""


def _grey(facts: SheetFacts, sheet: Sheet, label: str, names: dict[str, str]) -> list[str]:
    crossed = sheet.grey_cells(facts)
    bonus_at = dict(facts.grey_bonus_cells)
    width = len(facts.grey_points)
    pieces = []
    for cols in _split(width):
        start, body, top = cols.start, [], 3
        for r, shades in enumerate(facts.grey_shades):
            for c in cols:
                x, y = GREY_LEFT + (c - start) * C, top + r * C
                inner = symbol(bonus_at[(r, c)], x + BOX / 2, y + BOX / 2, 10, names) if (r, c) in bonus_at else ""
                body.append(_field(f"g{r}-{c}", x, y, SHADE[shades[c]], crossed=(r, c) in crossed, inner=inner))
        for s in sorted(facts.start_segments):
            body.append(_frame(set(facts.segments[s].cells), cols, top))
        y = top + facts.grey_rows * C + 14
        body += [_text(GREY_LEFT + (c - start) * C + BOX / 2, y, str(facts.grey_points[c]), 13, "bold") for c in cols]
        if start == 0:  # a fox for each shade whose segments are all crossed
            y += 22
            for i, shade in enumerate(SHADES):
                x = 4 + i * 64
                body.append(f'<rect x="{x}" y="{y - 12}" width="18" height="18" fill="{SHADE[shade]}" stroke="#555"/>')
                body.append(_text(x + 28, y + 2, "→", 14) + symbol("fox", x + 46, y - 3, 9, names))
        pieces.append(_svg(GREY_LEFT + len(cols) * C, y + 10, label, body))
    return pieces


def _columns(count: int, header, cells, bonuses, fill: str, label: str, names: dict[str, str]) -> list[str]:
    """Green's and pink's fields, left to right in pieces: ``header(i)`` printed above field i,
    ``cells(i)`` its fields top down as (id, number), ``bonuses[i]`` printed below it."""
    pieces, top = [], 16
    for fields in _split(count):
        body = []
        for i in fields:
            x = (i - fields.start) * C
            body.append(_text(x + BOX / 2, 12, *header(i)))
            stack = cells(i)
            body += [_field(cid, x, top + k * C, fill, text) for k, (cid, text) in enumerate(stack)]
            if bonuses[i]:
                body.append(symbol(bonuses[i], x + BOX / 2, top + len(stack) * C + 10, 10, names))
        pieces.append(_svg(len(fields) * C, top + len(cells(0)) * C + 24, label, body))
    return pieces


def _green(facts: SheetFacts, sheet: Sheet, label: str, names: dict[str, str]) -> list[str]:
    def cells(i: int) -> list[tuple[str, str]]:  # the upper half above the lower one, as printed
        return [(f"n{half}-{i}", str(sheet.green[half][i]) if i < len(sheet.green[half]) else "") for half in (1, 0)]

    return _columns(facts.green_fields, lambda i: ("×2" if i >= facts.green_double_from else "×1", 11), cells,
                    facts.green_bonuses, FILL["green"], label, names)


def _pink(facts: SheetFacts, sheet: Sheet, label: str, names: dict[str, str]) -> list[str]:
    def cells(i: int) -> list[tuple[str, str]]:
        return [(f"p{i}", str(sheet.pink[i]) if i < len(sheet.pink) else "")]

    return _columns(facts.pink_fields, lambda i: (str(facts.pink_points[i]), 12, "bold"), cells,
                    facts.pink_bonuses, FILL["pink"], label, names)


def _pink_notes(facts: SheetFacts, labels: dict[str, str]) -> str:
    numbers = ", ".join(str(n) for n in sorted(facts.pink_bonus_numbers))
    circles = " · ".join(f"{n} → +{p}" for n, p in sorted(facts.pink_circle_points.items()))
    return f'<p class="cl-note">{escape(labels["bonus_with"].replace("%(numbers)s", numbers))} · {escape(circles)}</p>'


def _tracks(facts: SheetFacts, sheet: Sheet, game_round: int, rounds: int, labels: dict[str, str],
            names: dict[str, str]) -> list[str]:
    """The action tracks (a slot: locked faint, unlocked full, used crossed), the foxes and the
    round track with the bonus each round starts with."""
    body, pitch = [], 28
    for k, action in enumerate(ACTIONS):
        y = 16 + k * 32
        body.append(symbol(action, 12, y, 10, names))
        for i in range(facts.track_slots[action]):
            x = 40 + i * pitch
            state = "used" if i < sheet.used[k] else "open" if i < sheet.unlocked[k] else "locked"
            body.append(f'<g class="slot slot-{state}" opacity="{0.3 if state == "locked" else 1}">'
                        f'<circle cx="{x}" cy="{y}" r="11" fill="{"#fff" if state == "locked" else "#ffe9a8"}" stroke="#555"/>'
                        + (f'<path d="M{x - 6} {y - 6}L{x + 6} {y + 6}M{x + 6} {y - 6}L{x - 6} {y + 6}" stroke="{INK}" stroke-width="2.5"/>'
                           if state == "used" else "") + "</g>")
        if facts.track_end_bonus[action]:
            x = 40 + facts.track_slots[action] * pitch
            body.append(_text(x - 4, y + 5, "→", 14) + symbol(facts.track_end_bonus[action], x + 14, y, 10, names))
    y = 16 + len(ACTIONS) * 32
    body.append(symbol("fox", 12, y, 10, names) + _text(40, y + 5, f"× {sheet.foxes}", 15, "bold"))
    tracks = _svg(40 + max(facts.track_slots.values()) * pitch + 16, y + 16, labels["tracks"], body)
    body = []
    for i in range(rounds):
        x = 2 + i * C
        now = i + 1 == game_round
        body.append(f'<rect x="{x}" y="2" width="{BOX}" height="{BOX}" rx="6" fill="{"#ffe9a8" if now else "#fff"}" '
                    f'stroke="{"#d0021b" if now else "#555"}" stroke-width="{3 if now else 1}"/>'
                    + _text(x + BOX / 2, 24, str(i + 1), 16, "bold"))
        bonus = facts.round_bonuses[i] if i < len(facts.round_bonuses) else None
        if bonus:
            body.append(symbol(bonus, x + BOX / 2, C + 12, 10, names))
    return [tracks, _svg(rounds * C + 2, C + 26, labels["rounds"], body)]


DRAW = {"yellow": _yellow, "blue": _blue, "grey": _grey, "green": _green, "pink": _pink}


def sheet_svg(facts: SheetFacts, sheet: Sheet, points: dict[str, int], labels: dict[str, str],
              game_round: int = 1, rounds: int = 6) -> str:
    """The sheet as HTML: one box per area (its name in the page's language and its running
    points, then its SVG pieces), then the tracks. ``labels``: the areas' names and the words
    ``tracks``, ``rounds``, ``bonus_with`` and the bonuses' names (``names``) in the page's language."""
    names = labels.get("names", {})
    out = []
    for area in AREAS:
        pieces = "".join(DRAW[area](facts, sheet, labels[area], names))
        note = _pink_notes(facts, labels) if area == "pink" else ""
        out.append(f'<section class="cl-area cl-{area}" data-area="{area}"><h2 class="cl-title">'
                   f'{escape(labels[area])} <b class="cl-points">{points[area]}</b></h2>'
                   f'<div class="cl-pieces">{pieces}</div>{note}</section>')
    out.append(f'<section class="cl-area cl-tracks" data-area="tracks"><h2 class="cl-title">{escape(labels["tracks"])}'
               f'</h2><div class="cl-pieces">{"".join(_tracks(facts, sheet, game_round, rounds, labels, names))}</div></section>')
    return "".join(out)
