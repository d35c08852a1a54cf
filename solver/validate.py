"""The plan validator: knows nothing of how a plan was found.

It replays the plan through the engine's own ``Game`` (solo mode, the instance's rolls, the
instance's start sheet) with ``Game.apply_move``, so every legality question is the
engine's, then rescores the final sheet. Any disagreement with what the plan claims raises
PlanValidationError: a wrong plan is never returned silently.
"""

from __future__ import annotations

from dataclasses import replace

from nochmal.errors import IllegalPositionError, NochmalError
from nochmal.game import Game, Mode
from nochmal.position import Position
from nochmal.record import GameRecord

from nochmal.solver.instance import Instance
from nochmal.solver.plan import OPTIMAL, Plan


class PlanValidationError(NochmalError):
    """A plan is illegal under the engine's rules or claims a score it does not reach."""


def new_game(instance: Instance) -> Game:
    """A solo game at the instance's start: its start sheet, exactly its rolls to come."""
    start = Position(Mode.SOLO, (instance.start_sheet(),), 0, len(instance.rolls))
    try:
        return Game.from_position(start, instance.rules)
    except IllegalPositionError as exc:
        raise PlanValidationError(f"the instance's start sheet: {exc}") from None


def replay(instance: Instance, plan: Plan) -> Game:
    """Play the plan's moves through the engine; fills each step's ``points`` (score change)."""
    if len(plan.steps) != len(instance.rolls):
        raise PlanValidationError(
            f"the plan has {len(plan.steps)} step(s) for {len(instance.rolls)} roll(s)")
    game = new_game(instance)
    for t, (step, roll) in enumerate(zip(plan.steps, instance.rolls)):
        number = instance.first_roll + t
        where = f"roll {number}"
        if step.roll != number or step.dice != roll.text():
            raise PlanValidationError(f"{where}: the plan's step is for roll {step.roll} "
                                      f"dice {step.dice}, the instance has {roll.text()}")
        if game.is_terminal():
            raise PlanValidationError(f"{where}: the game is already over")
        before = game.sheets[0].score()
        game.apply_roll(roll)
        try:
            game.apply_move(step.move())
        except NochmalError as exc:
            raise PlanValidationError(f"{where}: illegal move '{step.move()}': {exc}") from None
        if not step.is_pass and step.cost != step.move().joker_cost:
            raise PlanValidationError(f"{where}: joker cost {step.cost} but the move uses "
                                      f"{step.move().joker_cost} joker(s)")
        step.points = game.sheets[0].score() - before
    if not game.is_terminal():
        raise PlanValidationError("the game is not over after the plan's last step")
    return game


def validate(instance: Instance, plan: Plan) -> Plan:
    """Replay and rescore; raise PlanValidationError on any mismatch, else return the plan."""
    game = replay(instance, plan)
    sheet = game.sheets[0]
    breakdown = sheet.score_breakdown().to_dict()
    if plan.total != breakdown["total"]:
        raise PlanValidationError(f"the plan claims {plan.total} points, the engine scores {breakdown['total']}")
    if plan.breakdown != breakdown:
        raise PlanValidationError(f"the plan's breakdown {plan.breakdown} differs from the engine's {breakdown}")
    if plan.bound is not None and plan.bound < plan.total:
        raise PlanValidationError(f"the plan's bound {plan.bound} is below its score {plan.total}")
    if plan.status == OPTIMAL and plan.bound != plan.total:
        raise PlanValidationError(f"the plan is marked optimal but its bound is {plan.bound}, score {plan.total}")
    return plan


def plan_record(instance: Instance, plan: Plan, player: str = "planner") -> GameRecord:
    """A validated plan from an empty sheet and roll 1 as a solo game record
    (nochmal/record.py) of exactly the instance's rolls, so ``nochmal replay --verify`` and
    the web replay read it like any played game. PlanValidationError for a mid-game plan
    (its record would need the moves before it)."""
    start = instance.start_sheet()
    if instance.first_roll != 1 or start.crossed or start.jokers_used:
        raise PlanValidationError("only a plan from an empty sheet and roll 1 is a whole game")
    game = Game(instance.board, 1, replace(instance.rules, solo_rolls=len(instance.rolls)), Mode.SOLO)
    for step, roll in zip(plan.steps, instance.rolls):
        game.apply_roll(roll)
        game.apply_move(step.move())
    if not game.is_terminal() or game.sheets[0].score() != plan.total:
        raise PlanValidationError("the plan does not replay to a finished game of its total")
    return GameRecord.from_game(game, [player], instance.seed)
