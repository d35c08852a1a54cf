"""The players' languages (docs/web.md "Languages"): one gettext catalog per language under
nochmal/locale, a translator per language, and the choice of a language from a browser's
Accept-Language header. Core layer: the web app, the terminal and the missions all use it.

The catalogs are Babel's .po files (the source, edited by hand) with their compiled .mo kept
beside them in the repository, so an install needs no compile step; tests/engine/test_i18n.py checks that
every .mo matches its .po."""

from __future__ import annotations

import gettext
from functools import lru_cache
from pathlib import Path

LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "nochmal"
LANGUAGES = ("de", "en", "nl", "fr", "pl")  # the editions' languages (docs/glossary.md "Editions")
DEFAULT = "en"
LANGUAGE_NAMES = {"de": "Deutsch", "en": "English", "nl": "Nederlands", "fr": "Français", "pl": "Polski"}


def N_(message: str) -> str:
    """Marks a string for extraction (pybabel's ``-k N_``) where it is defined, to be
    translated later where it is shown."""
    return message


# The edition's own terms (docs/glossary.md "Editions"): the English words are the msgids,
# each catalog gives its edition's word ("Noch mal!" is the German box's name: English and
# French say "Encore!", Dutch "Keer op Keer", Polish "Jeszcze raz!").
TERMS = {
    "game": N_("Noch mal!"),
    "y": N_("yellow"), "g": N_("green"), "b": N_("blue"), "r": N_("red"), "o": N_("orange"),
    "star": N_("star"), "stars": N_("stars"),
    "joker": N_("joker"), "jokers": N_("jokers"),
    "first": N_("first"), "later": N_("later"),
}


@lru_cache(maxsize=None)
def translator(lang: str) -> gettext.NullTranslations:
    """The compiled catalog of ``lang`` (one of LANGUAGES); the English catalog for any other."""
    if lang not in LANGUAGES:
        lang = DEFAULT
    with open(LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.mo", "rb") as fh:
        return gettext.GNUTranslations(fh)


def translate(message: str, lang: str) -> str:
    """``message`` in ``lang``; a message no catalog holds comes back unchanged."""
    return translator(lang).gettext(message)


def term(key: str, lang: str) -> str:
    """One of the edition's TERMS in ``lang``: ``term("game", "nl")`` is "Keer op Keer"."""
    return translate(TERMS[key], lang)


def rating(score: int, lang: str) -> str:
    """The solo rating verdict (nochmal.game.rating, docs/rules.md §5) in ``lang``."""
    from nochmal.verdicts import rating as verdict  # the core's table is the one source of the bands

    return translate(verdict(score), lang)


def negotiate(accept_language: str | None) -> str:
    """The language of LANGUAGES a browser prefers most (RFC 9110 §12.5.4: tags weighted by
    ``q``, a region such as ``de-DE`` matching its language, ``q=0`` refused); DEFAULT when
    none of its languages is ours or the header is absent or unreadable."""
    best, best_q = DEFAULT, 0.0
    for position, part in enumerate((accept_language or "").split(",")[:50]):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        lang = tag.strip().lower().split("-")[0]
        if lang in LANGUAGES and q > best_q:  # the first of equal weights wins
            best, best_q = lang, q
    return best


def known_language(value: str | None) -> str | None:
    """``value`` when it names one of LANGUAGES (as ``?lang=`` or the cookie carry it), else None."""
    value = (value or "").strip().lower()
    return value if value in LANGUAGES else None


class Message:
    """A sentence for a person, kept as its msgid and values until a language is known (so
    that a refusal raised by the engine or the rooms is said in the request's language
    without parsing English back out of it). ``str()`` is the English sentence, as the
    terminal and the logs show it. A value that is itself a Message (a colour word: ``say(TERMS["y"])``)
    is said in the same language; a list or tuple of values is joined with ", "."""

    __slots__ = ("msgid", "plural", "n", "values")

    def __init__(self, msgid: str, values: dict | None = None, plural: str | None = None, n: int | None = None):
        self.msgid, self.plural, self.n = msgid, plural, n
        self.values = dict(values or {})

    def in_language(self, lang: str) -> str:
        t = translator(lang)
        text = t.gettext(self.msgid) if self.plural is None else t.ngettext(self.msgid, self.plural, self.n)
        if not self.values and "%(" not in text:
            return text
        return text % {k: _value_in(v, lang) for k, v in self.values.items()}

    def __str__(self) -> str:
        return self.in_language(DEFAULT)

    def __repr__(self) -> str:
        return f"Message({self.msgid!r}, {self.values!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Message) and (self.msgid, self.plural, self.n, self.values) == (
            other.msgid, other.plural, other.n, other.values)

    def __hash__(self) -> int:
        return hash((self.msgid, self.plural, self.n))


def _value_in(value, lang: str) -> str:
    if isinstance(value, Message):
        return value.in_language(lang)
    if isinstance(getattr(value, "words", None), Message):  # a text carrying its words (a free seat's label)
        return value.words.in_language(lang)
    if isinstance(value, (list, tuple)):
        return ", ".join(_value_in(v, lang) for v in value)
    return str(value)


def say(msgid: str, **values) -> Message:
    """A Message: ``say(N_("already crossed: %(cell)s"), cell="H4")`` (mark the msgid with N_
    or write it literally here: pybabel extracts ``say``'s first argument, babel.cfg)."""
    return Message(msgid, values)


def say_n(singular: str, plural: str, n: int, **values) -> Message:
    """A Message whose words follow the number ``n`` (the catalog's plural forms; ``n`` is
    also the value ``%(n)s``)."""
    return Message(singular, {"n": n, **values}, plural, n)


def semicolons(messages) -> Message:
    """Messages one after another with "; " between them, as the English lines have them (a
    sheet's problems, the reasons a sheet is impossible), each said in the language asked."""
    messages = list(messages)
    if len(messages) == 1:
        return messages[0]
    return Message("%(first)s; %(rest)s", {"first": messages[0], "rest": semicolons(messages[1:])})


def said(message, lang: str) -> str:
    """``message`` in ``lang``: a Message in its words, a plain text through the catalog
    (unchanged when the catalog does not hold it)."""
    if isinstance(message, Message):
        return message.in_language(lang)
    return translate(str(message), lang)
