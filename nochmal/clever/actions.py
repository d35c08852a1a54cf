"""A player's actions as immutable values that print and parse themselves (as
nochmal/move.py does for Noch mal! moves):

    take DIE NUMBER PLACE   the active player takes a die and enters NUMBER at PLACE (a
                            passive player: a die from the silver tray); NUMBER differs from
                            the die's face only by polishing silver; for blue, NUMBER is the
                            row and PLACE names the column: ``take blue 3 blue:5``
    extra DIE NUMBER PLACE  the +1 action: one more die of those lying out
    bonus KIND NUMBER PLACE a pending "?" bonus entered: ``bonus ?any 4 grey:2,1``
    forfeit KIND            a pending "?" bonus given up
    reroll                  the re-roll action: the dice still in play are thrown again
    pass                    no die taken: the active player loses this throw, a passive
                            player takes nothing
    done                    the end of the player's +1 window

PLACE is ``yellow:top|mid|bottom``, ``blue:COLUMN``, ``grey:ROW,COLUMN`` (a cell of the
segment), ``green:low|up`` or ``pink`` (nochmal/clever/sheet.py Place).
"""

from __future__ import annotations

from dataclasses import dataclass

from nochmal.clever.dice import DICE
from nochmal.clever.errors import InvalidActionError
from nochmal.clever.sheet import Place
from nochmal.clever.sheetdata import QUESTIONS, SheetFacts
from nochmal.errors import quoted
from nochmal.fileio import is_decimal
from nochmal.i18n import say

KINDS = ("take", "extra", "bonus", "forfeit", "reroll", "pass", "done")
MAX_TEXT = 80


@dataclass(frozen=True, order=True)
class Action:
    """One action; ``die`` for take/extra, ``bonus`` (a "?" kind) for bonus/forfeit,
    ``number`` and ``place`` for an entry."""

    kind: str
    die: str | None = None
    number: int | None = None
    place: Place | None = None
    bonus: str | None = None

    def text(self, facts: SheetFacts | None = None) -> str:
        if self.kind in ("reroll", "pass", "done"):
            return self.kind
        if self.kind == "forfeit":
            return f"forfeit {self.bonus}"
        head = f"{self.kind} {self.die if self.kind != 'bonus' else self.bonus}"
        return f"{head} {self.number} {self.place.text(facts)}"

    __str__ = text

    @property
    def enters(self) -> bool:
        return self.place is not None

    @classmethod
    def parse(cls, text: str, facts: SheetFacts | None = None) -> "Action":
        if not isinstance(text, str) or len(text) > MAX_TEXT:
            raise InvalidActionError(say("an action is a short text, e.g. %(example)s", example="'take yellow 4 yellow:top'"))
        words = text.split()
        if not words or words[0] not in KINDS:
            raise InvalidActionError(say("bad action %(text)s: it starts with one of %(kinds)s", text=quoted(text), kinds=KINDS))
        kind = words[0]
        if kind in ("reroll", "pass", "done"):
            if len(words) != 1:
                raise InvalidActionError(say("bad action %(text)s: %(kind)s takes nothing after it", text=quoted(text),
                                             kind=repr(kind)))
            return cls(kind)
        if len(words) < 2:
            raise InvalidActionError(say("bad action %(text)s: %(kind)s names a die", text=quoted(text), kind=repr(kind))
                                     if kind in ("take", "extra") else
                                     say("bad action %(text)s: %(kind)s names a bonus", text=quoted(text), kind=repr(kind)))
        if kind in ("bonus", "forfeit"):
            if words[1] not in QUESTIONS:
                raise InvalidActionError(say("bad action %(text)s: the bonus is one of %(bonuses)s", text=quoted(text),
                                             bonuses=QUESTIONS))
            if kind == "forfeit":
                if len(words) != 2:
                    raise InvalidActionError(say("bad action %(text)s: expected %(form)s", text=quoted(text), form="'forfeit KIND'"))
                return cls("forfeit", bonus=words[1])
        elif words[1] not in DICE:
            raise InvalidActionError(say("bad action %(text)s: the die is one of %(dice)s", text=quoted(text), dice=DICE))
        who = {"bonus": words[1]} if kind == "bonus" else {"die": words[1]}
        if len(words) != 4 or not is_decimal(words[2]) or not 1 <= int(words[2]) <= 6:
            raise InvalidActionError(say("bad action %(text)s: expected %(form)s (NUMBER 1-6)", text=quoted(text),
                                         form=f"'{kind} {words[1]} NUMBER PLACE'"))
        return cls(kind, number=int(words[2]), place=Place.parse(words[3], facts), **who)


REROLL = Action("reroll")
PASS = Action("pass")
DONE = Action("done")
