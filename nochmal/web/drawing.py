"""The sheet drawings' words in the request's language (docs/web.md "Languages").

nochmal/svg.py draws a sheet with English words (the title "Anna: 23 points", "1st",
"later", "colours", "jokers", "8 left", the score line, each cell's name for screen
readers); the terminal and the downloads keep them. For a page, each text of a drawing that
is a catalog message or matches a shape here is said in the request's language, the values
carried over, the geometry untouched."""

from __future__ import annotations

import re
from functools import lru_cache

from nochmal.i18n import N_, translate
from nochmal.web.reasons import SEATS, localise

SHAPES = (
    N_("%(name)s: %(score)s points so far"), N_("%(name)s: %(score)s points"),
    N_("%(name)s after roll %(roll)s: %(score)s points"), N_("best plan after roll %(roll)s: %(score)s points"),
    N_("1st"), N_("%(n)s left"), N_("score %(total)s = "),
    N_("columns %(columns)s + colours %(colours)s + jokers left %(jokers)s − stars open %(stars)s"),
    N_("%(cell)s %(colour)s, star, crossed"), N_("%(cell)s %(colour)s, star, not crossed"),
    N_("%(cell)s %(colour)s, crossed"), N_("%(cell)s %(colour)s, not crossed"),
)
# a label left of the grid has the room of about five letters: its own short msgid
LABELS = {"later": N_("later (a sheet's row label, at most 5 letters)")}
_TEXT = re.compile(r'>([^<>]*[A-Za-z][^<>]*)<|aria-label="([^"]*)"')
_NAMED = re.compile(r"^(.+?)(:| after roll )")


@lru_cache(maxsize=8192)
def _words(text: str, lang: str) -> str:
    if text in LABELS:
        return translate(LABELS[text], lang)
    said = localise(text, lang, SHAPES)
    if said != text:  # a seat's default name in a title ("you: 3 points") in the language too
        named = _NAMED.match(text)
        if named and named.group(1) in said:
            said = said.replace(named.group(1), localise(named.group(1), lang, SEATS), 1)
    return said


def drawing_in(svg: str, lang: str) -> str:
    """``svg`` (a drawing of nochmal/svg.py) with its words in ``lang``."""
    if lang == "en":
        return svg

    def swap(found: re.Match) -> str:
        if found.group(1) is not None:
            return ">" + _words(found.group(1), lang) + "<"
        return 'aria-label="' + _words(found.group(2), lang) + '"'

    return _TEXT.sub(swap, svg)
