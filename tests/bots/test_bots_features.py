"""Evaluation features are addressed by name, and the shipped weights carry the names they
were fitted for: a reordered or changed feature list fails loudly instead of scrambling them.

Oracle for the names: each named feature recomputed here from the sheet's masks directly
(cell counts per column and colour, stars, frontier), independent of Evaluator.features."""

from __future__ import annotations

import pytest

from nochmal.board import COLOURS, load_board
from nochmal.bots import weights as shipped
from nochmal.bots.evaluation import FEATURE_INDEX, FEATURE_NAMES, N_BASE, Evaluator, check_weight_names
from nochmal.bots.heuristic import Engine
from nochmal.bots.registry import make_agent
from nochmal.dice import seeded_roll
from nochmal.game import Game, Mode


def test_shipped_weights_name_the_evaluation_features():
    assert list(shipped.FEATURES) == list(FEATURE_NAMES)
    assert len(shipped.WEIGHTS) % N_BASE == 0


def test_a_reordered_or_shorter_feature_list_fails_in_one_line():
    swapped = list(FEATURE_NAMES)
    swapped[7], swapped[8] = swapped[8], swapped[7]
    with pytest.raises(ValueError) as err:
        check_weight_names(swapped, "w.py")
    text = str(err.value)
    assert "\n" not in text and "w.py: weight feature 7 is 'colour_missing_1'" in text
    with pytest.raises(ValueError, match="name 75 features, the evaluation has 76"):
        check_weight_names(FEATURE_NAMES[:-1], "w.py")
    check_weight_names(FEATURE_NAMES, "w.py")  # the same list passes


def test_engine_refuses_weights_fitted_for_other_features(monkeypatch):
    monkeypatch.setattr("nochmal.bots.heuristic.FEATURES", list(reversed(FEATURE_NAMES)))
    with pytest.raises(ValueError, match="nochmal/bots/weights.py: weight feature 0 is 'jokers_left_8'"):
        Engine()


def _midgame(seed: int, rolls: int) -> Game:
    board = load_board("classic")
    game = Game(board, 1, mode=Mode.SOLO)
    agent = make_agent("greedy", seed)
    while game.rolls_done < rolls:
        if game.current_player() < 0:
            game.apply_roll(seeded_roll(seed, game.rolls_done, game.dice_per_kind))
        else:
            game.apply_move(agent.choose(game))
    return game


@pytest.mark.parametrize("seed", [3, 8])
def test_named_features_hold_what_their_names_say(seed):
    game = _midgame(seed, 12)
    board, sheet = game.board, game.sheets[0]
    ev = Evaluator(board, shipped.WEIGHTS)
    ctx = ev.context(game, 0)
    _, f = ev.full_features(sheet.crossed, sheet.anchored, sheet.jokers_left, ctx)
    by = dict(zip(FEATURE_NAMES, f))
    X, A = sheet.crossed, sheet.anchored
    assert by["crossed"] == X.bit_count()
    assert by["frontier"] == (A & ~X).bit_count()
    stars = board.star_mask & ~X
    assert by["stars_open_anchored"] == (stars & A).bit_count()
    assert by["stars_open_far"] == (stars & ~A).bit_count()
    for c, letter in enumerate("ABCDEFGHIJKLMNO"):
        miss = (board.column_mask[c] & ~X).bit_count()
        assert by[f"missing_share_column_{letter}"] == pytest.approx(miss / 7.0 if miss else 0.0)
        assert by[f"at_most_2_missing_column_{letter}"] == (1.0 if 0 < miss <= 2 else 0.0)
    for i, colour in enumerate(COLOURS):
        miss = (board.colour_mask[colour] & ~X).bit_count()
        assert by[f"missing_share_colour_{colour}"] == pytest.approx(miss / 21.0)
    jokers = [by[f"jokers_left_{j}"] for j in range(9)]
    assert jokers == [1.0 if j == min(sheet.jokers_left, 8) else 0.0 for j in range(9)]
    assert set(FEATURE_INDEX) == set(FEATURE_NAMES) and len(f) == N_BASE


@pytest.mark.parametrize("players", [1, 3])
def test_the_evaluations_inline_score_is_the_engines(players):
    # Evaluator.features adds up the sheet's score in its feature loop (one pass over the
    # masks, for speed); the engine's rule is nochmal.sheet.score_parts behind Sheet.score:
    # without the jokers (the joker part is valued apart) they must agree on every sheet
    board = load_board("classic")
    ev = Evaluator(board, shipped.WEIGHTS)
    agents = [make_agent("greedy", k) for k in range(players)]
    checked = 0
    for seed in range(4):
        game = Game(board, players, mode=Mode.SOLO if players == 1 else Mode.COMPETITIVE)
        while not game.is_terminal():
            p = game.current_player()
            if p < 0:
                game.apply_roll(seeded_roll(seed, game.rolls_done, game.dice_per_kind))
                for q, sheet in enumerate(game.sheets):
                    score, _ = ev.features(sheet.crossed, sheet.anchored, ev.context(game, q))
                    assert score == sheet.score() - sheet.jokers_left, (seed, game.rolls_done, q)
                    checked += 1
            else:
                game.apply_move(agents[p].choose(game))
    assert checked > 50
