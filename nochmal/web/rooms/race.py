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
from nochmal.i18n import Message, say
from nochmal.web.errors import WebError
from nochmal.web.rooms.words import and_words, colour_word, wire

OVERRIDES = ("first", "later")  # a seat's hand-set value; "auto" (None) follows the rolls


def completed_items(board: Board, crossed: int) -> set[str]:
    """The columns (letters) and colours (names) a sheet has completed."""
    probe = Sheet(board, crossed)
    cols, colours = probe.complete_columns(), probe.complete_colours()
    return ({COLUMN_LETTERS[c] for c in range(board.cols) if cols >> c & 1} |
            {COLOUR_NAMES[c] for i, c in enumerate(COLOURS) if colours >> i & 1})


def is_colour(item: str) -> bool:
    return item in COLOUR_NAMES.values()


def item_words(item: str) -> Message:
    """``column H`` or ``green``: as a message names it, in any language (words.py)."""
    return colour_word(item) if is_colour(item) else say("column %(letter)s", letter=item)


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
    raise WebError(say("item must be a column letter (A..%(last)s) or a colour (%(colours)s), not %(text)s",
                       last=COLUMN_LETTERS[board.cols - 1], colours=", ".join(COLOUR_NAMES.values()),
                       text=repr(text[:12])), "item", 422)


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
            problems.append(say("%(item)s: %(names)s scored the later value but nobody scored it first",
                                item=item_words(item), names=tuple(labels[k] for k in later)))
    return {"race": race, "race_problems": [str(p) for p in problems], "race_problems_said": wire(problems),
            "end": end_document(marks, sheets, labels, rolls_used)}


def end_document(marks, sheets: list[Sheet], labels: list[str], rolls_used: int) -> dict | None:
    """The end of the game (None before): its roll, who ended it, and once that roll is
    counted the final scores and the winner; ``title`` for the banner, ``text`` in full. A paper game's dice are not known to the room,
    so it has no record for ``nochmal replay``: the final sheets are the download."""
    end = game_end(marks)
    if end is None:
        return None
    who = and_words([labels[k] for k in end.seats])
    final = rolls_used >= end.roll
    doc = {"roll": end.roll, "seats": list(end.seats), "final": final, "winners": [], "record": None}
    said = {"record_note": say("The dice were rolled at the table, so the room does not know them and cannot make "
                               "a record for nochmal replay; download the final sheets instead.")}
    if not final:
        said["title"] = say("Last roll: %(who)s completed a second colour on roll %(roll)s", who=who, roll=end.roll)
        said["text"] = say("%(who)s completed a second colour on roll %(roll)s: that is the last roll. Everyone "
                           "finishes crossing it, then count it to see the final scores.", who=who, roll=end.roll)
        return _with_words(doc, said)
    won = winners(sheets)
    doc["winners"] = won
    values = {"roll": end.roll, "who": who, "names": and_words([labels[k] for k in won]),
              "score": sheets[won[0]].score()}
    tied = [k for k, s in enumerate(sheets) if s.score() == values["score"] and k not in won]
    if len(won) > 1:
        said["title"] = say("Game over after roll %(roll)s: %(names)s share the win with %(score)s points", **values)
        said["text"] = say("Game over after roll %(roll)s (%(who)s completed a second colour). %(names)s share the "
                           "win with %(score)s points.", **values)
    elif tied:
        said["title"] = say("Game over after roll %(roll)s: %(names)s wins with %(score)s points", **values)
        said["text"] = say("Game over after roll %(roll)s (%(who)s completed a second colour). %(names)s wins with "
                           "%(score)s points (%(tied)s as many points, fewer unused jokers).",
                           tied=tuple(labels[k] for k in tied), **values)
    else:
        said["title"] = say("Game over after roll %(roll)s: %(names)s wins with %(score)s points", **values)
        said["text"] = say("Game over after roll %(roll)s (%(who)s completed a second colour). %(names)s wins with "
                           "%(score)s points.", **values)
    return _with_words(doc, said)


def _with_words(doc: dict, said: dict) -> dict:
    """The end's sentences in English for API clients and as data for the pages (words.py)."""
    for key, message in said.items():
        doc[key], doc[key + "_said"] = str(message), wire(message)
    return doc
