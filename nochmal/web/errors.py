"""The one error of the web app and the table rooms: a refused request, answered as a 4xx
JSON body ``{"error": reason, "field": name}`` (nochmal/web/app.py, nochmal/web/rooms), and the
one check of client text: no lone surrogates.

A JSON string may carry an escaped lone surrogate (``"\\ud800"``); Python's JSON reader keeps
it, but no UTF-8 writer can (a response, a stored game, a database row, a terminal), so such
text is refused where it comes in, naming the field, instead of failing later as a 500.
"""

from __future__ import annotations

from nochmal.errors import NochmalError
from nochmal.fileio import decode_text, load_json_text


def error_body(message: str, field: str | None = None) -> dict:
    """Every error answer of the app has this shape (``field`` None when no field is at fault)."""
    return {"error": message, "field": field}


class WebError(NochmalError):
    """A request the app refuses: ``field`` names what was wrong, ``status`` the HTTP code."""

    def __init__(self, message: str, field: str | None = None, status: int = 400):
        super().__init__(message)
        self.field = field
        self.status = status

    def body(self) -> dict:
        return error_body(str(self), self.field)


def surrogate_field(value, path: str = "") -> str | None:
    """The dotted path of the first string (key or value) in ``value`` with a lone surrogate,
    or None; ``path`` prefixes it ("" for the body itself)."""
    if isinstance(value, str):
        return path or "body" if not _encodable(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if isinstance(key, str) and not _encodable(key):
                return path or "body"
            found = surrogate_field(item, where)
            if found is not None:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found = surrogate_field(item, f"{path}.{i}" if path else str(i))
            if found is not None:
                return found
    return None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def refuse_surrogates(value, path: str = ""):
    """``value`` unchanged, or a 422 naming the field that holds a lone surrogate."""
    where = surrogate_field(value, path)
    if where is not None:
        raise WebError(f"{where}: text with a lone surrogate (not valid Unicode)", where, 422)
    return value


def parse_json(raw: bytes):
    """A request body as JSON (the app's and the rooms' one reader): empty, broken, too deep or
    a huge number is a 422 naming field ``body``, never a 500."""
    if not raw.strip():
        raise WebError("the body is empty; send a JSON object", "body", 422)
    return client_json(raw, "body", "the body")


def client_json(raw: bytes, field: str, what: str):
    """JSON from a client through the project's one reader (nochmal/fileio.py): a problem is a
    422 naming ``field``."""
    def problem(reason: str) -> WebError:
        return WebError(f"{what} is not valid JSON: {reason}", field, 422)

    return refuse_surrogates(load_json_text(decode_text(raw, problem), problem))
