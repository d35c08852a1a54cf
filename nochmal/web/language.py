"""The request's language (docs/web.md "Languages"): ``?lang=de`` switches it and is remembered
in a cookie, the cookie is the choice after that, else the browser's Accept-Language
(nochmal/i18n.py negotiate). The page templates get the request's gettext through
``i18n_context``; the JSON catalog per language (routers/i18n.py) gives the pages' scripts
the same messages."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated
from urllib.parse import parse_qs

from babel.messages.pofile import read_po
from fastapi import Depends
from fastapi.responses import JSONResponse
from markupsafe import Markup
from starlette.requests import Request

from nochmal.i18n import (DOMAIN, LANGUAGE_NAMES, LANGUAGES, LOCALE_DIR, N_, TERMS, known_language, negotiate, translate,
                          translator)
from nochmal.web.errors import error_body

COOKIE = "nochmal_lang"
COOKIE_DAYS = 365
UNKNOWN_LANGUAGE = N_("unknown language (use de, en, nl, fr or pl)")
# the built-in sheets by their pads' colours (docs/rules.md §1), as the pages name them
PADS = {"classic": N_("classic (black pad)"), "red": N_("red pad"), "blue": N_("blue pad"),
        "green": N_("green pad"), "orange": N_("orange pad"), "purple": N_("purple pad"),
        "yellow": N_("yellow pad")}


def choose(query_string: bytes, headers: dict[bytes, bytes]) -> tuple[str, str | None, bool]:
    """(language, the ``?lang=`` value if any, whether that value is one of ours)."""
    asked = parse_qs(query_string.decode("latin-1")).get("lang", [None])[-1]
    if asked is not None:
        lang = known_language(asked)
        return (lang or _browser_language(headers)), asked, lang is not None
    cookies = headers.get(b"cookie", b"").decode("latin-1")
    for part in cookies.split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE and known_language(value):
            return known_language(value), None, True
    return _browser_language(headers), None, True


def _browser_language(headers: dict[bytes, bytes]) -> str:
    return negotiate(headers.get(b"accept-language", b"").decode("latin-1"))


class LanguageChoice:
    """ASGI middleware: ``request.state.lang`` for every request; a ``?lang=`` of ours sets the
    cookie on the answer, one that is not ours is a 422 naming field ``lang``."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        lang, asked, ok = choose(scope.get("query_string", b""), headers)
        if not ok:
            resp = JSONResponse(error_body(translate(UNKNOWN_LANGUAGE, lang), "lang"), status_code=422)
            return await resp(scope, receive, send)
        scope.setdefault("state", {})["lang"] = lang
        if asked is None:
            return await self.app(scope, receive, send)
        cookie = f"{COOKIE}={lang}; Path=/; Max-Age={COOKIE_DAYS * 86400}; SameSite=Lax".encode()

        async def remembered(message):
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = list(message.get("headers", [])) + [(b"set-cookie", cookie)]
            await send(message)

        await self.app(scope, receive, remembered)


def board_label(name: str, lang: str) -> str:
    """A built-in sheet's name as the pages say it in ``lang`` (another sheet: its name)."""
    return translate(PADS[name], lang) if name in PADS else name


def request_language(request: Request) -> str:
    """The language LanguageChoice chose (English where the middleware is not installed)."""
    return getattr(request.state, "lang", None) or "en"


async def language(request: Request) -> str:
    """``request_language`` as a FastAPI dependency. It is ``async`` because FastAPI calls a
    plain ``def`` dependency in a worker thread: a thread hop on every tap for one attribute
    read (docs/figures.md "The pages in five languages")."""
    return request_language(request)


# a handler's ``lang: Lang``: the request's language. (A dependency costs each call 10-15 µs of
# the server's CPU, measured in process: the game's tap, the hottest call, reads
# request_language itself, docs/figures.md "Web".)
Lang = Annotated[str, Depends(language)]


def i18n_context(request: Request) -> dict:
    """What a template needs: ``lang`` for ``<html lang>``, ``languages`` for base.html's
    switch (each by its own name), the gettext functions that jinja2.ext.i18n calls (new
    style: the keyword arguments fill ``%(name)s``) and ``script_catalog``, whether the
    page's scripts have messages of their own to fetch in this language."""
    lang = request_language(request)
    t = translator(lang)

    # as Jinja's own new-style gettext: the catalog's text is the template's (markup kept, as
    # in "JSON from <code>nochmal … --save</code>"), the values filled in are escaped
    def gettext(message: str, **values) -> Markup:
        text = Markup(t.gettext(message))
        return text % values if values else text

    def ngettext(singular: str, plural: str, n: int, **values) -> Markup:
        text = Markup(t.ngettext(singular, plural, n))
        return text % {"num": n, **values}

    # no script message says other words than the English ones (English): the page need not
    # fetch its messages at all (static/common.js NM.i18nReady)
    needs_catalog = bool(js_catalog(lang) or js_plurals(lang))
    return {"lang": lang, "languages": list(LANGUAGE_NAMES.items()), "gettext": gettext, "ngettext": ngettext,
            "_": gettext, "script_catalog": needs_catalog}


# Python that sends sentences to the pages as data (a Message on the wire, said by the page:
# the rooms' status, advice and notes, one event for phones of several languages; the missions'
# objectives and what they miss, why a mission is lost) and the edition's words such a sentence
# may hold (nochmal.i18n TERMS but the game's name): their messages travel with the scripts'
# (docs/rooms.md, Languages)
WIRE_SOURCES = ("nochmal/web/rooms/", "missions/model.py", "missions/objectives.py", "missions/coop.py",
                "missions/split/team.py")
WIRE_TERMS = frozenset(word for key, word in TERMS.items() if key != "game")


def _travels(message) -> bool:
    return message.id in WIRE_TERMS or any(path.endswith(".js") or path.startswith(WIRE_SOURCES)
                                           for path, _ in message.locations)


@lru_cache(maxsize=None)
def _script_messages(lang: str) -> tuple[dict[str, str], dict[str, list[str]]]:
    if lang not in LANGUAGES:
        lang = "en"
    with open(LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po", "rb") as fh:
        catalog = read_po(fh)
    # a message said as its English travels not: t() and ngettext() fall back to the English
    # text (static/common.js), so the English catalog is nearly empty and every page is lighter
    messages = {m.id: m.string for m in catalog
                if m.id and isinstance(m.id, str) and _travels(m) and m.string != m.id}
    plurals = {m.id[0]: list(m.string) for m in catalog
               if m.id and isinstance(m.id, tuple) and _travels(m) and list(m.string) != list(m.id)}
    return messages, plurals


def js_catalog(lang: str) -> dict[str, str]:
    """The messages the scripts use (those extracted from a .js file, and the sentences sent
    as data, WIRE_SOURCES) in ``lang``, from the same .po catalog as the Python and the
    templates: one source of truth. Those said as in English are left out (the scripts fall
    back to the English text)."""
    return _script_messages(lang)[0]


def js_plurals(lang: str) -> dict[str, list[str]]:
    """The plural messages of the same sources: singular -> ``lang``'s forms, in the
    catalog's order (static/common.js ngettext picks one by Intl.PluralRules)."""
    return _script_messages(lang)[1]
