"""Who the server is to its clients: the host names it answers to, the origins that may change
state, the body types it reads, and the base URL its links (room links, QR codes) are built on.

Three checks run before any handler (``RequestGuard``, docs/security.md):

- **Host**: only the names the server is known by (localhost names, the ``--host`` address,
  the machine's local-network address when serving on every interface, and names given with
  ``--allow-host``). A DNS-rebinding page reaches the server under its own name and is refused.
- **Origin**: a request that changes state (any method but GET, HEAD, OPTIONS) sent by a
  browser page must come from the server's own origin or one given with ``--allow-origin``; a
  page on another origin can neither create a room nor take a seat nor upload. Clients that
  are not browsers (curl, the CLI) send no ``Origin`` and no ``Sec-Fetch-Site`` and pass.
- **Content-Type**: a JSON body must say ``application/json`` (which a cross-site page can only
  send after a CORS preflight, which this server never grants); an upload says
  ``multipart/form-data`` (records) or ``application/zip`` / ``application/json`` (room imports).

``nochmal serve --host 0.0.0.0`` is reached by phones at the machine's address on the local
network, not at ``0.0.0.0``; the links it hands out use that address (``public_base_url``).
"""

from __future__ import annotations

import ipaddress
import os
import socket
from dataclasses import dataclass, field

from fastapi import Request
from fastapi.responses import JSONResponse

from nochmal.web.errors import error_body

LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")
HOSTS_ENV = "NOCHMAL_ALLOWED_HOSTS"  # more host names, comma-separated (as --allow-host)
ORIGINS_ENV = "NOCHMAL_ALLOWED_ORIGINS"  # more origins, comma-separated (as --allow-origin)
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# the body types each path accepts; every other path with a body takes JSON only
UPLOAD_TYPES = {"/api/records": ("multipart/form-data",),
                "/api/rooms/import": ("application/zip", "application/json")}
JSON_TYPES = ("application/json",)


def public_base_url(request: Request) -> str:
    """The base URL for links given to other devices: the one the server was told to announce
    (``app.state.public_url``, set by ``nochmal serve``), else the URL this request came in on
    (its Host header was checked against the allowed names before any handler ran)."""
    announced = getattr(request.app.state, "public_url", None)
    return announced if announced else str(request.base_url)


def host_name(host_header: str) -> str:
    """The name in a Host header, without the port, lower case (``[::1]:8000`` -> ``::1``)."""
    text = host_header.strip().lower()
    if text.startswith("["):
        return text[1:text.find("]")] if "]" in text else text
    return text.rsplit(":", 1)[0] if text.count(":") == 1 else text


def _env_list(name: str) -> list[str]:
    return [part.strip() for part in os.environ.get(name, "").split(",") if part.strip()]


def lan_address() -> str | None:
    """This machine's address on its local network (the one phones on the same wifi open), or
    None. A UDP socket "connected" to a documentation address (RFC 5737) picks the interface of
    the default route; connecting a UDP socket sends nothing."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            address = probe.getsockname()[0]
    except OSError:
        return None
    return None if ipaddress.ip_address(address).is_loopback or address == "0.0.0.0" else address


def machine_addresses() -> set[str]:
    """Every address this machine's name resolves to, and its local-network address: the names
    phones may use for a server bound to every interface."""
    found = set()
    try:
        for *_, address in socket.getaddrinfo(socket.gethostname(), None):
            found.add(str(address[0]).split("%")[0].lower())
    except OSError:
        pass
    lan = lan_address()
    if lan:
        found.add(lan)
    return found


def is_wildcard(host: str) -> bool:
    return host in ("0.0.0.0", "::", "")


@dataclass(frozen=True)
class Access:
    """The names and origins one server accepts (``nochmal serve`` fills it from its options)."""

    hosts: frozenset[str] = field(default_factory=frozenset)
    origins: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def build(cls, hosts=(), origins=()) -> "Access":
        """The localhost names, ``hosts`` and ``$NOCHMAL_ALLOWED_HOSTS``; ``origins`` and
        ``$NOCHMAL_ALLOWED_ORIGINS`` (each as ``scheme://name[:port]``, no trailing slash)."""
        names = {host_name(h) for h in (*LOCAL_NAMES, *hosts, *_env_list(HOSTS_ENV))}
        return cls(frozenset(n for n in names if n),
                   frozenset(o.rstrip("/").lower() for o in (*origins, *_env_list(ORIGINS_ENV))))

    def host_allowed(self, host_header: str | None) -> bool:
        return host_header is not None and host_name(host_header) in self.hosts

    def origin_allowed(self, origin: str, own: str) -> bool:
        origin = origin.rstrip("/").lower()
        return origin == own.lower() or origin in self.origins


def _refusal(status: int, message: str, field: str) -> JSONResponse:
    return JSONResponse(error_body(message, field), status_code=status)


def _media_type(value: str | None) -> str:
    return (value or "").split(";", 1)[0].strip().lower()


class HttpMiddleware:
    """An ASGI middleware that checks HTTP requests (``http``, below); every other scope (the
    lifespan) passes straight to the app. RequestGuard here, app.py's BodyLimit."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        return await self.http(scope, receive, send)

    async def http(self, scope, receive, send):
        raise NotImplementedError


class RequestGuard(HttpMiddleware):
    """ASGI middleware: the Host, Origin and Content-Type checks of the module doc, each a
    4xx JSON ``{"error", "field"}`` naming the header, before the request reaches the app."""

    def __init__(self, app, access: Access):
        super().__init__(app)
        self.access = access

    async def http(self, scope, receive, send):
        problem = self.problem(scope)
        if problem is not None:
            response = _refusal(*problem)
            return await response(scope, receive, send)
        return await self.app(scope, receive, send)

    def problem(self, scope) -> tuple[int, str, str] | None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
        host = headers.get("host")
        if not self.access.host_allowed(host):
            shown = (host or "")[:80]
            return 400, (f"this server does not answer to the host name {shown!r} (a name it is served "
                         "under is added with nochmal serve --allow-host NAME)"), "Host"
        if scope.get("method", "GET") in SAFE_METHODS:
            return None
        origin = headers.get("origin")
        own = f"{scope.get('scheme', 'http')}://{host}"
        if origin is not None and not self.access.origin_allowed(origin, own):
            return 403, (f"a page on another origin ({origin[:80]}) may not change anything here "
                         "(an origin is allowed with nochmal serve --allow-origin)"), "Origin"
        if origin is None and headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            return 403, "a page on another site may not change anything here", "Origin"
        if _has_body(headers):
            wanted = UPLOAD_TYPES.get(scope.get("path", ""), JSON_TYPES)
            got = _media_type(headers.get("content-type"))
            if got not in wanted:
                return 415, (f"the body must be sent as {' or '.join(wanted)}, not "
                             f"{got or 'without a Content-Type'}"), "Content-Type"
        return None


def _has_body(headers: dict[str, str]) -> bool:
    length = headers.get("content-length")
    return "transfer-encoding" in headers or (length is not None and length.strip() not in ("", "0"))
