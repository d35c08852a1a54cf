"""The split's brute-force oracle, shared by tests/missions/test_missions_split.py and
tests/missions/test_status_fast_paths.py: every assignment of the units to the sheets allowed to take
them (or to none) is tried."""

from __future__ import annotations

from itertools import product

from nochmal.impossible import rolls_needed
from nochmal.missions.model import block_slots
from nochmal.missions.split import check_split, rolls_for
from nochmal.missions.measures.crosses import fewest_crosses
from nochmal.missions.measures.rolls import fewest_rolls


def brute_split_rolls(inst) -> tuple[int, int]:
    """(lower, upper): the fewest rolls over every valid assignment, each sheet's rolls for
    its union bounded below by ceil(fewest crosses / 5), its block slots (one block a roll)
    and the piece search (fewest_rolls), and above by the fewer pieces of one block of its
    fewest-crosses path (rolls_needed) and of the piece search's cells."""
    n = len(inst.sheets)
    best_low = best_high = None
    for pick in product(*([None] + [p for p in range(n) if u.masks[p] is not None] for u in inst.units)):
        assignment = [tuple(u for u, p in enumerate(pick) if p == q) for q in range(n)]
        if check_split(inst, assignment):
            continue
        low = high = 0
        for p, units in enumerate(assignment):
            if not units:
                continue
            target = 0
            for u in units:
                target |= inst.units[u].masks[p]
            est = fewest_crosses(inst.sheets[p], target)
            assert est.exact
            board = inst.sheets[p].board
            pieces = fewest_rolls(inst.sheets[p], target)
            low = max(low, rolls_for(est.value), block_slots(board, target), pieces.lower)
            high = max(high, min(rolls_needed(board, board.mask_of(est.cells)).upper, pieces.upper))
        best_low = low if best_low is None else min(best_low, low)
        best_high = high if best_high is None else min(best_high, high)
    return best_low, best_high
