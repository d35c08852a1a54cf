"""The oracle of the browser tests in German and Polish (docs/web.md "Languages"): the English
catalog itself. Every phrase of two words or more in its messages (plural ones too), and every
one-word message, must be absent from a page's rendered text (``innerText``, the sheet drawings
included) and the cells' names, except a short allow-list of words the languages write alike."""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po

from nochmal.bots.registry import agent_names
from nochmal.errors import NochmalError
from nochmal.i18n import LOCALE_DIR, Message

LOCALES = {"de": "de-DE", "pl": "pl-PL"}  # a browser's locale: its Accept-Language
# words an English message shares with German or Polish text, names (the bots' too), notation
ALLOWED = {"start", "normal", "auto", "joker", "jokers", "orange", "bot", "api", "json", "svg", "puzzle", "name",
           "noch mal", "classic", "stop", "home", "team", "mission", "live", "nochmal mission status",
           "pink",  # the Clever 4ever area: "Pink" in German too
           *agent_names()}  # home: the key; a command is notation


def english_phrases() -> set[str]:
    """The English catalog's messages cut at placeholders and punctuation: the pieces of two
    words or more, and the messages that are one word."""
    with open(LOCALE_DIR / "en" / "LC_MESSAGES" / "nochmal.po", "rb") as fh:
        catalog = read_po(fh)
    phrases = set()
    for message in catalog:
        for msgid in (message.id,) if isinstance(message.id, str) else message.id or ():
            text = re.sub(r"<[^>]+>|%\(\w+\)s|\{\w+\}", "|", msgid)
            for piece in re.split(r"[|:;,.()…!?—–·/]+", text):
                piece = " ".join(piece.split()).lower()
                words = piece.split(" ")
                if piece and piece not in ALLOWED and (len(words) >= 2 or msgid.strip().lower() == piece):
                    phrases.add(piece)
    return phrases


PHRASES = english_phrases()


def english_left(page) -> list[str]:
    """The English phrases in the page's visible text (the sheet drawings' too) and in the
    cells' names for screen readers; a file's name (room.json) and a link are notation."""
    text = page.evaluate("""() => document.body.innerText + "\\n" +
        [...document.querySelectorAll("rect.cell")].map(r => r.getAttribute("aria-label")).join("\\n")""").lower()
    return english_in(text)


def english_in(text: str) -> list[str]:
    """The English phrases in ``text`` (lower case); a link is notation (an online seat's:
    #seat=0&token=...), and so is a file's name (room.json)."""
    text = re.sub(r"https?://\S+", " ", text)
    return sorted(p for p in PHRASES if re.search(r"(?<!\w)" + re.escape(p) + r"(?!\w|\.\w)", text))


def raised(fn, *args) -> Message:
    """The Message the engine refuses ``fn(*args)`` with (a WebError's too): the API tests'
    oracle, said in a language with nochmal.i18n.said."""
    with pytest.raises(NochmalError) as caught:
        fn(*args)
    assert isinstance(caught.value.message, Message), caught.value
    return caught.value.message
