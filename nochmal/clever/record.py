"""Versioned Clever 4ever game records (their own format name beside nochmal/record.py's
Noch mal! records): the seats, the seed, the OPTIONS, every throw and every action in order,
and the result. ``replay`` plays a record through the engine and rejects a forged one at its
first bad step: a throw that is not the seed's, an action by the wrong seat, an illegal
action, or a result that does not match.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from nochmal.clever.actions import Action
from nochmal.clever.dice import Throw
from nochmal.clever.errors import CleverRecordError
from nochmal.clever.game import MAX_PLAYERS, CleverGame
from nochmal.clever.options import CleverRules
from nochmal.errors import NochmalError
from nochmal.fileio import atomic_write_text, load_json_text, read_text_file
from nochmal.game import CHANCE
from nochmal.rules import MAX_SEED

FORMAT = "clever4ever-record"
VERSION = 1
MAX_STEPS = 10_000  # a 4-seat game has well under 1000 steps; no file asks for an unbounded replay


@dataclass
class CleverRecord:
    players: list[str]
    seed: int | None
    options: CleverRules
    steps: list[tuple[int, Throw | Action]] = field(default_factory=list)  # (CHANCE, throw) or (seat, action)
    result: dict | None = None

    @classmethod
    def from_game(cls, game: CleverGame, players: list[str], seed: int | None) -> "CleverRecord":
        result = None
        if game.is_terminal():
            result = {"scores": game.scores(), "winners": game.winners()}
        return cls(list(players), seed, game.rules, list(game.history), result)

    def to_json(self) -> dict:
        steps = [{"throw": s.to_json()} if who == CHANCE else {"player": who, "action": s.text()}
                 for who, s in self.steps]
        return {"format": FORMAT, "version": VERSION, "players": self.players, "seed": self.seed,
                "options": self.options.to_dict(), "steps": steps, "result": self.result}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1)

    def save(self, path: str | Path) -> None:
        atomic_write_text(Path(path), self.dumps() + "\n")

    @classmethod
    def from_json(cls, data) -> "CleverRecord":
        if not isinstance(data, dict):
            raise CleverRecordError("record: expected a JSON object")
        if data.get("format") != FORMAT:
            raise CleverRecordError(f"record: format must be {FORMAT!r}, got {data.get('format')!r}")
        if data.get("version") != VERSION:
            raise CleverRecordError(f"record: unknown version {data.get('version')!r} (this version reads {VERSION})")
        players = data.get("players")
        if not (isinstance(players, list) and 1 <= len(players) <= MAX_PLAYERS
                and all(isinstance(p, str) and len(p) <= 100 for p in players)):
            raise CleverRecordError(f"record: players must be 1-{MAX_PLAYERS} names")
        seed = data.get("seed")
        if seed is not None and (type(seed) is not int or not 0 <= seed <= MAX_SEED):
            raise CleverRecordError(f"record: seed must be null or 0..{MAX_SEED}")
        try:
            options = CleverRules.from_dict(data.get("options", {}))
        except NochmalError as exc:
            raise CleverRecordError(f"record: {exc}") from None
        raw = data.get("steps")
        if not isinstance(raw, list) or len(raw) > MAX_STEPS:
            raise CleverRecordError(f"record: steps must be a list of at most {MAX_STEPS}")
        steps = []
        for i, step in enumerate(raw, 1):
            try:
                if isinstance(step, dict) and set(step) == {"throw"}:
                    steps.append((CHANCE, Throw.from_json(step["throw"])))
                elif isinstance(step, dict) and set(step) == {"player", "action"} and type(step["player"]) is int:
                    steps.append((step["player"], Action.parse(step["action"])))
                else:
                    raise CleverRecordError('expected {"throw": {...}} or {"player": N, "action": "..."}')
            except NochmalError as exc:
                raise CleverRecordError(f"record: step {i}: {exc}") from None
        result = data.get("result")
        if result is not None and not (isinstance(result, dict) and isinstance(result.get("scores"), list)):
            raise CleverRecordError('record: result must be null or {"scores": [...], "winners": [...]}')
        return cls(players, seed, options, steps, result)

    @classmethod
    def loads(cls, text: str) -> "CleverRecord":
        return cls.from_json(load_json_text(text, lambda why: CleverRecordError(f"record: {why}")))

    @classmethod
    def load(cls, path: str | Path) -> "CleverRecord":
        return cls.loads(read_text_file(path, lambda why: CleverRecordError(f"{path}: {why}")))


def replay(record: CleverRecord, upto: int | None = None) -> CleverGame:
    """The game after the record's first ``upto`` steps (all by default), every step checked;
    CleverRecordError names the first bad step (1-based)."""
    game = CleverGame(len(record.players), record.options)
    steps = record.steps if upto is None else record.steps[:upto]
    for i, (who, step) in enumerate(steps, 1):
        try:
            if who == CHANCE:
                if not game.is_chance_node():
                    raise CleverRecordError("a throw where a seat decides" if not game.is_terminal()
                                            else "a throw after the end of the game")
                if record.seed is not None and step != game.seeded_throw(record.seed):
                    raise CleverRecordError(f"the throw {step.text()} is not seed {record.seed}'s "
                                            f"({game.seeded_throw(record.seed).text()})")
                game.apply_roll(step)
            else:
                now = game.current_player()
                if now != who:
                    raise CleverRecordError(f"player {who} acts, but it is " +
                                            ("the dice's turn" if now == CHANCE else f"player {now}'s turn"
                                             if now >= 0 else "the end of the game"))
                game.apply_move(step)
        except NochmalError as exc:
            raise CleverRecordError(f"step {i}: {exc}") from None
    if upto is None and record.result is not None:
        if not game.is_terminal():
            raise CleverRecordError(f"the record has a result but ends before the game does (after step {len(steps)})")
        if record.result.get("scores") != game.scores():
            raise CleverRecordError(f"result: the record says scores {record.result.get('scores')}, "
                                    f"the replay gives {game.scores()}")
    return game
