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
INFEASIBLE = "infeasible"  # proven that no plan reaches the target (team: the budget is not enough)
UNKNOWN = "unknown"  # no proof at all (e.g. interrupted before any bound)
STATUSES = (OPTIMAL, FEASIBLE, UNKNOWN)  # a solo plan always exists (pass every roll)


class PlanError(NochmalError):
    """A plan's JSON is malformed."""


# field -> (accepted types, required): what Plan.from_json accepts (bool is not an int here)
_STEP_FIELDS = {"roll": ((int,), True), "dice": ((str,), True), "colour_face": ((str,), False),
                "number_face": ((str,), False), "colour": ((str,), False), "count": ((int,), False),
                "cost": ((int,), False), "cells": ((list,), False), "points": ((int, type(None)), False)}
_PLAN_FIELDS = {"total": ((int,), True), "breakdown": ((dict,), True), "status": ((str,), False),
                "bound": ((int, type(None)), False), "wall_time": ((int, float), False), "board": ((str,), False),
                "first_roll": ((int,), False), "interrupted": ((bool,), False), "note": ((str,), False)}


def _check_fields(data: dict, fields: dict, where: str) -> None:
    """Raise PlanError naming the first unknown, missing or mistyped field of ``data``."""
    for key, value in data.items():
        if key not in fields:
            raise PlanError(f"{where}: unknown key {key!r}")
        kinds, _ = fields[key]
        if not isinstance(value, kinds) or isinstance(value, bool) and bool not in kinds:
            raise PlanError(f"{where}: key {key!r} must be {' or '.join(k.__name__ for k in kinds)}, "
                            f"got {type(value).__name__}")
        if key == "cells" and not all(isinstance(c, str) for c in value):
            raise PlanError(f"{where}: key 'cells' must be a list of cell names")
    for key, (_, required) in fields.items():
        if required and key not in data:
            raise PlanError(f"{where}: key {key!r} is missing")


@dataclass
class Step:
    """One roll of the plan. ``colour_face``/``number_face`` are the dice picked ('' = pass).

    The fields are a placed nochmal.choice.Choice written out board-independently (cells by
    name instead of the mask), so a plan file reads without its board; ``Step.of`` builds
    one from a Choice.
    """

    roll: int  # the roll's number in the whole game, counted from 1 (as people count)
    dice: str  # the roll, e.g. "yx/3?"
    colour_face: str = ""
    number_face: str = ""
    colour: str = ""
    count: int = 0
    cost: int = 0
    cells: list[str] = field(default_factory=list)
    points: int | None = None  # score change over this roll (filled in by the validator)

    @classmethod
    def of(cls, number: int, roll: Roll, choice: Choice | None, board) -> "Step":
        """The step playing ``choice`` (None: pass) on roll ``number`` (counted from 1)."""
        if choice is None:
            return cls(number, roll.text())
        return cls(number, roll.text(), choice.colour_face, choice.number_face, choice.colour,
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
    first_roll: int = 1  # the number (from 1) of the first step's roll in the whole game
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
        loads as it is. Every field is type-checked: a bad one is named in one line."""
        if not isinstance(data, dict):
            raise PlanError(f"{source}: not a plan (expected a JSON object)")
        raw_steps = data.get("steps")
        if not isinstance(raw_steps, list):
            raise PlanError(f"{source}: key 'steps' must be a list of steps")
        steps = []
        for i, s in enumerate(raw_steps, 1):
            if not isinstance(s, dict):
                raise PlanError(f"{source}: step {i}: expected an object")
            s = {k: v for k, v in s.items() if k != "move"}
            _check_fields(s, _STEP_FIELDS, f"{source}: step {i}")
            steps.append(Step(**s))
        d = {k: v for k, v in data.items() if k not in ("gap", "instance", "steps")}
        _check_fields(d, _PLAN_FIELDS, source)
        plan = cls(steps, **d)
        if plan.status not in STATUSES:
            raise PlanError(f"{source}: unknown status {plan.status!r}")
        if plan.first_roll < 1:
            raise PlanError(f"{source}: 'first_roll' must be a roll number counted from 1, got {plan.first_roll}")
        for i, step in enumerate(plan.steps, 1):
            if step.roll != plan.first_roll + i - 1:
                raise PlanError(f"{source}: step {i}: 'roll' is {step.roll}, expected {plan.first_roll + i - 1} "
                                f"(rolls are counted from 1; the steps follow 'first_roll' {plan.first_roll})")
        return plan

    @classmethod
    def loads(cls, text: str, source: str = "<plan>") -> "Plan":
        return cls.from_json(load_json_text(text, lambda reason: PlanError(f"{source}: {reason}")), source)
