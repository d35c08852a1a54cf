"""Team planning for co-op missions: the fewest rolls in which the team can win with perfect
coordination on known dice, or a proof that the roll budget is not enough.

The models are in solver/team_model.py (feasibility after exactly T rolls, earliest win over a
range of rolls), the relaxation's lower bound in solver/team_relaxation.py. Whether a plan
really wins is decided only by replaying it through the engine's co-op Game and
``mission_result`` (``validate_team_plan``, which knows nothing of the model).

Search over T (TeamSearch): winnable by T implies winnable by T+1 (pass; objectives never get
undone by a pass). The relaxation (relaxation_bound: one block per roll and sheet, no
anchoring, no dice flow) proves a first lower bound in well under a second on the built-in
missions; cheap feasibility checks at T = bound, 2 x bound, ... may raise it; the earliest-win
model then searches the rest in one go, and the bound reported is the larger of the
relaxation's and CP-SAT's. Measured: the earliest-win model finds far earlier wins on
whole-sheet missions than a binary search over T did (docs/figures.md, Team planning).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from nochmal.board import Board, load_board
from nochmal.bots.registry import make_agent
from nochmal.dice import Roll, seeded_roll
from nochmal.errors import NochmalError
from nochmal.missions.coop import coop_game, mission_record, mission_result
from nochmal.missions.cpsolver import Deadline
from nochmal.missions.model import Mission
from nochmal.missions.objectives import all_met
from nochmal.move import PASS, Move
from nochmal.record import GameRecord
from nochmal.sheet import Sheet
from nochmal.solver.cpsat import SolverError
from nochmal.solver.interrupt import SigintStop
from nochmal.solver.plan import FEASIBLE, INFEASIBLE, OPTIMAL, UNKNOWN
from nochmal.solver.team_model import (OutOfTime, TeamModel, add_earliest_win, add_final_objectives, add_team_hint,
                                       build_team_model, read_moves)
from nochmal.solver.team_relaxation import RELAX_SHARE, relaxation_bound

GALLOP_SHARE = 0.25  # of the time left, for each feasibility check while galloping
# statuses (nochmal.solver.plan): optimal = fewest rolls found and every smaller count proven
# impossible; feasible = a win found, smaller counts not all proven impossible; infeasible =
# proven that the budget is not enough; unknown = nothing found, nothing proven


class TeamPlanError(NochmalError):
    """A team plan failed the engine replay (a planner bug, never a silent result)."""


@dataclass
class TeamPlan:
    """The result: per roll, per player (0..n-1) the move; status and proven lower bound.

    ``rolls_needed`` is the roll on which the plan wins (None if no plan); ``lower_bound`` the
    proven fewest rolls any win needs (every smaller count is infeasible).
    """

    mission: str
    players: int
    difficulty: str
    budget: int
    seed: int | None
    rolls: list[Roll]
    status: str
    rolls_needed: int | None
    lower_bound: int
    moves: list[list[Move]] = field(default_factory=list)
    wall_time: float = 0.0
    interrupted: bool = False  # stopped by Ctrl-C: the best plan so far, not proven
    solves: list[dict] = field(default_factory=list)  # per step (T, a range of T, bots' plan): status, seconds
    relaxation_bound: int = 1  # the relaxation's share of lower_bound (relaxation_bound below)
    given: int = 0  # the first rolls' moves were given (as played), the plan continues after them

    def to_json(self) -> dict:
        return {
            "mission": self.mission, "players": self.players, "difficulty": self.difficulty,
            "budget": self.budget, "seed": self.seed, "status": self.status,
            "rolls_needed": self.rolls_needed, "lower_bound": self.lower_bound,
            "relaxation_bound": self.relaxation_bound, "given": self.given,
            "proven": self.status in (OPTIMAL, INFEASIBLE), "interrupted": self.interrupted,
            "wall_time": round(self.wall_time, 3),
            "plan": [{"roll": t + 1, "dice": self.rolls[t].text(), "active": t % self.players + 1,
                      "moves": [str(m) for m in row]} for t, row in enumerate(self.moves)],
            "solves": self.solves,
        }


def run_team_model(tm: TeamModel, deadline: Deadline, workers: int, stop: SigintStop,
                   hint: list[list[Move]] | None = None) -> tuple[cp_model.CpSolver, int]:
    """Solve a team model within the time ``deadline`` leaves (Ctrl-C through ``stop``); (solver, CP-SAT status)."""
    if hint:
        add_team_hint(tm, hint)
    return deadline.solve(tm.model, stop.solve, workers=workers)


def solve_feasible(board: Board, mission: Mission, rolls: list[Roll], n: int, deadline: Deadline,
                   workers: int, stop: SigintStop, starts: list[Sheet] | None = None,
                   rolls_before: int = 0) -> tuple[str, list[list[Move]] | None]:
    """Feasibility at exactly len(rolls) rolls: (status, moves per roll per player).

    Ctrl-C (``stop``) ends the solve early: status unknown unless a plan was already found.
    ``starts``, ``rolls_before``: see build_team_model."""
    try:
        tm = build_team_model(board, mission, rolls, n, deadline, starts, rolls_before)
        add_final_objectives(tm, mission)
    except OutOfTime:
        return UNKNOWN, None
    solver, status = run_team_model(tm, deadline, workers, stop)
    if status == cp_model.INFEASIBLE:
        return INFEASIBLE, None
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return UNKNOWN, None
    return FEASIBLE, read_moves(tm, solver, len(rolls))


def solve_earliest(board: Board, mission: Mission, rolls: list[Roll], n: int, first: int, deadline: Deadline,
                   workers: int, stop: SigintStop, hint: list[list[Move]] | None = None,
                   starts: list[Sheet] | None = None, rolls_before: int = 0
                   ) -> tuple[str, int | None, int, list[list[Move]] | None]:
    """One optimisation over rolls first..len(rolls): the earliest win (add_earliest_win).

    (status, winning roll or None, proven lower bound on the winning roll, moves up to the
    win). Status optimal: proven earliest within the range; infeasible: no win by the last roll."""
    T = len(rolls)
    try:
        tm = build_team_model(board, mission, rolls, n, deadline, starts, rolls_before)
        wins, weight, lowest = add_earliest_win(tm, mission, first, deadline)
    except OutOfTime:
        return UNKNOWN, None, first, None
    solver, status = run_team_model(tm, deadline, workers, stop, hint)
    if status == cp_model.INFEASIBLE:
        return INFEASIBLE, None, T + 1, None
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return UNKNOWN, None, first, None
    optimal = status == cp_model.OPTIMAL
    most_wins = math.floor((solver.BestObjectiveBound() - lowest) / weight + 1e-6)  # more: proven impossible
    bound = T + 1 - most_wins
    first_win = next((i for i, w in enumerate(wins) if solver.BooleanValue(w)), None)
    if first_win is None:  # the solution found wins nowhere in the range
        return (INFEASIBLE, None, T + 1, None) if optimal else (UNKNOWN, None, max(first, bound), None)
    won = first + first_win
    lower = won if optimal else max(first, bound)
    return (OPTIMAL if optimal else FEASIBLE), won, lower, read_moves(tm, solver, won)


def _drive(mission: Mission, difficulty: str, rolls: list[Roll], players: int, choose):
    """Play the co-op game (budget as the roll limit) on these rolls until it ends or the
    rolls run out, ``choose(game, roll index, player)`` deciding each move; (game, moves per
    roll per player)."""
    game = coop_game(mission, difficulty, players)
    moves = []
    for t, roll in enumerate(rolls):
        if game.is_terminal():
            break
        game.apply_roll(roll)
        row = [PASS] * players
        while not game.is_terminal() and game.current_player() >= 0:
            p = game.current_player()
            row[p] = choose(game, t, p)
            game.apply_move(row[p])
        moves.append(row)
    return game, moves


def bot_moves(mission: Mission, difficulty: str, rolls: list[Roll], players: int,
              bot: str = "heuristic", prefix: list[list[Move]] = ()) -> tuple[list[list[Move]], int | None]:
    """What ``bot`` players do in the co-op game on these rolls after the moves ``prefix``
    (per roll per player): (moves per roll per player, the prefix's included; the roll they
    win on or None). A quick first plan, or at least a hint for the solver."""
    agents = [make_agent(bot, p) for p in range(players)]
    game, moves = _drive(mission, difficulty, rolls, players,
                         lambda g, t, p: prefix[t][p] if t < len(prefix) else agents[p].choose(g))
    won_on = mission_result(mission, game).won_on
    return (moves if won_on is None else moves[:won_on]), won_on


def replay_team(mission: Mission, difficulty: str, rolls: list[Roll], moves: list[list[Move]]):
    """Replay moves through the engine's co-op Game (budget as the roll limit); the game."""
    n = len(moves[0]) if moves else 1
    game, _ = _drive(mission, difficulty, rolls[:len(moves)], n, lambda g, t, p: moves[t][p])
    return game


def validate_team_plan(mission: Mission, difficulty: str, rolls: list[Roll], moves: list[list[Move]]) -> int:
    """Replay through the engine and return the winning roll; TeamPlanError unless
    ``mission_result`` says the mission is won on exactly the plan's last roll."""
    try:
        game = replay_team(mission, difficulty, rolls, moves)
    except NochmalError as exc:
        raise TeamPlanError(f"team plan replay failed: {exc}") from None
    result = mission_result(mission, game)
    if not result.won or result.won_on != len(moves):
        raise TeamPlanError(f"team plan does not win on roll {len(moves)}: {result.text()}")
    return result.won_on


PLANNER_SEAT = "planner"  # the seat spec a saved plan's players get (shown "planner (seat 1)", nochmal.seats)


def team_record(mission: Mission, plan: TeamPlan) -> GameRecord:
    """The winning plan as a standard co-op game record (nochmal/record.py, the mission in
    ``extra``), replayed through the engine: ``nochmal replay --verify`` and the web replay
    read it like any played game. TeamPlanError when the plan has no win to write."""
    if not plan.moves:
        raise TeamPlanError("no winning plan was found, so there is no game to write")
    game = replay_team(mission, plan.difficulty, plan.rolls, plan.moves)
    if not game.is_terminal():  # the co-op game stops on the winning roll (coop_game)
        raise TeamPlanError(f"the plan's game is not over after its {len(plan.moves)} roll(s)")
    return mission_record(mission, plan.difficulty, game, [PLANNER_SEAT] * plan.players, plan.seed)


class TeamSearch:
    """One run of plan_team: the mission, the dice, the time and the plan found so far. Each
    step (the bots' game, the relaxation, feasibility checks, one earliest-win optimisation)
    keeps the best plan in ``plan`` after an engine replay (``accept``)."""

    def __init__(self, mission: Mission, players: int, difficulty: str, board: Board, rolls: list[Roll],
                 plan: TeamPlan, time_limit: float, workers: int, progress, prefix: list[list[Move]], t0: float):
        self.mission, self.players, self.difficulty, self.board = mission, players, difficulty, board
        self.rolls, self.plan, self.time_limit, self.workers = rolls, plan, time_limit, workers
        self.deadline = Deadline(time_limit)  # the whole run's (every step charges it: missions/cpsolver.py)
        self.progress, self.prefix, self.t0 = progress, prefix, t0
        self.k = len(prefix)  # rolls already played
        self.horizon = len(plan.rolls)
        self.stop = SigintStop()  # Ctrl-C: stop searching, return the best plan so far (not proven)
        self.starts: list[Sheet] | None = None  # the sheets after the prefix (None: empty)

    def elapsed(self) -> float:
        return time.monotonic() - self.t0

    def accept(self, moves: list[list[Move]], T: int) -> None:
        """Replay a model's plan through the engine; keep it as the best so far."""
        if moves[:self.k] != self.prefix:
            raise TeamPlanError(f"the plan for {T} rolls does not start with the moves played")
        game = replay_team(self.mission, self.difficulty, self.rolls, moves)
        won_on = mission_result(self.mission, game).won_on
        if won_on is None:
            raise TeamPlanError(f"the model's plan for {T} rolls does not win when replayed")
        moves = moves[:won_on]  # the objectives may hold earlier than T
        validate_team_plan(self.mission, self.difficulty, self.rolls, moves)
        self.plan.moves, self.plan.rolls_needed = moves, won_on

    def attempt(self, T: int, share: float) -> str:
        """Feasibility of a win after exactly T rolls, with a share of the time left."""
        left = self.deadline.left() * share  # a share, so one hard T leaves time for others
        if left <= 0.05 or self.stop.requested.is_set():
            return UNKNOWN
        s0 = time.monotonic()
        status, moves = solve_feasible(self.board, self.mission, self.rolls[self.k:T], self.players,
                                       self.deadline.within(left), self.workers, self.stop, self.starts, self.k)
        self.plan.solves.append({"rolls": T, "status": status, "seconds": round(time.monotonic() - s0, 3)})
        if self.progress is not None:
            self.progress(T, status)
        if status == FEASIBLE:
            self.accept(self.prefix + moves, T)
        return status

    def earliest(self, first: int, last: int, hint: list[list[Move]] | None) -> tuple[str, int]:
        """The earliest win in rolls first..last in one optimisation, with all the time left;
        (status, proven lower bound on the winning roll)."""
        k, plan = self.k, self.plan
        if self.deadline.left() <= 0.05 or self.stop.requested.is_set():
            return UNKNOWN, first
        s0 = time.monotonic()
        hint = plan.moves or hint
        status, won, lower, moves = solve_earliest(self.board, self.mission, self.rolls[k:last], self.players,
                                                   first - k, self.deadline, self.workers, self.stop,
                                                   hint[k:] if hint else None, self.starts, k)
        if won is not None:
            won += k
        lower += k
        plan.solves.append({"rolls": f"{first}-{last}", "status": status, "seconds": round(time.monotonic() - s0, 3)})
        if self.progress is not None:
            self.progress(f"{first}-{last}", status)
        if moves is not None and (plan.rolls_needed is None or won < plan.rolls_needed):
            self.accept(self.prefix + moves, won)
        return status, lower

    def search(self, known: list[list[Move]] | None) -> None:
        """The bots' game (a first plan if they win, else a hint); the relaxation's bound B;
        feasibility checks at T = B, 2B, ... (each infeasible one proves a lower bound) until one is not proven
        infeasible; then one earliest-win optimisation over the rolls between the proven
        bound and the best plan (or the budget), hinted with the best plan or the bots' moves."""
        mission, players, difficulty, rolls, plan, k = (self.mission, self.players, self.difficulty, self.rolls,
                                                        self.plan, self.k)
        budget, horizon = plan.budget, self.horizon
        if not k and all_met(mission.objectives, [Sheet.empty(self.board)] * players):
            moves = [[PASS] * players]  # met before any cross: won at the end of roll 1
            validate_team_plan(mission, difficulty, rolls, moves)
            plan.moves, plan.rolls_needed, plan.status = moves, 1, OPTIMAL
            return
        if known:
            self.accept([list(row) for row in known], len(known))
            plan.solves.append({"rolls": plan.rolls_needed, "status": "known plan",
                                "seconds": round(self.elapsed(), 3)})
        bots, won_on = bot_moves(mission, difficulty, rolls[:horizon], players, prefix=self.prefix)
        if won_on is not None and (plan.rolls_needed is None or won_on < plan.rolls_needed):
            self.accept(bots, won_on)
            plan.solves.append({"rolls": won_on, "status": "bots' plan", "seconds": round(self.elapsed(), 3)})
        # the relaxation's proven bound first: cheap, and often far above CP-SAT's after seconds
        s0 = time.monotonic()
        relax = k + relaxation_bound(self.board, mission, rolls[k:horizon], players,
                                     Deadline(self.time_limit * RELAX_SHARE, self.deadline),
                                     self.workers, self.stop,
                                     None if plan.rolls_needed is None else plan.rolls_needed - k,
                                     plan.solves, self.starts)
        plan.relaxation_bound = relax
        if self.progress is not None and relax > k + 1:
            self.progress(f"{k + 1}-{relax - 1}", f"infeasible (relaxation, {time.monotonic() - s0:.1f}s)")
        if plan.rolls_needed is not None and relax > plan.rolls_needed:
            raise TeamPlanError(f"the relaxation's bound {relax} is above a plan winning on roll {plan.rolls_needed}")
        proven_lo = relax - 1  # every T <= proven_lo is infeasible (proven_lo >= k)
        if proven_lo >= budget:
            plan.lower_bound, plan.status = budget + 1, INFEASIBLE
            return
        if plan.rolls_needed == proven_lo + 1:
            plan.lower_bound, plan.status = proven_lo + 1, OPTIMAL
            return
        T = proven_lo + 1
        while plan.rolls_needed is None or T < plan.rolls_needed:
            status = self.attempt(T, GALLOP_SHARE)
            if status == INFEASIBLE:  # monotone: no smaller T wins either
                proven_lo = T
                if T == budget:
                    break
                T = min(budget, 2 * T)
                continue
            break
        if proven_lo == budget:
            plan.lower_bound, plan.status = budget + 1, INFEASIBLE
            return
        if plan.rolls_needed == proven_lo + 1:
            plan.lower_bound, plan.status = proven_lo + 1, OPTIMAL
            return
        last = plan.rolls_needed if plan.rolls_needed is not None else horizon
        status, lower = self.earliest(proven_lo + 1, last, bots)
        lower = max(lower, proven_lo + 1)
        if status == INFEASIBLE:  # no win at all (a known plan would be a solution): last == budget
            plan.lower_bound, plan.status = budget + 1, INFEASIBLE
            return
        if plan.rolls_needed is None:
            plan.lower_bound, plan.status = lower, UNKNOWN
            return
        plan.lower_bound = min(lower, plan.rolls_needed)
        plan.status = OPTIMAL if plan.rolls_needed == plan.lower_bound else FEASIBLE


def plan_team(mission: Mission, players: int, seed: int | None = None, difficulty: str = "normal",
              rolls: list[Roll] | None = None, time_limit: float = 60.0, workers: int = 2,
              progress=None, prefix: list[list[Move]] | None = None,
              known: list[list[Move]] | None = None) -> TeamPlan:
    """The fewest rolls in which the team wins the mission on these dice (seeded by default).

    The heuristic bots' game on the same dice first (a plan if they win, else a hint), then
    the relaxation's lower bound B (relaxation_bound, at most RELAX_SHARE of the time). Then
    feasibility checks at T = B, 2B, 4B, ... (each gets GALLOP_SHARE of the time left) until
    one is not proven infeasible, then one earliest-win optimisation (add_earliest_win) over
    the rolls from the proven bound up to the best plan found (or the budget), hinted with
    that plan or the bots' moves, with all the time left. Ctrl-C stops the search and
    returns what was found so far, marked ``interrupted``. Every plan returned has passed
    ``validate_team_plan`` (the steps: TeamSearch).

    ``prefix``: the moves of the first rolls as they were played (per roll per player); the
    plan continues from there (its ``moves`` include them, ``rolls_needed`` counts from roll
    1). ``known``: a winning plan already known (e.g. the rest of a recorded game that was
    won), validated and kept unless a better one is found; with it, the rolls after its win
    may be missing (they are never looked at).
    """
    t0 = time.monotonic()
    budget = coop_game(mission, difficulty, players).roll_limit  # checks players and difficulty
    board = load_board(mission.board)
    if rolls is None:
        if seed is None:
            raise SolverError("give a seed or the rolls")
        dice = 2 if players == 1 else 3
        rolls = [seeded_roll(seed, i, dice) for i in range(budget)]
    prefix = [list(row) for row in prefix or []]
    if len(rolls) < budget and not (known and len(known) <= len(rolls)):
        raise SolverError(f"{len(rolls)} roll(s) given, the budget is {budget}")
    horizon = min(budget, len(rolls))
    plan = TeamPlan(mission.id, players, difficulty, budget, seed, list(rolls[:horizon]), UNKNOWN, None, 1)
    plan.given = len(prefix)
    run = TeamSearch(mission, players, difficulty, board, rolls, plan, time_limit, workers, progress, prefix, t0)
    if prefix:
        game = replay_team(mission, difficulty, rolls, prefix)
        result = mission_result(mission, game)
        if game.is_terminal():  # the prefix already won or spent the budget
            if result.won:
                plan.moves, plan.rolls_needed = prefix[:result.won_on], result.won_on
                plan.lower_bound, plan.status = result.won_on, OPTIMAL
            else:
                plan.lower_bound, plan.status = budget + 1, INFEASIBLE
            plan.wall_time = time.monotonic() - t0
            return plan
        run.starts = list(game.sheets)
    with run.stop:
        run.search(known)
    plan.interrupted = run.stop.requested.is_set()
    plan.wall_time = run.elapsed()
    return plan


def describe_status(plan: TeamPlan) -> str:
    """One line that heads the answer: the fewest rolls only when proven, otherwise the best
    plan found and the proven bound, each called what it is."""
    why = "interrupted" if plan.interrupted else "time limit"
    if plan.status == INFEASIBLE:
        return f"budget not enough (proven): no win within {plan.budget} roll(s); {plan.wall_time:.1f}s"
    if plan.status == OPTIMAL:
        return (f"fewest rolls: {plan.rolls_needed} of a budget of {plan.budget}, proven (optimal); "
                f"{plan.wall_time:.1f}s")
    if plan.status == FEASIBLE:
        return (f"best found: {plan.rolls_needed} rolls of a budget of {plan.budget}; no plan can win in fewer "
                f"than {plan.lower_bound} (not proven fewest: {why}); {plan.wall_time:.1f}s")
    stopped = "when interrupted" if plan.interrupted else "within the time limit"
    return (f"unknown: no winning plan found {stopped}; no plan can win in fewer than {plan.lower_bound} "
            f"roll(s); {plan.wall_time:.1f}s")
