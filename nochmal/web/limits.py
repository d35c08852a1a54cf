"""What one client may ask of the server: creations per minute per address (rooms, games,
uploads), and how long what it made is kept on disk."""

from __future__ import annotations

import os
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path

from fastapi import Request

from nochmal.web.errors import WebError


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def env_days(name: str, default: float) -> float:
    """A positive number of days from the environment variable ``name``, else ``default``."""
    try:
        value = float(os.environ.get(name, ""))
    except ValueError:
        return default
    return value if value > 0 else default


@dataclass
class RateLimit:
    """At most ``per_minute`` creations of ``what`` per client address in any minute."""

    per_minute: int
    what: str = "requests"
    max_clients: int = 10_000  # addresses remembered before the quiet ones are forgotten
    _seen: dict = field(default_factory=lambda: defaultdict(deque))

    def check(self, client: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        if len(self._seen) >= self.max_clients:  # else every address ever seen stays in memory
            for quiet in [c for c, s in self._seen.items() if not s or s[-1] < now - 60]:
                del self._seen[quiet]
        stamps = self._seen[client]
        while stamps and stamps[0] < now - 60:
            stamps.popleft()
        if len(stamps) >= self.per_minute:
            raise WebError(f"at most {self.per_minute} {self.what} a minute from one address; wait a little", None, 429)
        stamps.append(now)


def prune_folder(folder: Path | None, older_than_seconds: float, keep: set[str] = frozenset(),
                 now: float | None = None) -> int:
    """Delete the ``*.json`` files of ``folder`` not written for ``older_than_seconds`` (a
    game is written at every move, so only games left alone go), except the ids in ``keep``
    (held in memory); how many went."""
    if folder is None or not folder.is_dir():
        return 0
    cutoff = (time.time() if now is None else now) - older_than_seconds
    gone = 0
    for path in folder.glob("*.json"):
        try:
            if path.stem not in keep and path.stat().st_mtime < cutoff:
                path.unlink()
                gone += 1
        except FileNotFoundError:  # removed meanwhile
            pass
    return gone
