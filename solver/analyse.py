"""Post-game analysis of a solo record: which rolls cost the most points.

With the whole dice sequence known, let V(t) be the best final score reachable from the
sheet the player actually had before roll t (V after the last roll = the actual score).
The points lost on roll t are V(t) - V(t+1): the best reachable after the best move minus
the best reachable after the move actually made. They add up to optimum - actual score.

The solves run backwards (short ones first); each is hinted with the actual move followed
by the next solve's best plan. Unproven values carry their bound, and a loss is then an
interval. The figures shown are made consistent with what is known for certain, whatever
a time limit cut short (``settle``):

- V(t) >= V(t+1) (the actual move is one of roll t's choices): a solve that returns less
  than the hint it was given (a time limit, Ctrl-C) is replaced by that hint, the actual
  move plus the next plan, so the analysis never stops on it;
- a plan for roll t that starts with the actual move is, without its first step, a plan
  for roll t+1 (so a roll whose move equals the best move found loses 0);
- a bound for V(t) bounds V(t+1) too, and no bound is below a plan found.

Ctrl-C stops the analysis: the rolls analysed so far (the last ones) come back, marked
``interrupted``.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, replace
from typing import Callable

from nochmal.choice import Choice
from nochmal.game import Mode
from nochmal.move import Move
from nochmal.record import GameRecord
from nochmal.sheet import max_score

from nochmal.solver.cpsat import Progress, SolverError, finish_plan, solve
from nochmal.solver.instance import Instance, InstanceError
from nochmal.solver.interrupt import SigintStop
from nochmal.solver.plan import FEASIBLE, OPTIMAL, UNKNOWN, Plan, Step


@dataclass
class RollLoss:
    roll: int  # 1-based roll number in the game
    dice: str
    actual: str  # the move made
    best: str  # the first move of the best plan from the position before this roll
    loss: int  # V(t) - V(t+1) from the plans found
    loss_low: int  # proven interval for the true loss
    loss_high: int
    proven: bool  # both values proven optimal: loss is exact


@dataclass
class Analysis:
    """The losses of the rolls analysed (all of them unless ``interrupted``: then the last
    ones, from roll ``first_roll`` on; ``optimum``, its bound and ``plan`` are for the
    position before ``first_roll``, the whole game when it is 1)."""

    actual_score: int
    optimum: int | None  # best plan found from before roll first_roll (None: no roll analysed)
    optimum_bound: int | None
    optimum_proven: bool
    losses: list[RollLoss]  # in roll order
    plan: Plan | None  # the best plan from before roll first_roll (validated); None: no roll analysed
    wall_time: float = 0.0
    solves: list[dict] = field(default_factory=list)
    interrupted: bool = False  # Ctrl-C: rolls before first_roll not analysed, or the last solve cut short
    first_roll: int = 1  # 1-based: the first roll analysed
    rolls: int = 0  # the rolls of the game

    def worst(self, n: int | None = None) -> list[RollLoss]:
        """Rolls sorted by points lost, worst first (ties in roll order)."""
        ranked = sorted(self.losses, key=lambda r: (-r.loss, r.roll))
        return ranked if n is None else ranked[:n]

    def to_json(self) -> dict:
        return {
            "actual_score": self.actual_score,
            "optimum": self.optimum,
            "optimum_bound": self.optimum_bound,
            "optimum_proven": self.optimum_proven,
            "interrupted": self.interrupted,
            "first_roll": self.first_roll,
            "rolls": self.rolls,
            "losses": [asdict(r) for r in self.losses],
            "worst": [r.roll for r in self.worst()],
            "plan": self.plan.to_json() if self.plan is not None else None,
            "wall_time": round(self.wall_time, 3),
        }


def _choice_of(move: Move, board) -> Choice | None:
    """The placed Choice a move makes (None: a pass); the faces are the move's own."""
    if move.is_pass:
        return None
    return Choice(move.colour_face, move.number_face, move.colour, move.count, move.joker_cost,
                  board.mask_of(move.cells))


def _steps(inst: Instance, moves: list[Move]) -> list[Step]:
    return [Step.of(inst.first_roll + i, roll, _choice_of(m, inst.board), inst.board)
            for i, (roll, m) in enumerate(zip(inst.rolls, moves))]


def _plan_of(inst: Instance, moves: list[Move], bound: int | None, wall: float = 0.0,
             interrupted: bool = False) -> Plan:
    """A validated plan playing ``moves`` from the instance's start (status from the bound)."""
    return finish_plan(inst, _steps(inst, moves), FEASIBLE if bound is not None else UNKNOWN, bound, wall,
                       interrupted)


def _moves(plan: Plan | None) -> list[Move]:
    return [] if plan is None else [s.move() for s in plan.steps]


def analyse(record: GameRecord, time_limit: float = 10.0, workers: int = 2, source: str = "record",
            on_solve: Callable[[int, Plan], None] | None = None,
            progress: Callable[[Progress], None] | None = None) -> Analysis:
    """Analyse a finished solo record; ``time_limit`` is per solve (one per roll).

    ``on_solve(roll, plan)`` after each roll's solve (1-based roll, its plan before the
    figures are settled);
    Ctrl-C returns the rolls analysed so far, marked ``interrupted``."""
    if record.mode != Mode.SOLO:
        raise InstanceError(f"{source}: analysis needs a solo or co-op mission record, this one is "
                            f"{str(record.mode)!r}")
    game = record.verify(source)
    if not game.is_terminal():
        raise InstanceError(f"{source}: the game is not finished")
    board = record.board
    states = [game.sheets[0].__class__.empty(board)]
    moves: list[Move] = []
    for turn, g in record.replay(source):
        states.append(g.sheets[0])
        moves.append(record.rolls[turn - 1][1][0][1])
    rolls = [r for r, _ in record.rolls]
    T = len(rolls)
    actual = states[-1].score()
    ceiling = max_score(board)  # no solo sheet scores more (every first value, no joker spent)
    insts = [Instance(board, rolls[t:], record.rules, states[t] if t else None, True, t + 1, source, record.seed)
             for t in range(T)]
    plans: list[Plan | None] = [None] * (T + 1)
    value: list[int] = [0] * (T + 1)
    bound: list[int] = [ceiling] * (T + 1)
    value[T] = bound[T] = actual
    t0 = time.monotonic()
    solves = []
    first = T  # 0-based: the first roll analysed so far
    with SigintStop() as stop:  # Ctrl-C between two solves; during one, solve's own stops it
        for t in range(T - 1, -1, -1):
            if stop.interrupted:
                break
            inst = insts[t]
            hint_moves = [moves[t]] + _moves(plans[t + 1])
            plan = solve(inst, time_limit=time_limit, workers=workers, progress=progress,
                         hint=[None if m.is_pass else board.mask_of(m.cells) for m in hint_moves])
            note = ""
            if plan.total < value[t + 1]:  # the search could not use its hint: the hint is the plan
                note = f"the hint ({value[t + 1]}) kept: the search returned {plan.total}"
                plan = _plan_of(inst, hint_moves, plan.bound, plan.wall_time, plan.interrupted)
            plans[t], value[t], first = plan, plan.total, t
            if plan.bound is not None:
                bound[t] = min(ceiling, plan.bound)
            solves.append({"roll": t + 1, "best": plan.total, "bound": plan.bound, "status": plan.status,
                           "time": plan.wall_time, "note": note})
            if on_solve:
                on_solve(t + 1, plan)
            if plan.interrupted:
                break
        # a solve cut short by Ctrl-C ends the loop, so that one is plans[first]
        interrupted = stop.interrupted or (first < T and plans[first].interrupted)
    if first == T:  # interrupted before any roll was analysed
        return Analysis(actual, None, None, False, [], None, time.monotonic() - t0, [], True, T + 1, T)
    settle(moves, plans, value, bound, first,
           lambda t, steps, b, like: finish_plan(insts[t], steps, FEASIBLE, b, like.wall_time, like.interrupted))
    losses = roll_losses([r.text() for r in rolls], moves, plans, value, bound, first)
    return Analysis(actual, value[first], bound[first], value[first] == bound[first], losses, plans[first],
                    time.monotonic() - t0, solves[::-1], interrupted, first + 1, T)


Restate = Callable[[int, list[Step], int, Plan], Plan]
"""``restate(t, steps, bound, like)``: the validated plan playing ``steps`` from the position
before roll t (0-based), its status from ``bound``, with ``like``'s wall time and interrupted
flag. The solo and the per-seat analyses (solver/race.py) each give their own."""


def settle(moves: list[Move], plans: list[Plan | None], value: list[int], bound: list[int], first: int,
           restate: Restate) -> None:
    """Make the figures of rolls first..T-1 consistent (module docstring), in place; the
    one rule set of the solo and the per-seat analyses (solver/race.py).

    value is non-increasing already (each solve falls back to its hint). Forwards: a plan
    for roll t that starts with the actual move gives roll t+1 a plan worth value[t] (at
    most value[t], so value stays non-increasing); a bound for roll t bounds roll t+1.
    The next lift then goes by that plan's own move on roll t+1.
    """
    T = len(moves)
    for t in range(first, T):
        bound[t + 1] = min(bound[t + 1], bound[t])
        steps = plans[t].steps
        if t + 1 < T and steps[0].move() == moves[t] and value[t] > value[t + 1]:
            # copies: the validator fills in each step's points
            plans[t + 1] = restate(t + 1, [replace(s) for s in steps[1:]], bound[t + 1], plans[t + 1])
            value[t + 1] = plans[t + 1].total
        if value[t + 1] > bound[t + 1]:  # a bound below a plan: the solver is wrong
            raise SolverError(f"roll {t + 2}: a plan worth {value[t + 1]} beats the proven bound {bound[t + 1]}")
    for t in range(first, T):  # an unproven plan whose bound came down to it is proven now
        p = plans[t]
        if p.status != OPTIMAL and value[t] == bound[t]:
            plans[t] = restate(t, [replace(s) for s in p.steps], bound[t], p)


def roll_losses(dice: list[str], moves: list[Move], plans: list[Plan | None], value: list[int], bound: list[int],
                first: int) -> list[RollLoss]:
    """Per roll first..T-1 of settled figures: the points the move made lost against the
    best plan found, with the proven interval (V(t) - V(t+1) within the bounds)."""
    return [RollLoss(t + 1, dice[t], str(moves[t]), str(plans[t].steps[0].move()), value[t] - value[t + 1],
                     max(0, value[t] - bound[t + 1]), bound[t] - value[t + 1],
                     value[t] == bound[t] and value[t + 1] == bound[t + 1])
            for t in range(first, len(moves))]


# --- co-op mission records ------------------------------------------------------------------
@dataclass
class CoopRoll:
    """One roll of a co-op record against the team planner. ``fewest``: the earliest winning
    roll found from the position before this roll (the moves of earlier rolls as played);
    ``fewest_low``: no win can come before that roll (proven). Both are ``budget + 1`` for
    "no win" (found none / proven none). ``lost``: rolls the moves made on this roll cost,
    fewest after it minus fewest before it, within ``lost_low..lost_high`` (proven)."""

    roll: int  # 1-based
    dice: str
    active: int  # 1-based seat of the active player
    played: list[str]  # per player, the move made
    best: list[str]  # per player, the move of the plan found from before this roll
    fewest: int
    fewest_low: int
    lost: int
    lost_low: int
    lost_high: int
    proven: bool  # the fewest before and after this roll both proven: lost is exact


@dataclass
class CoopAnalysis:
    """A co-op record against the team planner, roll by roll (the last ones from
    ``first_roll`` on when ``interrupted``)."""

    mission: str
    difficulty: str
    players: int
    budget: int
    won_on: int | None  # the roll the team actually won on (None: lost)
    fewest: int  # from before roll first_roll: the earliest win found (budget + 1: none)
    fewest_low: int  # ... and proven bound (budget + 1: proven that no win was possible)
    rolls: list[CoopRoll]
    plan: list[list[str]]  # the best plan found from before roll first_roll, per roll per player
    interrupted: bool = False
    first_roll: int = 1
    wall_time: float = 0.0

    @property
    def proven(self) -> bool:
        return self.fewest == self.fewest_low

    def to_json(self) -> dict:
        data = asdict(self)
        data["proven"] = self.proven
        data["wall_time"] = round(self.wall_time, 3)
        return data


def analyse_coop(record: GameRecord, time_limit: float = 10.0, workers: int = 2, source: str = "record",
                 on_solve: Callable[[int, object], None] | None = None) -> CoopAnalysis:
    """Analyse a finished co-op mission record: per roll, the fewest rolls in which the team
    could still have won from the position before it (nochmal.solver.team.plan_team with the
    moves played before it as its prefix), ``time_limit`` per roll.

    The solves run backwards; each knows the next one's plan (the moves of this roll as
    played, then that plan), so the fewest found never rises from one roll to the one before,
    and the figures are settled as the solo ones (``settle``): a plan whose moves on roll t
    are the moves played is a plan for roll t+1, and a bound for roll t bounds roll t+1.
    Ctrl-C returns the rolls analysed so far, marked ``interrupted``."""
    from nochmal.missions.coop import mission_result, record_game, record_mission
    from nochmal.solver.team import plan_team

    if not record.needs_mission:
        raise InstanceError(f"{source}: not a co-op mission record")
    game = record.verify(source, record_game)
    if not game.is_terminal():
        raise InstanceError(f"{source}: the game is not finished")
    mission = record_mission(record)
    difficulty = record.extra["difficulty"]
    n = len(record.players)
    result = mission_result(mission, game)
    budget = result.budget
    never = budget + 1
    rolls = [r for r, _ in record.rolls]
    played = [[dict(ms)[p] for p in range(n)] for _, ms in record.rolls]
    R = len(rolls)
    hi: list[int] = [never] * (R + 1)  # earliest win found from before roll t+1
    lo: list[int] = [1] * (R + 1)  # proven: no win before it
    plans: list[list[list[Move]] | None] = [None] * (R + 1)
    hi[R] = lo[R] = result.won_on if result.won else never
    plans[R] = played if result.won else None
    t0 = time.monotonic()
    first = R
    with SigintStop() as stop:
        for t in range(R - 1, -1, -1):
            if stop.interrupted:
                break
            plan = plan_team(mission, n, record.seed, difficulty, rolls, time_limit, workers,
                             prefix=played[:t], known=plans[t + 1])
            first = t
            plans[t] = plan.moves or None
            hi[t] = plan.rolls_needed if plan.rolls_needed is not None else never
            lo[t] = min(plan.lower_bound, never)
            if on_solve:
                on_solve(t + 1, plan)
            if plan.interrupted:
                break
        interrupted = stop.interrupted or (first < R and plan.interrupted)
    # settle forwards (the solo analysis's rules, see settle)
    for t in range(first, R):
        lo[t + 1] = max(lo[t + 1], lo[t])
        if plans[t] is not None and t < len(plans[t]) and plans[t][t] == played[t] and hi[t] < hi[t + 1]:
            plans[t + 1], hi[t + 1] = plans[t], hi[t]
    out = []
    for t in range(first, R):
        best = plans[t][t] if plans[t] is not None and t < len(plans[t]) else None
        out.append(CoopRoll(t + 1, rolls[t].text(), t % n + 1, [str(m) for m in played[t]],
                            [str(m) for m in best] if best else [], hi[t], lo[t], hi[t + 1] - hi[t],
                            max(0, lo[t + 1] - hi[t]), hi[t + 1] - lo[t],
                            hi[t] == lo[t] and hi[t + 1] == lo[t + 1]))
    fewest, fewest_low = (hi[first], lo[first]) if first < R else (hi[R], lo[R])
    plan_moves = [[str(m) for m in row] for row in plans[first]] if plans[first] else []
    return CoopAnalysis(mission.id, difficulty, n, budget, result.won_on, fewest, fewest_low, out, plan_moves,
                        interrupted, first + 1, time.monotonic() - t0)
