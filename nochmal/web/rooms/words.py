"""A room's sentences for phones of several languages (docs/rooms.md, *Languages*).

A room's status, this roll's advice and the notes ("Anna counted roll 5") are worked out
once and sent to every phone of the room, and two phones of one room may speak two
languages. So they travel as data: a :class:`nochmal.i18n.Message` on the wire is
``{"msgid", "values"}`` (``"plural"`` and ``"n"`` for a count), its values plain or
Messages themselves (a colour word), and each page says it with its catalog
(static/common.js ``NM.said``; the messages travel in /api/i18n/LANG, nochmal/web/language.py
WIRE_SOURCES). The English text stays beside it for API clients.
"""

from __future__ import annotations

from nochmal.board import COLOUR_NAMES
from nochmal.i18n import TERMS, Message, say


class SeatLabel(str):
    """A free seat's label where a name goes ("seat 2 (free)"): the English text wherever a
    text is (JSON, the API, the CLI's files), its words as data where the page says a sentence."""

    def __new__(cls, seat: int):
        label = super().__new__(cls, f"seat {seat + 1} (free)")
        label.seat, label.words = seat, say("seat %(n)s (free)", n=seat + 1)
        return label

    def __reduce__(self):  # (the status is worked out in a child process)
        return SeatLabel, (self.seat,)


def wire(value):
    """``value`` as JSON the page can say: a Message as its msgid and values, a list item
    by item, a free seat's label as its words, anything else as it is."""
    if isinstance(value, SeatLabel):
        value = value.words
    if isinstance(value, Message):
        out = {"msgid": value.msgid, "values": {k: wire(v) for k, v in value.values.items()}}
        if value.plural is not None:
            out["plural"], out["n"] = value.plural, value.n
        return out
    if isinstance(value, (list, tuple)):
        return [wire(v) for v in value]
    return value


def and_words(words) -> Message | str:
    """``A1``, ``A1 and B1``, ``A1, B1 and C1``: names as a person lists them, in any
    language (checks.and_list is the English line)."""
    words = list(words)
    if len(words) == 1:
        return words[0]
    return say("%(items)s and %(last)s", items=tuple(words[:-1]), last=words[-1])


def colour_word(name: str) -> Message:
    """A colour's English name (nochmal.board COLOUR_NAMES) as the edition's word."""
    face = next(face for face, word in COLOUR_NAMES.items() if word == name)
    return say(TERMS[face])
