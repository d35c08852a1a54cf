"""Clever 4ever's six dice and seeded throws that never change.

As for Noch mal! (nochmal/dice.py, docs/rules.md §6), the faces come from SHA-256 with
rejection sampling, never from a library's random stream. A throw is keyed by the seed and
its place in the game (round, seat, throw number in the turn), and every die has its own
face at that key: the same seed gives the same throw on every machine, and a die's face does
not depend on which other dice are thrown with it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from itertools import product

from nochmal.clever.errors import InvalidActionError
from nochmal.errors import SeedError
from nochmal.fileio import is_decimal
from nochmal.rules import MAX_SEED

DICE = ("white", "yellow", "blue", "grey", "green", "pink")
FACES = range(1, 7)
_DOMAIN = b"nochmal-clever4ever-dice-v1"


@dataclass(frozen=True)
class Throw:
    """The faces of the dice thrown, in die order: ((die, number), ...)."""

    faces: tuple[tuple[str, int], ...]

    def __post_init__(self):
        dice = [d for d, _ in self.faces]
        if not self.faces or any(d not in DICE for d in dice) or dice != sorted(set(dice), key=DICE.index):
            raise InvalidActionError(f"a throw names distinct dice of {', '.join(DICE)} in that order")
        if any(type(v) is not int or not 1 <= v <= 6 for _, v in self.faces):
            raise InvalidActionError("a die shows a number 1-6")

    @property
    def dice(self) -> tuple[str, ...]:
        return tuple(d for d, _ in self.faces)

    def text(self) -> str:
        return " ".join(f"{d}={v}" for d, v in self.faces)

    @classmethod
    def parse(cls, text: str) -> "Throw":
        """``white=3 yellow=5 ...``"""
        faces = []
        for word in text.split():
            die, eq, value = word.partition("=")
            if not eq or not is_decimal(value) or len(value) > 2:
                raise InvalidActionError(f"bad throw {text!r}: expected DIE=NUMBER words (white=3 blue=6)")
            faces.append((die, int(value)))
        return cls(tuple(faces))

    def to_json(self) -> dict:
        return dict(self.faces)

    @classmethod
    def from_json(cls, data) -> "Throw":
        if not isinstance(data, dict):
            raise InvalidActionError('a throw is {"white": 3, ...}')
        return cls(tuple(sorted(data.items(), key=lambda kv: DICE.index(kv[0]) if kv[0] in DICE else 99)))


def seeded_throw(seed: int, key: str, dice: tuple[str, ...]) -> Throw:
    """The faces of ``dice`` at throw ``key`` of game seed ``seed``."""
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise SeedError(f"seed must be a non-negative integer at most {MAX_SEED}, got {seed!r}")
    block = hashlib.sha256(_DOMAIN + b"|%d|" % seed + key.encode()).digest()
    faces: list[int] = []
    while len(faces) < len(DICE):
        for byte in block:
            if byte < 252 and len(faces) < len(DICE):  # 252 = 42 * 6: no modulo bias
                faces.append(byte % 6 + 1)
        block = hashlib.sha256(block).digest()
    return Throw(tuple((d, faces[DICE.index(d)]) for d in sorted(dice, key=DICE.index)))


def throw_outcomes(dice: tuple[str, ...]) -> tuple[tuple[Throw, float], ...]:
    """Every throw of ``dice`` with its probability (the dice are told apart by colour)."""
    dice = tuple(sorted(dice, key=DICE.index))
    p = 1 / 6 ** len(dice)
    return tuple((Throw(tuple(zip(dice, values))), p) for values in product(FACES, repeat=len(dice)))
