"""The colour scheme a player chose (docs/web.md "Dark mode"): *auto*, *light* or *dark*, kept
in a cookie that the header's switch (static/shell.js) writes, so the page comes with it in
``<html data-theme-choice>``. Read from the request and not from the page's storage, because a
script's first ``localStorage`` read before the first paint cost a new visit 10-16 ms
(docs/figures.md "Web")."""

from __future__ import annotations

from starlette.requests import Request

THEME_COOKIE = "nochmal_theme"
THEMES = ("auto", "light", "dark")


def theme_context(request: Request) -> dict:
    """What base.html needs: ``theme``, the choice in the request's cookie (anything else is
    *auto*, which follows the system's ``prefers-color-scheme``)."""
    chosen = request.cookies.get(THEME_COOKIE)
    return {"theme": chosen if chosen in THEMES else "auto"}
