"""Modes as a type, and the one property for what the race has claimed."""

from __future__ import annotations

import json

import pytest

import nochmal as nm
from nochmal.agents import GreedyAgent
from nochmal.board import load_board
from nochmal.game import NO_CLAIMS, Game, Mode
from nochmal.play import play_game

BOARD = load_board("classic")


@pytest.mark.parametrize("text, players, mode", [("solo", 1, Mode.SOLO), ("competitive", 3, Mode.COMPETITIVE),
                                                 ("coop", 2, Mode.COOP), (None, 1, Mode.SOLO),
                                                 (None, 2, Mode.COMPETITIVE)])
def test_mode_text_and_default_become_the_member(text, players, mode):
    game = Game(BOARD, players, mode=text)
    assert game.mode is mode and str(game.mode) == mode.value


def test_a_record_keeps_the_mode_text_and_reads_back_the_member():
    record = nm.play_solo(BOARD, GreedyAgent(), seed=3)
    data = json.loads(json.dumps(record.to_json()))
    assert data["mode"] == "solo"
    assert nm.GameRecord.from_json(data).mode is Mode.SOLO


@pytest.mark.parametrize("mode, players", [(Mode.COMPETITIVE, 2), (Mode.COOP, 2)])
def test_race_claims_are_the_claims_in_the_race_only(mode, players):
    game = play_game(Game(BOARD, players, mode=mode, roll_limit=40), [GreedyAgent(), GreedyAgent()], 11)
    assert game.claimed_columns  # greedy bots complete columns in 40 rolls on this seed
    if mode is Mode.COMPETITIVE:
        assert game.race_claims == (game.claimed_columns, game.claimed_colours)
    else:
        assert game.race_claims == NO_CLAIMS
        assert not any(s.cols_lower or s.colours_lower for s in game.sheets)  # never a later value
