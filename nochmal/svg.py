"""Sheets as SVG pictures, for sharing a result: written as plain text, no library.

Each crossed cell is one ``<g class="cross">`` (two strokes), each star one
``<polygon class="star">``; column points the sheet scored are circled
(``<circle class="scored">``), first values somebody else took first are struck
(``<line class="struck">``). Several sheets (the players of a record) stack vertically.
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape

from nochmal.board import COLOURS, COLUMN_LETTERS
from nochmal.sheet import Sheet
from nochmal.sheetview import colour_states, column_states

FILL = {"y": "#f4cf1d", "g": "#5aae4a", "b": "#3d7bd6", "r": "#e2467c", "o": "#f08a24"}
CELL = 28
MARGIN = 16
LABEL = 22  # width of the row labels


def _star(cx: float, cy: float, r: float) -> str:
    pts = []
    for k in range(10):
        rad = r if k % 2 == 0 else r * 0.45
        a = -math.pi / 2 + k * math.pi / 5
        pts.append(f"{cx + rad * math.cos(a):.1f},{cy + rad * math.sin(a):.1f}")
    return f'<polygon class="star" points="{" ".join(pts)}" fill="#ffffff" fill-opacity="0.85" stroke="#333" stroke-width="0.6"/>'


def _cross(x: float, y: float, size: float) -> str:
    p = size * 0.2
    return (f'<g class="cross" stroke="#111" stroke-width="3" stroke-linecap="round">'
            f'<line x1="{x + p:.1f}" y1="{y + p:.1f}" x2="{x + size - p:.1f}" y2="{y + size - p:.1f}"/>'
            f'<line x1="{x + size - p:.1f}" y1="{y + p:.1f}" x2="{x + p:.1f}" y2="{y + size - p:.1f}"/></g>')


def _value(x: float, y: float, value: int, state: str) -> list[str]:
    """A points value centred at (x, y): circled when scored, struck when lost."""
    colour = "#999" if state in ("later", "struck") else "#111"
    out = [f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" font-size="12" fill="{colour}">{value}</text>']
    if state == "scored":
        out.append(f'<circle class="scored" cx="{x:.1f}" cy="{y:.1f}" r="9" fill="none" stroke="#111" stroke-width="1.5"/>')
    elif state == "struck":
        out.append(f'<line class="struck" x1="{x - 8:.1f}" y1="{y + 8:.1f}" x2="{x + 8:.1f}" y2="{y - 8:.1f}" '
                   f'stroke="#c00" stroke-width="1.5"/>')
    return out


def sheet_height(sheet: Sheet) -> int:
    return CELL * (sheet.board.rows + 1) + 4 * 22 + 30


def _sheet_svg(sheet: Sheet, title: str, top: float, claimed_columns: int, claimed_colours: int) -> list[str]:
    b = sheet.board
    left = MARGIN + LABEL
    out = [f'<g class="sheet" data-score="{sheet.score()}">',
           f'<text x="{MARGIN}" y="{top + 16}" font-size="15" font-weight="bold">{escape(title)}</text>']
    y0 = top + 26
    for c in range(b.cols):
        weight = ' font-weight="bold" text-decoration="underline"' if c == b.start_column else ""
        out.append(f'<text x="{left + c * CELL + CELL / 2}" y="{y0 + 16}" text-anchor="middle" font-size="13"{weight}>'
                   f'{COLUMN_LETTERS[c]}</text>')
    gy = y0 + CELL
    for r in range(b.rows):
        out.append(f'<text x="{MARGIN + LABEL / 2}" y="{gy + r * CELL + 18}" text-anchor="middle" font-size="13">{r + 1}</text>')
        for c in range(b.cols):
            i = r * b.cols + c
            bit = b.bit_of[i]
            x, y = left + c * CELL, gy + r * CELL
            out.append(f'<rect class="cell" data-cell="{COLUMN_LETTERS[c]}{r + 1}" x="{x}" y="{y}" width="{CELL}" '
                       f'height="{CELL}" fill="{FILL[b.grid[r][c]]}" stroke="#222" stroke-width="0.8"/>')
            if b.is_star(bit):
                out.append(_star(x + CELL / 2, y + CELL / 2, CELL * 0.36))
            if sheet.crossed >> bit & 1:
                out.append(_cross(x, y, CELL))
    py = gy + b.rows * CELL + 14
    states = column_states(sheet, claimed_columns)
    for k, (label, pts) in enumerate((("1st", b.column_points_first), ("2nd", b.column_points_later))):
        yy = py + k * 22
        out.append(f'<text x="{MARGIN}" y="{yy + 4}" font-size="11">{label}</text>')
        for c in range(b.cols):
            state = states[c][k]
            if k == 1 and state == "plain":
                state = "later"
            out.extend(_value(left + c * CELL + CELL / 2, yy, pts[c], state))
    yy = py + 2 * 22 + 4
    out.append(f'<text x="{MARGIN}" y="{yy + 4}" font-size="11">colours</text>')
    for i, (colour, (first, later)) in enumerate(zip(COLOURS, colour_states(sheet, claimed_colours))):
        x = left + 40 + i * 72
        out.append(f'<rect x="{x - 10}" y="{yy - 9}" width="18" height="18" fill="{FILL[colour]}" stroke="#222" stroke-width="0.8"/>')
        out.extend(_value(x + 22, yy, b.colour_bonus_first, first))
        out.extend(_value(x + 44, yy, b.colour_bonus_later, "later" if later == "plain" else later))
    yy += 24
    out.append(f'<text x="{MARGIN}" y="{yy + 4}" font-size="11">jokers</text>')
    for k in range(b.jokers):
        x = left + 40 + k * 22
        out.append(f'<rect x="{x - 9}" y="{yy - 9}" width="18" height="18" fill="#fff" stroke="#222" stroke-width="0.8"/>')
        out.append(f'<text x="{x}" y="{yy + 5}" text-anchor="middle" font-size="13" font-weight="bold">!</text>')
        if k < sheet.jokers_used:
            out.append(f'<line class="joker-used" x1="{x - 7}" y1="{yy + 7}" x2="{x + 7}" y2="{yy - 7}" stroke="#111" stroke-width="2"/>')
    bd = sheet.score_breakdown()
    out.append(f'<text class="score" x="{left + 40 + b.jokers * 22 + 10}" y="{yy + 5}" font-size="14" font-weight="bold">'
               f'score {bd.total} = {bd.columns} + {bd.colours} + {bd.jokers} - {-bd.stars}</text>')
    out.append("</g>")
    return out


def sheets_svg(sheets: list[tuple[str, Sheet]], claimed_columns: int = 0, claimed_colours: int = 0) -> str:
    """One SVG document with every (title, sheet), one below the other."""
    if not sheets:
        raise ValueError("no sheet to draw")
    width = MARGIN * 2 + LABEL + max(s.board.cols for _, s in sheets) * CELL
    width = max(width, MARGIN * 2 + LABEL + 40 + sheets[0][1].board.jokers * 22 + 230)
    parts: list[str] = []
    top = MARGIN
    for title, sheet in sheets:
        parts.extend(_sheet_svg(sheet, title, top, claimed_columns, claimed_colours))
        top += sheet_height(sheet)
    height = top + MARGIN
    head = (f'<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif">\n'
            f'<rect width="100%" height="100%" fill="#fafafa"/>\n')
    return head + "\n".join(parts) + "\n</svg>\n"
