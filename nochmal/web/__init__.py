"""The web app (issue 18): `nochmal serve` runs ``create_app()`` under uvicorn.

    from nochmal.web import create_app
    app = create_app(Path("data"))      # an ASGI app (FastAPI)

Modules: app (the app, error handling, body cap), errors (WebError: every 4xx answer), api (the JSON API under /api), pages
(HTML shells), games (server-side games), jobs (planner jobs in worker processes);
templates/ and static/ hold the HTML, CSS and plain JavaScript.
"""

from nochmal.web.app import create_app

__all__ = ["create_app"]
