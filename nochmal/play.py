"""Playing whole games with agents and seeded dice."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

from nochmal.agents import Agent
from nochmal.board import Board
from nochmal.errors import SetupError
from nochmal.game import Game, Mode
from nochmal.record import GameRecord
from nochmal.rules import DEFAULT_RULES, RuleSettings

if TYPE_CHECKING:  # the shared state API; Clever 4ever's engine is not loaded for a Noch mal! game
    from nochmal.clever.state_api import GameState


def play_game(game: GameState, agents: Sequence[Agent], seed: int,
              visit: Callable[[GameState], None] | None = None,
              until: Callable[[GameState], bool] | None = None) -> GameState:
    """Play ``game`` (Noch mal! or Clever 4ever) to the end: the seed's outcome at every chance
    node, each decision by that seat's agent; ``visit(game)`` after every step. The one game
    loop of the bots, the harness and the batch runner (docs/clever.md "One state API");
    ``until(game)`` true stops it early (a search's rollout to its horizon)."""
    if len(agents) != game.n_players:
        raise SetupError(f"{len(agents)} agents for {game.n_players} players")
    while not game.is_terminal() and not (until and until(game)):
        player = game.current_player()
        if player < 0:
            game.apply_roll(game.seeded_outcome(seed))
        else:
            game.apply_move(agents[player].choose(game))
        if visit:
            visit(game)
    return game


def play_solo(board: Board, agent: Agent, seed: int, rules: RuleSettings = DEFAULT_RULES) -> GameRecord:
    """A seeded solo game played by ``agent``, as a record."""
    game = play_game(Game(board, 1, rules, Mode.SOLO), [agent], seed)
    return GameRecord.from_game(game, [agent.name], seed)


def play_competitive(board: Board, agents: Sequence[Agent], seed: int,
                     rules: RuleSettings = DEFAULT_RULES) -> GameRecord:
    game = play_game(Game(board, len(agents), rules, Mode.COMPETITIVE), agents, seed)
    return GameRecord.from_game(game, [a.name for a in agents], seed)
