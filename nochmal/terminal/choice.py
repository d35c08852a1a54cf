"""The human-move grammar: what a person types for a choice, read into a ``Move``.

Two spellings, one grammar: the move notation of ``Move.parse`` (``b4 G4 G5 H4 H5``,
``xb4 ...``, ``b?4 ...``, ``pass``) and the dice form a player reads off the table
(``b 4 G4 G5 H4 H5``: the colour die, the number die, the cells). The dice form is
rewritten into the notation (a colour joker takes the colour of the named cells, a number
joker their count) and then parsed by ``Move.parse``; cell names go through
``nochmal.move.parse_cell`` everywhere.
"""

from __future__ import annotations

from nochmal.board import COLOURS, Board
from nochmal.dice import COLOUR_JOKER, NUMBER_JOKER
from nochmal.errors import IllegalMoveError, InvalidMoveError
from nochmal.move import Move, parse_cell

_COLOUR_DICE = set(COLOURS) | {COLOUR_JOKER}
_NUMBER_DICE = {"1", "2", "3", "4", "5", NUMBER_JOKER}


def board_cell(board: Board, token: str) -> str:
    """``token`` as a cell name of ``board``: InvalidMoveError when it is no cell name,
    IllegalMoveError when the cell is not on this board."""
    name = parse_cell(token)
    try:
        board.bit(name)
    except KeyError:
        raise IllegalMoveError(f"cell {name} is not on the {board.name} board") from None
    return name


def dice_form_notation(tokens: list[str], board: Board) -> str:
    """The move notation of a dice-form choice ``[colour die, number die, cell, ...]``."""
    colour_die, number_die = tokens[0].lower(), tokens[1]
    cells = [board_cell(board, tok) for tok in tokens[2:]]
    if not cells:
        raise InvalidMoveError("name the cells to cross after the dice, e.g. b 4 G4 G5 H4 H5")
    head = colour_die
    if colour_die == COLOUR_JOKER:
        colours = sorted({board.colour_of_bit(board.bit(c)) for c in cells})
        if len(colours) > 1:
            raise IllegalMoveError(f"the colour joker stands for one colour, but {' '.join(cells)} "
                                   f"are of colours {' '.join(colours)}")
        head = COLOUR_JOKER + colours[0]
    head += f"{NUMBER_JOKER}{len(cells)}" if number_die == NUMBER_JOKER else number_die
    return " ".join([head, *cells])


def parse_choice(text: str, board: Board) -> Move:
    """A human's choice: ``b 4 G4 G5 H4 H5`` (dice plus cells), the Move notation, or pass.

    InvalidMoveError for bad notation, IllegalMoveError for cells that are not on the
    board; legality in the position is the engine's job.
    """
    tokens = text.replace(",", " ").split()
    if len(tokens) >= 2 and tokens[0].lower() in _COLOUR_DICE and tokens[1] in _NUMBER_DICE:
        text = dice_form_notation(tokens, board)
    move = Move.parse(text)
    for name in move.cells:
        board_cell(board, name)
    return move
