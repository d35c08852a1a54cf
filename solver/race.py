"""One seat of a competitive record: the best score that player could have reached with the
other players' choices as they were, and the points each of its rolls lost against that.

The question (docs/planner.md, docs/rules.md §4): the dice and every other player's moves stay as
recorded; the seat may play any legal move with the dice open to it on each roll, which
are exactly what the engine offered it in the recorded game (``Game.available_dice`` at its
decision: all six dice in rolls 1-3 and when it is the active player, otherwise what the
active player's recorded pick left, or all six after an active pass). Column and colour
values: the first value when the seat completes it in a roll no earlier than the first
roll in which another player completed it (same roll = first value for both), the later
value after. The game ends after the record's last roll, or earlier, after the roll in
which the seat completes its second colour. (When the record ended on the seat's own second
colour, the game could have gone on had the seat not completed it; the record has no rolls
beyond its end, so the horizon stays the record's last roll.)

The model is the solo planner's (solver/cpsat.py): the same candidate enumeration
(roll_candidates on the dice open to the seat), choice variables, cell timeline, anchoring,
hint and CP-SAT run; only the scoring differs (first/later values by the others' recorded
completion rolls, scored with nochmal.sheet.score_parts) and the end rule is added. Every
plan goes through nochmal.solver.validate.validate_race, which replays it through the engine
against the others' recorded moves and knows nothing of this model.
"""

from __future__ import annotations

import time
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from typing import Callable

from ortools.sat.python import cp_model

from nochmal.bitsets import bit_list
from nochmal.board import COLOURS, Board
from nochmal.dice import Roll
from nochmal.game import Mode
from nochmal.missions.cpsolver import Deadline
from nochmal.move import Move
from nochmal.record import GameRecord
from nochmal.rules import RuleSettings
from nochmal.seats import seat_name
from nochmal.sheet import Sheet, max_score, score_parts

from nochmal.solver.analyse import RollLoss, roll_losses, settle
from nochmal.solver.cpsat import (DEFAULT_FEATURES, PlannerModel, Progress, SolverError, add_anchoring,
                                  add_cell_timeline, add_choice_vars, add_hint, all_crossed, complete_hint,
                                  roll_candidates, roll_capacity, run_model)
from nochmal.solver.experiments import add_linear_anchoring, add_reach_cuts
from nochmal.solver.instance import InstanceError
from nochmal.solver.interrupt import SigintStop
from nochmal.solver.plan import FEASIBLE, OPTIMAL, UNKNOWN, Plan, Step
from nochmal.solver.validate import replay_race, validate_race

# The solo model's defaults (solver/cpsat.py DEFAULT_FEATURES), less the parts a race makes
# invalid: pass_dominance (a cross made a roll earlier can end the game earlier). reach_cuts
# is valid, but made 60 s solves worse (benchmarks/RESULTS.md, Competitive analysis).
RACE_INVALID_FEATURES = frozenset({"pass_dominance"})
RACE_FEATURES = DEFAULT_FEATURES - RACE_INVALID_FEATURES


@dataclass
class RaceInstance:
    """One seat of a finished competitive record, after its first ``rolls_before`` rolls.

    ``open``: per roll from there, the dice the engine offered the seat. ``column_taken``
    / ``colour_taken``: per column / colour (COLOURS order) the 0-based roll in which another
    player first completed it (None: nobody else did within the record)."""

    record: GameRecord
    seat: int
    rolls_before: int  # recorded rolls before the instance's first (its plans' first_roll - 1)
    start: Sheet
    rolls: list[Roll]
    open: list[Roll]
    moves: list[Move]  # the seat's recorded moves from there on
    column_taken: list[int | None]
    colour_taken: list[int | None]
    source: str = "record"

    @property
    def board(self) -> Board:
        return self.record.board

    @property
    def rules(self) -> RuleSettings:
        return self.record.rules


def race_instance(record: GameRecord, seat: int, after_turn: int = 0, source: str = "record") -> RaceInstance:
    """The instance of seat ``seat`` (0-based) from the sheet it had after ``after_turn``
    rolls; the record is replayed (and checked) by the engine."""
    if record.mode is not Mode.COMPETITIVE:
        raise InstanceError(f"{source}: a per-seat analysis needs a competitive record, this one is "
                            f"{str(record.mode)!r}")
    n = len(record.players)
    if not 0 <= seat < n:
        raise InstanceError(f"{source}: seat {seat + 1} is not one of the record's seats 1..{n}")
    final = record.verify(source)
    if not final.is_terminal():
        raise InstanceError(f"{source}: the game is not finished")
    if not 0 <= after_turn < len(record.rolls):
        raise InstanceError(f"{source}: turn {after_turn} is outside 0..{len(record.rolls) - 1}")
    board = record.board
    game = record.new_game()
    start = None
    rolls, open_dice, moves = [], [], []
    column_taken: list[int | None] = [None] * board.cols
    colour_taken: list[int | None] = [None] * len(COLOURS)
    for t, (roll, recorded) in enumerate(record.rolls):
        if t == after_turn:
            start = game.sheets[seat]
        game.apply_roll(roll)
        for player, move in recorded:
            if player == seat and t >= after_turn:
                rolls.append(roll)
                open_dice.append(game.available_dice())  # the engine's dice flow (docs/rules.md §4)
                moves.append(move)
            game.apply_move(move)
        for p, sheet in enumerate(game.sheets):
            if p == seat:
                continue
            for taken, done in ((column_taken, sheet.cols_upper | sheet.cols_lower),
                                (colour_taken, sheet.colours_upper | sheet.colours_lower)):
                for i in bit_list(done):
                    if taken[i] is None:
                        taken[i] = t
    return RaceInstance(record, seat, after_turn, start, rolls, open_dice, moves, column_taken, colour_taken,
                        source)


# --- the model ----------------------------------------------------------------------------------
def build_race_model(inst: RaceInstance, features: frozenset = RACE_FEATURES) -> PlannerModel:
    """The solo model's parts on the seat's open dice, plus the race's end and scoring."""
    if inst.rules.bridging:
        raise SolverError("the planner does not support the 'bridging' rule option; analyse with bridging off")
    start = inst.start
    if (start.colours_upper | start.colours_lower).bit_count() >= 2:
        raise SolverError("the seat has completed two colours: the game is over")
    cands = roll_candidates(inst.board, start, inst.open, start.jokers_left, prune="reach_prune" in features)
    pm = PlannerModel(inst.board, start, cp_model.CpModel(), cands, [], {}, {}, features=features)
    add_choice_vars(pm)
    add_cell_timeline(pm)
    (add_linear_anchoring if "linear_anchor" in features else add_anchoring)(pm)  # the latter ships
    if "reach_cuts" in features:
        add_reach_cuts(pm)
    add_race_end(pm, roll_capacity(inst.open, start.jokers_left))
    add_race_objective(pm, inst)
    pm.stats["candidates"] = sum(len(c) for c in cands)
    return pm


def _cell(pm: PlannerModel, bit: int, u: int):
    """Crossed after ``u`` of the model's rolls: 1, 0 or a literal."""
    if pm.start.crossed >> bit & 1:
        return 1
    return pm.crossed_before.get((bit, u), 0) if u else 0


def add_race_end(pm: PlannerModel, caps: list[int]) -> None:
    """docs/rules.md §4: the game ends after the roll in which the seat completes its second
    colour, so no roll after it is played. Its "colour complete" literals are one-sided the
    other way from the objective's: all cells crossed forces one true (a literal true
    without them only forbids play, which no optimum wants); none before the rolls'
    capacity (``caps``: most cells per roll) can complete a second colour."""
    m = pm.model
    board, start = pm.board, pm.start
    done0 = (start.colours_upper | start.colours_lower).bit_count()
    need = sorted((board.colour_mask[c] & ~start.crossed).bit_count() for i, c in enumerate(COLOURS)
                  if not (start.colours_upper | start.colours_lower) >> i & 1)
    fewest = sum(need[:2 - done0])  # crosses before a second colour can be complete
    crossable = 0
    for u in range(1, len(pm.candidates)):
        crossable += caps[u - 1]
        if not pm.x[u] or crossable < fewest:
            continue
        complete = []
        for i, colour in enumerate(COLOURS):
            if (start.colours_upper | start.colours_lower) >> i & 1:
                continue
            lits = [_cell(pm, bit, u) for bit in bit_list(board.colour_mask[colour])]
            if any(isinstance(v, int) and v == 0 for v in lits):
                continue
            lits = [v for v in lits if not isinstance(v, int)]
            d = m.NewBoolVar(f"complete{colour}_{u}")
            m.AddBoolOr([d] + [v.Not() for v in lits])
            complete.append(d)
        if done0 + len(complete) < 2:
            continue
        plays = m.NewBoolVar(f"plays{u}")
        m.Add(plays == sum(pm.x[u]))
        m.Add(sum(complete) + done0 <= 1).OnlyEnforceIf(plays)
    pm.stats["end_rule"] = True


def add_race_objective(pm: PlannerModel, inst: RaceInstance) -> None:
    """The seat's final score (nochmal.sheet.score_parts): a column or colour completed by
    the end of the roll in which another player first completed it scores the first value,
    later the later value (docs/rules.md §4); jokers and stars as in solo."""
    m = pm.model
    board, start = pm.board, pm.start
    T = len(pm.candidates)

    def first_window(taken: int | None) -> int:
        """Rolls of the model within which completing still earns the first value."""
        if taken is None:
            return T
        return max(0, min(T, taken - inst.rolls_before + 1))

    def values(upper: int, lower: int, masks: list[int], taken: list[int | None], tag: str):
        first, later = [], []
        for i, mask in enumerate(masks):
            if upper >> i & 1 or lower >> i & 1:
                first.append(upper >> i & 1)
                later.append(lower >> i & 1)
                continue
            done = all_crossed(m, [_cell(pm, bit, T) for bit in bit_list(mask)], f"{tag}{i}")
            u = first_window(taken[i])
            early = done if u == T else all_crossed(m, [_cell(pm, bit, u) for bit in bit_list(mask)],
                                                    f"{tag}{i}_first")
            if early is not done and not isinstance(early, int) and not isinstance(done, int):
                m.AddImplication(early, done)
            first.append(early)
            later.append(done - early)
        return first, later

    cols_first, cols_later = values(start.cols_upper, start.cols_lower, board.column_mask[:board.cols],
                                    inst.column_taken, "col")
    colours_first, colours_later = values(start.colours_upper, start.colours_lower,
                                          [board.colour_mask[c] for c in COLOURS], inst.colour_taken, "colour")
    spent = [c.cost * pm.x[t][k] for t, cands in enumerate(pm.candidates) for k, c in enumerate(cands) if c.cost]
    if spent:
        m.Add(sum(spent) <= start.jokers_left)
    stars_open = [1 - _cell(pm, bit, T) for bit in bit_list(board.star_mask)]
    total = score_parts(board, cols_first, colours_first, stars_open, start.jokers_left - sum(spent),
                        cols_later, colours_later).total
    pm.objective = total
    m.Maximize(total)


# --- solving ----------------------------------------------------------------------------------
def recorded_masks(inst: RaceInstance) -> list[int | None]:
    """The seat's recorded moves as cell masks (None: pass): always a plan of the model."""
    return [None if mv.is_pass else inst.board.mask_of(mv.cells) for mv in inst.moves]


def _steps(inst: RaceInstance, pm: PlannerModel, chosen: list[int | None]) -> list[Step]:
    """The plan's steps, numbered by the roll in the whole game, from 1."""
    return [Step.of(inst.rolls_before + t + 1, roll, None if k is None else pm.candidates[t][k], inst.board)
            for t, (roll, k) in enumerate(zip(inst.rolls, chosen))]


def _engine_score(inst: RaceInstance, steps: list[Step]) -> int:
    game, _ = replay_race(inst.record, inst.seat, Plan(steps, 0, {}, first_roll=inst.rolls_before + 1),
                          inst.source)
    return game.sheets[inst.seat].score()


def solve_race(inst: RaceInstance, time_limit: float = 60.0, workers: int = 2,
               progress: Callable[[Progress], None] | None = None, features: frozenset = RACE_FEATURES,
               hint: list[int | None] | None = None, random_seed: int = 0, log: bool = False,
               stop: SigintStop | None = None) -> Plan:
    """The seat's best plan found within ``time_limit`` seconds, validated, with its status;
    never worse than the hint (default: the seat's recorded moves). Ctrl-C stops the search
    (the plan is marked interrupted); ``stop``: the caller's Ctrl-C watch, already set by
    a Ctrl-C while the model was built (the search is then skipped)."""
    t0 = time.monotonic()
    deadline = Deadline(time_limit)  # building counts on the wall clock; under by_work only the solves' work
    pm = build_race_model(inst, features)
    if hint is None and "hint" in features:
        hint = recorded_masks(inst)
    hinted = add_hint(pm, hint) if hint is not None else None
    notes = []
    if hinted is not None and not complete_hint(pm, hinted, Deadline(max(0.1, min(5.0, time_limit / 4)), deadline)):
        notes.append("the hint could not be completed")
    if "lb_tree" in features:  # a best-bound tree search as the full-problem worker
        subsolvers = ["lb_tree_search", "max_lp"]
    else:
        subsolvers = ["max_lp", "default_lp"] if "max_lp" in features else []
    remaining = 0.0 if stop is not None and stop.interrupted else deadline.left()
    run = run_model(pm, remaining, workers, subsolvers, progress, t0, random_seed, log)
    chosen, objective, notes = run.chosen, run.objective, [run.note] + notes
    optimal = run.optimal
    if hinted is not None:
        hint_total = _engine_score(inst, _steps(inst, pm, hinted))
        if objective is None or objective < hint_total:
            notes.append(f"the hint ({hint_total}) kept: the search returned "
                         + ("no plan" if objective is None else f"only {objective}"))
            chosen, objective, optimal = hinted, hint_total, False
    bound = run.bound
    steps = _steps(inst, pm, chosen)
    game, _ = replay_race(inst.record, inst.seat, Plan(steps, 0, {}, first_roll=inst.rolls_before + 1),
                          inst.source)
    breakdown = game.sheets[inst.seat].score_breakdown().to_dict()
    total = breakdown["total"]
    if objective is not None and objective > total:  # the model promised more than the rules give
        raise SolverError(f"race model objective {objective} is above the engine's score {total}")
    if objective is not None and objective < total:  # a one-sided literal left false: harmless
        notes.append(f"the engine scores the plan {total}, the model's objective said {objective}")
    if bound is not None and bound < total:
        raise SolverError(f"solver bound {bound} is below a plan worth {total}")
    status = OPTIMAL if optimal or (bound is not None and bound == total) else (
        FEASIBLE if bound is not None else UNKNOWN)
    plan = Plan(steps, total, breakdown, status, total if status == OPTIMAL else bound,
                round(time.monotonic() - t0, 3), inst.board.name, inst.rolls_before + 1, run.interrupted,
                "; ".join(notes))
    return validate_race(inst.record, inst.seat, plan, inst.source)


def _restated(record: GameRecord, seat: int, source: str, t: int, steps: list[Step], bound: int,
              like: Plan) -> Plan:
    """The seat's plan playing ``steps`` from before roll t (0-based), scored by the engine
    against the others' recorded moves and validated, its status from ``bound``
    (solver/analyse.py settle: a plan lifted from the roll before, or proven by a bound)."""
    game, _ = replay_race(record, seat, Plan(steps, 0, {}, first_roll=t + 1), source)
    breakdown = game.sheets[seat].score_breakdown().to_dict()
    total = breakdown["total"]
    plan = Plan(steps, total, breakdown, OPTIMAL if bound == total else FEASIBLE, bound, like.wall_time,
                like.board, t + 1, like.interrupted, "restated by the analysis (a plan lifted from the roll "
                "before, or proven by its bound)")
    return validate_race(record, seat, plan, source)


# --- per-seat analysis --------------------------------------------------------------------------
@dataclass
class SeatAnalysis:
    """One seat: its actual score, the best it could have reached (``optimum``, proven or
    with its bound) and, per roll, the points the recorded move lost against the best."""

    seat: int  # 0-based
    name: str
    actual_score: int
    optimum: int
    optimum_bound: int | None
    optimum_proven: bool
    losses: list[RollLoss]  # in roll order; empty when only the best was asked for
    plan: Plan | None  # the best plan from roll 1 (None: interrupted before it was solved)
    open_dice: list[str] = field(default_factory=list)  # per roll: the dice open to the seat
    wall_time: float = 0.0
    interrupted: bool = False
    solves: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "seat": self.seat + 1, "name": self.name, "actual_score": self.actual_score,
            "optimum": self.optimum, "optimum_bound": self.optimum_bound, "optimum_proven": self.optimum_proven,
            "losses": [asdict(r) for r in self.losses],
            "worst": [r.roll for r in sorted(self.losses, key=lambda r: (-r.loss, r.roll))],
            "plan": self.plan.to_json() if self.plan is not None else None, "open_dice": self.open_dice,
            "wall_time": round(self.wall_time, 3),
            "interrupted": self.interrupted, "solves": self.solves,
        }


def analyse_seat(record: GameRecord, seat: int, time_limit: float = 10.0, workers: int = 2,
                 source: str = "record", per_roll: bool = True, features: frozenset = RACE_FEATURES,
                 on_solve: Callable[[int, Plan], None] | None = None,
                 progress: Callable[[Progress], None] | None = None,
                 stop: SigintStop | None = None) -> SeatAnalysis:
    """V(t): the best final score from the sheet the seat had before roll t (V after the
    last roll = the actual score); the loss on roll t is V(t) - V(t+1), as in the solo
    analysis (solver/analyse.py), with the interval loss_low..loss_high (a solve that proved no bound is bounded by
    the board's maximum score, nochmal.sheet.max_score). Solves run backwards, each hinted with the recorded move
    followed by the next solve's plan, so V(t) >= V(t+1) for the plans found; unproven
    values carry their bound and a loss is then an interval. ``per_roll`` False: only V(0).
    ``time_limit`` is per solve. Ctrl-C stops the analysis: the rolls done so far are
    returned, marked interrupted. ``stop``: a caller's Ctrl-C watch spanning several seats
    (a press between two seats then stops the next one at once); by default one of its own."""
    t0 = time.monotonic()
    first = race_instance(record, seat, 0, source)
    T = len(first.rolls)
    actual = record.verify(source).sheets[seat].score()
    ceiling = max_score(first.board)  # a solve that proved no bound is bounded by this
    value = [0] * (T + 1)
    bound = [0] * (T + 1)
    plans: list[Plan | None] = [None] * (T + 1)
    value[T] = bound[T] = actual
    solves = []
    interrupted = False
    with (nullcontext(stop) if stop is not None else SigintStop()) as stop:
        for t in (range(T - 1, -1, -1) if per_roll else [0]):
            inst = first if t == 0 else race_instance(record, seat, t, source)
            hint = None
            if plans[t + 1] is not None:
                rest = [None if s.is_pass else inst.board.mask_of(s.cells) for s in plans[t + 1].steps]
                hint = recorded_masks(inst)[:1] + rest
            plan = solve_race(inst, time_limit=time_limit, workers=workers, progress=progress,
                              features=features, hint=hint, stop=stop)
            plans[t] = plan
            value[t] = plan.total
            bound[t] = ceiling if plan.bound is None else min(ceiling, plan.bound)
            solves.append({"roll": t + 1, "best": plan.total, "bound": plan.bound, "status": plan.status,
                           "time": plan.wall_time})
            if on_solve:
                on_solve(t + 1, plan)
            if plan.interrupted or stop.interrupted:
                interrupted = True
                break
    if per_roll and plans[T - 1] is not None:  # the rolls from the last one solved (all unless interrupted)
        done = min(t for t in range(T) if plans[t] is not None)
        settle(first.moves, plans, value, bound, done,
               lambda t, steps, b, like: _restated(record, seat, source, t, steps, b, like))
        losses = roll_losses([r.text() for r in first.rolls], first.moves, plans, value, bound, done)
    else:
        losses = []
    solved = plans[0] is not None
    return SeatAnalysis(seat, seat_name(record.players, seat), actual, value[0] if solved else actual,
                        bound[0] if solved else None, solved and plans[0].status == OPTIMAL, losses, plans[0],
                        [d.text() for d in first.open], time.monotonic() - t0, interrupted, solves[::-1])
