"""The look-ahead bot: expectimax over the next roll, the evaluation as leaf value.

For each of the best few choices now (ranked by the heuristic), the value is the expected
value of the best reply to the *next* roll: the roll is summarised by its outcome classes
(multisets of colour faces times multisets of number faces, 21 x 21 for solo's 2+2 dice,
56 x 56 for 3+3, each with its exact probability), and for a class the best reply is the
best of its colour-die x number-die picks (pass included) under the evaluation. The best
placement per (colour, count) is computed once per candidate, so a class costs a handful
of table lookups (numpy) instead of a search.

In games with a fixed number of rolls (solo) the best ``deep`` choices are then searched
over the next *two* rolls (expected_two_ply): for each class of the next roll the best reply
per (colour, count) under the evaluation is itself valued by expected_next_value. That is
about 0.1 s of CPU per decision (registered as ``lookahead``; ``lookahead1`` is one roll
deep only). In solo both registered bots add the n-tuple residual (nochmal.bots.tuples) to
the evaluation: on the held-out seeds 0.155 s of CPU per decision instead of 0.108, and
+0.95 ± 0.77 points (benchmarks/RESULTS.md, Bots).

In the race the next roll is treated as a free pick from all dice (an optimistic but
even-handed approximation for every candidate), the search stays one roll deep, and the
race adjustments of the heuristic (ending the game only when ahead, dice left to the
others) are kept.
"""

from __future__ import annotations

import random
from functools import lru_cache

import numpy as np

from nochmal.agents import register_agent
from nochmal.board import COLOURS
from nochmal.bots.evaluation import Context, Evaluator
from nochmal.bots.heuristic import END_BONUS, Engine, Ranked, after_choice, choice_move, rank_key
from nochmal.bots.tuples import TupleResidual
from nochmal.dice import COLOUR_FACES, NUMBER_FACES, roll_classes
from nochmal.game import Game, Mode
from nochmal.move import Move

NEG = float("-inf")


@lru_cache(maxsize=None)
def outcome_classes(dice: int) -> tuple[np.ndarray, np.ndarray]:
    """(pair indices per class, probability per class) of the engine's roll classes
    (nochmal.dice.roll_classes, what Game.chance_outcomes gives) for ``dice`` colour and
    number dice.

    Pair index = colour face index * 6 + number face index; every die pick of the class is
    listed (repeats are harmless for a max). Probabilities sum to 1.
    """
    col_index = {f: i for i, f in enumerate(COLOUR_FACES)}
    num_index = {f: i for i, f in enumerate(NUMBER_FACES)}
    idx, prob = [], []
    for roll, p in roll_classes(dice):
        idx.append([col_index[c] * 6 + num_index[n] for c in roll.colours for n in roll.numbers])
        prob.append(p)
    return np.asarray(idx, dtype=np.intp), np.asarray(prob, dtype=float)


def expected_next_value(ev: Evaluator, crossed: int, anchored: int, jokers_left: int, ctx: Context,
                        dice: int) -> float:
    """Expected value of the best reply to the next roll from this sheet (pass included)."""
    index = ev.index
    neighbours = ev.neighbours
    best_cc = [[NEG] * 6 for _ in range(5)]  # [colour][count]
    for ci, colour in enumerate(COLOURS):
        row = best_cc[ci]
        for count in range(1, 6):
            b = NEG
            for mask in index.query(crossed, anchored, colour, count):
                v = ev.base_value(crossed | mask, anchored | neighbours(mask), ctx)
                if v > b:
                    b = v
            row[count] = b
    jv = [ev.joker_value(ctx, j) for j in range(jokers_left + 1)]
    stay = ev.base_value(crossed, anchored, ctx) + jv[jokers_left]
    idx, prob = outcome_classes(dice)
    return float(_face_values(best_cc, stay, jv, jokers_left)[idx].max(axis=1) @ prob)


def _face_values(best_cc: list[list[float]], stay: float, jv: list[float], jokers_left: int) -> np.ndarray:
    """Best value per (colour face, number face) from best values per (colour, count)."""
    any_colour = [max(best_cc[ci][n] for ci in range(5)) for n in range(6)]
    any_count = [max(best_cc[ci][1:]) for ci in range(5)]
    anything = max(any_count)
    vals = np.empty(36)
    for fi, cf in enumerate(COLOUR_FACES):
        for ni, nf in enumerate(NUMBER_FACES):
            cost = (cf == "x") + (nf == "?")
            v = stay
            if cost <= jokers_left:
                if cf != "x" and nf != "?":
                    b = best_cc[COLOURS.index(cf)][int(nf)]
                elif cf == "x" and nf != "?":
                    b = any_colour[int(nf)]
                elif cf != "x":
                    b = any_count[COLOURS.index(cf)]
                else:
                    b = anything
                if b != NEG and b + jv[jokers_left - cost] > v:
                    v = b + jv[jokers_left - cost]
            vals[fi * 6 + ni] = v
    return vals


def expected_two_ply(ev: Evaluator, crossed: int, anchored: int, jokers_left: int, ctx1: Context,
                     ctx2: Context, dice: int) -> float:
    """Expected value over the next two rolls: the best reply to the next roll per (colour,
    count) by the evaluation (and pass) is itself valued by expected_next_value; a reply's
    joker cost is charged at the evaluation's joker values."""
    index = ev.index
    neighbours = ev.neighbours
    best_cc = [[NEG] * 6 for _ in range(5)]
    j_now = ev.joker_value(ctx1, jokers_left)
    seen: dict[int, float] = {}
    for ci, colour in enumerate(COLOURS):
        row = best_cc[ci]
        for count in range(1, 6):
            masks = index.query(crossed, anchored, colour, count)
            if not masks:
                continue
            best_v, best_m = NEG, 0
            for m in masks:
                v = ev.base_value(crossed | m, anchored | neighbours(m), ctx1)
                if v > best_v:
                    best_v, best_m = v, m
            v = seen.get(best_m)
            if v is None:
                v = seen[best_m] = expected_next_value(ev, crossed | best_m, anchored | neighbours(best_m), jokers_left,
                                                       ctx2, dice) - j_now
            row[count] = v
    jv = [ev.joker_value(ctx1, j) for j in range(jokers_left + 1)]
    stay = expected_next_value(ev, crossed, anchored, jokers_left, ctx2, dice)
    idx, prob = outcome_classes(dice)
    return float(_face_values(best_cc, stay, jv, jokers_left)[idx].max(axis=1) @ prob)


class LookaheadAgent:
    """Expectimax over the next roll for the ``width`` best choices of the heuristic; in games
    with a fixed number of rolls (solo) the ``deep`` best of those are searched over the next
    two rolls (expected_two_ply)."""

    name = "lookahead"

    def __init__(self, seed: int = 0, width: int = 12, weights: list[float] | None = None,
                 race: bool = True, deep: int = 3, tuples: TupleResidual | bool = False):
        self.rng = random.Random(seed)  # kept for the interface; the search is deterministic
        self.engine = Engine(weights, tuples)
        self.width = width
        self.race = race
        self.deep = deep

    def rank(self, game: Game) -> Ranked:
        """The heuristic's best ``width`` choices re-valued by the look-ahead, best first."""
        ranked = self.engine.rank(game, self.race)
        player = game.current_player()
        ev = self.engine.evaluator(game)
        ctx_now = self.engine.context(game, player)
        if ctx_now.rolls_left <= 0:
            return ranked
        ctx = self.engine.context(game, player, ctx_now.rolls_left - 1)
        sheet = game.sheets[player]
        out: Ranked = []
        for value, choice in ranked[: self.width]:
            if abs(value) >= END_BONUS / 2:  # the race ends with this choice: no next roll
                out.append((value, choice))
                continue
            # the race adjustment (dice left to others) is kept as the difference to the plain value
            X, A, jl = after_choice(ev, sheet.crossed, sheet.anchored, sheet.jokers_left, choice)
            plain = ev.base_value(X, A, ctx_now) + ev.joker_value(ctx_now, jl)
            look = expected_next_value(ev, X, A, jl, ctx, game.dice_per_kind)
            out.append((look + (value - plain), choice))
        out.sort(key=rank_key, reverse=True)
        if self.deep and game.mode is not Mode.COMPETITIVE and game.roll_limit is not None and ctx_now.rolls_left >= 2:
            out = self._deepen(game, ev, ctx_now, out)
        return out + ranked[self.width:]

    def _deepen(self, game: Game, ev: Evaluator, ctx_now: Context, out: Ranked) -> Ranked:
        """Re-value the ``deep`` best choices two rolls ahead (the rest keep their order after)."""
        player = game.current_player()
        sheet = game.sheets[player]
        ctx1 = self.engine.context(game, player, ctx_now.rolls_left - 1)
        ctx2 = self.engine.context(game, player, ctx_now.rolls_left - 2)
        deep: Ranked = []
        for _value, choice in out[: self.deep]:
            X, A, jl = after_choice(ev, sheet.crossed, sheet.anchored, sheet.jokers_left, choice)
            deep.append((expected_two_ply(ev, X, A, jl, ctx1, ctx2, game.dice_per_kind), choice))
        deep.sort(key=rank_key, reverse=True)
        return deep + out[self.deep:]

    def choose(self, game: Game) -> Move:
        return choice_move(game, self.rank(game)[0][1])


# in solo the leaf is the evaluation plus the n-tuple residual (nochmal.bots.tuples); the
# choice was made on tuning seeds 1..200 (benchmarks/RESULTS.md, Bots, fourth session)
register_agent("lookahead", lambda seed=0: LookaheadAgent(seed=seed, tuples=True))
register_agent("lookahead1", lambda seed=0: LookaheadAgent(seed=seed, deep=0, tuples=True))
