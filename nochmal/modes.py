"""The modes a game is played in (a type, not strings compared around the code)."""

from __future__ import annotations

from enum import StrEnum


class Mode(StrEnum):
    """How a game is played. A str enum: it prints and serialises as its value ("solo"), so
    records and JSON keep their text; compare with the members, not with strings."""

    SOLO = "solo"  # docs/rules.md §5: 1 player, 2+2 dice, a fixed number of rolls, upper values
    COMPETITIVE = "competitive"  # docs/rules.md §4: the race, first/later values, two-colour end
    COOP = "coop"  # docs/missions.md: the race's dice flow, upper values, the mission's limit and stop


MODES = tuple(m.value for m in Mode)
