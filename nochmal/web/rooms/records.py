"""What the rooms' store reads and answers (store.py): a room, its seats, its race marks, and
what a roll counted or a tap did. Frozen: a request works on the room as it was read."""

from __future__ import annotations

from dataclasses import dataclass

from nochmal.web.rooms.model import RoomSpec, SheetState


@dataclass(frozen=True)
class Seat:
    seat: int
    name: str
    state: SheetState
    sheet_version: int
    free: bool = False  # freed: no phone holds it; the sheet and the name wait for the next one to sit


@dataclass(frozen=True)
class RaceMark:
    """A seat completed ``item`` (a column letter or a colour name) on roll ``roll``;
    ``override`` "first" / "later" when the seat set it by hand, else None."""

    seat: int
    item: str
    roll: int
    override: str | None = None


@dataclass(frozen=True)
class RollStep:
    """What a roll counted or undone did: ``changed`` False when it was already so
    (another phone was quicker); ``counter`` the seat that counted ``roll``, if known."""

    version: int
    rolls_used: int
    roll: int
    changed: bool
    counter: int | None


@dataclass(frozen=True)
class SheetTap:
    """An edit relative to a seat's sheet (a sheet is a set of cells): cells to cross, cells to
    uncross (board masks), jokers one more or fewer."""

    cross: int = 0
    uncross: int = 0
    jokers: int = 0


@dataclass(frozen=True)
class TapDone:
    """What a tap did: ``changed`` False when the sheet already showed it; ``message`` says
    which cells were already so ("H4 was already crossed"), else empty; ``room`` the room as
    the tap left it, read in its own transaction (a tap racing it on another seat is not in it);
    ``before`` the room just before it, in the same transaction (a competitive room's, when
    the caller asked: which first values the tap changed)."""

    version: int
    sheet_version: int
    changed: bool
    message: str = ""
    room: Room | None = None
    before: Room | None = None


@dataclass(frozen=True)
class Room:
    code: str
    spec: RoomSpec
    rolls_used: int
    version: int
    created: float
    touched: float
    seats: tuple[Seat, ...]
    won_on: int | None = None  # the roll the mission was won on, kept until a seat reopens it
    last_counter: int | None = None  # the seat that counted roll ``rolls_used``, if known
    race: tuple[RaceMark, ...] = ()
    has_creator: bool = False  # False: a room made before rooms had creators (any seated phone keeps it)
    creator_seat: int | None = None  # the seat the creator's phone sat down in, if it did

    def seat(self, k: int) -> Seat | None:
        return next((s for s in self.seats if s.seat == k), None)
