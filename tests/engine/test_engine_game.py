"""The game state machine: races for first/later values with same-roll ties, the
two-colour end with the roll finished, tie-break and shared wins, solo (30 rolls, upper
values, rating table, the solo_ends_on_second_colour option). Totals computed by hand."""

from __future__ import annotations

from dataclasses import replace

import pytest

import nochmal as nm
from nochmal.bots import make_agent
from nochmal.dice import Roll
from nochmal.game import CHANCE, TERMINAL, Game, rating
from nochmal.move import PASS, Move
from nochmal.play import play_game
from nochmal.rules import RuleSettings
from nochmal.sheet import Sheet

CLASSIC = nm.load_board("classic")
GRID = ["gggyyyyGbbbOyyy", "ogYgYyoorBboogg", "BgrgggGrrryyogg", "brrgoObbggyyoRb",
        "roooorbbooorrrr", "rBbRrrryYoRbbbO", "yybbbbryyyggGoo"]
LETTERS = "ABCDEFGHIJKLMNO"
G1 = Roll(("g", "y", "b"), ("1", "2", "3"))  # offers green 1 and yellow 1 to everybody
Y1 = Roll(("y", "r", "b"), ("1", "4", "5"))


def cells_of_colour(colour: str) -> set[str]:
    return {f"{LETTERS[c]}{r + 1}" for r in range(7) for c in range(15) if GRID[r][c].lower() == colour}


def preset(game: Game, player: int, cells, jokers_used: int = 0) -> Game:
    """The game set up with these crosses for ``player`` (a position between rolls)."""
    position = game.position()
    sheets = list(position.sheets)
    sheets[player] = Sheet(CLASSIC, CLASSIC.mask_of(cells), jokers_used)
    return Game.from_position(replace(position, sheets=tuple(sheets)), game.rules, game.stop_after_roll)


def roll_all(game: Game, roll: Roll, moves: list[str]) -> None:
    assert game.current_player() == CHANCE
    game.apply_roll(roll)
    for text in moves:
        game.apply_move(Move.parse(text))
    assert game.roll is None


COLUMN_A_BUT_A1 = ["A2", "A3", "A4", "A5", "A6", "A7", "B1"]  # B1 (green) anchors A1


def test_same_roll_tie_for_a_column_and_a_later_completer():
    game = Game(CLASSIC, 3)
    for p in range(3):
        game = preset(game, p, COLUMN_A_BUT_A1)
    roll_all(game, G1, ["g1 A1", "g1 A1", "pass"])  # players 0 and 1 complete column A together
    roll_all(game, G1, ["pass", "g1 A1", "pass"])    # roll 2: player 1 active, player 2 later
    assert [s.cols_upper for s in game.sheets] == [1, 1, 0]
    assert [s.cols_lower for s in game.sheets] == [0, 0, 1]
    # column A: 5 first, 3 later; star A3 crossed (14 left: -28); 8 jokers
    assert game.scores() == [5 + 8 - 28, 5 + 8 - 28, 3 + 8 - 28]
    assert game.claimed_columns == 1


def test_a_column_scores_once():
    game = Game(CLASSIC, 2)
    game = preset(game, 0, COLUMN_A_BUT_A1)
    roll_all(game, G1, ["g1 A1", "pass"])
    roll_all(game, G1, ["pass", "pass"])
    assert game.sheets[0].cols_upper == 1 and game.sheets[0].cols_lower == 0
    assert game.scores()[0] == 5 + 8 - 28


TWO_COLOURS_BUT = (cells_of_colour("g") | cells_of_colour("y")) - {"A1", "H6"}


def test_by_hand_the_two_colour_position():
    # green stars H1 G3 M7, yellow stars C2 E2 I6; no column is all green and yellow
    assert {"H1", "G3", "M7", "C2", "E2", "I6"} <= cells_of_colour("g") | cells_of_colour("y")
    for c in range(15):
        assert {GRID[r][c].lower() for r in range(7)} - set("gy")


def test_two_colour_end_finishes_the_roll_tie_break_by_jokers():
    game = Game(CLASSIC, 2)
    game = preset(game, 0, TWO_COLOURS_BUT)
    game = preset(game, 1, TWO_COLOURS_BUT | {"A3"}, jokers_used=2)  # one more star, two jokers fewer
    roll_all(game, G1, ["g1 A1", "g1 A1"])  # both complete green in the same roll: 5 each
    assert not game.is_terminal()
    assert [s.colours_upper for s in game.sheets] == [0b10, 0b10]
    roll_all(game, G1, ["pass", "pass"])
    game.apply_roll(Y1)  # roll 3: player 0 active
    game.apply_move(Move.parse("y1 H6"))  # player 0 completes a second colour...
    assert not game.is_terminal()
    assert game.current_player() == 1  # ...and the passive player still decides
    game.apply_move(Move.parse("y1 H6"))
    assert game.is_terminal() and game.current_player() == TERMINAL
    # both: colours 5 + 5; player 0: 9 stars left (-18), 8 jokers -> 0;
    # player 1: 8 stars left (-16), 6 jokers -> 0: a tie, player 0 has more jokers left
    assert game.scores() == [10 + 8 - 18, 10 + 6 - 16] == [0, 0]
    assert game.winners() == [0]
    assert game.returns() == [1.0, 0.0]
    with pytest.raises(nm.NochmalError):
        game.apply_roll(Y1)
    with pytest.raises(nm.IllegalMoveError):
        game.check_move(PASS)


def test_shared_win_and_later_colour_bonus():
    game = Game(CLASSIC, 3)
    for p in range(3):
        game = preset(game, p, TWO_COLOURS_BUT)
    roll_all(game, G1, ["g1 A1", "g1 A1", "pass"])
    roll_all(game, G1, ["pass", "g1 A1", "pass"])  # roll 2: player 1 active, player 2 completes green later
    assert [s.colours_upper for s in game.sheets] == [0b10, 0b10, 0]
    assert [s.colours_lower for s in game.sheets] == [0, 0, 0b10]
    assert not game.is_terminal()
    roll_all(game, G1, ["pass", "pass", "pass"])  # roll 3, player 2 active
    # roll 4, player 0 active: the roll has two yellow dice and two 1s, so after the
    # active player sets one pair aside the passive players can still take yellow 1
    game.apply_roll(Roll(("y", "y", "b"), ("1", "1", "5")))
    game.apply_move(Move.parse("y1 H6"))
    game.apply_move(Move.parse("y1 H6"))   # the second yellow die and second 1 are left
    game.apply_move(Move.parse("y1 H6"))
    assert game.is_terminal()
    # players 0, 1: 5 + 5, 9 stars left, 8 jokers -> 0; player 2: 3 + 5 -> -2
    assert game.scores() == [0, 0, -2]
    assert game.winners() == [0, 1]
    assert game.returns() == [1.0, 1.0, 0.0]


def test_passive_player_may_trigger_the_end():
    game = Game(CLASSIC, 2)
    game = preset(game, 1, TWO_COLOURS_BUT)
    roll_all(game, G1, ["pass", "g1 A1"])
    roll_all(game, G1, ["pass", "pass"])
    assert not game.is_terminal()
    roll_all(game, Y1, ["pass", "y1 H6"])  # roll 3: player 0 active, player 1 passive
    assert game.is_terminal()
    assert game.winners() == [1]


def test_one_colour_does_not_end_the_game():
    game = Game(CLASSIC, 2)
    game = preset(game, 0, cells_of_colour("g") - {"A1"})
    roll_all(game, G1, ["g1 A1", "pass"])
    assert game.sheets[0].complete_colours() == 0b10 and not game.is_terminal()


# --- solo -------------------------------------------------------------------------------

class Passer:
    name = "passer"

    def choose(self, game):
        return PASS


def test_solo_lasts_30_rolls():
    game = play_game(Game(CLASSIC, 1, mode="solo"), [Passer()], seed=3)
    assert game.is_terminal() and game.rolls_done == 30 and len(game.history) == 30
    assert game.scores() == [-22] and game.returns() == [-22.0]
    short = play_game(Game(CLASSIC, 1, RuleSettings(solo_rolls=5), "solo"), [Passer()], seed=3)
    assert short.rolls_done == 5


SOLO_G = Roll(("g", "y"), ("1", "2"))
SOLO_Y = Roll(("y", "r"), ("1", "4"))


def test_solo_scores_upper_values_and_5_per_colour():
    game = Game(CLASSIC, 1, mode="solo")
    game = preset(game, 0, TWO_COLOURS_BUT | set(COLUMN_A_BUT_A1))
    roll_all(game, SOLO_G, ["g1 A1"])   # completes green and column A
    roll_all(game, SOLO_Y, ["y1 H6"])   # a second colour: the solo game goes on by default
    assert not game.is_terminal()
    # column A 5, colours 5 + 5, 8 jokers; stars crossed: 6 of green/yellow + A3 -> 8 left
    assert game.sheets[0].score_breakdown().to_dict() == {
        "columns": 5, "colours": 10, "jokers": 8, "stars": -16, "total": 7}


def test_solo_option_ends_on_second_colour():
    game = Game(CLASSIC, 1, RuleSettings(solo_ends_on_second_colour=True), mode="solo")
    game = preset(game, 0, TWO_COLOURS_BUT)
    roll_all(game, SOLO_G, ["g1 A1"])
    assert not game.is_terminal()
    roll_all(game, SOLO_Y, ["y1 H6"])
    assert game.is_terminal() and game.rolls_done == 2


@pytest.mark.parametrize("score,verdict", [
    (60, "superhero"), (41, "superhero"), (40, "exceptional"), (37, "exceptional"),
    (36, "professional"), (33, "professional"), (32, "super"), (29, "super"),
    (28, "excellent"), (25, "excellent"), (24, "great"), (21, "great"),
    (20, "experienced"), (17, "experienced"), (16, "good"), (13, "good"),
    (12, "getting there"), (9, "getting there"), (8, "not bad"), (5, "not bad"),
    (4, "needs practice"), (1, "needs practice"), (0, "taking part counts"),
    (-1, "try again"), (-22, "try again"),
])
def test_rating_table_boundaries(score, verdict):
    assert rating(score) == verdict


# --- the state machine itself -----------------------------------------------------------

def test_turn_order_rotates_clockwise():
    game = Game(CLASSIC, 4)
    seen = []
    for t in range(5):
        game.apply_roll(G1)
        order = []
        while game.roll is not None:
            order.append(game.current_player())
            game.apply_move(PASS)
        seen.append(order)
    assert seen == [[0, 1, 2, 3], [1, 2, 3, 0], [2, 3, 0, 1], [3, 0, 1, 2], [0, 1, 2, 3]]


def test_clone_is_independent():
    game = Game(CLASSIC, 2)
    game.apply_roll(G1)
    other = game.clone()
    other.apply_move(Move.parse("g1 H1"))
    assert game.current_player() == 0 and game.sheets[0].crossed == 0
    assert other.current_player() == 1 and other.sheets[0].crossed == CLASSIC.mask_of(["H1"])
    assert len(game.history[-1][1]) == 0


def test_bad_game_setups():
    with pytest.raises(nm.NochmalError, match="solo game has exactly 1 player"):
        Game(CLASSIC, 2, mode="solo")
    with pytest.raises(nm.NochmalError, match="1-6 players"):
        Game(CLASSIC, 7)
    with pytest.raises(nm.NochmalError, match="unknown mode"):
        Game(CLASSIC, 2, mode="chess")
    game = Game(CLASSIC, 2)
    with pytest.raises(nm.NochmalError, match="no decision is pending"):
        game.available_dice()
    game.apply_roll(G1)
    with pytest.raises(nm.NochmalError, match="not to be rolled now"):
        game.apply_roll(G1)


# --- move notation ----------------------------------------------------------------------

@pytest.mark.parametrize("text,colour,count,cells,cj,nj", [
    ("b4 G4 G5 H4 H5", "b", 4, ("G4", "H4", "G5", "H5"), False, False),  # cells kept in reading order
    ("xb4 h5 g5 h4 g4", "b", 4, ("G4", "H4", "G5", "H5"), True, False),
    ("b?2 H4,H5", "b", 2, ("H4", "H5"), False, True),
    ("XY?1 H6", "y", 1, ("H6",), True, True),
])
def test_move_notation(text, colour, count, cells, cj, nj):
    move = Move.parse(text)
    assert (move.colour, move.count, move.cells, move.colour_joker, move.number_joker) == (colour, count, cells, cj, nj)
    assert move.joker_cost == cj + nj
    assert Move.parse(str(move)) == move
    assert Move.parse("pass") == PASS and str(PASS) == "pass" and PASS.is_pass


@pytest.mark.parametrize("text,pattern", [
    ("", "empty move"), ("b6 H1", "bad choice"), ("p2 H1 H2", "bad choice"), ("b0", "bad choice"),
    ("b2 H1 H1", "named twice"), ("b1 11", "bad cell name"), ("b1 HH", "bad cell name"),
])
def test_bad_move_notation(text, pattern):
    with pytest.raises(nm.InvalidMoveError, match=pattern):
        Move.parse(text)


def test_every_listed_move_round_trips_and_is_accepted():
    game = Game(CLASSIC, 2)
    agents = [make_agent("random", 1), make_agent("greedy")]
    for _ in range(60):
        if game.is_terminal():
            break
        if game.current_player() == CHANCE:
            game.apply_roll(nm.seeded_roll(9, game.rolls_done))
            continue
        moves = game.legal_moves()
        assert moves[0] == PASS and len(set(moves)) == len(moves)
        for move in moves:
            assert Move.parse(str(move)) == move
            mask = game.check_move(move)
            assert mask.bit_count() == move.count
        game.apply_move(agents[game.current_player()].choose(game))
