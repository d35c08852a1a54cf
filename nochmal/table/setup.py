"""Seat specs and seeds: who sits at the table and which dice and bot choices they get."""

from __future__ import annotations

from nochmal.errors import OptionError
from nochmal.game import MAX_PLAYERS
from nochmal.seats import HUMAN, is_human, player_name



def parse_seats(specs: list[str]) -> list[str]:
    """Validate seat specs: ``human``, ``human:NAME`` or a registered bot name."""
    if not 1 <= len(specs) <= MAX_PLAYERS:
        raise OptionError(f"--seat: a game has 1-{MAX_PLAYERS} seats, got {len(specs)}")
    from nochmal.bots.registry import agent_names  # the bots load numpy: imported on use
    known = agent_names()
    out = []
    for spec in specs:
        spec = spec.strip()
        if is_human(spec):
            if spec.startswith(HUMAN + ":"):
                try:
                    spec = HUMAN + ":" + player_name(spec[len(HUMAN) + 1:])
                except ValueError as exc:
                    raise OptionError(f"--seat {spec!r}: {exc}; give a name after 'human:', e.g. human:Anna") from None
            out.append(spec)
        elif spec in known:
            out.append(spec)
        else:
            raise OptionError(f"--seat {spec!r}: unknown bot; use human, human:NAME or one of: {', '.join(known)}")
    return out


def bot_seed(seed: int, turn: int, player: int) -> int:
    """The seed a bot gets for one decision: a pure function, so undo and resume repeat it."""
    return (seed * 1_000_003 + turn * 101 + player) % (2 ** 63)


