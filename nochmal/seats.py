"""Seats at the table and the names people see for them: one naming scheme for every front
end (the terminal, replays, SVG titles, JSON, the web).

A seat spec, as a game record stores it in ``players``, is ``human``, ``human:NAME`` or a
bot's registry name. Seats are numbered from 1 for people (seat 1 is the first to roll);
code and the record's moves index them from 0. The name of seat ``p`` (0-based):

- ``human:Anna`` -> ``Anna``;
- ``human`` -> ``you`` when it is the only unnamed human at the table, else ``player 2``;
- a bot -> ``greedy (seat 3)``.
"""

from __future__ import annotations

from functools import lru_cache

from nochmal.errors import SeatNameError
from nochmal.i18n import Message, say

HUMAN = "human"
MAX_NAME = 40  # characters of a player's name (it heads a sheet on every page and picture)


def player_name(text: str) -> str:
    """A player's name as typed, checked: runs of white space become one space; SeatNameError
    names the problem (empty, too long, a control character). The terminal's ``human:NAME``
    seats, the web's seats and the rooms' seat names all go through here."""
    name = " ".join(text.split())
    if not name:
        raise SeatNameError(say("a name must not be empty"))
    if len(name) > MAX_NAME:
        raise SeatNameError(say("a name has at most %(most)s characters, this one %(length)s", most=MAX_NAME,
                                 length=len(name)))
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        raise SeatNameError(say("a name must not contain control characters"))
    return name


def is_human(spec: str) -> bool:
    return spec == HUMAN or spec.startswith(HUMAN + ":")


def seat_name(players: list[str], p: int, lang: str = "en") -> str:
    """The name people see for seat ``p`` (0-based) of a table of seat specs ``players``, a
    default name in ``lang`` (a player's own name is never translated)."""
    return _seat_name(tuple(players), p, lang)


@lru_cache(maxsize=4096)  # a game's log names a seat once a move: said once per table and language
def _seat_name(players: tuple[str, ...], p: int, lang: str) -> str:
    name = seat_label(players, p)
    return name.in_language(lang) if isinstance(name, Message) else name


def seat_label(players: list[str], p: int) -> Message | str:
    """Seat ``p``'s name: the player's own (a str) or a default name (a Message, said in the
    language of whoever reads it)."""
    spec = players[p]
    if spec.startswith(HUMAN + ":"):
        return spec[len(HUMAN) + 1:]
    if spec == HUMAN:
        unnamed = sum(1 for s in players if s == HUMAN)
        return say("you") if unnamed == 1 else say("player %(n)s", n=p + 1)
    return say("%(bot)s (seat %(n)s)", bot=spec, n=p + 1)
