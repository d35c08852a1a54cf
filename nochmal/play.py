"""Playing whole games with agents and seeded dice."""

from __future__ import annotations

from typing import Sequence

from nochmal.agents import Agent
from nochmal.board import Board
from nochmal.dice import seeded_roll
from nochmal.errors import SetupError
from nochmal.game import Game, Mode
from nochmal.record import GameRecord
from nochmal.rules import DEFAULT_RULES, RuleSettings


def play_game(game: Game, agents: Sequence[Agent], seed: int) -> Game:
    """Play ``game`` to the end: seeded rolls, each decision by that player's agent."""
    if len(agents) != game.n_players:
        raise SetupError(f"{len(agents)} agents for {game.n_players} players")
    dice = game.dice_per_kind
    while not game.is_terminal():
        player = game.current_player()
        if player < 0:
            game.apply_roll(seeded_roll(seed, game.rolls_done, dice))
        else:
            game.apply_move(agents[player].choose(game))
    return game


def play_solo(board: Board, agent: Agent, seed: int, rules: RuleSettings = DEFAULT_RULES) -> GameRecord:
    """A seeded solo game played by ``agent``, as a record."""
    game = play_game(Game(board, 1, rules, Mode.SOLO), [agent], seed)
    return GameRecord.from_game(game, [agent.name], seed)


def play_competitive(board: Board, agents: Sequence[Agent], seed: int,
                     rules: RuleSettings = DEFAULT_RULES) -> GameRecord:
    game = play_game(Game(board, len(agents), rules, Mode.COMPETITIVE), agents, seed)
    return GameRecord.from_game(game, [a.name for a in agents], seed)
