"""The competitive room's race and end, from the roll on which each seat completed each
column and colour (docs/rooms.md, the race; rules.md §4).

A seat's completion is marked with the roll in play when its sheet became complete there
(the store writes the marks with every sheet edit). First and later follow from the marks:
the seats that completed an item on its earliest roll score it first, ties in one roll all
first; a seat may override its own mark by hand. The game ends on the earliest roll on
which a seat completed its second colour.
"""

from __future__ import annotations

from dataclasses import dataclass

from nochmal.board import COLOUR_NAMES, COLOURS, COLUMN_LETTERS, Board
from nochmal.sheet import Sheet
from nochmal.web.errors import WebError

OVERRIDES = ("first", "later")  # a seat's hand-set value; "auto" (None) follows the rolls


def completed_items(board: Board, crossed: int) -> set[str]:
    """The columns (letters) and colours (names) a sheet has completed."""
    probe = Sheet(board, crossed)
    cols, colours = probe.complete_columns(), probe.complete_colours()
    return ({COLUMN_LETTERS[c] for c in range(board.cols) if cols >> c & 1} |
            {COLOUR_NAMES[c] for i, c in enumerate(COLOURS) if colours >> i & 1})


def is_colour(item: str) -> bool:
    return item in COLOUR_NAMES.values()


def item_label(item: str) -> str:
    """``column H`` or ``green``: as a message names it."""
    return item if is_colour(item) else f"column {item}"


def later_items(board: Board, later_columns: int, later_colours: int) -> set[str]:
    """The items of a sheet's later_columns and later_colours masks."""
    return ({COLUMN_LETTERS[c] for c in range(board.cols) if later_columns >> c & 1} |
            {COLOUR_NAMES[c] for i, c in enumerate(COLOURS) if later_colours >> i & 1})


def race_item(text: str, board: Board) -> str:
    """A client's item ("H", "green", or a colour's letter "g") as the race names it; 422 else."""
    if text.upper() in COLUMN_LETTERS[: board.cols] and len(text) == 1 and text.lower() not in COLOURS:
        return text.upper()
    name = COLOUR_NAMES.get(text.lower(), text.lower())
    if name in COLOUR_NAMES.values():
        return name
    raise WebError(f"item must be a column letter (A..{COLUMN_LETTERS[board.cols - 1]}) or a colour "
                   f"({', '.join(COLOUR_NAMES.values())}), not {text[:12]!r}", "item", 422)


def scored_later(marks) -> dict[int, set[str]]:
    """Per seat, the items it scores at the later value: completed on a later roll than the
    item's first completion (unless overridden by hand)."""
    first_roll: dict[str, int] = {}
    for m in marks:
        first_roll[m.item] = min(first_roll.get(m.item, m.roll), m.roll)
    later: dict[int, set[str]] = {}
    for m in marks:
        is_later = m.override == "later" if m.override else m.roll > first_roll[m.item]
        if is_later:
            later.setdefault(m.seat, set()).add(m.item)
    return later


def later_masks(items: set[str], board: Board) -> tuple[int, int]:
    """The sheet's later_columns and later_colours masks of these items."""
    cols = sum(1 << COLUMN_LETTERS.index(i) for i in items if not is_colour(i) and i in COLUMN_LETTERS[: board.cols])
    names = list(COLOUR_NAMES.values())
    colours = sum(1 << names.index(i) for i in items if is_colour(i))
    return cols, colours


@dataclass(frozen=True)
class GameEnd:
    """The roll that ended the game and the seats that completed a second colour on it."""

    roll: int
    seats: tuple[int, ...]


def game_end(marks) -> GameEnd | None:
    """The earliest roll on which some seat completed its second colour (rules.md §4, End)."""
    by_seat: dict[int, list[int]] = {}
    for m in marks:
        if is_colour(m.item):
            by_seat.setdefault(m.seat, []).append(m.roll)
    second = {seat: sorted(rolls)[1] for seat, rolls in by_seat.items() if len(rolls) >= 2}
    if not second:
        return None
    roll = min(second.values())
    return GameEnd(roll, tuple(sorted(s for s, r in second.items() if r == roll)))


def winners(sheets: list[Sheet]) -> list[int]:
    """Highest score; a tie goes to more unused jokers; still tied, they share (rules.md §4)."""
    key = [(s.score(), s.board.jokers - s.jokers_used) for s in sheets]
    best = max(key)
    return [k for k, v in enumerate(key) if v == best]


def race_document(marks, sheets: list[Sheet], labels: list[str], rolls_used: int) -> dict:
    """The race as the status shows it: per column (letter) and colour (name) the seats that
    score it first and later and the roll each completed it on; problems in plain words; and
    the end once a seat completed a second colour."""
    board = sheets[0].board
    rolls, by_hand = {}, {}
    for m in marks:
        rolls.setdefault(m.item, {})[str(m.seat)] = m.roll
        if m.override:
            by_hand.setdefault(m.item, {})[str(m.seat)] = m.override
    race = {"columns": {}, "colours": {}}
    problems = []
    items = [("columns", COLUMN_LETTERS[c], c) for c in range(board.cols)] + \
            [("colours", COLOUR_NAMES[c], i) for i, c in enumerate(COLOURS)]
    for what, item, bit in items:
        upper = [s.cols_upper if what == "columns" else s.colours_upper for s in sheets]
        lower = [s.cols_lower if what == "columns" else s.colours_lower for s in sheets]
        first = [k for k in range(len(sheets)) if upper[k] >> bit & 1]
        later = [k for k in range(len(sheets)) if lower[k] >> bit & 1]
        if first or later:
            race[what][item] = {"first": first, "later": later, "rolls": rolls.get(item, {}),
                                "by_hand": by_hand.get(item, {})}
        if later and not first:
            names = ", ".join(labels[k] for k in later)
            problems.append(f"{item_label(item)}: {names} scored the later value but nobody scored it first")
    return {"race": race, "race_problems": problems, "end": end_document(marks, sheets, labels, rolls_used)}


def end_document(marks, sheets: list[Sheet], labels: list[str], rolls_used: int) -> dict | None:
    """The end of the game (None before): its roll, who ended it, and once that roll is
    counted the final scores and the winner; ``title`` for the banner, ``text`` in full. A paper game's dice are not known to the room,
    so it has no record for ``nochmal replay``: the final sheets are the download."""
    end = game_end(marks)
    if end is None:
        return None
    who = " and ".join(labels[k] for k in end.seats)
    final = rolls_used >= end.roll
    doc = {"roll": end.roll, "seats": list(end.seats), "final": final, "winners": [], "record": None,
           "record_note": "The dice were rolled at the table, so the room does not know them and cannot make a "
                          "record for nochmal replay; download the final sheets instead."}
    if not final:
        doc["title"] = f"Last roll: {who} completed a second colour on roll {end.roll}"
        doc["text"] = (f"{who} completed a second colour on roll {end.roll}: that is the last roll. Everyone "
                       f"finishes crossing it, then count it to see the final scores.")
        return doc
    won = winners(sheets)
    doc["winners"] = won
    names = " and ".join(labels[k] for k in won)
    score = sheets[won[0]].score()
    tied = [k for k, s in enumerate(sheets) if s.score() == score and k not in won]
    why = (f" ({', '.join(labels[k] for k in tied)} as many points, fewer unused jokers)" if tied else "")
    verb = "share the win" if len(won) > 1 else "wins"
    doc["title"] = f"Game over after roll {end.roll}: {names} {verb} with {score} points"
    doc["text"] = f"Game over after roll {end.roll} ({who} completed a second colour). {names} {verb} with {score} points{why}."
    return doc
