"""The roll in play and its active player, and the rolls counted in words (docs/rooms.md,
the rolls).

The active player rolls, in seat order from seat 1 (rules.md §4, nochmal.game.Game's
``active_player``): roll N is rolled by seat (N - 1) mod the room's seats. Every phone shows
the roll in play and its active player; a roll is counted by its number, so a second "roll
5 done" changes nothing and says who counted it (store.RoomStore.step_roll).
"""

from __future__ import annotations

from nochmal.i18n import Message, say
from nochmal.web.rooms.model import RoomMode, shipped_mission
from nochmal.web.rooms.race import game_end
from nochmal.web.rooms.status import seat_label
from nochmal.web.rooms.store import Room, RollStep
from nochmal.web.rooms.words import SeatLabel, wire


def seat_name(room: Room, k: int | None) -> str | None:
    """A seat's name as people see it (status.seat_label); None for no seat (a roll counted
    before the room knew who counted it)."""
    return None if k is None else seat_label(room, k)


def budget_of(room: Room) -> int | None:
    """A mission's roll budget; None in a competitive room (the game ends on a second colour)."""
    if room.spec.mode is not RoomMode.MISSION:
        return None
    return shipped_mission(room.spec.mission).budget(room.spec.players, room.spec.difficulty)


def last_roll(room: Room) -> int | None:
    """The game's last roll: a mission's budget; in a competitive room the roll on which a
    seat completed a second colour (race.game_end), None before."""
    budget = budget_of(room)
    if budget is not None:
        return budget
    end = game_end(room.race)
    return end.roll if end is not None else None


def in_play_document(room: Room) -> dict:
    """The roll in play (None once the last roll is counted) and its active player, and the
    last counted roll with who counted it."""
    budget = last_roll(room)
    playing = room.rolls_used + 1
    active = room.rolls_used % room.spec.players
    last = ({"roll": room.rolls_used, "counted_by": seat_name(room, room.last_counter)}
            if room.rolls_used else None)
    return {"roll": None if budget is not None and playing > budget else playing,
            "seat": active, "name": seat_name(room, active), "last": last, **free_label(seat_name(room, active))}


def free_label(name: str) -> dict:
    """A free seat's label as data beside its English (words.py); nothing for a player's name."""
    return {"name_said": wire(name)} if isinstance(name, SeatLabel) else {}


def roll_message(room: Room, step: RollStep, undo: bool) -> Message:
    """What a roll counted or taken back did, in words with the seats' names (a Message:
    every phone says it in its language, words.py)."""
    who = seat_name(room, step.counter)
    if undo:
        if not step.changed:
            return say("Roll %(roll)s is not counted (already taken back)", roll=step.roll)
        if who:
            return say("Undid roll %(roll)s (counted by %(name)s)", roll=step.roll, name=who)
        return say("Undid roll %(roll)s", roll=step.roll)
    if not step.changed:
        if who:
            return say("%(name)s already counted roll %(roll)s", name=who, roll=step.roll)
        return say("Roll %(roll)s was already counted", roll=step.roll)
    return say("%(name)s counted roll %(roll)s", name=who, roll=step.roll)
