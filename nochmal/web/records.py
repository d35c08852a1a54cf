"""Uploaded records as the server keeps them (docs/security.md, "What is kept"): each record
verified by a replay when it arrives, stored as its text on disk and in memory, its states
worked out on demand by a replay cursor (nochmal/table/stepper.py), of which the most
recently used are kept up to CURSOR_MEMORY bytes in all; the bytes one address may store
are capped by nochmal/web/limits.py UploadQuota.
"""

from __future__ import annotations

import json
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from nochmal.i18n import say
from nochmal.errors import NochmalError
from nochmal.fileio import atomic_write_text, load_json_text, read_text_file
from nochmal.game import Game
from nochmal.record import GameRecord
from nochmal.seats import seat_name
from nochmal.table.stepper import ReplayCursor
from nochmal.web.errors import WebError
from nochmal.web.games import KeptOnDisk, check_id, damaged, new_id, web_mission
from nochmal.web.limits import UploadQuota

RECORD_MEMORY = 64_000_000  # record texts kept in memory; older ones are read from disk again
# Replay cursors kept, by cursor_bytes: each is many small objects, and the garbage collector
# walks them all, so a larger cache would lengthen its pauses of every request.
CURSOR_MEMORY = 16_000_000


def cursor_bytes(record: GameRecord) -> int:
    """What a replay cursor of ``record`` holds at most (the parsed record and one game at its
    last turn with the engine's undo stack), estimated from its rolls and moves: measured with
    tracemalloc on records of 1-6 seats (a 6-seat 1000-roll record of passes: 3.1 MB, about
    440 bytes a roll or move; a move that crosses costs about 600 bytes more)."""
    moves = [m for _, ms in record.rolls for _, m in ms]
    crossing = sum(not m.is_pass for m in moves)
    return 50_000 + 450 * (len(record.rolls) + len(moves)) + 600 * crossing


@dataclass
class StoredRecord:
    """An uploaded record as the server keeps it: its text (as on disk) and its summary (JSON)."""

    text: str
    summary: str

    @property
    def cost(self) -> int:
        """Bytes in memory: the two strings, exactly."""
        return sys.getsizeof(self.text) + sys.getsizeof(self.summary)


class CursorCache:
    """Replay cursors of the records used last, at most ``max_bytes`` by cursor_bytes in all:
    the states of a record are worked out again from its text once its cursor has left."""

    def __init__(self, max_bytes: int = CURSOR_MEMORY):
        self.max_bytes = max_bytes
        self.entries: dict[str, tuple[ReplayCursor, int]] = {}  # least recently used first
        self.lock = threading.Lock()

    @property
    def used(self) -> int:
        with self.lock:
            return sum(cost for _, cost in self.entries.values())

    def get(self, rec_id: str) -> ReplayCursor | None:
        with self.lock:
            entry = self.entries.pop(rec_id, None)
            if entry is None:
                return None
            self.entries[rec_id] = entry
            return entry[0]

    def put(self, rec_id: str, cursor: ReplayCursor) -> None:
        cost = cursor_bytes(cursor.record)
        with self.lock:
            self.entries.pop(rec_id, None)
            if cost > self.max_bytes:
                return
            while self.entries and sum(c for _, c in self.entries.values()) + cost > self.max_bytes:
                self.entries.pop(next(iter(self.entries)))
            self.entries[rec_id] = (cursor, cost)


class RecordStore(KeptOnDisk):
    """Uploaded records: each on disk (DATA/records/ID.json) for ``keep_days``; in memory the
    texts of the newest, at most ``limit`` records and ``memory`` bytes; the states of a record
    worked out on demand (``cursors``); stored bytes capped per address (``quota``)."""

    def __init__(self, folder: Path | None, limit: int = 500, keep_days: float = 90.0,
                 memory: int = RECORD_MEMORY, cursors: CursorCache | None = None, quota: UploadQuota | None = None):
        self.items: dict[str, StoredRecord] = {}  # oldest first
        self.limit = limit
        self.memory = memory
        self.cursors = cursors if cursors is not None else CursorCache()
        self.quota = quota if quota is not None else UploadQuota()
        self.lock = threading.Lock()
        super().__init__(folder, keep_days)

    def in_memory(self) -> set[str]:
        with self.lock:
            return set(self.items)

    def memory_bytes(self) -> int:
        """Bytes the stored records hold in memory (the cursors are counted by CursorCache)."""
        with self.lock:
            return sum(item.cost for item in self.items.values())

    def add(self, text: str, client: str) -> tuple[str, StoredRecord]:
        """Verify an uploaded record and store it, charged to ``client``'s quota (runs in a
        worker thread: the replay takes up to a second)."""
        self.quota.check(client, len(text.encode()))  # before the replay: an address over its quota costs nothing
        self.prune_now_and_then()
        record, final = parse_record(text)
        stored = record.dumps()
        self.quota.charge(client, len(stored.encode()))
        rec_id = new_id()
        if self.folder is not None:
            atomic_write_text(self.folder / f"{rec_id}.json", stored)
        item = StoredRecord(stored, json.dumps(_record_summary(rec_id, record, final)))
        self._keep(rec_id, item)
        return rec_id, item

    def _keep(self, rec_id: str, item: StoredRecord) -> None:
        with self.lock:
            self.items[rec_id] = item
            held = sum(i.cost for i in self.items.values())
            while len(self.items) > 1 and (len(self.items) > self.limit or held > self.memory):
                held -= self.items.pop(next(iter(self.items))).cost  # the oldest leave memory; they stay on disk

    def get(self, rec_id: str) -> StoredRecord:
        check_id(rec_id, "record")
        with self.lock:
            item = self.items.get(rec_id)
        if item is not None:
            return item
        path = None if self.folder is None else self.folder / f"{rec_id}.json"
        if path is None or not path.is_file():
            raise WebError(say("no record %(id)s", id=repr(rec_id)), "record", 404)
        try:  # the server's own file, verified again: it may have been damaged since
            record, final = parse_record(read_text_file(path, NochmalError))
        except NochmalError as exc:
            raise damaged("record", rec_id, exc) from None
        item = StoredRecord(record.dumps(), json.dumps(_record_summary(rec_id, record, final)))
        self._keep(rec_id, item)
        return item

    def state(self, rec_id: str, turn: int | None = None) -> tuple[GameRecord, Game]:
        """The record and a copy of its game after ``turn`` turns (None: its last)."""
        item = self.get(rec_id)
        cursor = self.cursors.get(rec_id)
        if cursor is None:  # replayed from the text, verified when it was stored
            from nochmal.table.stepper import game_factory

            try:
                record = GameRecord.loads(item.text, f"record {rec_id}")
                cursor = ReplayCursor(record, record.new_game(game_factory(record, web_mission)))
            except NochmalError as exc:
                raise damaged("record", rec_id, exc) from None
            self.cursors.put(rec_id, cursor)
        turn = cursor.turns if turn is None else turn
        if not 0 <= turn <= cursor.turns:
            raise WebError(say("turn %(turn)s is not in this record (0-%(turns)s)", turn=turn, turns=cursor.turns), "turn", 404)
        return cursor.record, cursor.state(turn)


def parse_record(text: str) -> tuple[GameRecord, Game]:
    """A record from uploaded text, verified by a replay through the engine as `nochmal replay
    --verify` does (the stored result too): the record and its final game. Its mission must be
    a shipped id (422 naming ``extra.mission``): no file is ever opened for it."""
    from nochmal.table.stepper import game_factory

    data = load_json_text(text, lambda reason: WebError(say("%(where)s: %(why)s", where="file", why=reason), "file", 422))
    if isinstance(data, dict) and isinstance(data.get("extra"), dict) and "mission_file" in data["extra"]:
        raise WebError(say("file: the record names a mission file; the web app only knows the built-in missions"),
                       "file", 422)
    try:
        record = GameRecord.from_json(data, "file")
    except NochmalError as exc:
        raise WebError(exc.message, "file", 422) from None
    if record.needs_mission:
        web_mission(record.extra["mission"])
    try:
        return record, record.verify("file", game_factory(record, web_mission))
    except NochmalError as exc:  # the verification's words (nochmal/record.py), said in the page's language
        raise WebError(exc.message, "file", 422) from None


def _record_summary(rec_id: str, record: GameRecord, final: Game) -> dict:
    """The keys of `nochmal replay F --verify --json` (``id`` for its ``file``) and a few more;
    ``verified`` is always true: parse_record refused any record that does not verify."""
    return {"id": rec_id, "verified": True, "mode": record.mode, "board": record.board.name, "seed": record.seed,
            "players": record.players, "names": [seat_name(record.players, p) for p in range(len(record.players))],
            "turns": len(record.rolls), "over": final.is_terminal(), "scores": final.scores(),
            "winners": final.winners() if final.is_terminal() else None,
            "sheets": [s.text() for s in final.sheets], "extra": record.extra}

__all__ = ["CursorCache", "RecordStore", "StoredRecord", "cursor_bytes", "parse_record"]
