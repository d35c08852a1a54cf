"""Why a sheet cannot come from a legal game: the checks that need no search.

Used by ``mission status`` (missions/coop.py) before it evaluates a group's sheets.
"""

from __future__ import annotations

from nochmal.bitsets import components
from nochmal.board import COLUMN_LETTERS
from nochmal.sheet import Sheet


def impossible_sheet_reasons(sheet: Sheet, rolls: int | None = None) -> list[str]:
    """Every reason no legal game can produce ``sheet`` (empty: it can be produced).

    Every crossed piece must contain a start-column cell (the first cross of a piece is
    anchored only by the start column), jokers must be in range, scored columns/colours
    must be complete and complete ones scored. With ``rolls`` (rolls played so far): at most
    5 crosses and 2 jokers per roll.
    """
    board = sheet.board
    reasons = []
    start = COLUMN_LETTERS[board.start_column]
    for comp in components(sheet.crossed, board.neighbour_mask):
        if not comp & board.start_mask:
            cells = board.cells_of(comp)
            shown = " ".join(cells[:8]) + (" ..." if len(cells) > 8 else "")
            reasons.append(f"crossed cells {shown} are not connected to column {start} through crossed cells "
                           f"(no legal cross could have started them)")
    if not 0 <= sheet.jokers_used <= board.jokers:
        reasons.append(f"jokers_used is {sheet.jokers_used}, must be 0..{board.jokers}")
    reasons.extend(sheet.scoring_problems())
    if rolls is not None:
        n = sheet.crossed.bit_count()
        if n > 5 * rolls:
            reasons.append(f"{n} crossed cells after {rolls} roll(s); at most 5 crosses per roll are possible")
        if sheet.jokers_used > 2 * rolls:
            reasons.append(f"{sheet.jokers_used} jokers used after {rolls} roll(s); at most 2 per roll are possible")
    return reasons
