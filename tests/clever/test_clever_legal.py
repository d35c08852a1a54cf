"""Clever 4ever legal moves against brute force: on sheets reached by random legal play,
every area's places for every number agree with the independent oracle
(tests/clever_oracle.py), and the game's legal actions are exactly the ones built from the
oracle's places, the dice and the polish budget; random play never breaks an invariant."""

from hypothesis import given, settings
from hypothesis import strategies as st

import clever_oracle
from nochmal.clever import Action, CleverRules, clever4ever
from nochmal.clever.dice import DICE
from nochmal.clever.sheet import places
from nochmal.clever.sheetdata import ACTIONS, QUESTIONS

FACTS = clever4ever()
JOKER_AREAS = ("yellow", "grey", "green", "pink")


def oracle_key(area, spot):
    return (area, frozenset(FACTS.segments[spot].cells)) if area == "grey" else (area, spot)


def expected_entries(game, seat, die):
    """(number, area, spot) for ``die`` by brute force over every number within the polish
    budget, the oracle deciding where each number may go."""
    plain = clever_oracle.Plain(game.sheets[seat], FACTS)
    budget = game.sheets[seat].left("polish")
    dice = game.dice()

    def numbers(d):
        value, where = dice[d]
        return [(n, abs(n - value)) for n in range(1, 7) if where == "tray" and abs(n - value) <= budget] \
            if where == "tray" else [(value, 0)]

    out = set()
    if die == "blue":
        for row, c1 in numbers("blue"):
            for col, c2 in numbers("white"):
                if c1 + c2 <= budget and (row - 1, col - 1) not in plain.blue:
                    out.add((row, "blue", col - 1))
        return out
    face = dice[die][0]
    for area in (JOKER_AREAS if die == "white" else (die,)):
        for number, _ in numbers(die):
            for a, spot in clever_oracle.places(plain, area, number):
                if area == "grey":
                    if number != max(face, len(spot)):
                        continue
                out.add((number, a, spot))
    return out


def check_state(game):
    seat = game.current_player()
    for s in game.sheets:
        plain = clever_oracle.Plain(s, FACTS)
        for area in JOKER_AREAS:
            for value in range(1, 7):
                got = {oracle_key(p.area, p.spot) for p in places(FACTS, game.rules, s, area, value)}
                assert got == clever_oracle.places(plain, area, value), (area, value)
    if seat < 0 or game.pending[seat]:
        return
    moves = game.legal_moves()
    assert len(moves) == len(set(moves))
    kinds = {"active": "take", "passive": "take", "extra": "extra"}[game.phase]
    got = {(m.die, m.number, *oracle_key(m.place.area, m.place.spot)) for m in moves if m.kind == kinds and m.place}
    want = set()
    for die in DICE:
        where = game.dice()[die][1]
        allowed = {"active": where == "pool", "passive": where == "tray",
                   "extra": die not in game.extra_used}[game.phase]
        if allowed:
            want |= {(die, n, *oracle_key(a, s)) if a != "grey" else (die, n, a, s) for n, a, s in expected_entries(game, seat, die)}
    assert got == want


def check_invariants(game):
    for seat, s in enumerate(game.sheets):
        top = s.yellow[0]
        assert list(top) == sorted(set(top)) and all(len(r) <= 5 for r in s.yellow)
        assert len(s.green[0]) <= 11 and len(s.green[1]) <= 11 and len(s.pink) <= 12
        plain = clever_oracle.Plain(s, FACTS)
        if plain.grey:  # crossed grey cells: one edge-connected area holding a start cell
            todo, seen = [next(iter(plain.grey & clever_oracle.START_CELLS))], set()
            while todo:
                r, c = todo.pop()
                if (r, c) in seen:
                    continue
                seen.add((r, c))
                todo += [(r + dr, c + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)) if (r + dr, c + dc) in plain.grey]
            assert seen == plain.grey
        bonuses = clever_oracle.triggered(plain, game.round)
        for i, action in enumerate(ACTIONS):
            slots = FACTS.track_slots[action]
            assert s.used[i] <= s.unlocked[i] == min(bonuses.count(action), slots)
        assert s.foxes == bonuses.count("fox")
        # every "?" triggered (a full re-roll track's included) is entered, forfeited or pending
        questions = sum(1 for b in bonuses if b in QUESTIONS) + (s.unlocked[0] == FACTS.track_slots["reroll"])
        handled = sum(1 for who, step in game.history if who == seat and isinstance(step, Action)
                      and step.kind in ("bonus", "forfeit"))
        assert questions == handled + len(game.pending[seat])


@settings(max_examples=25, deadline=None)
@given(players=st.integers(1, 4), seed=st.integers(0, 10**9), policy=st.integers(0, 10**6),
       bias=st.sampled_from([0.0, 0.8, 1.0]))
def test_random_play_agrees_with_brute_force_and_keeps_invariants(players, seed, policy, bias):
    def visit(game):
        check_invariants(game)
        check_state(game)
        if not game.is_chance_node() and not game.is_terminal():
            for m in game.legal_moves():
                assert Action.parse(m.text()) == m

    clever_oracle.random_game(players, seed, policy, visit, bias)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**9), policy=st.integers(0, 10**6))
def test_the_options_change_the_legal_places_as_documented(seed, policy):
    rules = CleverRules(green_upper_needs_lower=True)

    def visit(game):
        for s in game.sheets:
            plain = clever_oracle.Plain(s, FACTS)
            got = {(p.area, p.spot) for p in places(FACTS, rules, s, "green", 3)}
            assert got == clever_oracle.places(plain, "green", 3, upper_needs_lower=True)

    clever_oracle.random_game(1, seed, policy, visit, 0.9)
