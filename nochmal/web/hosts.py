"""Who the server is to its clients: the host names it answers to, the origins that may change
state, and the base URL its links (room links, QR codes) are built on.

``nochmal serve --host 0.0.0.0`` is reached by phones at the machine's address on the local
network, not at ``0.0.0.0``; the links it hands out must use that address (docs/security.md).
"""

from __future__ import annotations

from fastapi import Request


def public_base_url(request: Request) -> str:
    """The base URL for links given to other devices: the one the server was told to announce
    (``app.state.public_url``, set by ``nochmal serve``), else the URL this request came in on
    (its Host header was checked against the allowed names before any handler ran)."""
    announced = getattr(request.app.state, "public_url", None)
    return announced if announced else str(request.base_url)
