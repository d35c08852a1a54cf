"""The choice value: one way to use a roll, the same shape for the engine, the bots and the planner.

A ``Choice`` is the pair of dice picked (``colour_face``, ``number_face``, jokers ``x`` and
``?`` included), what they count as (``colour``, ``count``), the joker marks that costs
(``cost``) and, once placed, the cells crossed as a bit mask of the board (``mask``; 0 while
only the dice are chosen, as in ``Game.choices()``). ``Move`` is its board-independent
printed form (cells by name); ``Choice.move(board)`` converts.

A NamedTuple rather than a dataclass: bots and the planner build and read these in their
inner loops, and tuple construction and field access are the cheapest Python offers.
A pass is not a Choice: where a pass is ranked beside choices it is ``None``.
"""

from __future__ import annotations

from typing import NamedTuple

from nochmal.move import COLOUR_JOKER, NUMBER_JOKER, Move

_tuple_new = tuple.__new__


class Choice(NamedTuple):
    colour_face: str
    number_face: str
    colour: str
    count: int
    cost: int  # joker marks spent: one per joker face used
    mask: int = 0  # the cells crossed (0: not placed yet)

    def placed(self, mask: int) -> "Choice":
        """The same dice and resolution crossing ``mask``."""
        return _tuple_new(Choice, self[:5] + (mask,))  # skips the generated __new__: hot in the bots

    def move(self, board) -> Move:
        """The printable, board-independent Move of this placed choice."""
        return Move.of(self.colour, self.count, board.cells_of(self.mask),
                       self.colour_face == COLOUR_JOKER, self.number_face == NUMBER_JOKER)


def tie_key(choice: Choice | None) -> tuple[int, int, int]:
    """The one deterministic tie-break between equally valued choices (larger wins): a pass
    first, then fewer jokers, then more crosses, then the larger mask."""
    if choice is None:
        return (1, 0, 0)
    return (-choice.cost, choice.count, choice.mask)
