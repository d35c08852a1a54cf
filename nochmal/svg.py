"""Sheets as SVG pictures: the one drawing code path for `nochmal render --svg` and every
page of the web app (nochmal/web), written as plain text, no library.

Every cell is one ``<rect class="cell">`` carrying ``data-cell="H4"``, ``data-colour``
(y g b r o), ``data-crossed`` ("1"/"0") and ``data-star`` ("1"/"0"), so scripts, pages and
tests can address it; stars and crosses ignore pointer events, so a tap on a cell always
lands on its rect. Each crossed cell is one ``<g class="cross">`` (two strokes), each star
one ``<polygon class="star">``; column points the sheet scored are circled
(``<circle class="scored">``), first values somebody else took first are struck
(``<line class="struck">``). Several sheets (the players of a record) stack vertically,
each ``<g class="sheet" data-seat="k">`` inside its own band of ``sheet_height`` pixels, so
stacked sheets never overlap. ``record_svg`` draws a record with a heading: board, seed,
mode, date, the mission and won/lost, and "unfinished" for a game that has not ended.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from datetime import datetime, timezone
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape

from nochmal.board import COLOURS, COLUMN_LETTERS
from nochmal.errors import OptionError
from nochmal.i18n import N_, TERMS, say, say_n, said, translator
from nochmal.modes import Mode
from nochmal.seats import seat_label
from nochmal.sheet import Sheet
from nochmal.sheetview import colour_states, column_states

if TYPE_CHECKING:  # the record layer is only needed by record_svg's signature
    from nochmal.game import Game
    from nochmal.record import GameFactory, GameRecord

FILL = {"y": "#f4cf1d", "g": "#5aae4a", "b": "#3d7bd6", "r": "#e2467c", "o": "#f08a24"}
# The grid takes nearly all the width, so a sheet drawn full width on a 360 px phone has cells
# of 22 px and no text under 11 px (TEXT is the smallest font size; docs/web.md, phones).
CELL = 28
MARGIN = 3
LABEL = 25  # width of the row labels ("later" fits in it, with the margin)
TEXT = 14
HEADING_LINE = 20  # one line of the document heading
# the vertical bands of one sheet, top to bottom (pixels)
TITLE_BAND = 26
LETTERS_BAND = CELL
VALUES_BAND = 2 * 22 + 8  # first and later column values
COLOURS_BAND = 26
JOKERS_BAND = 26
SCORE_BAND = 2 * 18 + 8  # the score formula, in two lines
SHEET_GAP = 14
FRAME_INSET = 0.6  # the dashed frame of an unfinished sheet, from the picture's edge
LABEL_X = 2.0  # where the labels left of the grid start, clear of the frame and its stroke (1.2)
MODE_TEXT = {Mode.SOLO: N_("solo game"), Mode.COMPETITIVE: N_("competitive game"), Mode.COOP: N_("co-op game")}
# The words of a drawing (docs/web.md "Languages"): English for the terminal and the CLI's
# files, the page's language for a page. A label left of the grid has the room of about five
# letters: "later" has its own short msgid.
WORDS = {
    "1st": N_("1st"), "later": N_("later (a sheet's row label, at most 5 letters)"), "colours": N_("colours"),
    "jokers": TERMS["jokers"], "left": N_("%(n)s left"), "total": N_("score %(total)s = "),
    "parts": N_("columns %(columns)s + colours %(colours)s + jokers left %(jokers)s − stars open %(stars)s"),
    "cell": N_("%(cell)s %(colour)s, not crossed"), "cell crossed": N_("%(cell)s %(colour)s, crossed"),
    "star": N_("%(cell)s %(colour)s, star, not crossed"), "star crossed": N_("%(cell)s %(colour)s, star, crossed"),
}


@lru_cache(maxsize=None)
def drawing_words(lang: str = "en") -> dict[str, str]:
    """WORDS and the colours' names in ``lang`` (the English catalog keeps them as they are)."""
    t = translator(lang).gettext
    words = {key: t(msgid) for key, msgid in WORDS.items()}
    if lang == "en":  # the row label's msgid explains itself; its English word is the label
        words["later"] = "later"
    words.update({colour: t(TERMS[colour]) for colour in COLOURS})
    return words


@lru_cache(maxsize=None)
def _cell_shapes(lang: str) -> dict:
    """Per (star, crossed, colour) a cell's words for its aria-label, escaped once, as the text
    before and after the cell's name (letters and digits: nothing to escape)."""
    words = drawing_words(lang)
    return {(star, crossed, colour): tuple(escape(words[("star" if star else "cell") + (" crossed" if crossed else "")]
                                                  % {"cell": "\0", "colour": words[colour]}, {'"': "&quot;"}).split("\0"))
            for star in (False, True) for crossed in (0, 1) for colour in COLOURS}


def _star(cx: float, cy: float, r: float) -> str:
    pts = []
    for k in range(10):
        rad = r if k % 2 == 0 else r * 0.45
        a = -math.pi / 2 + k * math.pi / 5
        pts.append(f"{cx + rad * math.cos(a):.1f},{cy + rad * math.sin(a):.1f}")
    return (f'<polygon class="star" points="{" ".join(pts)}" fill="#ffffff" fill-opacity="0.85" '
            f'stroke="#333" stroke-width="0.6" pointer-events="none"/>')


def _cross(x: float, y: float, size: float) -> str:
    p = size * 0.2
    return (f'<g class="cross" stroke="#111" stroke-width="3" stroke-linecap="round" pointer-events="none">'
            f'<line x1="{x + p:.1f}" y1="{y + p:.1f}" x2="{x + size - p:.1f}" y2="{y + size - p:.1f}"/>'
            f'<line x1="{x + size - p:.1f}" y1="{y + p:.1f}" x2="{x + p:.1f}" y2="{y + size - p:.1f}"/></g>')


def _value(x: float, y: float, value: int, state: str) -> list[str]:
    """A points value centred at (x, y): circled when scored, struck when lost."""
    colour = "#999" if state in ("later", "struck") else "#111"
    out = [f'<text x="{x:.1f}" y="{y + 5:.1f}" text-anchor="middle" font-size="{TEXT}" fill="{colour}">{value}</text>']
    if state == "scored":
        out.append(f'<circle class="scored" cx="{x:.1f}" cy="{y:.1f}" r="10" fill="none" stroke="#111" stroke-width="1.5"/>')
    elif state == "struck":
        out.append(f'<line class="struck" x1="{x - 8:.1f}" y1="{y + 8:.1f}" x2="{x + 8:.1f}" y2="{y - 8:.1f}" '
                   f'stroke="#c00" stroke-width="1.5"/>')
    return out


def _text_width(line: str, size: float) -> float:
    """About how wide ``line`` is drawn in Helvetica at ``size`` px (SVG text does not wrap):
    letters' widths in font sizes, fitted within 3 % to Chromium's measure, and 3 % to spare."""
    ems = sum(0.67 if ch.isupper() else 0.28 if ch in " .,:;·()'!|ijlft1-" else 0.56 for ch in line)
    return ems * size * 1.06


def sheet_height(sheet: Sheet) -> int:
    """The height of one sheet's band: everything of the sheet is drawn inside it."""
    return (TITLE_BAND + LETTERS_BAND + CELL * sheet.board.rows + VALUES_BAND + COLOURS_BAND
            + JOKERS_BAND + SCORE_BAND + SHEET_GAP)


def score_formula(sheet: Sheet, lang: str = "en") -> str:
    """The score with its parts named, as printed under every sheet."""
    total, rest = _score_parts(sheet, drawing_words(lang))
    return total + rest


def _score_parts(sheet: Sheet, words: dict[str, str]) -> tuple[str, str]:
    bd = sheet.score_breakdown()
    return (words["total"] % {"total": bd.total},
            words["parts"] % {"columns": bd.columns, "colours": bd.colours, "jokers": bd.jokers, "stars": -bd.stars})


@dataclass(frozen=True)
class SheetPicture:
    """One sheet to draw: its title, the sheet, and the race's claimed columns/colours."""

    title: str
    sheet: Sheet
    claimed_columns: int = 0
    claimed_colours: int = 0
    unfinished: bool = False


def _sheet_svg(pic: SheetPicture, seat: int, top: float, width: float, lang: str) -> list[str]:
    words, shapes = drawing_words(lang), _cell_shapes(lang)
    sheet = pic.sheet
    b = sheet.board
    left = MARGIN + LABEL
    height = sheet_height(sheet) - SHEET_GAP
    out = [f'<g class="sheet" data-seat="{seat}" data-score="{sheet.score()}" '
           f'data-unfinished="{int(pic.unfinished)}">']
    if pic.unfinished:  # the frame keeps clear of the labels drawn left of the grid (x = LABEL_X)
        out.append(f'<rect class="unfinished" x="{FRAME_INSET}" y="{top}" width="{width - 2 * FRAME_INSET}" '
                   f'height="{height}" '
                   f'fill="none" stroke="#888" stroke-width="1.2" stroke-dasharray="6 4"/>')
    out.append(f'<text class="title" x="{MARGIN}" y="{top + 18}" font-size="15" font-weight="bold">'
               f'{escape(pic.title)}</text>')
    y0 = top + TITLE_BAND
    for c in range(b.cols):
        weight = ' font-weight="bold" text-decoration="underline"' if c == b.start_column else ""
        out.append(f'<text x="{left + c * CELL + CELL / 2}" y="{y0 + 19}" text-anchor="middle" font-size="{TEXT}"{weight}>'
                   f'{COLUMN_LETTERS[c]}</text>')
    gy = y0 + LETTERS_BAND
    for r in range(b.rows):
        out.append(f'<text x="{MARGIN + LABEL / 2}" y="{gy + r * CELL + 19}" text-anchor="middle" font-size="{TEXT}">{r + 1}</text>')
        for c in range(b.cols):
            bit = b.bit_of[r * b.cols + c]
            x, y = left + c * CELL, gy + r * CELL
            colour = b.grid[r][c]
            crossed = sheet.crossed >> bit & 1
            star = b.is_star(bit)
            name = f"{COLUMN_LETTERS[c]}{r + 1}"
            before, after = shapes[star, crossed, colour]  # its words for screen readers: before + name + after
            out.append(f'<rect class="cell" data-cell="{name}" data-colour="{colour}" '
                       f'data-crossed="{crossed}" data-star="{int(star)}" aria-label="{before}{name}{after}" '
                       f'x="{x}" y="{y}" width="{CELL}" '
                       f'height="{CELL}" fill="{FILL[colour]}" stroke="#222" stroke-width="0.8"/>')
            if star:
                out.append(_star(x + CELL / 2, y + CELL / 2, CELL * 0.36))
            if crossed:
                out.append(_cross(x, y, CELL))
    py = gy + b.rows * CELL + 16
    states = column_states(sheet, pic.claimed_columns)
    for k, (label, pts) in enumerate(((words["1st"], b.column_points_first), (words["later"], b.column_points_later))):
        yy = py + k * 22
        out.append(f'<text x="{LABEL_X}" y="{yy + 5}" font-size="{TEXT}">{label}</text>')
        for c in range(b.cols):
            state = states[c][k]
            if k == 1 and state == "plain":
                state = "later"
            out.extend(_value(left + c * CELL + CELL / 2, yy, pts[c], state))
    yy = gy + b.rows * CELL + VALUES_BAND + COLOURS_BAND / 2
    out.append(f'<text x="{LABEL_X}" y="{yy + 5}" font-size="{TEXT}">{escape(words["colours"])}</text>')
    for i, (colour, (first, later)) in enumerate(zip(COLOURS, colour_states(sheet, pic.claimed_colours))):
        x = left + 40 + i * 72
        out.append(f'<rect x="{x - 10}" y="{yy - 9}" width="18" height="18" fill="{FILL[colour]}" stroke="#222" stroke-width="0.8"/>')
        out.extend(_value(x + 22, yy, b.colour_bonus_first, first))
        out.extend(_value(x + 44, yy, b.colour_bonus_later, "later" if later == "plain" else later))
    yy += COLOURS_BAND
    out.append(f'<text x="{LABEL_X}" y="{yy + 5}" font-size="{TEXT}">{escape(words["jokers"])}</text>')
    for k in range(b.jokers):
        x = left + 40 + k * 22
        out.append(f'<rect class="joker" x="{x - 9}" y="{yy - 9}" width="18" height="18" fill="#fff" stroke="#222" stroke-width="0.8"/>')
        out.append(f'<text x="{x}" y="{yy + 5}" text-anchor="middle" font-size="{TEXT}" font-weight="bold">!</text>')
        if k < sheet.jokers_used:
            out.append(f'<line class="joker-used" x1="{x - 7}" y1="{yy + 7}" x2="{x + 7}" y2="{yy - 7}" stroke="#111" stroke-width="2"/>')
    out.append(f'<text x="{left + 40 + b.jokers * 22}" y="{yy + 5}" font-size="{TEXT}" fill="#555">'
               f'{escape(words["left"] % {"n": sheet.jokers_left})}</text>')
    out.append(_score_text(sheet, yy + 26, words))
    out.append("</g>")
    return out


def _score_text(sheet: Sheet, y: float, words: dict[str, str]) -> str:
    """The score formula in two lines (one would not fit the width at a readable size)."""
    total, rest = _score_parts(sheet, words)
    return (f'<text class="score" x="{LABEL_X}" y="{y + 5}" font-size="{TEXT}" font-weight="bold">'
            f'<tspan>{escape(total)}</tspan><tspan x="{LABEL_X}" dy="18">{escape(rest)}</tspan></text>')


def cell_words(name: str, colour: str, star: bool, crossed: int, lang: str = "en") -> str:
    """A cell as a screen reader says it: 'H4 blue, star, crossed' (docs/web.md, phones)."""
    return _cell_words(name, colour, star, crossed, _cell_shapes(lang))


def _cell_words(name: str, colour: str, star: bool, crossed: int, shapes: dict) -> str:
    before, after = shapes[star, crossed, colour]
    return before + name + after


def pictures_svg(pictures: list[SheetPicture], heading: list[str] | None = None, lang: str = "en") -> str:
    """One SVG document: the heading lines (the first one also the document's <title>), then
    every sheet, one below the other; its own words in ``lang`` (the titles and heading are
    the caller's, already in it)."""
    if not pictures:
        raise OptionError("no sheet to draw")
    heading = list(heading or [])
    width = MARGIN * 2 + LABEL + max(p.sheet.board.cols for p in pictures) * CELL
    width = max(width, MARGIN * 2 + LABEL + 40 + 4 * 72 + 60)
    for k, line in enumerate(heading):  # a longer line (another language's words) widens the picture
        width = max(width, math.ceil(MARGIN * 2 + _text_width(line, 16 if k == 0 else TEXT)))
    parts: list[str] = []
    top = MARGIN
    for k, line in enumerate(heading):
        size, weight = (16, ' font-weight="bold"') if k == 0 else (TEXT, "")
        parts.append(f'<text class="heading" x="{MARGIN}" y="{top + 15}" font-size="{size}"{weight}>{escape(line)}</text>')
        top += HEADING_LINE
    if heading:
        top += 6
    for seat, pic in enumerate(pictures):
        parts.extend(_sheet_svg(pic, seat, top, width, lang))
        top += sheet_height(pic.sheet)
    height = top + MARGIN - SHEET_GAP
    title = f"<title>{escape(' · '.join(heading) if heading else pictures[0].title)}</title>\n"
    head = (f'<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif">\n' + title +
            f'<rect width="100%" height="100%" fill="#fafafa"/>\n')
    return head + "\n".join(parts) + "\n</svg>\n"


def sheets_svg(sheets: list[tuple[str, Sheet]], claimed_columns: int = 0, claimed_colours: int = 0,
               heading: list[str] | None = None, lang: str = "en") -> str:
    """One SVG document with every (title, sheet), one below the other."""
    return pictures_svg([SheetPicture(t, s, claimed_columns, claimed_colours) for t, s in sheets], heading, lang)


def record_heading(record: "GameRecord", game: "Game", drawn: str | None = None,
                   outcome: str | None = None, lang: str = "en", board_title: str | None = None) -> list[str]:
    """What a picture of a record says above the sheets: board, seed, mode, date, outcome,
    in ``lang``; ``board_title`` names the sheet (default its file's title).

    ``outcome`` is a line the caller adds, e.g. a co-op mission's verdict from
    ``nochmal.missions.coop.mission_outcome_line`` (the core cannot import the mission layer).
    """
    mode = say(MODE_TEXT[record.mode]) if record.mode in MODE_TEXT else record.mode
    if record.mode is Mode.SOLO and record.extra.get("puzzle"):
        mode = say("solo puzzle (open)") if record.extra.get("open") else say("solo puzzle")
    seed = say("seed %(seed)s", seed=record.seed) if record.seed is not None else say("no seed")
    lines = [say("Noch mal! %(mode)s", mode=mode),
             say("%(board)s board · %(seed)s · drawn %(date)s", board=board_title or record.board.title, seed=seed,
                 date=drawn or _today())]
    # the rolls played: "X of N rolls" under a roll limit, else a line in the count's plural form
    done, limit = game.rolls_done, game.roll_limit
    played = say("%(done)s of %(limit)s rolls", done=done, limit=limit) if limit else None
    if not game.is_terminal():
        lines.append(say("UNFINISHED: %(played)s played", played=played) if limit else
                     say_n("UNFINISHED: %(n)s roll played", "UNFINISHED: %(n)s rolls played", done))
    elif record.mode is Mode.COMPETITIVE:
        names = seat_label(record.players, game.winners()[0])
        for p in game.winners()[1:]:
            names = say("%(names)s and %(name)s", names=names, name=seat_label(record.players, p))
        lines.append(say("finished after %(played)s; winner %(names)s", played=played, names=names) if limit else
                     say_n("finished after %(n)s roll; winner %(names)s", "finished after %(n)s rolls; winner %(names)s",
                           done, names=names))
    elif record.mode is Mode.SOLO:
        from nochmal.game import rating

        verdict = say(rating(game.sheets[0].score()))
        lines.append(say("finished after %(played)s; rating: %(rating)s", played=played, rating=verdict) if limit else
                     say_n("finished after %(n)s roll; rating: %(rating)s", "finished after %(n)s rolls; rating: %(rating)s",
                           done, rating=verdict))
    return [said(line, lang) for line in lines] + ([outcome] if outcome else [])


def _today() -> str:
    return datetime.now(timezone.utc).date().isoformat()


def record_pictures(record: "GameRecord", game: "Game", lang: str = "en") -> list[SheetPicture]:
    """Every seat's sheet of ``game`` (a replay of ``record``), titled with the seat name."""
    cc, ck = game.race_claims
    unfinished = not game.is_terminal()
    return [SheetPicture(sheet_title(record.players, p, s, unfinished, lang), s, cc, ck, unfinished)
            for p, s in enumerate(game.sheets)]


def sheet_title(players: list[str], seat: int, sheet: Sheet, unfinished: bool = False, lang: str = "en") -> str:
    """The title over a seat's sheet: 'Anna: 23 points' (' so far' while the game runs)."""
    name = seat_label(players, seat)
    if unfinished:
        return say_n("%(name)s: %(n)s point so far", "%(name)s: %(n)s points so far", sheet.score(),
                     name=name).in_language(lang)
    return say_n("%(name)s: %(n)s point", "%(name)s: %(n)s points", sheet.score(), name=name).in_language(lang)


def record_svg(record: "GameRecord", game: "Game | None" = None, drawn: str | None = None,
               outcome: str | None = None, game_factory: "GameFactory | None" = None, lang: str = "en",
               board_title: str | None = None) -> str:
    """The picture of a record: heading plus every seat's sheet at ``game`` (default: the
    final position of the replay, built by ``game_factory``: see GameRecord.new_game)."""
    if game is None:
        game = record.new_game(game_factory)
        for _, game in record.replay("record", game_factory):
            pass
    heading = record_heading(record, game, drawn, outcome, lang, board_title)
    return pictures_svg(record_pictures(record, game, lang), heading, lang)
