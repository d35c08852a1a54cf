"""The heuristic bot: one ply over the current roll, judged by the look-past evaluation.

Every legal choice (pass included) is scored by nochmal.bots.evaluation: the sheet's score
if the game ended now plus the estimated gains still to come. In the race it also knows
that a claimed column or colour is worth only its later value (the evaluation's context),
that completing a second colour ends the game (good only when ahead), and that as active
player from roll 4 on the dice it leaves go to the others (a pick that leaves them strong
dice is charged what those dice are worth to the best-placed opponent).

``ntuple`` is the same one-ply bot on the evaluation plus the n-tuple residual learned by
self-play (nochmal.bots.tuples); the residual applies in solo only, elsewhere it plays as
``heuristic``.
"""

from __future__ import annotations

import random

from nochmal.board import COLOURS
from nochmal.bots.evaluation import N_BASE, Context, Evaluator, check_weight_names, estimated_rolls_left
from nochmal.bots.tuples import TupleResidual, shipped_residual
from nochmal.bots.weights import FEATURES, WEIGHTS
from nochmal.choice import Choice, tie_key
from nochmal.dice import Roll, resolutions
from nochmal.game import Game, Mode
from nochmal.move import PASS, Move

# (value, placed choice), None for the pass
Ranked = list[tuple[float, Choice | None]]

END_BONUS = 1000.0  # ending the race while ahead beats any score estimate
LEAVE_WEIGHT = 1.0  # share of the best opponent's gain from the dice left to them


def choice_move(game: Game, choice: Choice | None) -> Move:
    """The Move for a ranked choice (None = pass)."""
    return PASS if choice is None else choice.move(game.board)


class Engine:
    """Evaluators per board, shared by the bots and the hints (built once, cached)."""

    def __init__(self, weights: list[float] | None = None, tuples: TupleResidual | bool = False):
        """``tuples``: add an n-tuple residual in solo (True: the shipped tables, where they
        fit the board)."""
        if weights is None:
            check_weight_names(FEATURES, "nochmal/bots/weights.py")  # fitted for these features
        self.weights = list(WEIGHTS if weights is None else weights)
        self.tuples = tuples
        self._evaluators: dict[tuple[int, bool], Evaluator] = {}

    def evaluator(self, game: Game) -> Evaluator:
        key = (id(game.board), game.rules.bridging)
        ev = self._evaluators.get(key)
        if ev is None or ev.board is not game.board:
            tuples = self.tuples
            if tuples is True:
                tuples = shipped_residual(game.board)
            ev = self._evaluators[key] = Evaluator(game.board, self.weights, game.rules.bridging,
                                                   tuples or None)
        return ev

    def context(self, game: Game, player: int, rolls_left: int | None = None) -> Context:
        """The evaluation context; at a certainly final decision the value is the exact score."""
        ev = self.evaluator(game)
        if rolls_left is None:
            rolls_left = estimated_rolls_left(game)
        ctx = ev.context(game, player, rolls_left)
        if rolls_left == 0 and game.roll_limit is not None and game.mode is not Mode.COMPETITIVE:
            ctx.weights = [0.0] * N_BASE
        return ctx

    def rank(self, game: Game, race: bool = True) -> Ranked:
        """Every distinct choice of the deciding player with its value, best first."""
        player = game.current_player()
        sheet = game.sheets[player]
        ev = self.evaluator(game)
        ctx = self.context(game, player)
        ranked = choice_values(ev, ctx, sheet.crossed, sheet.anchored, sheet.jokers_left, game.choices())
        if race and game.mode is Mode.COMPETITIVE and game.n_players > 1:
            ranked = self._race_adjust(game, player, ev, ranked)
        ranked.sort(key=rank_key, reverse=True)
        return ranked

    # --- the race -----------------------------------------------------------------------
    def _race_adjust(self, game: Game, player: int, ev: Evaluator, ranked: Ranked) -> Ranked:
        board = game.board
        sheet = game.sheets[player]
        others = [p for p in range(game.n_players) if p != player]
        colour_masks = [board.colour_mask[c] for c in COLOURS]
        # what the others would score if the game ended now, plus a little for those still to move
        moved = {p for p, _ in game.history[-1][1]}
        still_to_move = {o for o in others if o not in moved}
        opp_now = max(game.sheets[o].score() + (2 if o in still_to_move else 0) for o in others)
        active = game.current_player() == game.active_player and not game.free_choice
        leave_cache: dict[tuple[str, str] | None, float] = {}
        out: Ranked = []
        for value, choice in ranked:
            if choice is not None:
                new = sheet.crossed | choice.mask
                done = sum(1 for m in colour_masks if new & m == m)
                if done >= 2:
                    ctx = self.context(game, player, 0)
                    ctx.weights = [0.0] * N_BASE
                    final = ev.base_value(new, sheet.anchored, ctx) + sheet.jokers_left - choice.cost
                    value = (END_BONUS if final > opp_now else -END_BONUS) + final
            if active:
                key = None if choice is None else (choice.colour_face, choice.number_face)
                pen = leave_cache.get(key)
                if pen is None:
                    dice = game.roll if choice is None else game.roll.without(choice.colour_face, choice.number_face)
                    pen = leave_cache[key] = max(self._dice_gain(game, o, ev, dice) for o in others)
                value -= LEAVE_WEIGHT * pen
            out.append((value, choice))
        return out

    def _dice_gain(self, game: Game, player: int, ev: Evaluator, dice: Roll) -> float:
        """How much the best pick from ``dice`` raises ``player``'s evaluation."""
        sheet = game.sheets[player]
        ctx = self.context(game, player)
        X, A, jl = sheet.crossed, sheet.anchored, sheet.jokers_left
        base = ev.base_value(X, A, ctx)
        stay = base + ev.joker_value(ctx, jl)
        best = stay
        seen: set[int] = set()
        for cf, nf in dice.pairs():
            for colour, count, cost in resolutions(cf, nf, jl):
                jv = ev.joker_value(ctx, jl - cost)
                for mask in ev.index.query(X, A, colour, count):
                    if (mask, cost) in seen:
                        continue
                    seen.add((mask, cost))
                    v = ev.base_value(X | mask, A | ev.neighbours(mask), ctx) + jv
                    if v > best:
                        best = v
        return best - stay


def choice_values(ev: Evaluator, ctx: Context, crossed: int, anchored: int, jokers_left: int,
                  choices) -> Ranked:
    """Pass and every distinct placement open to ``choices`` (unplaced picks, as from
    Game.choices), each with the evaluation of the sheet after it; a placement reachable by
    several picks keeps its best (cheapest) one. Unsorted. Works on raw masks, so the
    trainers can call it without a Game."""
    X, A, jl = crossed, anchored, jokers_left
    index = ev.index
    base_cache: dict[int, float] = {}
    best_by_mask: dict[int, tuple[float, Choice]] = {}  # mask -> (value, unplaced pick)
    for pick in choices:
        jv = ev.joker_value(ctx, jl - pick.cost)
        for mask in index.query(X, A, pick.colour, pick.count):
            b = base_cache.get(mask)
            if b is None:
                b = base_cache[mask] = ev.base_value(X | mask, A | ev.neighbours(mask), ctx)
            v = b + jv
            old = best_by_mask.get(mask)
            if old is None or v > old[0]:
                best_by_mask[mask] = (v, pick)
    ranked: Ranked = [(ev.base_value(X, A, ctx) + ev.joker_value(ctx, jl), None)]
    ranked += [(v, pick.placed(mask)) for mask, (v, pick) in best_by_mask.items()]
    return ranked


def after_choice(ev: Evaluator, crossed: int, anchored: int, jokers_left: int,
                 choice: Choice | None) -> tuple[int, int, int]:
    """(crossed, anchored, jokers left) after a ranked choice (None = pass)."""
    if choice is None:
        return crossed, anchored, jokers_left
    mask = choice.mask
    return crossed | mask, anchored | ev.neighbours(mask), jokers_left - choice.cost


def rank_key(item: tuple[float, Choice | None]) -> tuple:
    """Sort key of a ranked (value, choice): the value (rounded, so float noise cannot
    decide), then the one tie-break of nochmal.choice.tie_key."""
    value, choice = item
    return (round(value, 9),) + tie_key(choice)


def pick_explored(ranked: Ranked, rng: random.Random, explore: float) -> tuple[float, tuple | None]:
    """The best ranked choice, or with probability ``explore`` one of the 3 best at random
    (seeded; used only to vary the tuning data)."""
    if explore and len(ranked) > 1 and rng.random() < explore:
        return ranked[rng.randrange(min(3, len(ranked)))]
    return ranked[0]


class HeuristicAgent:
    """Picks the choice with the best evaluation; ``explore`` > 0 plays a near-best one at
    random now and then (used only to vary the tuning data; seeded)."""

    name = "heuristic"

    def __init__(self, seed: int = 0, weights: list[float] | None = None, race: bool = True,
                 explore: float = 0.0, tuples: TupleResidual | bool = False):
        self.rng = random.Random(seed)
        self.engine = Engine(weights, tuples)
        self.race = race
        self.explore = explore

    def choose(self, game: Game) -> Move:
        ranked = self.engine.rank(game, self.race)
        return choice_move(game, pick_explored(ranked, self.rng, self.explore)[1])

