"""Clever 4ever's searching bot, ``rollout`` (docs/clever.md "Bots"): the greedy bot's first
choices, each played on several times by the greedy bot with sampled dice, the best average
kept.

At a decision with more than one legal action, the greedy bot's ``TOP`` best actions (those
within ``MARGIN`` points of its best), and a re-roll when one is legal, are the candidates.
Each candidate is played on ``ROLLOUTS`` times, by the greedy bot for every seat, to the end
of the game (or, with a ``HORIZON``, to the start of the round that many rounds on); a rollout
ends worth the deciding seat's score (at a horizon: its ``worth``). Full games beat the
horizon of one round clearly on the tuning seeds: ``worth``'s guesses are what the search is
to see past (benchmarks/log/2026-12-05-clever.md).

The dice of rollout j are the same for every candidate (common random numbers: the
candidates are compared on the same throws), thrown from a seed made of the bot's seed and
the game's history, so a game stays reproducible from its seed and never sees the game's own
dice before they fall.

The budget is counted in rollouts, not seconds, so the bot is deterministic;
benchmarks/bench_clever.py prints the mean time a decision takes.
"""

from __future__ import annotations

import hashlib

from nochmal.bots.clever_greedy import GreedyCleverAgent, greedy_values, worth_now
from nochmal.clever.actions import REROLL, Action
from nochmal.clever.game import CleverGame
from nochmal.play import play_game
from nochmal.rules import MAX_SEED

TOP = 3  # candidates taken from the greedy bot's ranking
MARGIN = 12.0  # ... only those within this many points of its best
ROLLOUTS = 4  # rollouts per candidate
HORIZON = None  # rounds played out: None = to the end of the game; 1 = to the start of the next round


class RolloutCleverAgent:
    """Greedy candidates judged by greedy rollouts (see the module doc); ties go to the
    greedy bot's order."""

    name = "rollout"

    def __init__(self, seed: int = 0, top: int = TOP, rollouts: int = ROLLOUTS, horizon: int | None = HORIZON,
                 margin: float = MARGIN):
        self.seed, self.top, self.rollouts, self.horizon, self.margin = seed, top, rollouts, horizon, margin
        self.greedy = GreedyCleverAgent(seed)

    def candidates(self, game: CleverGame) -> list[Action]:
        """The actions worth a rollout, the greedy bot's favourite first."""
        moves = game.legal_moves()
        if len(moves) == 1:
            return moves
        ranked = greedy_values(game, game.current_player(), moves)
        best = ranked[0][0] if ranked else 0.0
        out = [move for value, move in ranked[:self.top] if value >= best - self.margin]
        if REROLL in moves:
            out.append(REROLL)
        return out

    def choose(self, game: CleverGame) -> Action:
        candidates = self.candidates(game)
        if len(candidates) == 1:
            return candidates[0]
        seat = game.current_player()
        seeds = self.rollout_seeds(game)
        best, best_total = candidates[0], float("-inf")
        for move in candidates:
            total = sum(self.rollout(game, move, seat, s) for s in seeds)
            if total > best_total:
                best, best_total = move, total
        return best

    def rollout_seeds(self, game: CleverGame) -> list[int]:
        """The rollouts' dice seeds: from the bot's seed and everything that happened so far."""
        digest = hashlib.sha256(f"{self.seed}|{game.history!r}".encode()).digest()
        base = int.from_bytes(digest[:8], "big")
        return [(base + j) % (MAX_SEED + 1) for j in range(self.rollouts)]

    def rollout(self, game: CleverGame, move: Action, seat: int, seed: int) -> float:
        """``move`` played, then the greedy bot for every seat up to the horizon; the seat's
        ``worth`` there (its score at the end of the game)."""
        game = game.clone()
        game.push_legal(move)
        stop = None if self.horizon is None else game.round + self.horizon
        play_game(game, [self.greedy] * game.n_players, seed,
                  until=None if stop is None else lambda g: g.round >= stop)
        if game.is_terminal():
            return float(game.scores()[seat])
        return worth_now(game, seat)
