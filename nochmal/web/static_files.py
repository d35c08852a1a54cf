"""The pages' static files (their CSS, scripts, icons, the manifest) served from memory
(docs/web.md "Page load"): each folder is read once when the app is made, and a request is
answered from that table by its exact name, with the same headers Starlette's StaticFiles
gives (type, length, ``ETag``, ``Last-Modified``, a 304 for a copy the browser holds).

Why not StaticFiles: it looks the file up on disk for every request (stat and reads in worker
threads), about 1.2 ms of the server's CPU per file; a first visit asks for five of them while
the page waits on its game (docs/figures.md "Web"). From memory no file is opened for a request
and no name in a request reaches the file system; the files are a few tens of kB. A changed file
needs a restart, as the service worker's cache version already does (nochmal/web/shell.py).
"""

from __future__ import annotations

import hashlib
import mimetypes
from dataclasses import dataclass
from email.utils import formatdate, parsedate_to_datetime
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from nochmal.i18n import say
from nochmal.web.errors import WebError


@dataclass(frozen=True)
class StaticFile:
    body: bytes
    media_type: str
    etag: str
    last_modified: str  # an HTTP date
    modified: float     # the file's time, for If-Modified-Since


def read_folder(folder: Path) -> dict[str, StaticFile]:
    """name (``icons/icon-32.png``) -> the file, for every file under ``folder`` but hidden ones."""
    files = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or any(part.startswith(".") for part in path.relative_to(folder).parts):
            continue
        body = path.read_bytes()
        media_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if media_type.startswith("text/"):
            media_type += "; charset=utf-8"
        mtime = path.stat().st_mtime
        files[path.relative_to(folder).as_posix()] = StaticFile(
            body, media_type, '"' + hashlib.md5(body, usedforsecurity=False).hexdigest() + '"',
            formatdate(mtime, usegmt=True), mtime)
    return files


def _held(request: Request, file: StaticFile) -> bool:
    """Whether the browser's copy is this file (RFC 9110 §13.1.2, §13.1.3: If-None-Match first)."""
    tags = request.headers.get("if-none-match")
    if tags is not None:
        return any(tag.strip().removeprefix("W/") in (file.etag, "*") for tag in tags.split(","))
    since = request.headers.get("if-modified-since")
    if since:
        try:
            return int(file.modified) <= parsedate_to_datetime(since).timestamp()
        except (TypeError, ValueError):
            return False
    return False


def static_route(prefix: str, folder: Path, name: str) -> Route:
    """A GET (and HEAD) route ``{prefix}/{name:path}`` answering from ``folder`` read into memory;
    a name not in it is the app's usual JSON 404."""
    files = read_folder(folder)

    async def serve(request: Request) -> Response:
        file = files.get(request.path_params["name"])
        if file is None:
            raise WebError(say("Not Found"), None, 404)  # (as the app's other 404s, errors.py HTTP_REASONS)
        headers = {"etag": file.etag, "last-modified": file.last_modified}
        if _held(request, file):
            return Response(status_code=304, headers=headers)
        if request.method == "HEAD":
            return Response(media_type=file.media_type, headers={**headers, "content-length": str(len(file.body))})
        return Response(file.body, media_type=file.media_type, headers=headers)

    return Route(prefix + "/{name:path}", serve, methods=["GET", "HEAD"], name=name, include_in_schema=False)
