"""The position evaluation shared by the heuristic, look-ahead and hint code.

A sheet after a decision is worth its score *if the game ended now* plus an estimate of
what it will still gain. That estimate is a weighted sum of features that look past the
current roll: how many cells each column and colour still misses (bucketed, weighted by
the points at stake for this player), how many of those cells are not yet anchored, stars
open and in reach, the anchored frontier, which counts each colour can still place
(a colour with no anchored open cell is dead for the next roll), cells stranded in
partially filled blocks, and the value of the jokers left. Each weight is a function of
the rolls still to come (phase_basis), so the same feature can matter early and not late.
The weights are data (nochmal.bots.weights), fitted by benchmarks/tune_heuristic.py.

Everything works on raw masks (crossed, anchored, jokers left), never on Game or Move
objects, so one evaluation costs tens of microseconds.
"""

from __future__ import annotations

from nochmal.bitsets import components, neighbours_of
from nochmal.board import COLOURS, N_COLOURS, Board
from nochmal.bots.tuples import TupleResidual
from nochmal.errors import WeightsError
from nochmal.game import Game, Mode
from nochmal.placements import placement_index

PHASE_TERMS = 5  # weight = sum of w_k * phase_basis(rolls left)[k]
PER_COLUMN = 15  # columns with their own weights (the classic width; wider boards share none)
FEATURE_NAMES = (
    [f"column_missing_{m}" for m in range(1, 8)]
    + ["column_near_unanchored"]
    + [f"colour_missing_{b}" for b in ("1", "2", "3", "4-5", "6-8", "9-12", "13-16", "17-21")]
    + ["stars_open_anchored", "stars_open_far", "frontier", "placeable_counts", "dead_colours",
       "stranded_singletons", "open_in_partial_blocks", "crossed"]
    + [f"column_pieces_{n}" for n in ("1", "2", "3", "4+")]
    + [f"colour_open_blocks_{n}" for n in ("1", "2", "3", "4+")]
    + [f"missing_share_column_{c}" for c in "ABCDEFGHIJKLMNO"]
    + [f"at_most_2_missing_column_{c}" for c in "ABCDEFGHIJKLMNO"]
    + [f"missing_share_colour_{c}" for c in COLOURS]
    + [f"jokers_left_{j}" for j in range(9)]
)
N_BASE = len(FEATURE_NAMES)  # features per position, before the phase basis
FEATURE_INDEX = {name: i for i, name in enumerate(FEATURE_NAMES)}
# where each feature (or the first of a group) sits: features are addressed by name, so
# reordering FEATURE_NAMES moves these with it (and the weights check below catches the data)
COLUMN_MISSING = FEATURE_INDEX["column_missing_1"]  # + missing cells - 1 (1..7)
COLUMN_NEAR_UNANCHORED = FEATURE_INDEX["column_near_unanchored"]
COLOUR_MISSING = FEATURE_INDEX["colour_missing_1"]  # + _COLOUR_BUCKET[missing cells]
STARS_OPEN_ANCHORED = FEATURE_INDEX["stars_open_anchored"]
STARS_OPEN_FAR = FEATURE_INDEX["stars_open_far"]
FRONTIER = FEATURE_INDEX["frontier"]
PLACEABLE_COUNTS = FEATURE_INDEX["placeable_counts"]
DEAD_COLOURS = FEATURE_INDEX["dead_colours"]
STRANDED_SINGLETONS = FEATURE_INDEX["stranded_singletons"]
OPEN_IN_PARTIAL_BLOCKS = FEATURE_INDEX["open_in_partial_blocks"]
CROSSED = FEATURE_INDEX["crossed"]
COLUMN_PIECES = FEATURE_INDEX["column_pieces_1"]  # + min(pieces, 4) - 1
COLOUR_OPEN_BLOCKS = FEATURE_INDEX["colour_open_blocks_1"]  # + min(blocks, 4) - 1
MISSING_SHARE_COLUMN = FEATURE_INDEX["missing_share_column_A"]  # + column (< PER_COLUMN)
AT_MOST_2_MISSING_COLUMN = FEATURE_INDEX["at_most_2_missing_column_A"]  # + column
MISSING_SHARE_COLOUR = FEATURE_INDEX["missing_share_colour_" + COLOURS[0]]  # + colour index
JOKER_FEATURE = FEATURE_INDEX["jokers_left_0"]  # + jokers left (0..8); the last block
assert JOKER_FEATURE + 9 == N_BASE, "the jokers one-hot must close FEATURE_NAMES (features() stops before it)"


def check_weight_names(names, source: str) -> None:
    """Fail loudly, in one line, when weights were fitted for other features than these
    (a reordered or changed FEATURE_NAMES would otherwise silently scramble them)."""
    names = list(names)
    if names == list(FEATURE_NAMES):
        return
    for i, (have, want) in enumerate(zip(names, FEATURE_NAMES)):
        if have != want:
            raise WeightsError(f"{source}: weight feature {i} is {have!r}, the evaluation's is {want!r}; "
                             f"refit the weights (benchmarks/tune_heuristic.py)")
    raise WeightsError(f"{source}: weights name {len(names)} features, the evaluation has {N_BASE}; "
                     f"refit the weights (benchmarks/tune_heuristic.py)")
_COLOUR_BUCKET = [0, 0, 1, 2, 3, 3, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 7]


def _block_stats(size: int, nbrs: tuple[int, ...], crossed: int, anchored: int) -> tuple[int, int, int]:
    """(largest anchored open component capped at 5, singleton components, open cells)."""
    full = (1 << size) - 1
    open_ = full & ~crossed
    best = singles = 0
    for piece in components(open_, nbrs):
        n = piece.bit_count()
        if n == 1:
            singles += 1
        if piece & anchored and n > best:
            best = n
    return min(best, 5), singles, open_.bit_count()


# phase_basis's constants: the shipped weights were fitted with exactly these values
PHASE_ROLLS = 30.0  # r = rolls left / PHASE_ROLLS: a solo game's length (docs/rules.md §5)
PHASE_ROLLS_CAP = 40  # more rolls left (long co-op budgets) count as this many: r stays bounded
LATE_RAMP_ROLLS = 10.0  # the first end-game ramp switches on in the last 10 rolls ...
FINAL_RAMP_ROLLS = 4.0  # ... the second in the last 4


def phase_basis(rolls_left: int) -> tuple[float, ...]:
    """1, r, r^2 (r = rolls left / PHASE_ROLLS, capped) and two end-game ramps that switch on
    in the last LATE_RAMP_ROLLS and FINAL_RAMP_ROLLS rolls, where chances change fastest."""
    r = min(rolls_left, PHASE_ROLLS_CAP) / PHASE_ROLLS
    return (1.0, r, r * r, max(0.0, 1.0 - rolls_left / LATE_RAMP_ROLLS),
            max(0.0, 1.0 - rolls_left / FINAL_RAMP_ROLLS))


class Context:
    """What a decision needs beyond the sheet: points at stake and the game phase."""

    __slots__ = ("col_value", "colour_value", "rolls_left", "weights", "tuples")

    def __init__(self, col_value: list[int], colour_value: list[int], rolls_left: int,
                 weights: list[float], tuples: TupleResidual | None = None):
        self.col_value = col_value
        self.colour_value = colour_value
        self.rolls_left = rolls_left
        self.weights = weights
        self.tuples = tuples  # the n-tuple residual, where it applies (solo), else None


class Evaluator:
    """Fast features and value of sheets of one board under one set of weights."""

    def __init__(self, board: Board, weights: list[float], bridging: bool = False,
                 tuples: TupleResidual | None = None):
        if len(weights) != N_BASE * PHASE_TERMS:
            raise WeightsError(f"expected {N_BASE * PHASE_TERMS} weights, got {len(weights)}")
        self.board = board
        self.tuples = tuples  # learned for solo play; used only in solo contexts
        self.bridging = bridging
        self.index = placement_index(board, bridging)
        self.raw_weights = list(weights)
        self._phase_cache: dict[int, list[float]] = {}
        self.col_masks = board.column_mask
        self.colour_masks = [board.colour_mask[c] for c in COLOURS]
        self.star_mask = board.star_mask
        self.star_penalty = board.star_penalty
        self.max_jokers = board.jokers
        colour_index = {c: i for i, c in enumerate(COLOURS)}
        self.blocks = [(b.offset, (1 << b.size) - 1, b.size, b.local_neighbours, colour_index[b.colour], {})
                       for b in board.blocks]
        self._nb_cache: dict[int, int] = {}
        # per column: its vertical runs of one block (a run's open cells take one placement)
        self.col_runs = []
        for c in range(board.cols):
            runs: list[int] = []
            prev_block = None
            for r in range(board.rows):
                bit = board.bit_of[r * board.cols + c]
                blk = board.block_of_bit[bit]
                if blk == prev_block:
                    runs[-1] |= 1 << bit
                else:
                    runs.append(1 << bit)
                prev_block = blk
            self.col_runs.append(tuple(runs))

    # --- phase weights ------------------------------------------------------------------
    def phase_weights(self, rolls_left: int) -> list[float]:
        w = self._phase_cache.get(rolls_left)
        if w is None:
            basis = phase_basis(rolls_left)
            raw = self.raw_weights
            w = [sum(raw[k * N_BASE + i] * basis[k] for k in range(PHASE_TERMS)) for i in range(N_BASE)]
            self._phase_cache[rolls_left] = w
        return w

    def joker_value(self, ctx: Context, jokers_left: int) -> float:
        """Score plus estimated option value of ``jokers_left`` unused jokers."""
        v = jokers_left + ctx.weights[JOKER_FEATURE + min(jokers_left, 8)]
        if ctx.tuples is not None:
            v += ctx.tuples.joker(ctx.rolls_left, jokers_left)
        return v

    # --- context ------------------------------------------------------------------------
    def context(self, game: Game, player: int, rolls_left: int | None = None) -> Context:
        """Points at stake for ``player`` (first or later values in the race) and the phase."""
        board = self.board
        sheet = game.sheets[player]
        claimed_cols, claimed_colours = game.race_claims
        col_value = []
        for c in range(board.cols):
            if sheet.cols_upper >> c & 1:
                col_value.append(board.column_points_first[c])
            elif sheet.cols_lower >> c & 1:
                col_value.append(board.column_points_later[c])
            elif claimed_cols >> c & 1:
                col_value.append(board.column_points_later[c])
            else:
                col_value.append(board.column_points_first[c])
        colour_value = []
        for i in range(len(COLOURS)):
            if sheet.colours_upper >> i & 1:
                colour_value.append(board.colour_bonus_first)
            elif sheet.colours_lower >> i & 1:
                colour_value.append(board.colour_bonus_later)
            elif claimed_colours >> i & 1:
                colour_value.append(board.colour_bonus_later)
            else:
                colour_value.append(board.colour_bonus_first)
        if rolls_left is None:
            rolls_left = estimated_rolls_left(game)
        solo = game.mode is Mode.SOLO and not game.rules.solo_ends_on_second_colour
        return Context(col_value, colour_value, rolls_left, self.phase_weights(rolls_left),
                       self.tuples if solo else None)

    # --- features -----------------------------------------------------------------------
    def neighbours(self, mask: int) -> int:
        """nochmal.bitsets.neighbours_of, cached per mask (asked for every placement valued)."""
        nb = self._nb_cache.get(mask)
        if nb is None:
            nb = self._nb_cache[mask] = neighbours_of(mask, self.board.neighbour_mask)
        return nb

    def features(self, crossed: int, anchored: int, ctx: Context) -> tuple[float, list[float]]:
        """(score if the game ended now without jokers, feature list without the joker part)."""
        f = [0.0] * JOKER_FEATURE
        # the group starts as locals: read in the per-column and per-colour loops
        col_missing, near_unanchored, col_pieces = COLUMN_MISSING, COLUMN_NEAR_UNANCHORED, COLUMN_PIECES
        share_col, two_missing = MISSING_SHARE_COLUMN, AT_MOST_2_MISSING_COLUMN
        colour_missing, share_colour = COLOUR_MISSING, MISSING_SHARE_COLOUR
        score = 0
        not_crossed = ~crossed
        col_value = ctx.col_value
        col_runs = self.col_runs
        for c, cm in enumerate(self.col_masks):
            miss = cm & not_crossed
            if not miss:
                score += col_value[c]
                continue
            m = miss.bit_count()
            v = col_value[c]
            f[col_missing + m - 1] += v
            if m <= 3:
                f[near_unanchored] += v * (miss & ~anchored).bit_count()
            pieces = 0
            for run in col_runs[c]:
                if run & miss:
                    pieces += 1
            f[col_pieces + (pieces if pieces < 4 else 4) - 1] += v
            if c < PER_COLUMN:
                f[share_col + c] = m / 7.0
                if m <= 2:
                    f[two_missing + c] = 1.0
        colour_value = ctx.colour_value
        for i, km in enumerate(self.colour_masks):
            k = (km & not_crossed).bit_count()
            if k == 0:
                score += colour_value[i]
            else:
                f[colour_missing + _COLOUR_BUCKET[k]] += colour_value[i]
                f[share_colour + i] = k / 21.0
        open_stars = self.star_mask & not_crossed
        score -= self.star_penalty * open_stars.bit_count()
        near = (open_stars & anchored).bit_count()
        f[STARS_OPEN_ANCHORED] = near
        f[STARS_OPEN_FAR] = open_stars.bit_count() - near
        f[FRONTIER] = (anchored & not_crossed).bit_count()
        best = [0] * N_COLOURS
        done = [True] * N_COLOURS
        open_blocks = [0] * N_COLOURS
        singles = open_partial = 0
        for off, full, size, nbrs, ci, cache in self.blocks:
            lx = (crossed >> off) & full
            if lx == full:
                continue
            done[ci] = False
            open_blocks[ci] += 1
            la = (anchored >> off) & full
            key = lx | la << size
            st = cache.get(key)
            if st is None:
                st = cache[key] = _block_stats(size, nbrs, lx, la)
            if st[0] > best[ci]:
                best[ci] = st[0]
            if lx:
                singles += st[1]
                open_partial += st[2]
        f[PLACEABLE_COUNTS] = sum(best)
        f[DEAD_COLOURS] = sum(1 for i in range(N_COLOURS) if not done[i] and best[i] == 0)
        f[STRANDED_SINGLETONS] = singles
        f[OPEN_IN_PARTIAL_BLOCKS] = open_partial
        f[CROSSED] = crossed.bit_count()
        for i in range(N_COLOURS):
            n = open_blocks[i]
            if n:
                f[COLOUR_OPEN_BLOCKS + (n if n < 4 else 4) - 1] += colour_value[i]
        return score, f

    def value(self, crossed: int, anchored: int, jokers_left: int, ctx: Context) -> float:
        """Estimated final score of this sheet after a decision (rolls_left rolls to come)."""
        return self.base_value(crossed, anchored, ctx) + self.joker_value(ctx, jokers_left)

    def base_value(self, crossed: int, anchored: int, ctx: Context) -> float:
        """The value without the joker part (which depends only on jokers left)."""
        score, f = self.features(crossed, anchored, ctx)
        w = ctx.weights
        if ctx.tuples is not None:
            score += ctx.tuples.value(crossed, anchored, ctx.rolls_left)
        return score + sum([a * b for a, b in zip(f, w)])

    def full_features(self, crossed: int, anchored: int, jokers_left: int, ctx: Context) -> tuple[float, list[float]]:
        """(score now including jokers, all N_BASE features) for fitting the weights."""
        score, f = self.features(crossed, anchored, ctx)
        onehot = [0.0] * (N_BASE - JOKER_FEATURE)
        onehot[min(jokers_left, 8)] = 1.0
        return score + jokers_left, f + onehot


MAX_ROLLS_GUESS = 30  # the race's rolls-left guess is capped at a solo game's length (and is
# the answer when nothing bounds the game)

def estimated_rolls_left(game: Game) -> int:
    """Rolls still to come after the current one.

    Exact when the game has a roll limit. In the race (which ends when someone completes a
    second colour) a guess from the cells the closest player still misses in their two most
    complete colours: about (0.7 * players - 0.1) rolls per missing cell, fitted to the game
    lengths of heuristic bots at tables of 2 and 4 (tuning seeds), capped at 30.
    """
    left = None
    if game.roll_limit is not None:
        left = max(game.roll_limit - game.rolls_done - 1, 0)
    if game.mode is Mode.COMPETITIVE:
        board = game.board
        need = None
        for sheet in game.sheets:
            miss = sorted((board.colour_mask[c] & ~sheet.crossed).bit_count() for c in COLOURS)
            n = miss[0] + miss[1]
            need = n if need is None else min(need, n)
        per_cell = 0.7 * game.n_players - 0.1 if game.n_players > 1 else 1.0
        guess = min(int(need * per_cell), MAX_ROLLS_GUESS)
        left = guess if left is None else min(left, guess)
    return MAX_ROLLS_GUESS if left is None else left
