"""Which server drives an online game's bots and quiet seats (docs/rooms.md, Several servers):
with several servers on one PostgreSQL database every server has the game in memory, and
each would otherwise choose for the same bot seat, one choice kept and the other refused.

A server drives a game only while it holds the game's claim: a session advisory lock
(``room_key("bots", code)``) on a connection of its own, let go when the server stops or
dies (PostgreSQL ends the session), so another server takes the game over the next time
its driver looks (``RETRY`` seconds at most). On SQLite (one server) every game is this
server's. Used by the driver thread only (online_service.py)."""

from __future__ import annotations

import logging
import threading

from nochmal.web.rooms.store_db import is_database_url, room_key

log = logging.getLogger(__name__)
RETRY = 1.0  # seconds between a server's tries at a game another server drives


class BotClaims:
    def __init__(self, url: str | None):
        self.url = url if is_database_url(url) else None
        self._db = None
        self._held: set[str] = set()
        self._lock = threading.Lock()

    def holds(self, code: str) -> bool:
        """Whether this server drives game ``code``: it held the claim, or takes it now."""
        if self.url is None:
            return True
        with self._lock:
            try:
                if self._db is None or self._db.closed or self._db.broken:
                    self._held.clear()  # a new session: the old one's locks are gone with it
                    self._db = _connect(self.url)
                if code in self._held:
                    return True
                if self._db.execute("SELECT pg_try_advisory_lock(%s)", (room_key("bots", code),)).fetchone()[0]:
                    self._held.add(code)
                    return True
            except Exception as exc:  # noqa: BLE001 - the database away: drive nothing, try again later
                log.warning("online games: cannot claim game %s (%s)", code, str(exc).strip().splitlines()[:1])
                self._held.clear()
            return False

    def drives(self, code: str) -> bool:
        """Whether this server holds game ``code``'s claim now (no try to take it)."""
        return self.url is None or code in self._held

    def let_go(self, code: str) -> None:
        """The game ended here (over, expired): another server may take it."""
        with self._lock:
            if code in self._held and self._db is not None and not self._db.closed:
                self._held.discard(code)
                self._db.execute("SELECT pg_advisory_unlock(%s)", (room_key("bots", code),))

    def close(self) -> None:
        """Every claim let go (the server stopping)."""
        with self._lock:
            self._held.clear()
            if self._db is not None:
                self._db.close()


def _connect(url: str):
    import psycopg  # lazily: a SQLite-only server never loads it

    return psycopg.connect(url, autocommit=True, application_name="nochmal bots")
