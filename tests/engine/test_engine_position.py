"""Positions: the text form round-trips, set-up positions equal played ones, bad text and
illegal positions get distinct errors, and the chance outcomes are the exact roll classes."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given, settings, strategies as st

from nochmal.agents import GreedyAgent
from nochmal.board import load_board
from nochmal.dice import COLOUR_FACES, NUMBER_FACES, Roll, seeded_roll
from nochmal.errors import IllegalPositionError, PositionTextError
from nochmal.game import CHANCE, Game, Mode
from nochmal.move import Move
from nochmal.play import play_game
from nochmal.position import Position
from nochmal.sheet import Sheet

BOARD = load_board("classic")
SETUPS = [(1, Mode.SOLO), (2, Mode.COMPETITIVE), (3, Mode.COMPETITIVE), (4, Mode.COMPETITIVE), (2, Mode.COOP)]


def observed(game: Game) -> tuple:
    player = game.current_player()
    deciding = player >= 0
    return (tuple(game.sheets), game.rolls_done, game.roll, game.claimed_columns, game.claimed_colours,
            game.race_claims, player, game.is_terminal(), game.roll_limit, game.dice_per_kind,
            game.available_dice() if deciding else None, game.legal_moves() if deciding else None,
            game.scores())


def played(players: int, mode: Mode, seed: int, steps: int) -> Game:
    """Seeded rolls, random legal moves (mostly placements, jokers included)."""
    rng = random.Random(seed)
    game = Game(BOARD, players, mode=mode, roll_limit=14 if mode is Mode.COOP else None)
    for _ in range(steps):
        if game.is_terminal():
            break
        if game.current_player() == CHANCE:
            game.apply_roll(seeded_roll(seed, game.rolls_done, game.dice_per_kind))
        else:
            moves = game.legal_moves()
            game.apply_move(moves[rng.randrange(1, len(moves))] if len(moves) > 1 and rng.random() < 0.9
                            else moves[0])
    return game


@settings(max_examples=60, deadline=None)
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 10 ** 6), steps=st.integers(0, 150))
def test_text_round_trips_and_set_up_equals_played(setup, seed, steps):
    players, mode = setup
    game = played(players, mode, seed, steps)
    position = game.position()
    text = position.text()
    assert Position.from_text(text, BOARD) == position
    assert Position.from_text(text, BOARD).text() == text
    set_up = Game.from_position(Position.from_text(text, BOARD))
    assert observed(set_up) == observed(game)
    assert set_up.position() == position
    # the moves of the roll in progress can be taken back to its start, not further
    for _ in position.moves:
        assert isinstance(set_up.pop(), Move)
    if position.roll is not None:
        assert set_up.pop() == position.roll
    assert set_up.undo_depth == 0


@pytest.mark.parametrize("players, mode", SETUPS)
def test_a_set_up_game_plays_on_exactly_like_the_original(players, mode):
    for seed in (1, 2):
        game = played(players, mode, seed, 25)
        twin = Game.from_position(game.position())
        agents = [GreedyAgent() for _ in range(players)]
        a = play_game(game, agents, seed)
        b = play_game(twin, agents, seed)
        assert a.scores() == b.scores() and a.rolls_done == b.rolls_done and a.sheets == b.sheets


def test_text_example_reads_as_documented():
    game = Game(BOARD, 2)
    game.apply_roll(Roll(("y", "b", "g"), ("3", "1", "2")))
    game.apply_move(Move.parse("y1 H6"))
    text = game.position().text()
    fields = text.split()
    assert fields[:6] == ["competitive", "0/-", "-/-", "p2", "ybg/312", "y1,H6"]
    assert fields[6] == Sheet.empty(BOARD).text()  # the sheet as at the roll's start


@pytest.mark.parametrize("text, field", [
    ("", "7 fields"),
    ("chess 0/- -/- chance - - {s}", "mode 'chess'"),
    ("solo x/30 -/- chance - - {s}", "rolls 'x/30'"),
    ("solo 0/30 AB -/- chance - - {s}", "claims 'AB'"),
    ("solo 0/30 Z/- chance - - {s}", "claimed columns: 'Z'"),
    ("solo 0/30 -/- p0x - - {s}", "to move 'p0x'"),
    ("solo \u00b2/30 -/- chance - - {s}", "rolls"),  # "²".isdigit() is True, int("²") a ValueError
    ("solo 0/\u00b2 -/- chance - - {s}", "rolls"),
    ("solo 0/30 -/- p\u00b2 - - {s}", "to move"),
    ("solo 0/30 -/- p1 yb/9 - {s}", "roll:"),
    ("solo 0/30 -/- p1 yb/12 q9 {s}", "moves:"),
    ("solo 0/30 -/- chance - - classic/zz/0/-/-/-/-", "sheet 1:"),
])
def test_bad_text_is_a_position_text_error_naming_the_field(text, field):
    with pytest.raises(PositionTextError, match=field):
        Position.from_text(text.replace("{s}", Sheet.empty(BOARD).text()), BOARD)


def _col_a_sheet(scored: bool) -> Sheet:
    sheet = Sheet(BOARD, BOARD.column_mask[0])
    return sheet.award(1) if scored else sheet


@pytest.mark.parametrize("position, reason", [
    (Position(Mode.SOLO, (Sheet.empty(BOARD),) * 2), "exactly 1 player"),
    (Position(Mode.COOP, (Sheet.empty(BOARD),) * 5), "1-4 players"),
    (Position(Mode.SOLO, (Sheet.empty(BOARD),), 31, 30), "31 rolls done"),
    (Position(Mode.SOLO, (_col_a_sheet(False),), 3, 30), "complete column is not scored"),
    (Position(Mode.SOLO, (_col_a_sheet(True),), 3, 30, claimed_columns=0), "claims"),
    (Position(Mode.SOLO, (Sheet(BOARD, BOARD.column_mask[0], cols_upper=1, cols_lower=1),), 3, 30),
     "scored twice"),
    (Position(Mode.SOLO, (Sheet.empty(BOARD),), 30, 30, roll=Roll(("y", "b"), ("1", "2"))), "over"),
    (Position(Mode.SOLO, (Sheet.empty(BOARD),), 3, 30, roll=Roll(("y", "b", "g"), ("1", "2", "3"))), "roll"),
    (Position(Mode.SOLO, (Sheet.empty(BOARD),), 3, 30, moves=(Move.parse("pass"),)), "no roll in progress"),
    (Position(Mode.SOLO, (Sheet.empty(BOARD),), 3, 30, roll=Roll(("y", "b"), ("1", "2")),
              moves=(Move.parse("pass"),)), "at most 0"),
    (Position(Mode.SOLO, (Sheet.empty(BOARD),), 3, 30, roll=Roll(("y", "b"), ("1", "2")),
              moves=(Move.parse("g1 H1"),)), "move 1"),
    (Position(Mode.SOLO, (Sheet.empty(BOARD),), 3, 30, to_move="p1"), "says p1 to move"),
])
def test_illegal_positions_say_why(position, reason):
    with pytest.raises(IllegalPositionError, match=reason):
        Game.from_position(position)


def test_illegal_position_from_well_formed_text_is_not_a_text_error():
    text = f"solo 3/30 -/- p1 - - {Sheet.empty(BOARD).text()}"
    position = Position.from_text(text, BOARD)  # well-formed
    with pytest.raises(IllegalPositionError, match="says p1 to move, but the facts give chance"):
        Game.from_position(position)


@pytest.mark.parametrize("dice", [2, 3])
def test_chance_outcomes_are_the_roll_classes_by_brute_force(dice):
    game = Game(BOARD, 1 if dice == 2 else 2)
    outcomes = game.chance_outcomes()
    # oracle: every ordered roll, counted by its sorted faces
    count = Counter()
    for faces in product(range(6), repeat=2 * dice):
        cols = tuple(COLOUR_FACES[f] for f in sorted(faces[:dice]))
        nums = tuple(NUMBER_FACES[f] for f in sorted(faces[dice:]))
        count[cols, nums] += 1
    total = 6 ** (2 * dice)
    assert len(outcomes) == len(count)
    for roll, p in outcomes:
        assert p == pytest.approx(float(Fraction(count[roll.colours, roll.numbers], total)), rel=1e-12)
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)


def test_chance_outcomes_only_at_a_chance_node():
    game = Game(BOARD, 1)
    game.apply_roll(Roll(("y", "b"), ("1", "2")))
    with pytest.raises(Exception, match="not to be rolled"):
        game.chance_outcomes()
