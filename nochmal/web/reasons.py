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
            values = {k: translate(v, lang) if v in _WORDS else v for k, v in found.groupdict().items()}
            return translate(shape, lang) % values
    return text
