"""What one client may ask of the server (docs/security.md, "Limits"): the size of a request
body, creations per minute per address (rooms, games, uploads), bytes of uploads a day, and
how long what it made is kept on disk."""

from __future__ import annotations

import os
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path

from fastapi import Request

from nochmal.i18n import N_, say
from nochmal.web.errors import WebError

UPLOAD_BYTES_A_DAY = 20_000_000  # stored bytes of records one address may add in a day
ALL_UPLOAD_BYTES_A_DAY = 200_000_000  # ... and all addresses together
DAY = 86400.0


@dataclass(frozen=True)
class BodyCaps:
    """The largest request body the app reads, in bytes, by where it goes. Declared here once;
    the app's BodyLimit (nochmal/web/app.py) holds every request to its cap before a handler
    reads it, and a handler that needs a number (an upload's file, an import's unpacked
    room.json) gets them through ``deps.Caps``.

    Four numbers, not one (docs/security.md, "Limits"): an uploaded record may be large (a
    60-roll 6-seat record is ~30 kB), while a room's JSON body (a name, a sheet, a room's
    settings) comes with every tap of a phone and never needs more than a few kB; an exported
    room (six sheets and their names, zipped or as room.json) sits between, and its cap also
    bounds how much of a zip is ever unpacked; a leaderboard submission holds one solo record
    (about 4 kB) and is replayed, so it is held short too.
    """

    max_body: int = 1_000_000  # any body but the rooms': an uploaded record, a game's move
    max_room_body: int = 64 * 1024  # a room's JSON body (/api/rooms...)
    max_room_import: int = 256 * 1024  # an imported room (/api/rooms/import): the zip, and room.json unpacked
    max_puzzle_body: int = 128 * 1024  # a leaderboard submission (/api/puzzles): a name and one solo record

    def for_path(self, path: str) -> tuple[str, int]:
        """The name and bytes of the cap a request to ``path`` is held to."""
        if path.startswith("/api/rooms/import"):
            return "max_room_import", self.max_room_import
        if path.startswith("/api/rooms"):
            return "max_room_body", self.max_room_body
        if path.startswith("/api/puzzles"):
            return "max_puzzle_body", self.max_puzzle_body
        return "max_body", self.max_body


def too_large(name: str, limit: int, field: str = "body") -> WebError:
    """The one refusal of a body (or a part of it, ``field``) over the cap ``name``."""
    return WebError(say("%(field)s over the limit of %(limit)s bytes (%(name)s)", field=field, limit=limit, name=name),
                    field, 413)


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
class WindowCounts:
    """Amounts per client address within the last ``window`` seconds (the one log behind the
    per-address limits below): old entries drop out as they age, and past ``max_clients``
    addresses the quiet ones are forgotten, so an address seen once does not stay in memory."""

    window: float
    max_clients: int = 10_000
    _seen: dict = field(default_factory=lambda: defaultdict(deque))  # address -> deque of (time, amount)

    def total(self, client: str, now: float) -> int:
        cutoff = now - self.window
        if len(self._seen) >= self.max_clients:
            for quiet in [c for c, s in self._seen.items() if not s or s[-1][0] < cutoff]:
                del self._seen[quiet]
        stamps = self._seen[client]
        while stamps and stamps[0][0] < cutoff:
            stamps.popleft()
        return sum(amount for _, amount in stamps)

    def add(self, client: str, now: float, amount: int = 1) -> None:
        self._seen[client].append((now, amount))

    def __len__(self) -> int:
        return len(self._seen)


# a RateLimit's refusal by what it counts (said in the request's language: docs/web.md "Languages")
RATE_REFUSALS = {
    "requests": N_("at most %(n)s requests a minute from one address; wait a little"),
    "new rooms": N_("at most %(n)s new rooms a minute from one address; wait a little"),
    "new games": N_("at most %(n)s new games a minute from one address; wait a little"),
    "uploads": N_("at most %(n)s uploads a minute from one address; wait a little"),
    "leaderboard submissions": N_("at most %(n)s leaderboard submissions a minute from one address; wait a little"),
}


@dataclass
class RateLimit:
    """At most ``per_minute`` creations of ``what`` per client address in any minute."""

    per_minute: int
    what: str = "requests"
    max_clients: int = 10_000  # addresses remembered before the quiet ones are forgotten
    _seen: WindowCounts = field(init=False)

    def __post_init__(self):
        self._seen = WindowCounts(60.0, self.max_clients)

    def check(self, client: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        if self._seen.total(client, now) >= self.per_minute:
            refusal = RATE_REFUSALS.get(self.what, RATE_REFUSALS["requests"])
            raise WebError(say(refusal, n=self.per_minute), None, 429)
        self._seen.add(client, now)

    def __len__(self) -> int:
        """Addresses remembered: past ``max_clients`` the quiet ones are forgotten (memory)."""
        return len(self._seen)


ALL_CLIENTS = ""  # the key under which UploadQuota counts every address together


@dataclass
class UploadQuota:
    """At most ``per_client`` stored bytes of uploads per client address, and ``in_all`` from
    all addresses together, in any ``window`` seconds (a day)."""

    per_client: int = UPLOAD_BYTES_A_DAY
    in_all: int = ALL_UPLOAD_BYTES_A_DAY
    window: float = DAY
    max_clients: int = 10_000  # addresses remembered before the quiet ones are forgotten
    _clients: WindowCounts = field(init=False)
    _all: WindowCounts = field(init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self):
        self._clients = WindowCounts(self.window, self.max_clients)
        self._all = WindowCounts(self.window)

    def check(self, client: str, size: int, now: float | None = None) -> None:
        """Refuse (429 naming the reason) if ``size`` more bytes would pass a limit; nothing is charged."""
        with self._lock:
            self._refuse_over(client, size, time.monotonic() if now is None else now)

    def charge(self, client: str, size: int, now: float | None = None) -> None:
        """Check and count ``size`` bytes stored for ``client`` at once (two uploads cannot
        both pass a limit that only one of them fits)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            self._refuse_over(client, size, now)
            self._clients.add(client, now, size)
            self._all.add(ALL_CLIENTS, now, size)

    def _refuse_over(self, client: str, size: int, now: float) -> None:
        mine = self._clients.total(client, now)
        if mine + size > self.per_client:
            raise WebError(say("file: at most %(most)s bytes of records a day from one address (%(mine)s stored "
                               "in the last 24 h, this one %(size)s); try again tomorrow", most=self.per_client,
                               mine=mine, size=size), "file", 429)
        if self._all.total(ALL_CLIENTS, now) + size > self.in_all:
            raise WebError(say("file: the server takes at most %(most)s bytes of records a day from all addresses "
                               "together; try again tomorrow", most=self.in_all), "file", 429)


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
