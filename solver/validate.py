"""The plan validator: knows nothing of how a plan was found.

It replays the plan through the engine's own ``Game`` (solo mode, the instance's rolls, the
instance's start sheet) with ``Game.apply_move``, so every legality question is the
engine's, then rescores the final sheet. Any disagreement with what the plan claims raises
PlanValidationError: a wrong plan is never returned silently. A seat's plan in a competitive
record (solver/race.py) is replayed the same way, against the others' recorded moves
(replay_race).
"""

from __future__ import annotations

from dataclasses import replace

from nochmal.errors import IllegalPositionError, NochmalError
from nochmal.game import Game, Mode
from nochmal.move import PASS
from nochmal.position import Position
from nochmal.record import GameRecord

from nochmal.solver.instance import Instance
from nochmal.solver.plan import OPTIMAL, Plan, Step


class PlanValidationError(NochmalError):
    """A plan is illegal under the engine's rules or claims a score it does not reach."""


def play_step(game: Game, step: Step, where: str) -> None:
    """The step's move played by the engine for the player to move; PlanValidationError names
    the roll when the move is illegal or the step's joker cost is not the move's."""
    try:
        game.apply_move(step.move())
    except NochmalError as exc:
        raise PlanValidationError(f"{where}: illegal move '{step.move()}': {exc}") from None
    if not step.is_pass and step.cost != step.move().joker_cost:
        raise PlanValidationError(f"{where}: joker cost {step.cost} but the move uses "
                                  f"{step.move().joker_cost} joker(s)")


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
        play_step(game, step, where)
        step.points = game.sheets[0].score() - before
    if not game.is_terminal():
        raise PlanValidationError("the game is not over after the plan's last step")
    return game


def validate(instance: Instance, plan: Plan) -> Plan:
    """Replay and rescore; raise PlanValidationError on any mismatch, else return the plan."""
    game = replay(instance, plan)
    return _check_result(plan, game.sheets[0].score_breakdown().to_dict())


def _check_result(plan: Plan, breakdown: dict) -> Plan:
    """The plan's claimed score, breakdown and bound against the engine's breakdown."""
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
# --- competitive records: one seat's plan against the others' recorded moves -------------------
def record_sheets_before(record: GameRecord, source: str = "record") -> list[tuple]:
    """Every player's sheet at the start of each recorded roll (the record replayed and
    checked by the engine), plus the sheets after the last roll."""
    game = record.new_game()
    out = [tuple(game.sheets)]
    for _, game in record.replay(source):
        out.append(tuple(game.sheets))
    return out


def replay_race(record: GameRecord, seat: int, plan: Plan, source: str = "record") -> tuple[Game, int]:
    """Play one seat's plan (steps for the record's rolls from roll ``plan.first_roll``,
    counted from 1, on; each step's ``roll`` is its number in the game) against the other players' recorded moves through the engine's competitive Game.

    Each roll is set up with Game.from_position: the others' sheets as recorded at its
    start, the seat's sheet as the plan has made it, the claims being what those sheets
    have scored (docs/rules.md §4: a column or colour someone completed in an earlier
    roll). The engine then plays the roll in turn order: the active player's recorded move
    (or the seat's, when it is the active one) decides the dice the passive players may
    take, the seat's step must be legal with what the engine leaves it. When the seat is
    the active player, the others pass in this replay: their recorded picks came from the
    recorded active pick, and their crosses enter at the next roll's set-up from the
    record. The game ends where the engine says so (the seat completing a second colour,
    or the record's last roll); every step after that must be a pass. Fills each step's
    ``points``; returns (the game after the seat's last played roll, rolls played)."""
    rolls = record.rolls
    first = plan.first_roll - 1  # rolls before the plan's first
    if first < 0 or first + len(plan.steps) != len(rolls):
        raise PlanValidationError(f"the plan has {len(plan.steps)} step(s) from roll {plan.first_roll}; the record "
                                  f"has {len(rolls)} roll(s)")
    sheets_before = record_sheets_before(record, source)
    mine = sheets_before[first][seat]
    game, played = None, 0
    for i, step in enumerate(plan.steps):
        t = first + i
        roll, moves = rolls[t]
        where = f"roll {t + 1}"
        if step.roll != t + 1 or step.dice != roll.text():
            raise PlanValidationError(f"{where}: the plan's step is for roll {step.roll} dice {step.dice}, "
                                      f"the record has {roll.text()}")
        sheets = list(sheets_before[t])
        sheets[seat] = mine
        try:
            game = Game.from_position(Position(Mode.COMPETITIVE, tuple(sheets), t, record.roll_limit), record.rules)
        except IllegalPositionError as exc:
            raise PlanValidationError(f"{where}: {exc}") from None
        if game.is_terminal():
            if not step.is_pass:
                raise PlanValidationError(f"{where}: the game is over after roll {t}, the plan still crosses")
            step.points = 0
            continue
        before = mine.score()
        game.apply_roll(roll)
        seat_active = game.current_player() == seat
        for player, move in moves:
            if player == seat:
                play_step(game, step, where)
            else:
                game.apply_move(PASS if seat_active else move)
        mine = game.sheets[seat]
        step.points = mine.score() - before
        played += 1
    return game, played


def validate_race(record: GameRecord, seat: int, plan: Plan, source: str = "record") -> Plan:
    """Replay one seat's plan against the others' recorded moves (replay_race) and rescore
    the seat's sheet; PlanValidationError on any mismatch, else the plan."""
    game, _ = replay_race(record, seat, plan, source)
    return _check_result(plan, game.sheets[seat].score_breakdown().to_dict())
