"""An online room's set-up as plain data and its checks (docs/rooms.md, online games): what
it plays, who sits where (a person or a registered bot), what happens to a quiet seat; and
the seed's commitment. A refusal is one reason naming the field (model.py's way)."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import asdict, dataclass

from nochmal.i18n import say
from nochmal.board import BUILTIN_BOARDS
from nochmal.game import MAX_COOP_PLAYERS, MAX_PLAYERS
from nochmal.missions.model import DIFFICULTIES
from nochmal.rules import MAX_SEED
from nochmal.seats import HUMAN
from nochmal.web.errors import WebError
from nochmal.web.rooms.model import RoomMode, shipped_mission, shipped_mission_ids


@dataclass(frozen=True)
class Quiet:
    """``after`` wait / pass / bot, ``seconds`` a seat may stay quiet, the ``bot`` taking over."""

    after: str = "wait"
    seconds: float = 60.0
    bot: str = "heuristic"


@dataclass(frozen=True)
class OnlineSetup:
    mode: RoomMode
    board: str
    seats: tuple[str, ...]  # "human" or a bot's registry name, in turn order
    mission: str | None = None
    difficulty: str | None = None
    quiet: Quiet = Quiet()

    def __post_init__(self):
        object.__setattr__(self, "mode", RoomMode(self.mode))
        object.__setattr__(self, "seats", tuple(self.seats))
        if isinstance(self.quiet, dict):
            object.__setattr__(self, "quiet", Quiet(**self.quiet))

    def to_dict(self) -> dict:
        return {"mode": str(self.mode), "board": self.board, "seats": list(self.seats), "mission": self.mission,
                "difficulty": self.difficulty, "quiet": asdict(self.quiet)}

    def humans(self) -> list[int]:
        return [k for k, spec in enumerate(self.seats) if spec == HUMAN]

    def extra(self) -> dict:
        """The record's ``extra`` (a mission's id and difficulty, as nochmal play saves it)."""
        return {"mission": self.mission, "difficulty": self.difficulty} if self.mission else {}


def parse_setup(body: dict) -> OnlineSetup:
    """A checked OnlineBody (online_bodies.py) as a set-up: shipped missions, registered bots."""
    from nochmal.bots.registry import agent_names  # the bots load numpy: imported on use

    bots = agent_names()
    seats = body["seats"]
    for k, spec in enumerate(seats):
        if spec != HUMAN and spec not in bots:
            raise WebError(say("seats.%(k)s: %(spec)s is neither human nor a bot (%(bots)s)", k=k, spec=repr(spec[:20]),
                               bots=tuple(bots)), f"seats.{k}", 422)
    quiet = Quiet(**(body.get("quiet") or {}))
    if quiet.bot not in bots:
        raise WebError(say("quiet.bot: %(spec)s is not a bot (%(bots)s)", spec=repr(quiet.bot[:20]), bots=tuple(bots)),
                       "quiet.bot", 422)
    mode = body.get("mode") or (RoomMode.MISSION if body.get("mission") else RoomMode.COMPETITIVE)
    if mode == RoomMode.MISSION:
        ids = shipped_mission_ids()
        if body.get("mission") not in ids:
            raise WebError(say("mission must be one of %(missions)s", missions=tuple(ids)), "mission", 422)
        if not 1 <= len(seats) <= MAX_COOP_PLAYERS:
            raise WebError(say("a mission has 1-%(most)s seats, not %(count)s", most=MAX_COOP_PLAYERS, count=len(seats)),
                           "seats", 422)
        mission = shipped_mission(body["mission"])
        if (body.get("board") or mission.board) != mission.board:
            raise WebError(say("mission %(mission)s is played on the %(board)s board", mission=mission.id,
                               board=mission.board), "board", 422)
        difficulty = body.get("difficulty") or "normal"
        if difficulty not in DIFFICULTIES:
            raise WebError(say("difficulty must be one of %(difficulties)s", difficulties=tuple(DIFFICULTIES)),
                           "difficulty", 422)
        return OnlineSetup(RoomMode.MISSION, mission.board, tuple(seats), mission.id, difficulty, quiet)
    for key in ("mission", "difficulty"):
        if body.get(key) is not None:
            raise WebError(say("%(key)s belongs to a mission, not a competitive game", key=key), key, 422)
    board = body.get("board") or "classic"
    if board not in BUILTIN_BOARDS:
        raise WebError(say("board must be one of %(boards)s", boards=BUILTIN_BOARDS), "board", 422)
    if not 1 <= len(seats) <= MAX_PLAYERS:
        raise WebError(say("a game has 1-%(most)s seats, not %(count)s", most=MAX_PLAYERS, count=len(seats)), "seats", 422)
    return OnlineSetup(RoomMode.COMPETITIVE, board, tuple(seats), quiet=quiet)


def new_seed() -> int:
    """The room's seed, drawn from the OS's secure source (never from the clock)."""
    return secrets.randbelow(MAX_SEED + 1)


def commitment(seed: int) -> str:
    """What every phone sees before the end: SHA-256 of the seed's decimal text
    (``echo -n SEED | sha256sum``); 62 bits of seed are far too many to search back."""
    return hashlib.sha256(str(seed).encode()).hexdigest()
