"""A plan as plain data: per roll the dice picked, the resolved choice and the cells (or a
pass), the score breakdown, the solver status with its proven bound, and the wall time.

A plan says nothing about how it was found; nochmal.solver.validate replays it through the
engine before anybody sees it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from nochmal.choice import Choice
from nochmal.dice import Roll
from nochmal.errors import NochmalError
from nochmal.fileio import load_json_text
from nochmal.move import COLOUR_JOKER, NUMBER_JOKER, PASS, Move

# The planners' statuses, one set for the solo plan and team planning (solver/team.py)
OPTIMAL = "optimal"  # the figure is proven best (solo: objective == bound; team: fewest rolls)
FEASIBLE = "feasible"  # a plan with a proven bound and a gap
INFEASIBLE = "infeasible"  # proven that no plan reaches the goal (team: the budget is not enough)
UNKNOWN = "unknown"  # no proof at all (e.g. interrupted before any bound)
STATUSES = (OPTIMAL, FEASIBLE, UNKNOWN)  # a solo plan always exists (pass every roll)


class PlanError(NochmalError):
    """A plan's JSON is malformed."""


@dataclass
class Step:
    """One roll of the plan. ``colour_face``/``number_face`` are the dice picked ('' = pass).

    The fields are a placed nochmal.choice.Choice written out board-independently (cells by
    name instead of the mask), so a plan file reads without its board; ``Step.of`` builds
    one from a Choice.
    """

    roll: int  # index in the instance's rolls (0-based)
    dice: str  # the roll, e.g. "yx/3?"
    colour_face: str = ""
    number_face: str = ""
    colour: str = ""
    count: int = 0
    cost: int = 0
    cells: list[str] = field(default_factory=list)
    points: int | None = None  # score change over this roll (filled in by the validator)

    @classmethod
    def of(cls, roll_index: int, roll: Roll, choice: Choice | None, board) -> "Step":
        """The step playing ``choice`` (None: pass) on roll ``roll_index``."""
        if choice is None:
            return cls(roll_index, roll.text())
        return cls(roll_index, roll.text(), choice.colour_face, choice.number_face, choice.colour,
                   choice.count, choice.cost, board.cells_of(choice.mask))

    @property
    def is_pass(self) -> bool:
        return self.count == 0

    def move(self) -> Move:
        if self.is_pass:
            return PASS
        return Move.of(self.colour, self.count, self.cells, self.colour_face == COLOUR_JOKER,
                       self.number_face == NUMBER_JOKER)

    def choice_text(self) -> str:
        return "pass" if self.is_pass else str(self.move()).split()[0]


@dataclass
class Plan:
    steps: list[Step]
    total: int  # the score the plan reaches (rescored by the validator)
    breakdown: dict  # columns, colours, jokers, stars, total
    status: str = UNKNOWN
    bound: int | None = None  # proven upper bound on the optimum (None: none proven)
    wall_time: float = 0.0
    board: str = ""
    first_roll: int = 0
    interrupted: bool = False
    note: str = ""

    @property
    def gap(self) -> int | None:
        return None if self.bound is None else self.bound - self.total

    @property
    def proven(self) -> bool:
        return self.status == OPTIMAL

    def to_json(self) -> dict:
        data = asdict(self)
        data["gap"] = self.gap
        for s, step in zip(data["steps"], self.steps):
            s["move"] = str(step.move())
        return data

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1) + "\n"

    @classmethod
    def from_json(cls, data, source: str = "<plan>") -> "Plan":
        """A plan from ``to_json``'s data. The "instance" that ``nochmal solve --json`` adds
        alongside is skipped here (read it with Instance.from_json), so that command's output
        loads as it is."""
        try:
            steps = []
            for i, s in enumerate(data["steps"], 1):
                s = dict(s)
                s.pop("move", None)
                try:
                    steps.append(Step(**s))
                except TypeError as exc:
                    raise PlanError(f"{source}: step {i}: {exc}") from None
            d = dict(data)
            d.pop("gap", None)
            d.pop("instance", None)
            d["steps"] = steps
            plan = cls(**d)
        except PlanError:
            raise
        except (KeyError, TypeError) as exc:
            raise PlanError(f"{source}: not a plan ({exc})") from None
        if plan.status not in STATUSES:
            raise PlanError(f"{source}: unknown status {plan.status!r}")
        return plan

    @classmethod
    def loads(cls, text: str, source: str = "<plan>") -> "Plan":
        return cls.from_json(load_json_text(text, lambda reason: PlanError(f"{source}: {reason}")), source)
