"""The human-move grammar (nochmal.terminal.choice) against the move notation.

Oracle: ``Move.parse(str(move))`` of the engine's own legal moves. Every legal move typed in
the notation or in the dice form must read back as exactly that move; bad cell names and
cells off the board get the two distinct errors.
"""

from __future__ import annotations

import pytest

from nochmal.board import load_board
from nochmal.dice import seeded_roll
from nochmal.errors import IllegalMoveError, InvalidMoveError
from nochmal.game import Game
from nochmal.move import PASS, Move, parse_cell
from nochmal.terminal.choice import parse_choice


def dice_typed(move: Move) -> str:
    """The move as a player reads it off the table: colour die, number die, cells."""
    return " ".join([move.colour_face, move.number_face, *(c.lower() for c in move.cells)])


@pytest.mark.parametrize("seed", [1, 7, 23])
def test_every_legal_move_reads_back_in_both_spellings(seed):
    board = load_board("classic")
    game = Game(board, 1, mode="solo")
    for t in range(6):
        game.apply_roll(seeded_roll(seed, t, game.dice_per_kind))
        legal = game.legal_moves()
        for move in legal:
            assert parse_choice(str(move), board) == move
            if not move.is_pass:
                assert parse_choice(dice_typed(move), board) == move
        # walk on with a non-pass move so later rolls see crossed cells
        game.apply_move(next((m for m in legal if not m.is_pass), PASS))


def test_dice_form_resolves_jokers_from_the_cells():
    board = load_board("classic")
    # H4 H5 G4 G5 are the blue block next to the start column of the classic sheet
    colour = board.colour_of_bit(board.bit("H4"))
    assert parse_choice("x ? H4", board) == Move.of(colour, 1, ["H4"], True, True)
    assert parse_choice(f"{colour} ? h4", board) == Move.of(colour, 1, ["H4"], False, True)


@pytest.mark.parametrize("text, error, reason", [
    ("b 4 H99x", InvalidMoveError, "bad cell name 'H99x'"),
    ("b 1 Z9", IllegalMoveError, "cell Z9 is not on the classic board"),
    ("b1 Z9", IllegalMoveError, "cell Z9 is not on the classic board"),
    ("b 4", InvalidMoveError, "name the cells"),
    ("b 2 H4 h4", InvalidMoveError, "named twice"),
    ("x 2 A1 H4", IllegalMoveError, "colour joker stands for one colour"),
])
def test_errors_name_the_problem(text: str, error: type, reason: str):
    with pytest.raises(error, match=reason):
        parse_choice(text, load_board("classic"))


def test_parse_cell_is_the_one_cell_grammar():
    assert parse_cell("h4") == "H4" and parse_cell("O7") == "O7"
    for bad in ("", "H", "4H", "H0", "HH4", "H100"):
        with pytest.raises(InvalidMoveError):
            parse_cell(bad)
