"""The one error of the web app and the table rooms: a refused request, answered as a 4xx
JSON body ``{"error": reason, "field": name}`` (nochmal/web/app.py, nochmal/web/rooms)."""

from __future__ import annotations

from nochmal.errors import NochmalError
from nochmal.fileio import decode_text, load_json_text, surrogate_field
from nochmal.i18n import N_, Message, say, say_n


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


# Starlette's reasons for a path the app has no route for and a method a path does not take:
# said in the request's language (app.py http_error; static_files.py answers the first itself)
HTTP_REASONS = frozenset((N_("Not Found"), N_("Method Not Allowed")))


# Why the request models (pydantic) refused a field, in our words with its bounds as values:
# a page shows the refusal (a number field left empty on /o/new), so it is said in the
# request's language, never pydantic's English (docs/web.md "Languages"). By pydantic's
# error type; a type not listed here gets the general line.
SHAPE_WORDS = {
    "missing": say("is required"),
    "extra_forbidden": say("unknown key (see /docs for this request's fields)"),
    **dict.fromkeys(("int_type", "int_parsing", "int_from_float", "int_parsing_size"), say("must be a whole number")),
    **dict.fromkeys(("float_type", "float_parsing", "finite_number"), say("must be a number")),
    **dict.fromkeys(("bool_type", "bool_parsing"), say("must be true or false")),
    "string_type": say("must be a text"),
    "list_type": say("must be a list"),
    **dict.fromkeys(("dict_type", "model_type", "model_attributes_type"), say("must be an object")),
}
SHAPE_BOUNDS = {"greater_than": ("gt", N_("must be greater than %(bound)s")),
                "greater_than_equal": ("ge", N_("must be at least %(bound)s")),
                "less_than": ("lt", N_("must be less than %(bound)s")),
                "less_than_equal": ("le", N_("must be at most %(bound)s"))}


def shape_reason(error: dict) -> Message:
    """One of pydantic's errors (``exc.errors()[0]``) as a Message."""
    kind, ctx = error.get("type"), error.get("ctx") or {}
    if kind in SHAPE_WORDS:
        return SHAPE_WORDS[kind]
    if kind in SHAPE_BOUNDS and SHAPE_BOUNDS[kind][0] in ctx:
        key, msgid = SHAPE_BOUNDS[kind]
        bound = ctx[key]
        return say(msgid, bound=int(bound) if isinstance(bound, float) and bound.is_integer() else bound)
    if kind == "string_too_long" and "max_length" in ctx:
        return say_n("must be at most %(n)s character long", "must be at most %(n)s characters long", ctx["max_length"])
    if kind == "string_too_short" and "min_length" in ctx:
        return say_n("must be at least %(n)s character long", "must be at least %(n)s characters long", ctx["min_length"])
    if kind == "too_long" and "max_length" in ctx:
        return say_n("must have at most %(n)s item", "must have at most %(n)s items", ctx["max_length"])
    if kind == "too_short" and "min_length" in ctx:
        return say_n("must have at least %(n)s item", "must have at least %(n)s items", ctx["min_length"])
    return say("is not a value this request takes (see /docs for its fields)")
