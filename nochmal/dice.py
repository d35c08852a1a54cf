"""Dice: faces, rolls, seeded rolls that never change, and what a player may pick.

docs/rules.md §2: 3 colour dice (y g b r o, ``x`` = colour joker) and 3 number dice (1-5,
``?`` = number joker); solo rolls 2 + 2. docs/rules.md §6: a seed gives the same rolls on every
machine forever, so faces come from SHA-256 of (seed, dice count, roll index) with rejection
sampling of bytes (no modulo bias) and nothing from a library's random stream.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement, product
from math import factorial

from nochmal.board import COLOURS
from nochmal.choice import Choice
from nochmal.errors import RollError, SeedError
from nochmal.i18n import say
from nochmal.move import COLOUR_JOKER, NUMBER_JOKER
from nochmal.rules import MAX_SEED

COLOUR_FACES = ("y", "g", "b", "r", "o", "x")
NUMBER_FACES = ("1", "2", "3", "4", "5", "?")
_COLOUR_SET = frozenset(COLOUR_FACES)
_NUMBER_SET = frozenset(NUMBER_FACES)

_DOMAIN = b"nochmal-dice-v1"


@dataclass(frozen=True)
class Roll:
    """The faces of one roll: colour dice and number dice, in die order."""

    colours: tuple[str, ...]
    numbers: tuple[str, ...]

    def __post_init__(self):
        if not _COLOUR_SET.issuperset(self.colours):
            bad = next(f for f in self.colours if f not in _COLOUR_SET)
            raise RollError(say("roll: %(face)s is not a colour face (y g b r o x)", face=repr(bad)))
        if not _NUMBER_SET.issuperset(self.numbers):
            bad = next(f for f in self.numbers if f not in _NUMBER_SET)
            raise RollError(say("roll: %(face)s is not a number face (1 2 3 4 5 ?)", face=repr(bad)))

    def to_json(self) -> dict:
        return {"colours": list(self.colours), "numbers": list(self.numbers)}

    @classmethod
    def from_json(cls, data) -> "Roll":
        if not isinstance(data, dict) or set(data) != {"colours", "numbers"}:
            raise RollError(say('roll: expected {"colours": [...], "numbers": [...]}'))
        cols, nums = data["colours"], data["numbers"]
        if not isinstance(cols, list) or not isinstance(nums, list) or not all(
                isinstance(f, str) for f in cols + nums):
            raise RollError(say("roll: colours and numbers must be lists of face strings"))
        if not 1 <= len(cols) <= 3 or len(cols) != len(nums):
            raise RollError(say("roll: expected 3 colour and 3 number dice (2 and 2 solo)"))
        return cls(tuple(cols), tuple(nums))

    def text(self) -> str:
        """Compact form, e.g. ``ybx/3?5``."""
        return "".join(self.colours) + "/" + "".join(self.numbers)

    @classmethod
    def from_text(cls, text: str) -> "Roll":
        try:
            cols, nums = text.strip().split("/")
        except ValueError:
            raise RollError(say("roll %(text)s: expected colour faces/number faces, e.g. ybx/3?5", text=repr(text))) from None
        return cls(tuple(cols), tuple(nums))

    def without(self, colour_face: str, number_face: str) -> "Roll":
        """The dice left after one die of each of these faces is set aside."""
        cols, nums = list(self.colours), list(self.numbers)
        cols.remove(colour_face)
        nums.remove(number_face)
        return Roll(tuple(cols), tuple(nums))

    def pairs(self) -> list[tuple[str, str]]:
        """Distinct (colour face, number face) picks from these dice."""
        return sorted(set(product(self.colours, self.numbers)))

    def choices(self, jokers_left: int) -> list[Choice]:
        """Every pick from these dice (not yet placed), jokers resolved as far as
        ``jokers_left`` marks allow."""
        out: list[Choice] = []
        for pair in self.pairs():
            cost, picks = _PICKS[pair]
            if cost <= jokers_left:
                out += picks
        return out


def _faces(digest_source: bytes, count: int) -> list[int]:
    """``count`` unbiased values 0..5 from a hash stream (bytes >= 252 are rejected)."""
    out: list[int] = []
    block = hashlib.sha256(digest_source).digest()
    while True:
        for byte in block:
            if byte < 252:
                out.append(byte % 6)
                if len(out) == count:
                    return out
        block = hashlib.sha256(block).digest()


def seeded_roll(seed: int, index: int, dice: int = 3) -> Roll:
    """Roll ``index`` (0-based) of seed ``seed`` with ``dice`` colour and number dice each.
    Seeds are 0..MAX_SEED (nochmal.rules, the one range): a game played on a larger seed
    would leave a record its reader (nochmal/record.py) refuses."""
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise SeedError(f"seed must be a non-negative integer at most {MAX_SEED}, got {seed!r}")
    values = _faces(_DOMAIN + b"|%d|%d|%d" % (seed, dice, index), 2 * dice)
    return Roll(tuple(COLOUR_FACES[v] for v in values[:dice]),
                tuple(NUMBER_FACES[v] for v in values[dice:]))


def seeded_rolls(seed: int, count: int, dice: int = 3, start: int = 0) -> list[Roll]:
    return [seeded_roll(seed, i, dice) for i in range(start, start + count)]


@lru_cache(maxsize=None)
def roll_classes(dice: int) -> tuple[tuple[Roll, float], ...]:
    """Every distinct roll of ``dice`` colour and ``dice`` number dice up to die order (a
    multiset of colour faces with a multiset of number faces, faces in COLOUR_FACES /
    NUMBER_FACES order) with its exact probability; the probabilities sum to 1. Colour
    multisets outer, number multisets inner (21 x 21 classes for 2+2 dice, 56 x 56 for 3+3)."""
    def multisets(faces: tuple[str, ...]) -> list[tuple[tuple[str, ...], float]]:
        out = []
        for combo in combinations_with_replacement(range(len(faces)), dice):
            ways = factorial(dice)
            for f in set(combo):
                ways //= factorial(combo.count(f))
            out.append((tuple(faces[i] for i in combo), ways / len(faces) ** dice))
        return out

    numbers = multisets(NUMBER_FACES)
    return tuple((Roll(cols, nums), pc * pn) for cols, pc in multisets(COLOUR_FACES) for nums, pn in numbers)


def _resolution_table() -> dict[tuple[str, str], tuple[int, tuple[tuple[str, int, int], ...]]]:
    table = {}
    for cf in COLOUR_FACES:
        for nf in NUMBER_FACES:
            cost = (cf == COLOUR_JOKER) + (nf == NUMBER_JOKER)
            colours = COLOURS if cf == COLOUR_JOKER else cf
            counts = range(1, 6) if nf == NUMBER_JOKER else (int(nf),)
            table[cf, nf] = (cost, tuple((c, n, cost) for c in colours for n in counts))
    return table


_RESOLUTIONS = _resolution_table()
# the same as unplaced Choice values, built once (Roll.choices is in every bot's loop)
_PICKS = {(cf, nf): (cost, tuple(Choice(cf, nf, colour, count, cost) for colour, count, cost in options))
          for (cf, nf), (cost, options) in _RESOLUTIONS.items()}


def resolutions(colour_face: str, number_face: str, jokers_left: int) -> tuple[tuple[str, int, int], ...]:
    """(colour, count, joker cost) for a picked pair; jokers only while marks remain."""
    cost, options = _RESOLUTIONS[colour_face, number_face]
    return options if cost <= jokers_left else ()
