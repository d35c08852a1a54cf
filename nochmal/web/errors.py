"""The one error of the web app and the table rooms: a refused request, answered as a 4xx
JSON body ``{"error": reason, "field": name}`` (nochmal/web/app.py, nochmal/web/rooms)."""

from __future__ import annotations

from nochmal.errors import NochmalError


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
