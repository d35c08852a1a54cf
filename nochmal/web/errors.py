"""The one error of the web app and the table rooms: a refused request, answered as a 4xx
JSON body ``{"error": reason, "field": name}`` (nochmal/web/app.py, nochmal/web/rooms)."""

from __future__ import annotations

from nochmal.errors import NochmalError
from nochmal.fileio import decode_text, load_json_text, surrogate_field
from nochmal.i18n import say


def error_body(message: str, field: str | None = None) -> dict:
    """Every error answer of the app has this shape (``field`` None when no field is at fault)."""
    return {"error": message, "field": field}


class WebError(NochmalError):
    """A request the app refuses: ``field`` names what was wrong, ``status`` the HTTP code."""

    def __init__(self, message: str, field: str | None = None, status: int = 400):
        super().__init__(message)
        self.field = field
        self.status = status

    def body(self, lang: str = "en") -> dict:
        """The answer's JSON in ``lang`` (the request's language; docs/web.md "Languages"):
        the reason said in it, the machine's ``field`` as it is."""
        return error_body(self.in_language(lang), self.field)


def refuse_surrogates(value):
    """``value`` unchanged, or a 422 naming the field that holds a lone surrogate (for bodies
    FastAPI parsed itself; every body read by ``parse_json`` went through load_json_text's check)."""
    where = surrogate_field(value, "body")
    if where is not None:
        raise WebError(say("%(where)s: text with a lone surrogate (not valid Unicode)", where=where), where, 422)
    return value


def parse_json(raw: bytes):
    """A request body as JSON (the app's and the rooms' one reader): empty, broken, too deep or
    a huge number is a 422 naming field ``body``, never a 500."""
    if not raw.strip():
        raise WebError(say("the body is empty; send a JSON object"), "body", 422)
    return client_json(raw, "body", say("the body"))


def client_json(raw: bytes, field: str, what):
    """JSON from a client through the project's one reader (nochmal/fileio.py): a problem is a
    422 naming ``field``, said in the request's language (``what`` a file's name or a Message)."""
    def problem(reason) -> WebError:
        return WebError(say("%(what)s is not valid JSON: %(reason)s", what=what, reason=reason), field, 422)

    return load_json_text(decode_text(raw, problem), problem)
