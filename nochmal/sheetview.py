"""Rich drawings of a sheet and of the dice for people at the terminal: the one sheet
renderer of the command line (``play``, ``puzzle``, ``solo``, ``replay``, ``score``,
``board show``).

Cells are three characters wide so the column points fit under their column and can be
shown circled ``(5)`` when this sheet scored them or struck ``-5-`` when somebody else
took the first value first; the colour bonuses get the same marks, the joker boxes show
``!`` for a joker left and ``X`` for one used. Where the console shows no colour (a pipe,
``NO_COLOR``, a dumb terminal) every open cell prints its colour letter, so the drawing is
the same text everywhere without colour. Everything here only reads engine state.
"""

from __future__ import annotations

from collections import Counter

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from nochmal.board import COLOURS, COLUMN_LETTERS
from nochmal.dice import COLOUR_JOKER, NUMBER_JOKER, Roll
from nochmal.sheet import Sheet

CELL_STYLE = {"y": "black on yellow", "g": "black on green3", "b": "bright_white on blue",
              "r": "bright_white on magenta", "o": "black on dark_orange"}
JOKER_STYLE = "bold bright_white on grey23"


def _points(value: int, state: str) -> tuple[str, str]:
    """Three-character text and style of a points value: plain, scored (circled) or struck."""
    if state == "scored":
        return (f"({value})" if value < 10 else f"{value:>3}"), "bold reverse"
    if state == "struck":
        return (f"-{value}-" if value < 10 else f"{value:>3}"), "dim strike"
    return f"{value:^3}", "dim" if state == "later" else ""


def _award_states(upper: int, lower: int, claimed: int, n: int) -> list[tuple[str, str]]:
    out = []
    for i in range(n):
        if upper >> i & 1:
            out.append(("scored", "later"))
        elif lower >> i & 1:
            out.append(("struck", "scored"))
        elif claimed >> i & 1:
            out.append(("struck", "plain"))
        else:
            out.append(("plain", "plain"))
    return out


def column_states(sheet: Sheet, claimed_columns: int = 0) -> list[tuple[str, str]]:
    """Per column: (state of the first value, state of the later value).

    A first value is 'scored' when this sheet took it, 'struck' when the column was
    completed by somebody else before this sheet scored it; the later value is 'scored'
    when this sheet scored the column late.
    """
    return _award_states(sheet.cols_upper, sheet.cols_lower, claimed_columns, sheet.board.cols)


def colour_states(sheet: Sheet, claimed_colours: int = 0) -> list[tuple[str, str]]:
    """Per colour, as column_states."""
    return _award_states(sheet.colours_upper, sheet.colours_lower, claimed_colours, len(COLOURS))


def shows_colour(console: Console) -> bool:
    """Whether ``console`` prints colours: not to a pipe, a dumb terminal or under NO_COLOR."""
    return console.color_system is not None and not console.no_color


class SheetDrawing:
    """A sheet as the console it is printed on can show it: coloured cells on a colour
    terminal, the colour letters elsewhere (see the module docstring)."""

    def __init__(self, sheet: Sheet, title: str = "", highlight: int = 0, claimed_columns: int = 0,
                 claimed_colours: int = 0):
        self.sheet = sheet
        self.title = title
        self.highlight = highlight
        self.claimed_columns = claimed_columns
        self.claimed_colours = claimed_colours

    def text(self, letters: bool) -> Text:
        return draw_sheet(self.sheet, self.title, self.highlight, self.claimed_columns, self.claimed_colours,
                          letters)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.text(letters=not shows_colour(console))


def render_sheet(sheet: Sheet, title: str = "", highlight: int = 0, claimed_columns: int = 0,
                 claimed_colours: int = 0) -> SheetDrawing:
    """The sheet for ``console.print``: X crossed, * star, · open (or the colour letter, upper
    case for a star, where there is no colour); ``highlight`` cells reversed (``>X<``
    without colour); column points circled when scored, struck when claimed by another."""
    return SheetDrawing(sheet, title, highlight, claimed_columns, claimed_colours)


def draw_sheet(sheet: Sheet, title: str = "", highlight: int = 0, claimed_columns: int = 0,
               claimed_colours: int = 0, letters: bool = False) -> Text:
    """The drawing itself; ``letters`` prints open cells as their colour letters."""
    b = sheet.board
    out = Text()
    if title:
        out.append(title + "\n", style="bold")
    out.append("    ")
    for c in range(b.cols):
        style = "bold underline" if c == b.start_column else "bold"
        out.append(f" {COLUMN_LETTERS[c]} ", style=style)
    out.append("\n")
    for r in range(b.rows):
        out.append(f" {r + 1:>2} ")
        for c in range(b.cols):
            i = r * b.cols + c
            bit = b.bit_of[i]
            crossed = sheet.crossed >> bit & 1
            if crossed:
                ch = "X"
            elif letters:
                ch = b.printed[r][c]
            elif b.is_star(bit):
                ch = "*"
            else:
                ch = "·"
            style = CELL_STYLE[b.grid[r][c]] + (" bold" if crossed or b.is_star(bit) else "")
            if highlight >> bit & 1:
                style += " reverse"
                out.append(f">{ch}<" if letters else f" {ch} ", style=style)
                continue
            out.append(f" {ch} ", style=style)
        out.append("\n")
    states = column_states(sheet, claimed_columns)
    for label, pts, k in (("1st", b.column_points_first, 0), ("2nd", b.column_points_later, 1)):
        out.append(f"{label} ")
        for c in range(b.cols):
            state = states[c][k]
            if k == 1 and state == "plain":
                state = "later"
            text, style = _points(pts[c], state)
            out.append(text, style=style)
        out.append("\n")
    out.append("colours ")
    for i, (colour, (first, later)) in enumerate(zip(COLOURS, colour_states(sheet, claimed_colours))):
        out.append(f" {colour} ", style=CELL_STYLE[colour])
        t1, s1 = _points(b.colour_bonus_first, first)
        t2, s2 = _points(b.colour_bonus_later, "later" if later == "plain" else later)
        out.append(t1.strip() if first == "plain" else t1, style=s1)
        out.append("/")
        out.append(t2.strip() if later == "plain" else t2, style=s2)
        out.append(" ")
    out.append("\njokers  ")
    for k in range(b.jokers):
        if k < sheet.jokers_used:
            out.append("X", style="dim")
        else:
            out.append("!", style="bold")
        out.append(" ")
    out.append(f"({sheet.jokers_left} left)\n")
    bd = sheet.score_breakdown()
    out.append(f"score {bd.total}", style="bold")
    out.append(f"  = columns {bd.columns} + colours {bd.colours} + jokers {bd.jokers} "
               f"- stars {-bd.stars}")
    return out


def _die(face: str, used: bool) -> Text:
    if face == COLOUR_JOKER:
        style, label = JOKER_STYLE, "x"
    elif face in CELL_STYLE:
        style, label = CELL_STYLE[face], face
    elif face == NUMBER_JOKER:
        style, label = JOKER_STYLE, "?"
    else:
        style, label = "bold black on bright_white", face
    if used:
        style = "dim strike"
    return Text(f"[{label}]", style=style)


def render_dice(roll: Roll, available: Roll | None = None) -> Text:
    """All dice of the roll; dice the deciding player may not use are dimmed and struck."""
    avail_c = Counter(available.colours if available else roll.colours)
    avail_n = Counter(available.numbers if available else roll.numbers)
    out = Text("dice  ")
    for faces, avail in ((roll.colours, avail_c), (roll.numbers, avail_n)):
        left = Counter(avail)
        for f in faces:
            usable = left[f] > 0
            if usable:
                left[f] -= 1
            out.append_text(_die(f, not usable))
            out.append(" ")
        out.append("  ")
    if available is not None and available != roll:
        out.append(f"(you may use {' '.join(available.colours)} / {' '.join(available.numbers)})", style="italic")
    return out
