"""Fuzzing Clever 4ever's readers (actions, throws, records with their replay, states, the
sheet data): a reader returns or raises one line of a NochmalError, never a traceback, on
mutated and on arbitrary text (the property and the mutations of tests/fuzz_cases.py)."""

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import clever_oracle
import fuzz_cases
from nochmal.clever import Action, CleverRecord, Throw, read_state_text, replay, state_text
from nochmal.clever.sheetdata import DATA_FILE, parse_sheet
from nochmal.clever.errors import SheetDataError
from nochmal.errors import NochmalError
from nochmal.fileio import load_toml_text


def read_record(text):
    return replay(CleverRecord.loads(text))


def read_sheet_data(text):
    return parse_sheet(load_toml_text(text, lambda why: SheetDataError("x.toml", [why])), "x.toml")


GAME = clever_oracle.random_game(2, 9, 9, enter_bias=0.8)
MIDDLE = []
clever_oracle.random_game(3, 4, 4, lambda g: MIDDLE.append(g.clone()), 0.8)
READERS = {"action": Action.parse, "throw": Throw.parse, "record": read_record, "state": read_state_text,
           "sheet data": read_sheet_data}
SEEDS = {
    "action": ["take yellow 4 yellow:top", "bonus ?any 1 grey:1,1", "extra blue 3 blue:5", "forfeit ?pink", "pass"],
    "throw": ["white=3 yellow=5 blue=1 grey=2 green=6 pink=4", "blue=2 pink=6"],
    "record": [CleverRecord.from_game(GAME, ["a", "b"], 9).dumps()],
    "state": [state_text(GAME), state_text(MIDDLE[len(MIDDLE) // 2]), state_text(MIDDLE[len(MIDDLE) // 3])],
    "sheet data": [DATA_FILE.read_text(encoding="utf-8")],
}


@pytest.mark.parametrize("name", list(READERS))
def test_a_clever_reader_returns_or_raises_one_line(name):
    reader, seeds = READERS[name], SEEDS[name]
    for text in seeds:
        assert fuzz_cases.check(reader, text) is None

    @settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(seed=st.integers(0, 2**32 - 1), which=st.integers(0, 9))
    def mutated(seed, which):
        fuzz_cases.check(reader, fuzz_cases.mutate(seeds[which % len(seeds)], random.Random(seed), name))

    @settings(max_examples=30, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(text=st.text(max_size=300))
    def arbitrary(text):
        fuzz_cases.check(reader, text)

    mutated()
    arbitrary()


@pytest.mark.parametrize("name", ["record", "state"])
def test_odd_values_in_every_field_are_refused_cleanly(name):
    data = json.loads(SEEDS[name][0])
    for key in list(data):
        for value in fuzz_cases.ODD_VALUES:
            fuzz_cases.check(READERS[name], json.dumps({**data, key: value}))


@settings(max_examples=150, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_a_mutated_state_that_reads_plays_on_without_a_traceback(seed):
    rng = random.Random(seed)
    try:
        game = read_state_text(fuzz_cases.mutate(rng.choice(SEEDS["state"]), rng, "state"))
    except NochmalError:
        return
    try:
        for _ in range(20):
            if game.is_terminal():
                break
            if game.is_chance_node():
                game.apply_roll(game.seeded_throw(seed))
            else:
                game.apply_move(rng.choice(game.legal_moves()))
    except NochmalError:
        pass
