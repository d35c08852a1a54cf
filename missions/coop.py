"""Team play: a mission as an engine co-op Game, its result, its progress, its records.

The engine's Game already knows the co-op dice flow (competitive flow, upper values for
everyone, solo dice for one player); a mission only adds the roll budget and the stop
condition "all objectives hold". A won game therefore ends on the roll that completed the
mission; a lost one when the budget is spent.
"""

from __future__ import annotations

from pathlib import Path

from dataclasses import dataclass, field
from typing import Callable, Sequence

from nochmal.board import load_board
from nochmal.errors import NochmalError, OptionError, quoted
from nochmal.game import Game, Mode
from nochmal.i18n import Message, said, say, say_n
from nochmal.missions.loader import load_mission
from nochmal.missions.model import (DIFFICULTIES, IN_PROGRESS, LOST, WON, Mission, MissionError, block_slots,
                                    target_mask)
from nochmal.missions.objectives import ObjectiveStatus, all_met, evaluate
from nochmal.placements import MAX_COUNT
from nochmal.play import play_game
from nochmal.record import GameRecord
from nochmal.rules import DEFAULT_RULES, RuleSettings
from nochmal.sheet import Sheet
from nochmal.impossible import impossible_sheet_reasons

__all__ = ["load_mission", "coop_game", "mission_result", "mission_status", "MissionResult", "MissionStatus",
           "play_mission", "mission_record", "mission_outcome_line", "record_game", "record_mission",
           "MissionResolver"]

# How a record's mission reference (``extra.mission_file`` or ``extra.mission``) becomes a
# Mission: ``load_mission`` (a shipped id or any file) at the command line, where the user
# names the record; the web app passes one that knows the shipped ids only, so that nothing
# in a request is used as a file path (docs/web.md, docs/security.md).
MissionResolver = Callable[[str], Mission]


def _check_setup(mission: Mission, difficulty: str, players: int) -> int:
    if difficulty not in DIFFICULTIES:
        raise MissionError(mission.path or mission.id, [f"difficulty {difficulty!r} is not one of {', '.join(DIFFICULTIES)}"])
    if not 1 <= players <= 4:
        raise MissionError(mission.path or mission.id, [f"a co-op mission has 1-4 players, not {players}"])
    return mission.budget(players, difficulty)


def coop_game(mission: Mission, difficulty: str, players: int, rules: RuleSettings = DEFAULT_RULES) -> Game:
    """A fresh co-op Game for the mission: its budget as the roll limit, stopping when won."""
    budget = _check_setup(mission, difficulty, players)
    objectives = mission.objectives

    def won(game: Game) -> bool:
        return all_met(objectives, game.sheets)

    return Game(load_board(mission.board), players, rules, mode=Mode.COOP, roll_limit=budget, stop_after_roll=won)


@dataclass
class MissionResult:
    """Won on roll ``won_on`` / lost (``missing`` says what was not done) / still running."""

    mission: str
    players: int
    budget: int
    rolls_used: int
    finished: bool
    won: bool
    won_on: int | None
    missing: list[str]
    objectives: list[ObjectiveStatus]
    name: str = ""  # the mission's name, what people read (``mission`` is its id)

    @property
    def state(self) -> str:
        return WON if self.won else LOST if self.finished else IN_PROGRESS

    def text(self) -> str:
        """The verdict in words, the mission by its name ("Star hunt: won on roll 12 of 25")."""
        who = self.name or self.mission
        if self.won:
            return f"{who}: {WON} on roll {self.won_on} of {self.budget}"
        if self.finished:
            return f"{who}: {LOST} after {self.rolls_used} rolls; missing: " + "; ".join(self.missing)
        return f"{who}: {IN_PROGRESS}, roll {self.rolls_used} of {self.budget}"

    def missing_in(self, lang: str) -> list[str]:
        """``missing`` in ``lang``: each objective not met in words, then what it lacks."""
        return [f"{said(s.objective.description(self.players), lang)}: {', '.join(said(m, lang) for m in s.said_missing)}"
                for s in self.objectives if not s.met]

    def to_dict(self, lang: str = "en") -> dict:
        """As JSON; what a player reads (objectives, missing lines) in ``lang``."""
        return {"mission": self.mission, "players": self.players, "budget": self.budget,
                "rolls_used": self.rolls_used, "finished": self.finished, "won": self.won, "won_on": self.won_on,
                "missing": self.missing if lang == "en" else self.missing_in(lang),
                "objectives": [o.to_dict(self.players, lang) for o in self.objectives]}


def mission_result(mission: Mission, game: Game) -> MissionResult:
    """Won on roll k / lost with what was missing / in progress, from the game's sheets."""
    statuses = [evaluate(o, game.sheets, with_crosses=False) for o in mission.objectives]
    met = all(s.met for s in statuses)
    # the stop condition is checked after every roll, so a met mission ended on this roll
    won = met and game.roll is None and game.rolls_done > 0
    finished = game.is_terminal()
    missing = [f"{s.objective.describe(game.n_players)}: {', '.join(s.missing)}" for s in statuses if not s.met]
    budget = game.roll_limit if game.roll_limit is not None else 0
    return MissionResult(mission.id, game.n_players, budget, game.rolls_done, finished or won, won,
                         game.rolls_done if won else None, missing, statuses, mission.name)


@dataclass
class MissionStatus:
    """Progress of a team at the table (``nochmal mission status``)."""

    mission: Mission
    difficulty: str
    players: int
    budget: int
    rolls_used: int
    objectives: list[ObjectiveStatus]
    impossible: list[list[str]]  # per sheet: reasons no legal game gives it
    lost_reasons: list[str] = field(default_factory=list)  # why the mission can no longer be won
    lost_said: list[Message] = field(default_factory=list)  # the same reasons, to be said in a language

    @property
    def rolls_left(self) -> int:
        return max(0, self.budget - self.rolls_used)

    @property
    def met(self) -> bool:
        """Every objective holds on sheets a game can produce (never true of no objectives)."""
        return not any(self.impossible) and bool(self.objectives) and all(o.met for o in self.objectives)

    @property
    def state(self) -> str | None:
        """WON / LOST / IN_PROGRESS; None while a sheet is impossible (nothing was evaluated)."""
        if any(self.impossible):
            return None
        if self.met and self.rolls_used <= self.budget:
            return WON
        return LOST if self.lost_reasons else IN_PROGRESS

    def to_dict(self) -> dict:
        return {"mission": self.mission.id, "name": self.mission.name, "source": self.mission.source,
                "difficulty": self.difficulty, "players": self.players, "budget": self.budget,
                "rolls_used": self.rolls_used, "rolls_left": self.rolls_left, "all_met": self.met,
                "state": self.state, "lost_reasons": self.lost_reasons,
                "objectives": [o.to_dict(self.players) for o in self.objectives]}


def mission_status(mission: Mission, difficulty: str, sheets: Sequence[Sheet], rolls_used: int,
                   with_crosses: bool = True, rolls_crossed: int | None = None) -> MissionStatus:
    """Evaluate every objective on the players' sheets; impossible sheets are listed, not scored.

    ``rolls_crossed``: the rolls the sheets may hold crosses of (default ``rolls_used``); a
    table crossing the roll being played before counting it passes one more (docs/rooms.md,
    the roll in play)."""
    budget = _check_setup(mission, difficulty, len(sheets))
    if rolls_used < 0:
        raise OptionError(f"rolls used must not be negative, got {rolls_used}")
    rolls_crossed = rolls_used if rolls_crossed is None else rolls_crossed
    impossible = [impossible_sheet_reasons(s, rolls_crossed) for s in sheets]
    if any(impossible):
        return MissionStatus(mission, difficulty, len(sheets), budget, rolls_used, [], impossible)
    statuses = [evaluate(o, list(sheets), with_crosses) for o in mission.objectives]
    won = all(s.met for s in statuses) and rolls_used <= budget
    lost = [] if won else lost_reasons(statuses, budget, rolls_used, list(sheets))
    return MissionStatus(mission, difficulty, len(sheets), budget, rolls_used, statuses, impossible,
                         [str(m) for m in lost], lost)


def lost_reasons(statuses: list[ObjectiveStatus], budget: int, rolls_used: int, sheets: list[Sheet]) -> list[Message]:
    """Why objectives not yet met can no longer be met (empty: the mission can still be won).

    The budget is spent; a jokers_left target is missed (jokers never come back); or a sheet
    needs more crosses than it can make in the rolls left (at most MAX_COUNT = 5 per roll,
    docs/rules.md §3), or its missing cells lie in more blocks than rolls left (one block per
    roll: missions.model.block_slots), where that sheet must do it (``each``) or where every
    sheet would have to (``any``). A ``team`` objective may be split over the sheets, so its
    per-sheet figures prove nothing. Each reason is a Message (``str()`` its English line), so a
    room's phones read it in their languages (docs/web.md "Languages").
    """
    players = len(sheets)
    rolls_left = max(0, budget - rolls_used)
    if rolls_left == 0:
        return [say("the budget of %(budget)s rolls is spent", budget=budget)]
    reasons = []
    most = MAX_COUNT * rolls_left
    for status in statuses:
        if status.met:
            continue
        what = status.objective.description(players)
        if status.objective.kind == "jokers_left":
            reasons.append(say("%(what)s: jokers never come back (%(missing)s)", what=what,
                               missing=tuple(status.said_missing)))
            continue
        short = [(p, est.lower) for p, est in enumerate(status.crosses) if est is not None and est.lower > most]
        scope = status.objective.scope
        if short and (scope == "each" or scope == "any" and len(short) == len(status.crosses)):
            needs = tuple(say("sheet %(sheet)s needs at least %(n)s", sheet=p + 1, n=n) for p, n in short)
            reasons.append(say_n("%(what)s: %(needs)s more crosses, but %(n)s roll left allows at most %(per)s x %(n)s = %(most)s",
                                 "%(what)s: %(needs)s more crosses, but %(n)s rolls left allow at most %(per)s x %(n)s = %(most)s",
                                 rolls_left, what=what, needs=needs, per=MAX_COUNT, most=most))
            continue
        target = target_mask(status.objective, sheets[0].board) if scope in ("each", "any") else None
        if target is None:
            continue
        slow = [(p, block_slots(s.board, target & ~s.crossed)) for p, s in enumerate(sheets)]
        slow = [(p, r) for p, r in slow if r > rolls_left]
        if slow and (scope == "each" or len(slow) == len(sheets)):
            needs = tuple(say("sheet %(sheet)s needs at least %(n)s", sheet=p + 1, n=r) for p, r in slow)
            reasons.append(say_n("%(what)s: %(needs)s more rolls (its missing cells lie in blocks of which each roll "
                                 "crosses at most %(per)s cells of one), but %(n)s roll is left",
                                 "%(what)s: %(needs)s more rolls (its missing cells lie in blocks of which each roll "
                                 "crosses at most %(per)s cells of one), but %(n)s rolls are left",
                                 rolls_left, what=what, needs=needs, per=MAX_COUNT))
    return reasons


# --- bots and records --------------------------------------------------------------------
def record_mission(record: GameRecord, missions: MissionResolver = load_mission) -> Mission:
    """The mission a co-op record names, by ``missions`` (``extra.mission_file``, else ``extra.mission``)."""
    key = "mission_file" if record.extra.get("mission_file") else "mission"
    if key not in record.extra:
        raise NochmalError(f"co-op record: key 'extra.{key}' is missing")
    ref = record.extra[key]
    if not isinstance(ref, str):
        raise NochmalError(f"co-op record: key 'extra.{key}' must be a mission id, got {quoted(ref)}")
    return missions(ref)


def record_game(record: GameRecord, missions: MissionResolver = load_mission) -> Game:
    """The fresh game a co-op mission record replays into (``extra``: mission, difficulty;
    the mission found by ``missions``).

    The budget stored in the record is used, so a record stays valid after recalibration.
    """
    mission = record_mission(record, missions)
    if "difficulty" not in record.extra:
        raise NochmalError("co-op record: key 'extra.difficulty' is missing")
    game = coop_game(mission, record.extra["difficulty"], len(record.players), record.rules)
    if record.roll_limit is not None:
        game.roll_limit = record.roll_limit
    return game


def mission_record(mission: Mission, difficulty: str, game: Game, players: list[str], seed: int | None) -> GameRecord:
    """The game as a record with the mission in ``extra`` (GameRecord replays it)."""
    extra = {"mission": mission.id, "difficulty": difficulty}
    if mission.path and not _is_builtin(mission):
        extra["mission_file"] = str(Path(mission.path).resolve())  # replayable from any folder
    return GameRecord.from_game(game, players, seed, extra)


def _is_builtin(mission: Mission) -> bool:
    from nochmal.missions.loader import builtin_mission_files

    return any(str(p) == mission.path for p in builtin_mission_files())


def play_mission(mission: Mission, difficulty: str, agents: Sequence, seed: int,
                 rules: RuleSettings = DEFAULT_RULES) -> tuple[Game, MissionResult]:
    """A seeded co-op game played by bots (one agent per player)."""
    game = coop_game(mission, difficulty, len(agents), rules)
    play_game(game, list(agents), seed)
    return game, mission_result(mission, game)


def mission_outcome_line(record: GameRecord, game: Game, missions: MissionResolver = load_mission,
                         lang: str = "en") -> str | None:
    """The verdict line a picture of a co-op record shows (None for other records), the
    mission found by ``missions``: ``mission star-hunt (easy): WON on roll 17 of 30``, in ``lang``."""
    ref = record.extra.get("mission") if record.mode is Mode.COOP else None
    if not ref:
        return None
    difficulty = record.extra.get("difficulty", "")
    try:
        result = mission_result(record_mission(record, missions), game)
    except NochmalError as exc:  # a picture still draws when the mission file is gone
        verdict = say("outcome unknown (%(reason)s)", reason=exc.message)
    else:
        if result.won:
            verdict = say("WON on roll %(roll)s of %(budget)s", roll=result.won_on, budget=result.budget)
        elif result.finished:
            verdict = say("LOST after %(rolls)s of %(budget)s rolls", rolls=result.rolls_used, budget=result.budget)
        else:
            verdict = say("in progress, roll %(rolls)s of %(budget)s", rolls=result.rolls_used, budget=result.budget)
    level = say(difficulty) if difficulty in DIFFICULTIES else difficulty  # the words the pages use
    return said(say("mission %(mission)s (%(difficulty)s): %(verdict)s", mission=ref, difficulty=level,
                    verdict=verdict), lang)
