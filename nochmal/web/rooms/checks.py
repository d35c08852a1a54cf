"""A sheet no legal game can give, said on that sheet (docs/rooms.md, *A mis-tap*).

One mis-tap must not blank the team's status for the whole table: the check
(nochmal.impossible, docs/rules.md §3) is turned into a warning on the seat's own sheet,
in plain words with its name, with the cells that break it (crosses not connected to
column H through crossed cells), and the team status is worked out on what can be
counted: the sheet without those cells when that is a legal sheet, else without the
sheet at all (an empty sheet in its place: it adds nothing to the team).
"""

from __future__ import annotations

from dataclasses import dataclass

from nochmal.board import COLUMN_LETTERS, Board
from nochmal.i18n import Message, say, say_n, semicolons
from nochmal.impossible import MAX_JOKERS_PER_ROLL, impossible_sheet_reasons, rolls_needed
from nochmal.sheet import Sheet
from nochmal.web.rooms.words import and_words, wire


@dataclass(frozen=True)
class SheetWarning:
    """Why one seat's sheet cannot come from a legal game, and what the status counts instead."""

    seat: int  # 0-based, as the room's seats; people see the name
    name: str
    cells: tuple[str, ...]  # the crosses that break it (reading order), marked on the drawing
    problems: tuple[Message, ...]  # plain words, one a problem (said by each phone: words.py)
    left_out: bool  # True: the team status leaves the sheet out; False: it counts it without ``cells``
    reasons: tuple[str, ...]  # the check's own words (nochmal.impossible), for the API

    def text(self, counted: bool = True) -> Message:
        """The line the status shows: what the team status counted, and why; ``counted``
        False where no team status counts the sheet (a competitive room scores it as it is)."""
        why = Message("%(problems)s", {"problems": semicolons(self.problems)})  # (no words of its own)
        if not counted:
            return say("%(name)s's sheet cannot come from a legal game: %(why)s.", name=self.name, why=why)
        if self.left_out:
            return say("%(name)s's sheet is left out: %(why)s.", name=self.name, why=why)
        return say("%(name)s's sheet is counted without %(cells)s: %(why)s.", name=self.name,
                   cells=and_words(self.cells), why=why)

    def to_dict(self, counted: bool = True) -> dict:
        warning = self.text(counted)
        return {"seat": self.seat, "sheet": self.seat + 1, "file": self.name, "name": self.name,
                "cells": list(self.cells), "problems": [str(p) for p in self.problems],
                "problems_said": wire(self.problems), "left_out": self.left_out,
                "warning": str(warning), "warning_said": wire(warning), "reasons": list(self.reasons)}


def and_list(words) -> str:
    """``A1``, ``A1 and B1``, ``A1, B1 and C1``: names as a person lists them."""
    words = list(words)
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def check_sheet(sheet: Sheet, seat: int, name: str, rolls: int | None) -> SheetWarning | None:
    """None when a legal game gives ``sheet`` in ``rolls`` rolls (the roll in play
    included: the caller's figure); else the warning."""
    reasons = impossible_sheet_reasons(sheet, rolls)
    if not reasons:
        return None
    board = sheet.board
    need = rolls_needed(board, sheet.crossed)
    bad = 0
    for part in need.unanchored:
        bad |= part
    problems = []
    start = COLUMN_LETTERS[board.start_column]
    for part in need.unanchored:
        cells = board.cells_of(part)
        problems.append(say_n("%(cells)s is not connected to column %(start)s",
                              "%(cells)s are not connected to column %(start)s", len(cells),
                              cells=and_words(cells), start=start))
    rest = without_cells(sheet, bad)
    left_out = bool(impossible_sheet_reasons(rest, rolls))
    if left_out:
        problems.extend(_other_problems(rest, rolls) or [Message(r) for r in reasons if "not connected" not in r])
    return SheetWarning(seat, name, tuple(board.cells_of(bad)), tuple(problems), left_out, tuple(reasons))


def _other_problems(sheet: Sheet, rolls: int | None) -> list[Message]:
    """The problems beyond unconnected crosses, in a player's words (empty: none of these)."""
    out = []
    crossed = sheet.crossed.bit_count()
    if rolls is not None:
        need = rolls_needed(sheet.board, sheet.crossed)
        if need.lower > rolls:
            out.append(say_n("%(n)s cross takes at least %(need)s rolls, and this is roll %(rolls)s",
                             "%(n)s crosses take at least %(need)s rolls, and this is roll %(rolls)s",
                             crossed, need=need.lower, rolls=rolls))
        if sheet.jokers_used > MAX_JOKERS_PER_ROLL * rolls:
            out.append(say_n("%(n)s joker used by roll %(rolls)s (at most %(most)s a roll)",
                             "%(n)s jokers used by roll %(rolls)s (at most %(most)s a roll)",
                             sheet.jokers_used, rolls=rolls, most=MAX_JOKERS_PER_ROLL))
    if sheet.jokers_used > MAX_JOKERS_PER_ROLL * crossed:
        out.append(say_n("%(n)s joker used for %(crosses)s (at most %(most)s a cross)",
                         "%(n)s jokers used for %(crosses)s (at most %(most)s a cross)", sheet.jokers_used,
                         crosses=say_n("%(n)s cross", "%(n)s crosses", crossed), most=MAX_JOKERS_PER_ROLL))
    return out


def without_cells(sheet: Sheet, cells: int) -> Sheet:
    """The sheet with ``cells`` uncrossed, its complete columns and colours scored as before
    (first, or later where it scored them later)."""
    rest = Sheet(sheet.board, sheet.crossed & ~cells, sheet.jokers_used)
    return rest.with_all_completions_scored(sheet.cols_lower & rest.complete_columns(),
                                            sheet.colours_lower & rest.complete_colours())


def counted_sheet(sheet: Sheet, warning: SheetWarning | None, board: Board) -> Sheet:
    """The sheet the team status counts: as it is, without the cells that break it, or
    (left out) an empty sheet, which adds nothing to the team."""
    if warning is None:
        return sheet
    if warning.left_out:
        return Sheet.empty(board)
    return without_cells(sheet, board.mask_of(warning.cells))
