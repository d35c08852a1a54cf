"""Shared checks of the Clever 4ever tests (tests/clever/)."""

from __future__ import annotations

from nochmal.bots.clever import play
from nochmal.clever import CleverGame


def play_checked(agents, seed: int) -> tuple[CleverGame, list[str]]:
    """A game of ``len(agents)`` seats played to its end through the engine (play_game applies
    every choice with apply_move: checked), each choice asserted legal and made without changing
    the game it was shown; the game and the kinds of the actions chosen."""
    chosen = []

    def visit(game):
        if not game.is_terminal() and not game.is_chance_node():
            before = (list(game.sheets), list(game.pending), game.where, len(game.history), game.undo_depth)
            move = agents[game.current_player()].choose(game)
            assert move in game.legal_moves()
            assert before == (list(game.sheets), list(game.pending), game.where, len(game.history), game.undo_depth)
            chosen.append(move.kind)

    return play(CleverGame(len(agents)), agents, seed, visit), chosen
