"""Clever 4ever's searching bot, ``rollout`` (docs/clever.md "Bots"): it plays only legal
actions through the engine and leaves the game as it was, a game is the same for the same
seed, the greedy bot's fast worth counts the scorer's points, and on a position made by hand
from the rules, where the greedy bot's first choice scores less in the end, the search takes
the action an exhaustive search of the rest of the game finds best."""

import json

from nochmal.bots.clever import GreedyCleverAgent, clever_bot, play
from nochmal.bots.clever_greedy import _points, _tables
from nochmal.bots.clever_search import RolloutCleverAgent
from nochmal.clever import CleverGame
from nochmal.clever.scoring import area_points
from nochmal.clever.sheetdata import AREAS
from nochmal.clever.state import read_state_text
from nochmal.play import play_game
from clever_support import play_checked


def test_rollout_plays_legal_actions_through_the_engine_and_leaves_the_game_alone():
    # rollouts to the next round only, two of them: legality does not depend on the budget
    agents = [RolloutCleverAgent(3, rollouts=2, horizon=1), RolloutCleverAgent(4, rollouts=2, horizon=1)]
    game, seen = play_checked(agents, 11)
    assert game.is_terminal() and {"take", "extra", "bonus"} <= set(seen)


def test_a_seed_gives_the_same_game_and_the_registered_bot_is_the_search():
    def first_round(agent):  # the first round only: the search's decisions are dearest there
        return play_game(CleverGame(1), [agent], 5, until=lambda game: game.round > 1).history

    assert isinstance(clever_bot("rollout"), RolloutCleverAgent)
    once, again = first_round(clever_bot("rollout", 5)), first_round(clever_bot("rollout", 5))
    assert once == again
    assert once != first_round(GreedyCleverAgent(5))  # it does not just play greedy


def test_the_fast_worth_counts_the_scorers_points():
    facts = CleverGame(1).facts
    tables = _tables(facts)
    for seed in range(6):
        def check(game):
            sheet = game.sheets[0]
            grey = [sum(1 for r in range(facts.grey_rows) if (r, c) in sheet.grey_cells(facts))
                    for c in range(len(facts.grey_points))]
            assert _points(facts, tables, sheet, grey) == [area_points(facts, sheet)[a] for a in AREAS]

        play(CleverGame(1), [clever_bot("random", seed)], seed, check)


# The last pick of a solo game (round 6, the silver tray: green 5, pink 1, yellow 1). Green's
# lower halves hold 1, 1, 1 and its upper halves 1, 1, 1, 1: the 5 in the fourth lower half
# completes field 4 (doubled: 12 points) and gives a "?" yellow; the 5 in the fifth upper half
# completes nothing, and the game ends. The greedy bot counts a share of the half-done field
# and takes the upper half.
LAST_PICK = {
    "format": "clever4ever-state", "version": 1, "players": 1, "options": {}, "round": 6, "active": 0,
    "stage": "passive", "phase": "passive", "actor": 0, "picks": 3, "throws": 3,
    "dice": {"white": [6, "field"], "yellow": [1, "tray"], "blue": [6, "field"], "grey": [6, "field"],
             "green": [5, "tray"], "pink": [1, "tray"]},
    "to_throw": [], "queue": [], "extra_used": [],
    "sheets": [{"yellow": [[], [], []], "blue": [], "grey": [], "green": {"low": [1, 1, 1], "up": [1, 1, 1, 1]},
                "pink": [], "foxes": 0, "unlocked": {"reroll": 2, "plus-one": 1, "polish": 2},
                "used": {"reroll": 2, "plus-one": 1, "polish": 2}}],
    "pending": [[]],
}


def best_final(game) -> int:
    """The best final score from here by trying every action (no dice are left to throw)."""
    if game.is_terminal():
        return game.scores()[0]
    assert not game.is_chance_node()
    out = None
    for move in game.legal_moves():
        game.push(move)
        value = best_final(game)
        game.pop()
        out = value if out is None else max(out, value)
    return out


def after(game, move) -> int:
    game.push(move)
    value = best_final(game)
    game.pop()
    return value


def test_the_search_sees_past_the_greedy_bots_half_done_field():
    game = read_state_text(json.dumps(LAST_PICK))
    best = best_final(game)
    greedy = GreedyCleverAgent(0).choose(game)
    assert greedy.text(game.facts) == "take green 5 green:up" and after(game, greedy) < best
    search = clever_bot("rollout", 0).choose(game)
    assert search.text(game.facts) == "take green 5 green:low" and after(game, search) == best == 24
