"""Clever 4ever game states as JSON: every state of random games round-trips, plays on
exactly as the original (the same legal actions, the same seeded throws, the same end), and
a broken or impossible state is refused naming the key."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clever_oracle
from nochmal.agents import RandomAgent
from nochmal.bots.clever import play
from nochmal.clever.errors import CleverStateError
from nochmal.clever.state import from_state, read_state_text, state_text, to_state
from nochmal.errors import IllegalPositionError

FIELDS = ("sheets", "pending", "round", "active", "stage", "phase", "actor", "values", "where", "picks", "throws",
          "to_throw", "queue", "extra_used")


@settings(max_examples=10, deadline=None)
@given(players=st.integers(1, 4), seed=st.integers(0, 10**9), policy=st.integers(0, 10**6))
def test_every_state_round_trips_and_plays_on_the_same(players, seed, policy):
    states = []
    clever_oracle.random_game(players, seed, policy, lambda g: states.append(g.clone()), 0.7)
    for i, game in enumerate(states[:: max(1, len(states) // 12)]):
        again = read_state_text(state_text(game))
        assert all(getattr(again, f) == getattr(game, f) for f in FIELDS), i
        assert to_state(again) == to_state(game)
        if not game.is_terminal() and not game.is_chance_node():
            assert again.legal_moves() == game.legal_moves()
        agents = [RandomAgent(7 + p) for p in range(players)]
        end = play(game.clone(), agents, seed)
        agents = [RandomAgent(7 + p) for p in range(players)]
        assert play(again, agents, seed).scores() == end.scores()


def state_of_a_game():
    return to_state(clever_oracle.random_game(2, 3, 4, enter_bias=0.8))


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.update(format="nochmal"), "expected format"),
    (lambda d: d.update(players=5), "players must be"),
    (lambda d: d["sheets"][0]["yellow"][0].extend([6, 6]), "yellow"),
    (lambda d: d["sheets"][0]["yellow"].__setitem__(0, [3, 2]), "must ascend strictly"),
    (lambda d: d["sheets"][0].update(grey=[[2, 14]]), "do not grow from a start segment"),
    (lambda d: d["sheets"][0].update(grey=[[2, 2]]), "not a segment's first cell"),
    (lambda d: d["sheets"][1]["used"].update(reroll=9), "used.reroll must be"),
    (lambda d: d["sheets"][1]["unlocked"].update(polish=0) or d["sheets"][1]["used"].update(polish=1), "more actions used"),
    (lambda d: d["sheets"][0]["pink"].append(7), "pink"),
    (lambda d: d["pending"].__setitem__(0, ["?red"]), r"pending\[1\]"),
    (lambda d: d["dice"].update(white=[3, "table"]), "dice.white"),
    (lambda d: d.update(options={"rounds_2": 0}), "rounds_2"),
    (lambda d: d.update(round=7), "round must be"),
    (lambda d: d["sheets"][0].update(foxes=d["sheets"][0]["foxes"] + 1), r"sheets\[1\].foxes: the sheet has earned"),
    (lambda d: d["sheets"][1]["unlocked"].update(reroll=d["sheets"][1]["unlocked"]["reroll"] + 1)
     or d["sheets"][1]["used"].update(reroll=0), r"sheets\[2\].unlocked.reroll: the sheet has earned"),
])
def test_broken_states_are_refused_naming_the_key(edit, message):
    data = state_of_a_game()
    data["phase"], data["stage"], data["actor"] = "active", "active", 0
    data["to_throw"] = ["white", "yellow", "blue", "grey", "green", "pink"]  # the last round's first throw
    data["dice"] = {d: [0, "pool"] for d in data["dice"]}
    from_state(json.loads(json.dumps(data)))  # the base state is fine
    edit(data)
    with pytest.raises(CleverStateError, match=message) as err:
        from_state(data)
    assert isinstance(err.value, IllegalPositionError)
    with pytest.raises(CleverStateError, match="not JSON"):
        read_state_text("{")
