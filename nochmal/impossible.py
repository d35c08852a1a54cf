"""Why a sheet cannot come from a legal game, and from how few rolls it can (docs/rules.md §3).

Used by ``score``, ``render``, ``mission status`` (missions/coop.py) and the rooms' sheet
editing (nochmal/web/rooms/status.py).

A roll puts at most one placement on a sheet: 1..MAX_COUNT cells of one colour, in one block,
connected among themselves (OPTION ``bridging`` off), anchored (a cell in the start column or
next to a cell crossed on an earlier roll); each placement may use up to two jokers.

The key fact that makes the question cheap: take any partition of the crossed cells into
placement-shaped pieces (connected, one block, at most 5 cells). If every connected piece of
the crossed cells (across colours) touches the start column, the pieces can always be put in
an anchored order: a breadth-first order from the pieces in the start column, since each
later piece touches an earlier one. So, with bridging off,

    a sheet comes from k rolls  <=>  every crossed component touches the start column,
                                     sum over blocks of the fewest pieces <= k,
                                     jokers used <= 2 * min(k, crossed cells).

(A piece of 2+ cells can always be split in two placement-shaped pieces, so any count of
pieces from the fewest up to the number of cells is reachable: that gives the joker term.)
The fewest pieces of a block's crossed cells is a small exact search per connected part of
them (printed blocks have at most 6 cells, custom ones at most MAX_BLOCK_SIZE).

With bridging on, new cells may connect through crossed cells of their block, which can
save pieces in blocks larger than 6 cells (custom boards only). There the figure is given as
bounds (``lower``: parts of one block never merge; ``upper``: the bridging-off figure, which
stays legal); on the printed boards they always coincide.

tests/rolls_oracle.py decides the same question with a small CP-SAT model: a second,
independent implementation for the tests and benchmarks/bench_feasibility.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from nochmal.bitsets import bit_list, component_of, components, neighbours_of
from nochmal.board import COLUMN_LETTERS, Board
from nochmal.cache import Cache
from nochmal.i18n import Message, say
from nochmal.placements import MAX_COUNT
from nochmal.sheet import Sheet

MAX_JOKERS_PER_ROLL = 2  # a colour joker and a number joker (docs/rules.md §2)


@dataclass(frozen=True)
class RollsNeeded:
    """The fewest rolls that cross exactly a set of cells: exact when lower == upper.

    ``reachable`` is False when no number of rolls will do (a crossed piece not connected to
    the start column); the bounds are then meaningless.
    """

    reachable: bool
    lower: int
    upper: int
    unanchored: tuple[int, ...] = ()  # the crossed components that miss the start column

    @property
    def exact(self) -> bool:
        return self.lower == self.upper


def rolls_needed(board: Board, crossed: int, bridging: bool = False) -> RollsNeeded:
    """The fewest rolls that cross exactly ``crossed`` (board bit order) on an empty sheet."""
    nb = board.neighbour_mask
    reached = component_of(crossed & board.start_mask, crossed, nb)  # (whole components: the anchored ones)
    unanchored = tuple(components(crossed & ~reached, nb)) if reached != crossed else ()
    lower, upper = block_pieces(board, crossed)
    if not bridging:
        lower = upper
    return RollsNeeded(not unanchored, lower, upper, unanchored)


# id(board) -> (board, per block: offset, mask, neighbours, memo); a block's memo grows in
# place (one dict item at a time: a reader sees it with or without the item, both valid)
BLOCK_TABLES = Cache("impossible.block_tables", 64)
_MEMO_MAX = 1 << 12  # local masks remembered per block (a printed block has at most 2^6)


def block_pieces(board: Board, crossed: int) -> tuple[int, int]:
    """Sum over blocks of (ceil(cells / 5), fewest pieces) of ``crossed``'s connected parts in
    each block: the rolls_needed figures without the anchoring check. Each block's figure
    depends on its own cells only, so it is remembered per (block, local cells): searches that
    change one cell at a time (missions/measures/rolls.py ``_drop_cells``) pay one block."""
    entry = BLOCK_TABLES.peek(id(board))
    if entry is None or entry[0] is not board:
        entry = (board, [(b.offset, (1 << b.size) - 1, b.local_neighbours, {}) for b in board.blocks])
        BLOCK_TABLES.put(id(board), entry)
    lower = upper = 0
    for offset, full, neighbours, memo in entry[1]:
        local = (crossed >> offset) & full
        if not local:
            continue
        hit = memo.get(local)
        if hit is None:
            low_sum = up_sum = 0
            for part in components(local, neighbours):
                size = part.bit_count()
                low = -(-size // MAX_COUNT)
                low_sum += low
                up_sum += low if size <= MAX_COUNT + 1 else _fewest_pieces(part, neighbours)
            hit = (low_sum, up_sum)
            if len(memo) < _MEMO_MAX:
                memo[local] = hit
        lower += hit[0]
        upper += hit[1]
    return lower, upper


def _fewest_pieces(part: int, neighbours: tuple[int, ...]) -> int:
    """Fewest connected pieces of at most MAX_COUNT cells that partition ``part`` (connected)."""

    @lru_cache(maxsize=None)
    def best(rest: int) -> int:
        if not rest:
            return 0
        floor = -(-rest.bit_count() // MAX_COUNT)
        found = rest.bit_count()
        low = rest & -rest
        # every partition has a piece holding the lowest cell: try each such piece first
        for piece in _connected_sets(low, rest, neighbours):
            found = min(found, 1 + best(rest & ~piece))
            if found == floor:
                break
        return found

    return best(part)


def _connected_sets(start: int, within: int, neighbours: tuple[int, ...]) -> list[int]:
    """The connected subsets of ``within`` that hold ``start``, of 1..MAX_COUNT cells, largest first."""
    seen = {start}
    frontier = [start]
    for _ in range(MAX_COUNT - 1):
        grown = []
        for piece in frontier:
            border = neighbours_of(piece, neighbours) & within & ~piece
            for bit in bit_list(border):
                bigger = piece | 1 << bit
                if bigger not in seen:
                    seen.add(bigger)
                    grown.append(bigger)
        frontier = grown
    return sorted(seen, key=lambda m: -m.bit_count())


def impossible_sheet_reasons(sheet: Sheet, rolls: int | None = None, bridging: bool = False) -> list[str]:
    """Every reason no legal game gives ``sheet`` in ``rolls`` rolls (None: in any number), in
    English (the terminal's words; ``impossible_sheet_messages`` to say them in a language).

    Empty means the sheet can be produced. With bridging on and a custom board's large
    block, a sheet between the bounds is given the benefit of the doubt.
    """
    return [str(m) for m in impossible_sheet_messages(sheet, rolls, bridging)]


def impossible_sheet_messages(sheet: Sheet, rolls: int | None = None, bridging: bool = False) -> list[Message]:
    """``impossible_sheet_reasons`` as Messages, each said in the language asked (the web API)."""
    board = sheet.board
    reasons = []
    need = rolls_needed(board, sheet.crossed, bridging)
    start = COLUMN_LETTERS[board.start_column]
    for comp in need.unanchored:
        cells = board.cells_of(comp)
        shown = " ".join(cells[:8]) + (" ..." if len(cells) > 8 else "")
        reasons.append(say("crossed cells %(cells)s are not connected to column %(start)s through crossed cells "
                           "(no legal cross could have started them)", cells=shown, start=start))
    if not 0 <= sheet.jokers_used <= board.jokers:
        reasons.append(say("jokers_used is %(used)s, must be 0..%(most)s", used=sheet.jokers_used, most=board.jokers))
    n_crossed = sheet.crossed.bit_count()
    if sheet.jokers_used > MAX_JOKERS_PER_ROLL * n_crossed:
        reasons.append(say("%(used)s jokers used but only %(crossed)s cell(s) crossed; a roll uses at most "
                           "%(per_roll)s jokers and crosses at least one cell", used=sheet.jokers_used,
                           crossed=n_crossed, per_roll=MAX_JOKERS_PER_ROLL))
    reasons.extend(sheet.scoring_problems())
    if rolls is not None:
        if need.lower > rolls:
            took = (say("%(crossed)s crossed cells after %(rolls)s roll(s), but they take %(need)s rolls (each roll "
                        "crosses 1-%(most)s connected cells in one block)", crossed=n_crossed, rolls=rolls,
                        need=need.lower, most=MAX_COUNT) if need.exact and need.reachable else
                    say("%(crossed)s crossed cells after %(rolls)s roll(s), but they take at least %(need)s rolls "
                        "(each roll crosses 1-%(most)s connected cells in one block)", crossed=n_crossed, rolls=rolls,
                        need=need.lower, most=MAX_COUNT))
            reasons.append(took)
        if sheet.jokers_used > MAX_JOKERS_PER_ROLL * rolls:
            reasons.append(say("%(used)s jokers used after %(rolls)s roll(s); at most %(per_roll)s per roll are possible",
                               used=sheet.jokers_used, rolls=rolls, per_roll=MAX_JOKERS_PER_ROLL))
    return reasons
