"""Every bot only makes legal moves and is deterministic for a seed.

Legality is checked twice per decision: against an independent brute-force oracle written
here from docs/rules.md §3 (colour, one block, connected among themselves, anchored, uncrossed,
dice available, jokers affordable), and by the engine's own apply_move, over whole seeded
games (solo and tables of 2-4 to their end) and hand-built corner positions (jokers
exhausted, last roll, only joker dice).
"""

from __future__ import annotations

import pytest

from nochmal.bots.registry import make_agent
from nochmal.board import load_board
from nochmal.dice import Roll, seeded_roll
from nochmal.game import Game, Mode
from nochmal.position import Position
from nochmal.move import PASS
from nochmal.sheet import Sheet

BOARD = load_board("classic")
STRONG = ["heuristic", "ntuple", "lookahead", "lookahead1", "easy", "medium", "hard"]


def oracle_legal(game: Game, move) -> bool:
    """docs/rules.md §3 from scratch on cell names (no engine placement code)."""
    if move.is_pass:
        return True
    b = game.board
    sheet = game.sheets[game.current_player()]
    dice = game.available_dice()
    if move.colour_face not in dice.colours or move.number_face not in dice.numbers:
        return False
    if move.joker_cost > sheet.jokers_left or len(move.cells) != move.count or not 1 <= move.count <= 5:
        return False
    grid_index = []
    for name in move.cells:
        col, row = ord(name[0]) - ord("A"), int(name[1:]) - 1
        if not (0 <= col < b.cols and 0 <= row < b.rows):
            return False
        grid_index.append(row * b.cols + col)
    crossed = {i for i in range(b.n_cells) if sheet.crossed >> b.bit_of[i] & 1}
    cells = set(grid_index)
    if cells & crossed or any(b.grid[i // b.cols][i % b.cols] != move.colour for i in cells):
        return False

    def nbrs(i):
        r, c = divmod(i, b.cols)
        return [j for j, ok in ((i - b.cols, r > 0), (i + b.cols, r < b.rows - 1), (i - 1, c > 0),
                                (i + 1, c < b.cols - 1)) if ok]

    def component(start, allowed):
        seen, stack = {start}, [start]
        while stack:
            for j in nbrs(stack.pop()):
                if j in allowed and j not in seen:
                    seen.add(j)
                    stack.append(j)
        return seen

    same_colour = {i for i in range(b.n_cells) if b.grid[i // b.cols][i % b.cols] == move.colour}
    block = component(grid_index[0], same_colour)
    if not cells <= block:
        return False
    if component(grid_index[0], cells) != cells:  # connected among themselves (no bridging)
        return False
    return any(i % b.cols == b.start_column or any(j in crossed for j in nbrs(i)) for i in cells)


def play_checked(name: str, players: int, seed: int) -> Game:
    mode = "solo" if players == 1 else "competitive"
    game = Game(BOARD, players, mode=mode)
    agents = [make_agent(name, seed * 10 + p) for p in range(players)]
    while not game.is_terminal():
        p = game.current_player()
        if p < 0:
            game.apply_roll(seeded_roll(seed, game.rolls_done, game.dice_per_kind))
            continue
        move = agents[p].choose(game)
        assert oracle_legal(game, move), f"{name} seed {seed}: illegal {move}"
        game.apply_move(move)  # the engine's check raises on an illegal move
    return game


@pytest.mark.parametrize("name,players,seeds", [
    ("heuristic", 1, range(1, 9)),
    ("heuristic", 2, range(1, 4)),
    ("heuristic", 3, range(1, 3)),
    ("heuristic", 4, range(1, 2)),
    ("ntuple", 1, range(1, 5)),
    ("ntuple", 2, range(1, 2)),
    ("lookahead", 1, range(1, 2)),
    ("lookahead1", 1, range(3, 4)),
    ("lookahead", 2, range(1, 2)),
    ("lookahead", 3, range(2, 3)),
])
@pytest.mark.slow
def test_whole_games_are_legal(name, players, seeds):
    jokers_exhausted = False
    for seed in seeds:
        game = play_checked(name, players, seed)
        assert game.is_terminal()
        if players == 1:
            assert game.rolls_done == 30
        else:  # the race ended because someone completed a second colour
            assert any(s.complete_colours().bit_count() >= 2 for s in game.sheets)
        jokers_exhausted |= any(s.jokers_left == 0 for s in game.sheets)
    if name == "heuristic" and players == 1:
        assert jokers_exhausted, "no game reached the jokers-exhausted case"


def _position(jokers_used: int, roll: Roll, rolls_done: int = 12, players: int = 1) -> Game:
    cells = ["H1", "H2", "H3", "H4", "G3", "G4", "I4", "I5"]
    sheets = tuple(Sheet(BOARD, BOARD.mask_of(cells), jokers_used) for _ in range(players))
    mode = Mode.SOLO if players == 1 else Mode.COMPETITIVE
    return Game.from_position(Position(mode, sheets, rolls_done, 30 if players == 1 else None, roll=roll))


@pytest.mark.parametrize("name", STRONG)
def test_only_joker_dice_and_no_jokers_left_means_pass(name):
    game = _position(8, Roll(("x", "x"), ("?", "?")))
    assert game.legal_moves() == [PASS]
    assert make_agent(name, 1).choose(game) == PASS


@pytest.mark.parametrize("name", STRONG)
def test_no_jokers_left_restricts_to_plain_dice(name):
    game = _position(8, Roll(("x", "y"), ("?", "3")))
    move = make_agent(name, 1).choose(game)
    assert oracle_legal(game, move)
    assert move.joker_cost == 0
    game.apply_move(move)


@pytest.mark.parametrize("name", STRONG)
@pytest.mark.parametrize("rolls_done", [28, 29])
def test_end_of_solo_game_moves_are_legal(name, rolls_done):
    game = _position(7, Roll(("b", "x"), ("?", "5")), rolls_done=rolls_done)
    move = make_agent(name, 2).choose(game)
    assert oracle_legal(game, move)
    assert move.joker_cost <= 1
    game.apply_move(move)
    if rolls_done == 29:
        assert game.is_terminal()


@pytest.mark.parametrize("name", ["heuristic", "lookahead"])
def test_passive_player_after_roll_3_picks_from_the_dice_left(name):
    game = _position(0, Roll(("y", "g", "b"), ("1", "2", "3")), rolls_done=5, players=3)
    agents = [make_agent(name, p) for p in range(3)]
    for _ in range(3):
        move = agents[game.current_player()].choose(game)
        assert oracle_legal(game, move)
        game.apply_move(move)
    assert game.current_player() < 0


# (bot, players, first roll the bot decides): the slow two-roll bots take over at roll 6 from
# the heuristic, so their search still runs on 6 positions (two rolls deep) but costs less
@pytest.mark.parametrize("name,players,start", [("heuristic", 1, 0), ("heuristic", 2, 0), ("lookahead1", 1, 0),
                                                ("hard", 1, 6), ("medium", 2, 0), ("lookahead", 2, 0),
                                                ("ntuple", 1, 0)])
@pytest.mark.slow
def test_deterministic_for_a_seed(name, players, start):
    def moves(seed):
        game = Game(BOARD, players, mode="solo" if players == 1 else "competitive")
        agents = [make_agent(name, seed) for _ in range(players)]
        opening = [make_agent("heuristic", seed) for _ in range(players)]
        out = []
        while not game.is_terminal() and game.rolls_done < 12:
            p = game.current_player()
            if p < 0:
                game.apply_roll(seeded_roll(seed, game.rolls_done, game.dice_per_kind))
            else:
                m = (agents if game.rolls_done >= start else opening)[p].choose(game)
                out.append(str(m))
                game.apply_move(m)
        return out

    first = moves(5)
    assert first == moves(5)
    assert any(m != "pass" for m in first)
