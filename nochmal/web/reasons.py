"""A refusal's words in the request's language (docs/web.md "Languages").

The engine and the web app refuse in English sentences with values in them ("already crossed:
H4"); the terminal shows them as they are. For a player on a page, each sentence shape a
player can meet is a msgid here with ``%(name)s`` where the values go: an English reason that
matches one is answered in the catalog's words, the values carried over (a colour word among
them in the edition's word). A reason matching no shape stays English; the ``field`` and the
status of an error never change. tests/web/test_web_languages_api.py makes the engine refuse
each way and checks that every refusal matches a shape here."""

from __future__ import annotations

import re
from functools import lru_cache

from nochmal.i18n import N_, TERMS, translate

# nochmal/sheet.py check_placement, nochmal/game.py check_move (docs/rules.md §3)
ENGINE = (
    N_("wrong count: a choice is 1 to 5 crosses, not %(count)s"),
    N_("wrong count: %(given)s cell(s) given, the choice is %(count)s"),
    N_("wrong colour: %(cell)s is %(colour)s, the choice is %(choice)s"),
    N_("already crossed: %(cell)s"),
    N_("not one block: %(cells)s lie in %(blocks)s different blocks"),
    N_("not connected: %(cells)s are not orthogonally connected through crossed cells of the block"),
    N_("not connected: %(cells)s are not orthogonally connected among themselves"),
    N_("not anchored: none of %(cells)s is in column %(column)s or next to a crossed cell"),
    N_("no jokers left: the choice costs %(cost)s, %(left)s left"),
    N_("no player is to move now"),
)
# nochmal/web/games.py (a tap, a move) and routers/games.py (a new game)
WEB = (
    N_("no jokers left: this pick needs %(needs)s, %(left)s left"),
    N_("no legal placement with this pick of dice: pick others or pass"),
    N_("too many cells: the pick allows %(allowed)s, %(selected)s selected"),
    N_("no legal placement of %(counts)s cell(s) contains %(cells)s"),
    N_("no human is to move in this game now"),
    N_("a cell is selected twice"),
    N_("cell %(cell)s is not on the %(board)s board"),
    N_("at least one seat must be human (bots-only games: nochmal bench bots)"),
    N_("a co-op mission has %(low)s-%(high)s players, not %(players)s"),
    N_("a mission plays on its own sheet; leave the board out"),
)
SHAPES = ENGINE + WEB
# a seat's name when the player gave none (nochmal/seats.py seat_name)
SEATS = (N_("you"), N_("player %(n)s"), N_("%(bot)s (seat %(n)s)"))
# a mission objective in words (missions/model.py Objective.describe): what, then where
OBJECTIVE_WHAT = (
    N_("columns %(columns)s complete"), N_("colours %(colours)s complete"), N_("%(count)s colour(s) complete"),
    N_("%(count)s star cell(s) crossed"), N_("cells %(cells)s crossed"), N_("score at least %(target)s"),
    N_("at least %(target)s unused joker(s)"),
)
OBJECTIVE_WHERE = (
    N_("on the team's sheets together"), N_("on every sheet"), N_("on at least one sheet"),
    N_("(each on at least one sheet)"), N_("(distinct colours, counted over all sheets)"),
    N_("(sum of the team's scores, every column at its first value)"), N_("(summed over the team)"),
)
# the values that are words of the edition (a cell's colour), said in its words too
_WORDS = {TERMS[k] for k in "ygbro"}
_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def _pattern(shape: str) -> re.Pattern:
    parts = _PLACEHOLDER.split(shape)  # literal, name, literal, name, ..., literal
    return re.compile("".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts)) + r"\Z")


@lru_cache(maxsize=None)
def _patterns(shapes: tuple[str, ...]) -> tuple[tuple[str, re.Pattern], ...]:
    return tuple((shape, _pattern(shape)) for shape in shapes)


def localise(text: str, lang: str, shapes: tuple[str, ...] = SHAPES) -> str:
    """``text`` (a reason or an error message; with ``shapes=SEATS`` a seat's name) in
    ``lang``: a catalog message as the catalog has it, a sentence of ``shapes`` with its
    values filled in; anything else unchanged."""
    if lang == "en" or not text:
        return text
    said = translate(text, lang)
    if said != text:
        return said
    for shape, pattern in _patterns(shapes):
        found = pattern.match(text)
        if found:
            return translate(shape, lang) % _values(found, lang)
    return text


def _values(found: re.Match, lang: str) -> dict[str, str]:
    """The values of a matched sentence, a colour word (alone or in a list) in ``lang``."""
    return {k: ", ".join(translate(w, lang) if w in _WORDS else w for w in v.split(", "))
            for k, v in found.groupdict().items()}


@lru_cache(maxsize=None)
def _objective_patterns() -> tuple[tuple[str, str, re.Pattern], ...]:
    return tuple((what, where, _pattern(f"{what} {where}")) for what in OBJECTIVE_WHAT for where in OBJECTIVE_WHERE)


def objective_words(text: str, lang: str) -> str:
    """A mission objective's description (Objective.describe) in ``lang``; unchanged when
    it matches no shape or in English."""
    if lang == "en":
        return text
    for what, where, pattern in _objective_patterns():
        found = pattern.match(text)
        if found:
            return f"{translate(what, lang) % _values(found, lang)} {translate(where, lang)}"
    return text
