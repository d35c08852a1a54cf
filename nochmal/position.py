"""A whole game position as plain data and as one line of text (python-chess's FEN).

A ``Position`` is what a game is at one moment: the mode, the sheets, the rolls done (and
the roll limit), what the race has claimed, and the roll in progress with the moves already
made in it, in turn order. The sheets are those at the *start* of the roll in progress (at
a roll boundary: the current sheets), so that ``Game.from_position`` can replay the roll's
moves through the engine and every set-up position is one the rules can reach from its
roll start. Whose turn it is and whether the game is over follow from these facts; the text
writes them too, for a reader, and reading checks them.

Text, fields separated by single spaces (``Position.text`` / ``Position.from_text``)::

    competitive 7/- H/y p2 ybx/3?5 b4,G4,G5 classic/... classic/...

1. mode: ``solo``, ``competitive`` or ``coop``;
2. rolls done / roll limit (``-``: none);
3. claimed columns / claimed colours (letters as in ``Sheet.text``, ``-``: none);
4. to move: ``chance`` (the dice are to be rolled), ``p1``.. (that player decides), ``over``,
   or ``?`` (not stated);
5. the roll in progress (``Roll.text``) or ``-``;
6. the moves already made in it, ``;``-separated, cells joined by ``,`` (``Move.parse``
   reads them), or ``-``;
7. one ``Sheet.text`` per player.

Bad text raises PositionTextError; well-formed text of a position the rules cannot reach
(or that does not fit the mode) raises IllegalPositionError (from ``Game.from_position``).
"""

from __future__ import annotations

from dataclasses import dataclass

from nochmal.board import COLOURS, COLUMN_LETTERS, Board
from nochmal.dice import Roll
from nochmal.errors import NochmalError, PositionTextError
from nochmal.modes import MODES, Mode
from nochmal.move import Move
from nochmal.sheet import Sheet, letters_mask, mask_letters
from nochmal.fileio import is_decimal

CHANCE_TEXT = "chance"
OVER_TEXT = "over"
NONE_TEXT = "-"
UNSTATED_TEXT = "?"  # to move: not stated, set-up works it out


@dataclass(frozen=True)
class Position:
    mode: Mode
    sheets: tuple[Sheet, ...]  # per player, at the start of the roll in progress
    rolls_done: int = 0
    roll_limit: int | None = None
    # bit c: column c / bit i: COLOURS[i] scored by someone in an earlier roll; always the
    # union of what the sheets have scored, so None means "derive it" (text writes it out)
    claimed_columns: int | None = None
    claimed_colours: int | None = None
    roll: Roll | None = None  # the roll in progress
    moves: tuple[Move, ...] = ()  # made in the roll in progress, in turn order
    to_move: str | None = None  # derived; written for a reader, checked on set-up if given

    @property
    def board(self) -> Board:
        return self.sheets[0].board

    def scored(self) -> tuple[int, int]:
        """(columns, colours) some sheet has scored: what the claims must be."""
        cols = colours = 0
        for s in self.sheets:
            cols |= s.cols_upper | s.cols_lower
            colours |= s.colours_upper | s.colours_lower
        return cols, colours

    def claims(self) -> tuple[int, int]:
        """(claimed columns, claimed colours): as given, else derived from the sheets."""
        cols, colours = self.scored()
        return (cols if self.claimed_columns is None else self.claimed_columns,
                colours if self.claimed_colours is None else self.claimed_colours)

    def text(self) -> str:
        board = self.board
        cols = COLUMN_LETTERS[: board.cols]
        limit = NONE_TEXT if self.roll_limit is None else str(self.roll_limit)
        claimed_columns, claimed_colours = self.claims()
        moves = ";".join(str(m).replace(" ", ",") for m in self.moves) or NONE_TEXT
        return " ".join([
            str(self.mode), f"{self.rolls_done}/{limit}",
            f"{mask_letters(claimed_columns, cols)}/{mask_letters(claimed_colours, COLOURS)}",
            self.to_move or UNSTATED_TEXT, self.roll.text() if self.roll is not None else NONE_TEXT, moves,
            *(s.text() for s in self.sheets)])

    @classmethod
    def from_text(cls, text: str, board: Board) -> "Position":
        """Parse the text form; PositionTextError names the field that is wrong. Whether the
        position is legal is Game.from_position's question."""
        fields = text.split()
        if len(fields) < 7:
            raise PositionTextError(f"position text: expected mode, rolls, claims, to move, roll, moves and "
                                    f"at least one sheet (7 fields), got {len(fields)}")
        mode_text, rolls, claims, to_move, roll_text, moves_text, *sheet_texts = fields
        try:
            mode = Mode(mode_text)
        except ValueError:
            raise PositionTextError(f"position text: mode {mode_text!r}: expected one of {', '.join(MODES)}") from None
        done, _, limit = rolls.partition("/")
        if not is_decimal(done) or not (limit == NONE_TEXT or is_decimal(limit)):
            raise PositionTextError(f"position text: rolls {rolls!r}: expected done/limit like 7/30 or 7/-")
        col_text, sep, colour_text = claims.partition("/")
        if not sep:
            raise PositionTextError(f"position text: claims {claims!r}: expected columns/colours like H/y or -/-")
        claimed_columns = _parse_letters(col_text, COLUMN_LETTERS[: board.cols], "claimed columns")
        claimed_colours = _parse_letters(colour_text, COLOURS, "claimed colours")
        if not (to_move in (CHANCE_TEXT, OVER_TEXT, UNSTATED_TEXT) or to_move[:1] == "p" and is_decimal(to_move[1:])):
            raise PositionTextError(f"position text: to move {to_move!r}: expected chance, over, p1, p2, ... "
                                    f"or {UNSTATED_TEXT} (not stated)")
        roll = None
        if roll_text != NONE_TEXT:
            try:
                roll = Roll.from_text(roll_text)
            except NochmalError as exc:
                raise PositionTextError(f"position text: roll: {exc}") from None
        moves: tuple[Move, ...] = ()
        if moves_text != NONE_TEXT:
            try:
                moves = tuple(Move.parse(m) for m in moves_text.split(";"))
            except NochmalError as exc:
                raise PositionTextError(f"position text: moves: {exc}") from None
        sheets = []
        for i, st in enumerate(sheet_texts, 1):
            try:
                sheets.append(Sheet.from_text(st, board))
            except NochmalError as exc:
                raise PositionTextError(f"position text: sheet {i}: {exc}") from None
        return cls(mode, tuple(sheets), int(done), None if limit == NONE_TEXT else int(limit),
                   claimed_columns, claimed_colours, roll, moves,
                   None if to_move == UNSTATED_TEXT else to_move)


def player_text(player: int) -> str:
    """``p1`` for player 0: the to-move field of the text."""
    return f"p{player + 1}"


def _parse_letters(field: str, alphabet: str, what: str) -> int:
    try:
        return letters_mask(field, alphabet)
    except ValueError as exc:
        raise PositionTextError(f"position text: {what}: {exc.args[0]!r} is not one of {alphabet}") from None
