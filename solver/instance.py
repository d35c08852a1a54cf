"""A planning instance as plain data: board, rules, the known rolls, an optional start sheet.

The planner is clairvoyant: it sees every roll in advance. An instance can come from a seed,
from a game record (optionally from a mid-game turn on) or from a JSON list of rolls.
Building one never plays a move; legality stays with the engine (nochmal.game).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from nochmal.board import BUILTIN_BOARDS, Board, load_board
from nochmal.dice import Roll, seeded_rolls
from nochmal.errors import NochmalError
from nochmal.fileio import load_json_text, read_text_file
from nochmal.game import Mode
from nochmal.record import GameRecord
from nochmal.rules import DEFAULT_RULES, MAX_SEED, RuleSettings
from nochmal.sheet import Sheet

SOLO_DICE = 2

# the most rolls an instance may hold: a solo game has 30, the longest co-op budget 126
MAX_ROLLS = 200


class InstanceError(NochmalError):
    """A rolls file, record or instance description is unusable for planning."""


@dataclass
class Instance:
    """What the planner needs: the sheet state to start from and the rolls still to come.

    ``start`` is None for a fresh sheet. ``first_roll`` is the number of ``rolls[0]`` in the
    whole game, counted from 1 as people count (a plan's steps are numbered from it: "roll
    13" of a mid-game instance).
    """

    board: Board
    rolls: list[Roll]
    rules: RuleSettings = DEFAULT_RULES
    start: Sheet | None = None
    solo: bool = True
    first_roll: int = 1
    source: str = ""
    seed: int | None = None
    extra: dict = field(default_factory=dict)

    def start_sheet(self) -> Sheet:
        return self.start if self.start is not None else Sheet.empty(self.board)

    # --- builders -------------------------------------------------------------------------
    @classmethod
    def from_seed(cls, seed: int, board: Board | str = "classic", rules: RuleSettings = DEFAULT_RULES,
                  count: int | None = None) -> "Instance":
        """The first ``count`` solo rolls (default: the rules' game length) of a seed."""
        board = load_board(board)
        count = rules.solo_rolls if count is None else count
        if not 1 <= count <= rules.solo_rolls:
            raise InstanceError(f"roll count must be 1..{rules.solo_rolls} (the game length), got {count}")
        return cls(board, seeded_rolls(seed, count, SOLO_DICE), rules, source=f"seed {seed}", seed=seed)

    @classmethod
    def from_record(cls, record: GameRecord, after_turn: int = 0, source: str = "record",
                    count: int | None = None) -> "Instance":
        """The rolls of a solo record from turn ``after_turn + 1`` on, starting from the
        sheet the record's moves reached after ``after_turn`` turns (replayed and checked)."""
        if record.mode != Mode.SOLO:
            raise InstanceError(f"{source}: the planner handles solo records, this one is {str(record.mode)!r}")
        rolls = [roll for roll, _ in record.rolls]
        if not 0 <= after_turn <= len(rolls):
            raise InstanceError(f"{source}: turn {after_turn} is outside 0..{len(rolls)}")
        start = None
        if after_turn:
            for turn, game in record.replay(source):
                if turn == after_turn:
                    if game.roll is not None:
                        raise InstanceError(f"{source}: turn {turn} is unfinished")
                    start = game.sheets[0]
                    break
        rest = rolls[after_turn:]
        if count is not None:
            rest = rest[:count]
        if not rest:
            raise InstanceError(f"{source}: no rolls left after turn {after_turn}")
        return cls(record.board, rest, record.rules, start, True, after_turn + 1, source, record.seed)

    @classmethod
    def from_rolls_json(cls, data, source: str, board: Board | str = "classic",
                        rules: RuleSettings = DEFAULT_RULES, count: int | None = None) -> "Instance":
        """``[{"colours": [...], "numbers": [...]}, ...]``: errors name the source and item."""
        if not isinstance(data, list) or not data:
            raise InstanceError(f"{source}: expected a non-empty JSON list of rolls "
                                '[{"colours": ["y", "x"], "numbers": ["3", "?"]}, ...]')
        if len(data) > MAX_ROLLS:
            raise InstanceError(f"{source}: {len(data)} rolls, the planner takes at most {MAX_ROLLS}")
        rolls = []
        for i, item in enumerate(data, 1):
            try:
                roll = Roll.from_json(item)
            except NochmalError as exc:
                raise InstanceError(f"{source}: item {i}: {exc}") from None
            if len(roll.colours) != SOLO_DICE:
                raise InstanceError(f"{source}: item {i}: a solo roll has 2 colour and 2 number dice, "
                                    f"got {len(roll.colours)}")
            rolls.append(roll)
        if count is not None:
            rolls = rolls[:count]
        return cls(load_board(board), rolls, rules, source=source)

    @classmethod
    def from_rolls_file(cls, path: str | Path, board: Board | str = "classic",
                        rules: RuleSettings = DEFAULT_RULES, count: int | None = None) -> "Instance":
        text = read_text_file(path, lambda reason: InstanceError(f"{path}: {reason}"))
        data = load_json_text(text, lambda reason: InstanceError(f"{path}: {reason}"))
        return cls.from_rolls_json(data, str(path), board, rules, count)

    # --- plain data -----------------------------------------------------------------------
    def to_json(self) -> dict:
        b = self.board
        board = b.name if b.name in BUILTIN_BOARDS and b.same_layout(load_board(b.name)) else b.to_dict()
        return {
            "board": board,
            "rules": self.rules.to_dict(),
            "rolls": [r.to_json() for r in self.rolls],
            "start": self.start.text() if self.start is not None else None,
            "solo": self.solo,
            "first_roll": self.first_roll,
            "source": self.source,
            "seed": self.seed,
        }

    @classmethod
    def from_json(cls, data, source: str = "<instance>") -> "Instance":
        if not isinstance(data, dict):
            raise InstanceError(f"{source}: expected an object")
        try:
            bdata = data["board"]
            board = load_board(bdata) if isinstance(bdata, str) else Board.from_dict(bdata, f"{source}: board", strict=False)
            rules = RuleSettings.from_dict(data.get("rules", {}))
            inst = cls.from_rolls_json(data["rolls"], source, board, rules)
            start = data.get("start")
            if start is not None and not isinstance(start, str):
                raise InstanceError(f"{source}: key 'start' must be a sheet text or null")
            inst.start = Sheet.from_text(start, board) if start else None
        except KeyError as exc:
            raise InstanceError(f"{source}: key {exc.args[0]!r} is missing") from None
        except InstanceError:
            raise
        except NochmalError as exc:
            raise InstanceError(f"{source}: {exc}") from None
        # (key, type, default, range for ints): first_roll counts from 1; a seed is in the one
        # range of the dice and the records (nochmal.rules.MAX_SEED), as the CLI takes it
        for key, kind, default, low, high in (("solo", bool, True, 0, 0), ("first_roll", int, 1, 1, MAX_ROLLS * 10**6),
                                              ("source", str, source, 0, 0), ("seed", int, None, 0, MAX_SEED)):
            value = data.get(key, default)
            if value is not None and (not isinstance(value, kind) or kind is int and isinstance(value, bool)):
                raise InstanceError(f"{source}: key {key!r} must be {kind.__name__}")
            if kind is int and value is not None and (value < low or high is not None and value > high):
                raise InstanceError(f"{source}: key {key!r} is {value}, outside {low}..{high or ''}")
            setattr(inst, key, value)
        return inst

