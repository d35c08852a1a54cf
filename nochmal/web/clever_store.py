"""The /clever solo games, kept across a restart (docs/clever.md "The web page"): each game is
its record, the seed, the options and the actions played, in DATA/clever.sqlite3 (the rooms'
Database interface, nochmal/web/rooms/store_db.py); a game read after a restart is rebuilt by
replaying its actions against the seed's dice. An action is answered only after its record is
committed (the house rule: what the server acknowledged survives a crash). The newest games
are kept built in memory; each address keeps at most MAX_PER_ADDRESS games (its oldest goes)."""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections import OrderedDict

from nochmal.clever import Action, CleverGame, CleverRules
from nochmal.clever.options import DEFAULT_OPTIONS
from nochmal.errors import NochmalError
from nochmal.i18n import say
from nochmal.web.errors import WebError
from nochmal.web.rooms.store_db import Database
from nochmal.web.rooms.store_open import open_database

DB_NAME = "clever.sqlite3"
MAX_PER_ADDRESS = 50  # games one address keeps; a new one past it deletes that address's oldest
MAX_GAMES = 100_000  # games kept in all; past it the least recently played go
MAX_BUILT = 200  # games kept built in memory (the others are replayed when asked for)
PART = "clever"  # its schema's part in schema_version (store_db.py)
STEPS = (lambda schema: schema.script("""
CREATE TABLE IF NOT EXISTS clever_games (
    id TEXT PRIMARY KEY, address TEXT NOT NULL, seed BIGINT NOT NULL, options TEXT NOT NULL,
    actions TEXT NOT NULL, created DOUBLE PRECISION NOT NULL, updated DOUBLE PRECISION NOT NULL);
CREATE INDEX IF NOT EXISTS clever_by_address ON clever_games (address, created);
CREATE INDEX IF NOT EXISTS clever_by_update ON clever_games (updated)"""),)


def advance(game: CleverGame, seed: int) -> None:
    """Throw the seed's dice until a seat decides or the game is over."""
    while game.is_chance_node():
        game.apply_roll(game.seeded_outcome(seed))


class Played:
    """One game: its seed, its actions in the notation (the record) and the game they build."""

    def __init__(self, seed: int, rules: CleverRules, actions: list[str] | None = None):
        self.seed, self.rules, self.actions = seed, rules, []
        self.game = CleverGame(1, rules)
        advance(self.game, seed)
        for text in actions or []:
            self.play(text)

    def play(self, text: str) -> None:
        """Apply one action and the throws after it (an IllegalActionError leaves it as it was)."""
        self.game.apply_move(Action.parse(text, self.game.facts))
        self.actions.append(text)
        advance(self.game, self.seed)


class CleverGames:
    """The games on a Database, the newest built in memory; one lock for the store (a game is
    played by one page at a time; the lock keeps two requests from interleaving)."""

    def __init__(self, database: Database, built: int = MAX_BUILT, per_address: int = MAX_PER_ADDRESS,
                 most: int = MAX_GAMES):
        self.db, self.built, self.per_address, self.most = database, built, per_address, most
        self.games: OrderedDict[str, Played] = OrderedDict()
        self.lock = threading.RLock()  # held by the router while it reads a game into its answer too
        database.migrate(PART, STEPS)

    def close(self) -> None:
        self.db.close()

    def _keep(self, gid: str, played: Played) -> None:
        self.games[gid] = played
        self.games.move_to_end(gid)
        while len(self.games) > self.built:
            self.games.popitem(last=False)

    def new(self, seed: int, address: str, rules: CleverRules = DEFAULT_OPTIONS) -> tuple[str, Played]:
        played, gid, now = Played(seed, rules), secrets.token_urlsafe(12), time.time()
        with self.lock, self.db.tx() as conn:
            conn.execute("INSERT INTO clever_games (id, address, seed, options, actions, created, updated) "
                         "VALUES (?,?,?,?,?,?,?)", (gid, address, seed, json.dumps(rules.to_dict()), "[]", now, now))
            mine = conn.execute("SELECT id FROM clever_games WHERE address=? ORDER BY created DESC, id",
                                (address,)).fetchall()
            (count,) = conn.execute("SELECT COUNT(*) FROM clever_games").fetchone()
            old = mine[self.per_address:] + (conn.execute(
                "SELECT id FROM clever_games ORDER BY updated, id LIMIT ?", (count - self.most,)).fetchall()
                if count > self.most else [])
            for (dropped,) in set(old):
                conn.execute("DELETE FROM clever_games WHERE id=?", (dropped,))
                self.games.pop(dropped, None)
            self._keep(gid, played)
        return gid, played

    def get(self, gid: str) -> Played:
        """The game, replayed from its record when it is not in memory (after a restart)."""
        with self.lock:
            return self._get(gid)

    def _get(self, gid: str) -> Played:
        played = self.games.get(gid)
        if played is not None:
            self.games.move_to_end(gid)
            return played
        with self.db.read() as conn:
            row = conn.execute("SELECT seed, options, actions FROM clever_games WHERE id=?", (gid,)).fetchone()
        if row is None:
            raise WebError(say("no Clever 4ever game %(id)s (start a new one)", id=repr(gid)), "game_id", 404)
        try:
            played = Played(row[0], CleverRules.from_dict(json.loads(row[1])), json.loads(row[2]))
        except (NochmalError, ValueError):
            raise WebError(say("the Clever 4ever game %(id)s can no longer be replayed (start a new one)",
                               id=repr(gid)), "game_id", 410) from None
        self._keep(gid, played)
        return played

    def play(self, gid: str, text: str) -> Played:
        """One action on the game, committed before it is answered; a refusal names ``action``
        in the player's language (the engine's Message)."""
        with self.lock:  # one lock from reading to committing: two requests never play one game at once
            played = self._get(gid)
            try:
                played.play(text)
            except NochmalError as exc:
                raise WebError(exc.message, "action", 422) from None
            try:
                with self.db.tx() as conn:
                    stored = conn.execute("UPDATE clever_games SET actions=?, updated=? WHERE id=?",
                                          (json.dumps(played.actions), time.time(), gid)).rowcount
            except BaseException:
                self.games.pop(gid, None)  # not committed: the next read replays the stored record
                raise
            if not stored:  # deleted meanwhile (its address started too many newer games)
                self.games.pop(gid, None)
                raise WebError(say("no Clever 4ever game %(id)s (start a new one)", id=repr(gid)), "game_id", 404)
        return played


_opening = threading.Lock()


def store_of(app) -> CleverGames:
    """The app's store on ``app.state.clever``, opened on first use in the data folder (memory
    without one): create_app needs no line for it."""
    with _opening:
        store = getattr(app.state, "clever", None)
        if store is None:
            store = app.state.clever = CleverGames(open_database(getattr(app.state, "data_dir", None), None, DB_NAME))
        return store
