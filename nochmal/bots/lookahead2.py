"""The wider two-roll look-ahead bot (``lookahead2``): lookahead's search, more of it.

Same expectimax as nochmal.bots.lookahead (the next roll's outcome classes, the
evaluation as leaf), with the time the 1 s budget leaves spent where it was measured to pay:

- every one of the ``width`` best choices of the one-roll search is searched two rolls
  deep (lookahead: the best 3), in games with a fixed number of rolls (solo);
- within one decision the evaluation of a sheet and the one-roll expectation from a sheet
  are computed once (memo keyed by the crossed mask, which fixes the anchored mask, the
  jokers left and the context), since many replies reach the same sheet by different
  orders of crossing;
- at the middle level the ``mid`` best placements per (colour, count) under the
  evaluation are valued by the one-roll expectation (lookahead: only the best one), and a
  reply that spends jokers is valued with the jokers it actually leaves (``exact_jokers``).

In the race it behaves exactly like ``lookahead`` (one roll deep, race adjustments kept).
"""

from __future__ import annotations

import numpy as np

from nochmal.agents import register_agent
from nochmal.board import COLOURS
from nochmal.bots.evaluation import Context, Evaluator
from nochmal.bots.heuristic import Ranked
from nochmal.bots.lookahead import NEG, LookaheadAgent, _face_values, _tie, outcome_classes
from nochmal.game import Game


class _Memo:
    """Per-decision caches of evaluations and one-roll expectations."""

    def __init__(self, ev: Evaluator, dice: int):
        self.ev = ev
        self.dice = dice
        self.base: dict[tuple[int, int], float] = {}
        self.next: dict[tuple[int, int, int], float] = {}

    def base_value(self, crossed: int, anchored: int, ctx: Context) -> float:
        key = (crossed, id(ctx))
        v = self.base.get(key)
        if v is None:
            v = self.base[key] = self.ev.base_value(crossed, anchored, ctx)
        return v

    def best_per_colour_count(self, crossed: int, anchored: int, ctx: Context, keep: int) -> list:
        """[colour][count] -> the ``keep`` best placement masks under the evaluation, best first."""
        ev = self.ev
        index = ev.index
        neighbours = ev.neighbours
        out = []
        for colour in COLOURS:
            row: list[list[tuple[float, int]]] = [[] for _ in range(6)]
            for count in range(1, 6):
                scored = [(self.base_value(crossed | m, anchored | neighbours(m), ctx), m)
                          for m in index.query(crossed, anchored, colour, count)]
                if keep == 1:
                    row[count] = [max(scored)] if scored else []
                else:
                    scored.sort(reverse=True)
                    row[count] = scored[:keep]
            out.append(row)
        return out

    def expected_next(self, crossed: int, anchored: int, jokers_left: int, ctx: Context) -> float:
        """Expected value of the best reply to the next roll (pass included); memoised."""
        key = (crossed, jokers_left, id(ctx))
        v = self.next.get(key)
        if v is not None:
            return v
        ev = self.ev
        cands = self.best_per_colour_count(crossed, anchored, ctx, 1)
        best_cc = [[cands[ci][n][0][0] if n and cands[ci][n] else NEG for n in range(6)] for ci in range(5)]
        jv = [ev.joker_value(ctx, j) for j in range(jokers_left + 1)]
        stay = self.base_value(crossed, anchored, ctx) + jv[jokers_left]
        idx, prob = outcome_classes(self.dice)
        v = self.next[key] = float(_face_values(best_cc, stay, jv, jokers_left)[idx].max(axis=1) @ prob)
        return v

    def expected_two(self, crossed: int, anchored: int, jokers_left: int, ctx1: Context, ctx2: Context,
                     mid: int, exact_jokers: bool) -> float:
        """Expected value over the next two rolls (the middle reply valued by expected_next)."""
        ev = self.ev
        neighbours = ev.neighbours
        cands = self.best_per_colour_count(crossed, anchored, ctx1, mid)
        costs = range(min(jokers_left, 2) + 1) if exact_jokers else (0,)
        j_now = ev.joker_value(ctx1, jokers_left)
        # per joker cost: [colour][count] -> value of the best middle reply, joker part taken out
        tables = {c: [[NEG] * 6 for _ in range(5)] for c in costs}
        for ci in range(5):
            for count in range(1, 6):
                for _b, m in cands[ci][count]:
                    X, A = crossed | m, anchored | neighbours(m)
                    for c in costs:
                        jl = jokers_left - c
                        v = self.expected_next(X, A, jl, ctx2) - (ev.joker_value(ctx1, jl) if exact_jokers else j_now)
                        if v > tables[c][ci][count]:
                            tables[c][ci][count] = v
        jv = [ev.joker_value(ctx1, j) for j in range(jokers_left + 1)]
        stay = self.expected_next(crossed, anchored, jokers_left, ctx2)
        idx, prob = outcome_classes(self.dice)
        if not exact_jokers:
            return float(_face_values(tables[0], stay, jv, jokers_left)[idx].max(axis=1) @ prob)
        # a face pair of joker cost c uses the table of cost c (its jokers already charged)
        per_cost = {c: _face_values(tables[c], stay, jv, jokers_left) for c in costs}
        vals = per_cost[0].copy()
        for fi in range(6):
            for ni in range(6):
                c = (fi == 5) + (ni == 5)  # 'x' and '?' are the last faces
                if c and c in per_cost:
                    vals[fi * 6 + ni] = per_cost[c][fi * 6 + ni]
        return float(vals[idx].max(axis=1) @ prob)


class Lookahead2Agent(LookaheadAgent):
    """lookahead with every searched choice two rolls deep, memoised, wider middle level."""

    name = "lookahead2"

    def __init__(self, seed: int = 0, width: int = 12, weights: list[float] | None = None,
                 race: bool = True, deep: int = 12, mid: int = 1, exact_jokers: bool = False):
        super().__init__(seed=seed, width=width, weights=weights, race=race, deep=deep)
        self.mid = mid
        self.exact_jokers = exact_jokers

    def _deepen(self, game: Game, ev: Evaluator, ctx_now: Context, out: Ranked) -> Ranked:
        player = game.current_player()
        sheet = game.sheets[player]
        ctx1 = self.engine.context(game, player, ctx_now.rolls_left - 1)
        ctx2 = self.engine.context(game, player, ctx_now.rolls_left - 2)
        memo = _Memo(ev, game.dice_per_kind)
        deep: Ranked = []
        for _value, choice in out[: self.deep]:
            if choice is None:
                X, A, jl = sheet.crossed, sheet.anchored, sheet.jokers_left
            else:
                mask = choice[4]
                X, A, jl = sheet.crossed | mask, sheet.anchored | ev.neighbours(mask), sheet.jokers_left - choice[5]
            deep.append((memo.expected_two(X, A, jl, ctx1, ctx2, self.mid, self.exact_jokers), choice))
        deep.sort(key=lambda item: (round(item[0], 9),) + _tie(item[1]), reverse=True)
        return deep + out[self.deep:]


register_agent("lookahead2", Lookahead2Agent)
register_agent("la2_d6", lambda seed=0: Lookahead2Agent(seed=seed, deep=6))
register_agent("la2_d3", lambda seed=0: Lookahead2Agent(seed=seed, deep=3))
register_agent("la2_j", lambda seed=0: Lookahead2Agent(seed=seed, exact_jokers=True))
register_agent("la2_m2", lambda seed=0: Lookahead2Agent(seed=seed, mid=2))
register_agent("la2_m2j", lambda seed=0: Lookahead2Agent(seed=seed, mid=2, exact_jokers=True))
register_agent("la2_m2j3", lambda seed=0: Lookahead2Agent(seed=seed, deep=3, mid=2, exact_jokers=True))
