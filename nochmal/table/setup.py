"""Seat specs and seeds: who sits at the table and which dice and bot choices they get."""

from __future__ import annotations

from nochmal.errors import OptionError
from nochmal.game import MAX_PLAYERS
from nochmal.i18n import say
from nochmal.seats import HUMAN, is_human, player_name



def parse_seats(specs: list[str], option: str = "--seat") -> list[str]:
    """Validate seat specs: ``human``, ``human:NAME`` or a registered bot name; a refusal names
    ``option`` (the CLI's --seat, the web's field) and is a Message (said in a page's language)."""
    if not 1 <= len(specs) <= MAX_PLAYERS:
        raise OptionError(say("%(option)s: a game has 1-%(most)s seats, got %(count)s", option=option,
                              most=MAX_PLAYERS, count=len(specs)))
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
                    raise OptionError(say("%(option)s %(spec)s: %(reason)s; give a name after 'human:', e.g. human:Anna",
                                          option=option, spec=repr(spec), reason=getattr(exc, "message", exc))) from None
            out.append(spec)
        elif spec in known:
            out.append(spec)
        else:
            raise OptionError(say("%(option)s %(spec)s: unknown bot; use human, human:NAME or one of: %(bots)s",
                                  option=option, spec=repr(spec), bots=", ".join(known)))
    return out


def bot_seed(seed: int, turn: int, player: int) -> int:
    """The seed a bot gets for one decision: a pure function, so undo and resume repeat it."""
    return (seed * 1_000_003 + turn * 101 + player) % (2 ** 63)


