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

from nochmal.errors import SeatNameError

HUMAN = "human"
MAX_NAME = 40  # characters of a player's name (it heads a sheet on every page and picture)


def player_name(text: str) -> str:
    """A player's name as typed, checked: runs of white space become one space; SeatNameError
    names the problem (empty, too long, a control character). The terminal's ``human:NAME``
    seats, the web's seats and the rooms' seat names all go through here."""
    name = " ".join(text.split())
    if not name:
        raise SeatNameError("a name must not be empty")
    if len(name) > MAX_NAME:
        raise SeatNameError(f"a name has at most {MAX_NAME} characters, this one {len(name)}")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        raise SeatNameError("a name must not contain control characters")
    return name


def is_human(spec: str) -> bool:
    return spec == HUMAN or spec.startswith(HUMAN + ":")


def seat_name(players: list[str], p: int) -> str:
    """The name people see for seat ``p`` (0-based) of a table of seat specs ``players``."""
    spec = players[p]
    if spec.startswith(HUMAN + ":"):
        return spec[len(HUMAN) + 1:]
    if spec == HUMAN:
        unnamed = sum(1 for s in players if s == HUMAN)
        return "you" if unnamed == 1 else f"player {p + 1}"
    return f"{spec} (seat {p + 1})"
