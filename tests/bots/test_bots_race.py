"""The bots understand the race: a second colour ends the game, which they do only when ahead;
claimed columns are worth their later value; an active player prices the dice it leaves."""

from __future__ import annotations

import pytest

from nochmal.bots.registry import make_agent
from nochmal.board import COLOURS, load_board
from nochmal.bots.heuristic import Engine
from nochmal.dice import Roll
from nochmal.game import Game, Mode
from nochmal.position import Position
from nochmal.sheet import Sheet

BOARD = load_board("classic")
ALL = [BOARD.cell_name(b) for b in range(BOARD.n_cells)]


def _cells_of_colour(colour: str) -> list[str]:
    return BOARD.cells_of(BOARD.colour_mask[colour])


def _race_position(opponent_cells: list[str]) -> Game:
    """Player 0 (active, roll 7) has yellow and all green but H1; a g1 on H1 ends the game."""
    mine = _cells_of_colour("y") + [c for c in _cells_of_colour("g") if c != "H1"]
    sheets = (Sheet.from_cells(BOARD, mine), Sheet.from_cells(BOARD, opponent_cells))
    game = Game.from_position(Position(Mode.COMPETITIVE, sheets, 6, roll=Roll(("g", "r", "o"), ("1", "2", "3"))))
    assert game.current_player() == 0 and game.active_player == 0
    return game


def _ends_game(move) -> bool:
    return move.colour == "g" and move.cells == ("H1",)


@pytest.mark.parametrize("bot", ["heuristic", "lookahead"])
def test_ends_the_race_when_ahead(bot):
    game = _race_position([])  # the opponent has nothing: -22
    move = make_agent(bot, 1).choose(game)
    assert _ends_game(move)
    game.apply_move(move)
    game.apply_move(make_agent("greedy").choose(game))
    assert game.is_terminal() and game.winners() == [0]


@pytest.mark.parametrize("bot", ["heuristic", "lookahead"])
def test_does_not_end_the_race_when_behind(bot):
    # the opponent: everything but A1 A2 A4 A5 (green, orange, blue, red): yellow and
    # columns B..O complete, every star crossed -> far ahead
    opp = [c for c in ALL if c not in ("A1", "A2", "A4", "A5")]
    game = _race_position(opp)
    assert game.sheets[1].score() > 40
    move = make_agent(bot, 1).choose(game)
    assert not _ends_game(move)
    game.apply_move(move)  # legal, and the game goes on
    game.apply_move(make_agent("greedy").choose(game))
    assert not game.is_terminal()


def test_claimed_column_counts_at_later_value():
    game = Game(BOARD, 2, mode="competitive")
    engine = Engine()
    ev = engine.evaluator(game)
    before = ev.context(game, 0, 10)
    # someone else completed column A and yellow in an earlier roll
    other = Sheet.from_cells(BOARD, BOARD.cells_of(BOARD.column_mask[0] | BOARD.colour_mask["y"]))
    game = Game.from_position(Position(Mode.COMPETITIVE, (Sheet.empty(BOARD), other), 6))
    assert game.claimed_columns == 1 << 0 and game.claimed_colours == 1 << COLOURS.index("y")
    after = ev.context(game, 0, 10)
    assert before.col_value[0] == BOARD.column_points_first[0] == 5
    assert after.col_value[0] == BOARD.column_points_later[0] == 3
    assert after.colour_value[0] == BOARD.colour_bonus_later and before.colour_value[0] == BOARD.colour_bonus_first
    solo = Game(BOARD, 1, mode="solo")
    solo.claimed_columns = 1  # never used in solo: upper values always
    assert ev.context(solo, 0, 10).col_value[0] == 5


def test_active_player_is_charged_for_the_dice_it_leaves():
    # roll 7 of a 2-player race: the active player's pick decides the passive player's dice
    empty = Sheet.empty(BOARD)
    game = Game.from_position(Position(Mode.COMPETITIVE, (empty, empty), 6, roll=Roll(("y", "b", "g"), ("3", "2", "1"))))
    engine = Engine()
    plain = {c: v for v, c in engine.rank(game, race=False)}
    raced = {c: v for v, c in engine.rank(game, race=True)}
    charges = {c: plain[c] - raced[c] for c in plain}
    assert all(ch >= -1e-9 for ch in charges.values())
    assert len({round(ch, 6) for ch in charges.values()}) > 1  # different picks leave different dice
    # passive players from roll 4 on are not charged (nothing is left after them)
    game.apply_move(make_agent("heuristic").choose(game))
    plain = {c: v for v, c in engine.rank(game, race=False)}
    raced = {c: v for v, c in engine.rank(game, race=True)}
    assert plain == raced
