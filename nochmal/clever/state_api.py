"""The state API that nochmal.Game (Noch mal!) and CleverGame (Clever 4ever) share, named
once, so that an agent, a game loop, a record's replay or the batch runner written against
it serves both games (docs/clever.md "One state API"). A chance node's outcome is a Roll
for Noch mal! and a Throw for Clever 4ever; a decision is a Move or an Action; both print
and parse themselves.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class GameState(Protocol):
    n_players: int

    def current_player(self) -> int:
        """A seat's index, or nochmal.game.CHANCE / TERMINAL (both below 0)."""

    def is_chance_node(self) -> bool: ...

    def is_terminal(self) -> bool: ...

    def chance_outcomes(self) -> tuple[tuple[Any, float], ...]:
        """At a chance node: the distinct outcomes with their probabilities."""

    def apply_roll(self, outcome: Any) -> None: ...

    def seeded_outcome(self, seed: int) -> Any:
        """At a chance node: the seed's outcome there (a Roll or a Throw), the same forever."""

    def legal_moves(self) -> list[Any]:
        """Every legal decision of the deciding seat."""

    def apply_move(self, move: Any) -> None:
        """Raises the game's IllegalMoveError (a subclass for Clever) with the reason."""

    def push(self, step: Any) -> None: ...

    def pop(self) -> Any: ...

    def clone(self) -> "GameState": ...

    def scores(self) -> list[int]: ...

    def returns(self) -> list[float]:
        """Solo: the score; else 1 for a (shared) win, 0 otherwise."""
