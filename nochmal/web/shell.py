"""The app on a phone's home screen (docs/web.md "Installing the app"): the service worker at
``/sw.js``, served from the site's root so that its scope is the whole site.

The worker (static/sw.js) keeps the static shell (the pages' CSS, scripts, icons and manifest,
the start pages) in a cache whose name is the package version plus a hash of the static files:
a release or any changed file gives a new worker, which replaces the old cache. Its text is
that one fixed file with the version and the shell's list filled in; nothing in a request
names a file.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import Response

from nochmal.i18n import DOMAIN, LANGUAGES, LOCALE_DIR

HERE = Path(__file__).parent
STATIC = HERE / "static"
ROOMS_STATIC = HERE / "rooms" / "static"
WORKER = STATIC / "sw.js"
# the pages kept for a start without the network: the home page, today's puzzle, the rooms, how to play,
# and the player's puzzle history (it reads only the browser's own storage)
START_PAGES = ("/", "/puzzle", "/rooms", "/rules", "/history")

router = APIRouter(include_in_schema=False)


def _static_files() -> list[tuple[str, Path]]:
    """(URL, file) of every static file of the pages, the worker itself left out (the browser
    fetches it outside any cache)."""
    found = []
    for prefix, folder in (("/static/", STATIC), ("/rooms-static/", ROOMS_STATIC)):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path != WORKER and not path.name.startswith("."):
                found.append((prefix + path.relative_to(folder).as_posix(), path))
    return found


@lru_cache(maxsize=1)
def shell() -> tuple[str, tuple[str, ...]]:
    """The cache's version (``1.2.0-<hash>``, from the package version, the static files'
    bytes and the compiled catalogs) and the URLs the worker keeps at install: the static
    files, the start pages and the scripts' messages in every language (/api/i18n/LANG)."""
    from nochmal.web.routers.engine import version

    digest = hashlib.sha256()
    files = _static_files()
    for url, path in files:
        digest.update(url.encode() + b"\0" + path.read_bytes() + b"\0")
    for lang in LANGUAGES:  # the messages are kept too: a changed catalog is a new cache
        digest.update((LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.mo").read_bytes())
    urls = (*START_PAGES, *(url for url, _ in files), *(f"/api/i18n/{lang}" for lang in LANGUAGES))
    return f"{version()}-{digest.hexdigest()[:12]}", urls


@router.get("/sw.js")
def service_worker() -> Response:
    version, urls = shell()
    text = WORKER.read_text(encoding="utf-8")
    text = text.replace('"__VERSION__"', json.dumps(version)).replace("[/*__SHELL__*/]", json.dumps(list(urls)))
    # no-cache: the browser asks for it on each visit and so finds a new release at once
    return Response(text, media_type="text/javascript",
                    headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"})
