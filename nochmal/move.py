"""The move value: one choice (dice, resolved colour and count, cells) or a pass.

Notation (``Move.parse`` / ``str(move)``), e.g. ``b4 G4 G5 H4 H5``:
the first token is ``[x]<colour>[?]<count>``: ``x`` marks the colour joker used as that
colour, ``?`` the number joker used as that count (``xb?4``: both jokers, blue 4). Then the
cells. ``pass`` passes. Moves are independent of a board; the engine checks them against one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nochmal.errors import InvalidMoveError
from nochmal.i18n import say

COLOUR_JOKER = "x"  # the colour die's joker face (any colour, one joker mark)
NUMBER_JOKER = "?"  # the number die's joker face (any count 1-5, one joker mark)

_HEAD = re.compile(r"^(x?)([ygbro])(\??)([1-5])$")
_CELL = re.compile(r"^[A-Z][1-9][0-9]?$")


@dataclass(frozen=True, slots=True)
class Move:
    colour: str = ""
    count: int = 0
    cells: tuple[str, ...] = ()
    colour_joker: bool = False
    number_joker: bool = False

    @property
    def is_pass(self) -> bool:
        return self.count == 0

    @property
    def joker_cost(self) -> int:
        return self.colour_joker + self.number_joker

    @property
    def colour_face(self) -> str:
        return COLOUR_JOKER if self.colour_joker else self.colour

    @property
    def number_face(self) -> str:
        return NUMBER_JOKER if self.number_joker else str(self.count)

    @classmethod
    def parse(cls, text: str) -> "Move":
        """Parse the notation; InvalidMoveError on malformed text (legality is not checked)."""
        tokens = text.replace(",", " ").split()
        if not tokens:
            raise InvalidMoveError(say("empty move"))
        if len(tokens) == 1 and tokens[0].lower() == "pass":
            return PASS
        m = _HEAD.match(tokens[0].lower())
        if not m:
            raise InvalidMoveError(say("bad choice %(choice)s: expected colour and count like b4, xb4 (colour joker), "
                                       "b?4 (number joker) or pass", choice=repr(tokens[0])))
        xj, colour, qj, count = m.groups()
        cells = [parse_cell(tok) for tok in tokens[1:]]
        if len(set(cells)) != len(cells):
            raise InvalidMoveError(say("a cell is named twice"))
        return cls(colour, int(count), tuple(sorted(cells, key=_cell_order)), bool(xj), bool(qj))

    @classmethod
    def of(cls, colour: str, count: int, cells, colour_joker: bool = False,
           number_joker: bool = False) -> "Move":
        return cls(colour, count, tuple(sorted(cells, key=_cell_order)), colour_joker, number_joker)

    def __str__(self) -> str:
        if self.is_pass:
            return "pass"
        head = (COLOUR_JOKER if self.colour_joker else "") + self.colour + (NUMBER_JOKER if self.number_joker else "") + str(self.count)
        return " ".join((head, *self.cells))

    def to_json(self) -> str:
        return str(self)


def parse_cell(token: str) -> str:
    """A cell name like ``h4`` in its canonical form ``H4``; InvalidMoveError if it is not one.

    The one cell-name grammar of the project (moves, human input, cell lists); whether the
    cell lies on a given board is the board's question (``Board.bit``).
    """
    cell = token.upper()
    if not _CELL.match(cell):
        raise InvalidMoveError(say("bad cell name %(cell)s: expected a column letter and row, like H4", cell=repr(token)))
    return cell


def _cell_order(name: str) -> tuple[int, int]:
    """Reading order: row, then column."""
    return int(name[1:]), ord(name[0])


PASS = Move()
