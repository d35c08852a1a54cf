"""One player's sheet state as bitmasks, its score, and its two text forms.

* compact text (``Sheet.text`` / ``Sheet.from_text``), like a FEN: one line that round-trips
  every field of the state;
* the typed sheet a person writes (``parse_typed_sheet`` / ``format_typed_sheet``): 7 lines
  of 15 characters, ``x``/``X`` crossed, a colour letter or ``.`` open, and optional
  ``key: value`` lines (``jokers_used``, ``later_columns``, ``later_colours``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nochmal.bitsets import component_of, neighbours_of
from nochmal.board import COLOUR_NAMES, COLOURS, COLUMN_LETTERS, Board
from nochmal.errors import IllegalMoveError, SheetError
from nochmal.i18n import N_, TERMS, Message, say, say_n
from nochmal.placements import placement_index
from nochmal.fileio import is_decimal


# what is wrong in a sheet's scored columns and colours (Sheet.scoring_problems): whole
# sentences, each a msgid (a column's and a colour's words differ in the other languages)
SCORING_WORDS = {
    ("column", "twice"): N_("a column is scored twice (first and later value)"),
    ("column", "incomplete"): N_("an incomplete column is marked scored"),
    ("column", "unscored"): N_("a complete column is not scored"),
    ("colour", "twice"): N_("a colour is scored twice (first and later value)"),
    ("colour", "incomplete"): N_("an incomplete colour is marked scored"),
    ("colour", "unscored"): N_("a complete colour is not scored"),
}


def mask_letters(mask: int, alphabet: str) -> str:
    """The letters of the set bits (bit i = alphabet[i]), ``-`` for none: the text of a set
    of columns or colours."""
    return "".join(ch for i, ch in enumerate(alphabet) if mask >> i & 1) or "-"


def letters_mask(field: str, alphabet: str) -> int:
    """The inverse of mask_letters; ValueError(letter) for a letter not in ``alphabet``."""
    if field == "-":
        return 0
    mask = 0
    for ch in field:
        if ch not in alphabet:
            raise ValueError(ch)
        mask |= 1 << alphabet.index(ch)
    return mask


@dataclass(frozen=True)
class ScoreBreakdown:
    columns: int
    colours: int
    jokers: int
    stars: int  # negative: the penalty for uncrossed stars

    @property
    def total(self) -> int:
        return self.columns + self.colours + self.jokers + self.stars

    def to_dict(self) -> dict:
        return {"columns": self.columns, "colours": self.colours, "jokers": self.jokers,
                "stars": self.stars, "total": self.total}


def score_parts(board: Board, columns_first, colours_first, stars_open, jokers_left,
                columns_later=(), colours_later=()) -> ScoreBreakdown:
    """The scoring rule, written once (docs/rules.md §4, §5): each column scored at its first or
    later value, each colour at its first or later bonus, one point per unused joker, the
    penalty per uncrossed star. ``columns_*`` and ``colours_*`` are per column / per colour
    0/1 indicators, ``stars_open`` indicators (or counts) whose sum is the number of
    uncrossed stars; plain ints or CP-SAT literals alike, so the planners' models score with
    the same rule as the engine (solver/team.py)."""
    return ScoreBreakdown(
        sum(p * x for p, x in zip(board.column_points_first, columns_first))
        + sum(p * x for p, x in zip(board.column_points_later, columns_later)),
        board.colour_bonus_first * sum(colours_first) + board.colour_bonus_later * sum(colours_later),
        jokers_left, -board.star_penalty * sum(stars_open))


def _bits(mask: int, n: int) -> tuple[int, ...]:
    return tuple(mask >> i & 1 for i in range(n))


class Sheet:
    """Immutable sheet state.

    crossed: crossed cells (board bit order); anchored: start column plus neighbours of
    crossed cells (derived, kept for speed); jokers_used; cols_upper/cols_lower: columns
    scored at the first/later value (bit c = column c); colours_upper/colours_lower:
    colours scored at the first/later bonus (bit i = COLOURS[i]).
    """

    __slots__ = ("board", "crossed", "anchored", "jokers_used", "cols_upper", "cols_lower",
                 "colours_upper", "colours_lower")

    def __init__(self, board: Board, crossed: int = 0, jokers_used: int = 0, cols_upper: int = 0,
                 cols_lower: int = 0, colours_upper: int = 0, colours_lower: int = 0,
                 anchored: int | None = None):
        self.board = board
        self.crossed = crossed
        self.anchored = (board.start_mask | neighbours_of(crossed, board.neighbour_mask)) if anchored is None else anchored
        self.jokers_used = jokers_used
        self.cols_upper = cols_upper
        self.cols_lower = cols_lower
        self.colours_upper = colours_upper
        self.colours_lower = colours_lower

    @classmethod
    def empty(cls, board: Board) -> "Sheet":
        return cls(board)

    @classmethod
    def from_cells(cls, board: Board, cells, jokers_used: int = 0) -> "Sheet":
        """A sheet with these cells crossed; complete columns/colours scored at first value."""
        try:
            mask = board.mask_of(cells)
        except KeyError as exc:
            raise SheetError(say("cell %(cell)s is not on the %(board)s board", cell=exc.args[0], board=board.name)) from None
        return cls(board, mask, jokers_used).with_all_completions_scored()

    # --- derived facts ---------------------------------------------------------------------
    def complete_columns(self) -> int:
        """Mask of complete columns (bit c = column c)."""
        crossed = self.crossed
        out = 0
        for c, m in enumerate(self.board.column_mask):
            if crossed & m == m:
                out |= 1 << c
        return out

    def complete_colours(self) -> int:
        crossed = self.crossed
        out = 0
        for i, colour in enumerate(COLOURS):
            m = self.board.colour_mask[colour]
            if crossed & m == m:
                out |= 1 << i
        return out

    @property
    def jokers_left(self) -> int:
        return self.board.jokers - self.jokers_used

    def placements(self, colour: str, count: int, bridging: bool = False) -> list[int]:
        """Masks of all legal placements of ``count`` crosses of ``colour``."""
        return placement_index(self.board, bridging).query(self.crossed, self.anchored, colour, count)

    def score_breakdown(self) -> ScoreBreakdown:
        b = self.board
        return score_parts(b, _bits(self.cols_upper, b.cols), _bits(self.colours_upper, len(COLOURS)),
                           ((b.star_mask & ~self.crossed).bit_count(),), b.jokers - self.jokers_used,
                           _bits(self.cols_lower, b.cols), _bits(self.colours_lower, len(COLOURS)))

    def score(self) -> int:
        return self.score_breakdown().total

    # --- transitions ----------------------------------------------------------------------
    def cross(self, mask: int, jokers: int = 0) -> "Sheet":
        """New sheet with ``mask`` crossed and ``jokers`` more marks used (no legality check)."""
        return Sheet(self.board, self.crossed | mask, self.jokers_used + jokers, self.cols_upper,
                     self.cols_lower, self.colours_upper, self.colours_lower,
                     self.anchored | neighbours_of(mask, self.board.neighbour_mask))

    def award(self, cols_upper: int = 0, cols_lower: int = 0, colours_upper: int = 0,
              colours_lower: int = 0) -> "Sheet":
        return Sheet(self.board, self.crossed, self.jokers_used, self.cols_upper | cols_upper,
                     self.cols_lower | cols_lower, self.colours_upper | colours_upper,
                     self.colours_lower | colours_lower, self.anchored)

    def scoring_problems(self) -> list[Message]:
        """What is inconsistent in the scored columns and colours (empty if nothing), each a
        Message (``str()`` its English line)."""
        problems = []
        for what, upper, lower, complete in (
                ("column", self.cols_upper, self.cols_lower, self.complete_columns()),
                ("colour", self.colours_upper, self.colours_lower, self.complete_colours())):
            if upper & lower:
                problems.append(say(SCORING_WORDS[what, "twice"]))
            if (upper | lower) & ~complete:
                problems.append(say(SCORING_WORDS[what, "incomplete"]))
            if complete & ~(upper | lower):
                problems.append(say(SCORING_WORDS[what, "unscored"]))
        return problems

    def unscored_columns(self) -> int:
        return self.complete_columns() & ~(self.cols_upper | self.cols_lower)

    def unscored_colours(self) -> int:
        return self.complete_colours() & ~(self.colours_upper | self.colours_lower)

    def with_all_completions_scored(self, later_columns: int = 0, later_colours: int = 0) -> "Sheet":
        """Score every complete, unscored column/colour: at the later value if in the masks."""
        cols, colours = self.unscored_columns(), self.unscored_colours()
        return self.award(cols & ~later_columns, cols & later_columns,
                          colours & ~later_colours, colours & later_colours)

    def check_placement(self, colour: str, count: int, mask: int, bridging: bool = False) -> None:
        """Raise IllegalMoveError saying exactly why ``mask`` is not a legal placement (a
        Message: the web says it in a player's language, docs/web.md "Languages")."""
        b = self.board
        cells = b.cells_of(mask)
        if not 1 <= count <= 5:  # docs/rules.md §3: N is never more than 5 (the enumerator agrees)
            raise IllegalMoveError(say("wrong count: a choice is 1 to 5 crosses, not %(count)s", count=count))
        if colour not in COLOUR_NAMES:
            raise IllegalMoveError(say("wrong colour: %(colour)s is not a colour (y g b r o)", colour=repr(colour)))
        if mask.bit_count() != count:
            raise IllegalMoveError(say_n("wrong count: %(n)s cell given, the choice is %(count)s",
                                          "wrong count: %(n)s cells given, the choice is %(count)s", len(cells), count=count))
        for name in cells:
            bit = b.bit(name)
            if b.colour_of_bit(bit) != colour:
                raise IllegalMoveError(say("wrong colour: %(cell)s is %(colour)s, the choice is %(choice)s", cell=name,
                                           colour=say(TERMS[b.colour_of_bit(bit)]), choice=say(TERMS[colour])))
        for name in cells:
            if self.crossed >> b.bit(name) & 1:
                raise IllegalMoveError(say("already crossed: %(cell)s", cell=name))
        blocks = {b.block_of_bit[b.bit(n)] for n in cells}
        if len(blocks) > 1:
            raise IllegalMoveError(say("not one block: %(cells)s lie in %(blocks)s different blocks",
                                       cells=" ".join(cells), blocks=len(blocks)))
        block = b.blocks[blocks.pop()]
        within = mask | (self.crossed & block.mask if bridging else 0)
        seen = component_of(mask & -mask, within, b.neighbour_mask)
        if mask & ~seen:
            if bridging:
                raise IllegalMoveError(say("not connected: %(cells)s are not orthogonally connected through "
                                           "crossed cells of the block", cells=" ".join(cells)))
            raise IllegalMoveError(say("not connected: %(cells)s are not orthogonally connected among themselves",
                                       cells=" ".join(cells)))
        if not mask & self.anchored:
            raise IllegalMoveError(say("not anchored: none of %(cells)s is in column %(column)s or next to a crossed cell",
                                       cells=" ".join(cells), column=COLUMN_LETTERS[b.start_column]))

    # --- text forms -----------------------------------------------------------------------
    def text(self) -> str:
        """Compact one-line form: ``board/crossed-hex/jokers/cols^/cols_/colours^/colours_``.

        The crossed hex is in row-major cell order (bit i = grid cell i), so it does not depend
        on the engine's internal numbering.
        """
        b = self.board
        grid_mask = 0
        for bit in range(b.n_cells):
            if self.crossed >> bit & 1:
                grid_mask |= 1 << b.index_of_bit[bit]
        width = (b.n_cells + 3) // 4
        cols = COLUMN_LETTERS[: b.cols]
        return "/".join([
            b.name, f"{grid_mask:0{width}x}", str(self.jokers_used),
            mask_letters(self.cols_upper, cols), mask_letters(self.cols_lower, cols),
            mask_letters(self.colours_upper, COLOURS), mask_letters(self.colours_lower, COLOURS),
        ])

    @classmethod
    def from_text(cls, text: str, board: Board) -> "Sheet":
        parts = text.strip().split("/")
        if len(parts) != 7:
            raise SheetError(say("sheet text %(text)s: expected 7 fields separated by '/', got %(got)s",
                                 text=repr(text), got=len(parts)))
        name, hexmask, jokers, cu, cl, ku, kl = parts
        if name != board.name:
            raise SheetError(say("sheet text is for board %(name)s, not %(board)s", name=repr(name), board=repr(board.name)))
        try:
            grid_mask = int(hexmask, 16)
            jokers_used = int(jokers)
        except ValueError:
            raise SheetError(say("sheet text %(text)s: bad crossed mask or joker count", text=repr(text))) from None
        if grid_mask >> board.n_cells or not 0 <= jokers_used <= board.jokers:
            raise SheetError(say("sheet text %(text)s: crossed mask or joker count out of range", text=repr(text)))

        def parse_letters(field: str, alphabet: str, what: str) -> int:
            try:
                return letters_mask(field, alphabet)
            except ValueError as exc:
                raise SheetError(say(what, text=repr(text), letter=repr(exc.args[0]))) from None

        cols = COLUMN_LETTERS[: board.cols]
        crossed = 0
        for i in range(board.n_cells):
            if grid_mask >> i & 1:
                crossed |= board.cell_bits[i]
        column, colour = N_("sheet text %(text)s: %(letter)s is not a column"), N_("sheet text %(text)s: %(letter)s is not a colour")
        sheet = cls(board, crossed, jokers_used, parse_letters(cu, cols, column),
                    parse_letters(cl, cols, column), parse_letters(ku, COLOURS, colour),
                    parse_letters(kl, COLOURS, colour))
        unscored = {SCORING_WORDS[what, "unscored"] for what in ("column", "colour")}  # the text may leave them open
        problems = [p for p in sheet.scoring_problems() if p.msgid not in unscored]
        if problems:
            raise SheetError(say("sheet text %(text)s: %(problem)s", text=repr(text), problem=problems[0]))
        return sheet

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sheet) and self.board is other.board and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple:
        return (self.crossed, self.jokers_used, self.cols_upper, self.cols_lower,
                self.colours_upper, self.colours_lower)

    def __repr__(self) -> str:
        return f"Sheet({self.text()!r})"


def max_score(board: Board) -> int:
    """The highest score one sheet of ``board`` can reach (every first value, no star left, no
    joker spent): the engine's score of the full sheet. A board fact: the solo, race and team
    analyses bound their figures by it, mission files check score targets against it."""
    return Sheet(board, board.full_mask).with_all_completions_scored().score()


_KEY_LINE = re.compile(r"^\s*([a-z_]+)\s*:\s*(.*?)\s*$")


def parse_typed_sheet(text: str, board: Board, source: str = "<sheet>") -> Sheet:
    """Parse a typed sheet; SheetError names the file, line and cell of any mistake.

    Complete columns and colours score the first (upper) value unless listed in
    ``later_columns: A O`` / ``later_colours: y b``.
    """
    rows: list[tuple[int, str]] = []
    opts: dict[str, tuple[int, str]] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = _KEY_LINE.match(line)
        if m:
            key, value = m.groups()
            if key not in ("jokers_used", "later_columns", "later_colours"):
                raise SheetError(say("%(source)s, line %(line)s: unknown key %(key)s "
                                     "(known: jokers_used, later_columns, later_colours)",
                                     source=source, line=lineno, key=repr(key)))
            if key in opts:
                raise SheetError(say("%(source)s, line %(line)s: key %(key)s given twice", source=source, line=lineno,
                                     key=repr(key)))
            opts[key] = (lineno, value)
            continue
        rows.append((lineno, line.replace(" ", "")))
    if len(rows) != board.rows:
        raise SheetError(say("%(source)s: %(n)s sheet rows, expected %(rows)s rows of %(cols)s characters", source=source,
                             n=len(rows), rows=board.rows, cols=board.cols))
    crossed = 0
    for r, (lineno, line) in enumerate(rows):
        if len(line) != board.cols:
            raise SheetError(say("%(source)s, line %(line)s: row %(row)s has %(n)s characters, expected %(cols)s",
                                 source=source, line=lineno, row=r + 1, n=len(line), cols=board.cols))
        for c, ch in enumerate(line):
            cell = f"{COLUMN_LETTERS[c]}{r + 1}"
            if ch in "xX":
                crossed |= board.cell_bits[r * board.cols + c]
            elif ch == ".":
                continue
            elif ch.lower() in COLOURS:
                if ch.lower() != board.grid[r][c]:
                    raise SheetError(say("%(source)s, line %(line)s, cell %(cell)s: %(char)s but the %(board)s board has "
                                         "%(colour)s there", source=source, line=lineno, cell=cell, char=repr(ch),
                                         board=board.name, colour=say(TERMS[board.grid[r][c]])))
            else:
                raise SheetError(say("%(source)s, line %(line)s, cell %(cell)s: unexpected character %(char)s "
                                     "(use x for crossed, a colour letter or . for open)", source=source, line=lineno,
                                     cell=cell, char=repr(ch)))
    jokers_used = 0
    if "jokers_used" in opts:
        lineno, value = opts["jokers_used"]
        if not (is_decimal(value) and len(value) <= 3) or int(value) > board.jokers:
            raise SheetError(say("%(source)s, line %(line)s: jokers_used must be a whole number 0..%(most)s, got %(value)s",
                                 source=source, line=lineno, most=board.jokers, value=repr(value)))
        jokers_used = int(value)
    sheet = Sheet(board, crossed, jokers_used)
    later_cols = later_colours = 0
    if "later_columns" in opts:
        lineno, value = opts["later_columns"]
        for tok in value.replace(",", " ").split():
            if len(tok) != 1 or tok.upper() not in COLUMN_LETTERS[: board.cols]:
                raise SheetError(say("%(source)s, line %(line)s: later_columns: %(token)s is not a column letter",
                                     source=source, line=lineno, token=repr(tok)))
            later_cols |= 1 << COLUMN_LETTERS.index(tok.upper())
        if later_cols & ~sheet.complete_columns():
            raise SheetError(say("%(source)s, line %(line)s: later_columns names a column that is not complete",
                                 source=source, line=lineno))
    if "later_colours" in opts:
        lineno, value = opts["later_colours"]
        for tok in value.replace(",", " ").split():
            if tok.lower() not in COLOURS:
                raise SheetError(say("%(source)s, line %(line)s: later_colours: %(token)s is not a colour letter (y g b r o)",
                                     source=source, line=lineno, token=repr(tok)))
            later_colours |= 1 << COLOURS.index(tok.lower())
        if later_colours & ~sheet.complete_colours():
            raise SheetError(say("%(source)s, line %(line)s: later_colours names a colour that is not complete",
                                 source=source, line=lineno))
    return sheet.with_all_completions_scored(later_cols, later_colours)


def format_typed_sheet(sheet: Sheet) -> str:
    """The typed form: crossed cells as ``x``, open cells as their printed letter."""
    b = sheet.board
    lines = []
    for r in range(b.rows):
        row = "".join(
            "x" if sheet.crossed & b.cell_bits[r * b.cols + c] else b.printed[r][c]
            for c in range(b.cols)
        )
        lines.append(row)
    if sheet.jokers_used:
        lines.append(f"jokers_used: {sheet.jokers_used}")
    if sheet.cols_lower:
        lines.append("later_columns: " + " ".join(COLUMN_LETTERS[c] for c in range(b.cols) if sheet.cols_lower >> c & 1))
    if sheet.colours_lower:
        lines.append("later_colours: " + " ".join(ch for i, ch in enumerate(COLOURS) if sheet.colours_lower >> i & 1))
    return "\n".join(lines) + "\n"
