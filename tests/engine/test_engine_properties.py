"""Random full games (hypothesis) never break an invariant of the rules.

Random and greedy agents, 1-6 players and solo, every built-in board, both bridging
settings. After every step: crosses only added, jokers used only grow and stay within the
board's marks, scores within bounds computed from the board, columns/colours scored only
when complete and at most once; every game ends; its record verifies."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nochmal as nm
from nochmal.bots import make_agent
from nochmal.board import COLOURS
from nochmal.dice import seeded_roll
from nochmal.game import CHANCE, Game
from nochmal.record import GameRecord
from nochmal.rules import RuleSettings

MAX_ROLLS = 600  # far beyond any real game; hitting it means the game does not end


def score_bounds(board) -> tuple[int, int]:
    """Worst: every star open, no joker left, nothing scored. Best: every column at its
    first value, every colour at the first bonus, every joker unused, no star open."""
    low = -board.star_penalty * board.n_stars
    high = sum(board.column_points_first) + len(COLOURS) * board.colour_bonus_first + board.jokers
    return low, high


def check_sheet(board, sheet, lo, hi):
    assert 0 <= sheet.jokers_used <= board.jokers
    assert lo <= sheet.score() <= hi
    assert sheet.cols_upper & sheet.cols_lower == 0
    assert sheet.colours_upper & sheet.colours_lower == 0
    assert (sheet.cols_upper | sheet.cols_lower) & ~sheet.complete_columns() == 0
    assert (sheet.colours_upper | sheet.colours_lower) & ~sheet.complete_colours() == 0
    assert sheet.crossed & ~board.full_mask == 0


def play_checked(game: Game, agents, seed: int) -> Game:
    board = game.board
    lo, hi = score_bounds(board)
    assert lo == -30 or board.n_stars != 15
    for _ in range(MAX_ROLLS * (game.n_players + 1)):
        if game.is_terminal():
            break
        player = game.current_player()
        if player == CHANCE:
            game.apply_roll(seeded_roll(seed, game.rolls_done, game.dice_per_kind))
            continue
        before = list(game.sheets)
        claimed = (game.claimed_columns, game.claimed_colours)
        move = agents[player].choose(game)
        legal = game.legal_moves()
        assert move in legal or (move.is_pass and legal[0].is_pass)
        game.apply_move(move)
        for old, new in zip(before, game.sheets):
            assert new.crossed & old.crossed == old.crossed  # crosses only ever added
            assert new.jokers_used >= old.jokers_used
            assert (new.cols_upper | new.cols_lower) & (old.cols_upper | old.cols_lower) == \
                old.cols_upper | old.cols_lower  # a scored column stays scored
            check_sheet(board, new, lo, hi)
        assert game.claimed_columns & claimed[0] == claimed[0]
        assert game.claimed_colours & claimed[1] == claimed[1]
        if game.roll is None:  # a roll just finished: every completion is scored
            for s in game.sheets:
                assert s.unscored_columns() == 0 and s.unscored_colours() == 0
    assert game.is_terminal(), f"no end after {game.rolls_done} rolls"
    return game


@settings(max_examples=60, deadline=None)
@given(players=st.integers(1, 6), kinds=st.lists(st.sampled_from(["random", "greedy"]), min_size=6, max_size=6),
       seed=st.integers(0, 10 ** 6), board=st.sampled_from(nm.BUILTIN_BOARDS), bridging=st.booleans())
@pytest.mark.slow
def test_random_competitive_games_keep_every_invariant(players, kinds, seed, board, bridging):
    b = nm.load_board(board)
    rules = RuleSettings(bridging=bridging)
    agents = [make_agent(kinds[p], seed + p) for p in range(players)]
    game = play_checked(Game(b, players, rules, "competitive"), agents, seed)
    two = [s.complete_colours().bit_count() >= 2 for s in game.sheets]
    assert any(two)  # the only way a competitive game ends
    # before the last roll nobody had two colours: replay the record up to there
    record = GameRecord.from_game(game, [a.name for a in agents], seed)
    turns = 0
    for t, g in GameRecord.loads(record.dumps()).replay():  # the same game object, advanced
        turns = t
        ended = any(s.complete_colours().bit_count() >= 2 for s in g.sheets)
        assert ended == (t == game.rolls_done), t
    assert turns == game.rolls_done
    final = GameRecord.loads(record.dumps()).verify()
    assert final.sheets == game.sheets and final.winners() == game.winners()
    # the winners have the best (score, jokers left)
    best = max((s.score(), s.jokers_left) for s in game.sheets)
    assert game.winners() == [p for p, s in enumerate(game.sheets) if (s.score(), s.jokers_left) == best]


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(["random", "greedy"]), seed=st.integers(0, 10 ** 6),
       board=st.sampled_from(nm.BUILTIN_BOARDS), bridging=st.booleans(), early_end=st.booleans())
def test_random_solo_games_keep_every_invariant(kind, seed, board, bridging, early_end):
    b = nm.load_board(board)
    rules = RuleSettings(bridging=bridging, solo_ends_on_second_colour=early_end)
    agent = make_agent(kind, seed)
    game = play_checked(Game(b, 1, rules, "solo"), [agent], seed)
    two = game.sheets[0].complete_colours().bit_count() >= 2
    if early_end and two:
        assert game.rolls_done <= 30
    else:
        assert game.rolls_done == 30
    assert game.sheets[0].cols_lower == 0 and game.sheets[0].colours_lower == 0  # solo: upper only
    # the same seed through play_solo gives the same game, and its record verifies
    record = nm.play_solo(b, make_agent(kind, seed), seed, rules)
    assert record.verify().sheets == game.sheets
    assert record.result["scores"] == game.scores()
