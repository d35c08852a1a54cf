"""The web app (docs/web.md): `nochmal serve` runs ``create_app()`` under uvicorn.

    from nochmal.web import create_app
    app = create_app(Path("data"))      # an ASGI app (FastAPI)

Modules: app (the app, error handling, body cap), errors (WebError: every 4xx answer), routers (the JSON API under
/api, one router per area), deps (the services as FastAPI dependencies), responses (the answers' models), pages (HTML
shells), games (server-side games), records (uploaded records), jobs (planner jobs in worker processes), rooms (table
rooms); templates/ and static/ hold the HTML, CSS and plain JavaScript.
"""

from nochmal.web.app import create_app

__all__ = ["create_app"]
