"""Team planning for co-op missions: the fewest rolls in which the team can win with perfect
coordination on known dice, or a proof that the roll budget is not enough.

Feasibility model "all objectives hold after exactly T rolls" (CP-SAT), per player the solo
planner's building blocks (nochmal.solver.cpsat: one Boolean per (roll, candidate), the cell
timeline, anchoring through "crossed before roll t" literals). Candidates are enumerated
with the engine's placement tables per *dice pair* (colour face, number face), since in the
co-op dice flow it matters which dice a player takes:

- rolls 1-3 (and every roll with one player): everybody picks from all the dice;
- later rolls: the active player (roll index % n) picks a pair or passes; the passive
  players pick from the remaining dice, or from all of them after an active pass. A face
  showing on only one die is unavailable to a passive player when the active player took it.

Objectives come from the mission data (missions.objectives' own item lists); whether a plan
really wins is decided only by replaying it through the engine's co-op Game and
``mission_result`` (``validate_team_plan``, which knows nothing of the model).

Search over T: winnable by T implies winnable by T+1 (pass; objectives never get undone by a
pass), so T is binary-searched between a proven lower bound and the budget.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from nochmal.bitsets import bit_list
from nochmal.board import COLOURS, Board, load_board
from nochmal.dice import COLOUR_JOKER, NUMBER_JOKER, Roll, resolutions, seeded_roll
from nochmal.errors import NochmalError
from nochmal.game import FREE_ROLLS
from nochmal.missions.coop import coop_game, mission_result
from nochmal.missions.model import Mission
from nochmal.missions.objectives import all_met, items_needed, objective_items
from nochmal.move import PASS, Move
from nochmal.placements import placement_index
from nochmal.sheet import Sheet
from nochmal.solver.cpsat import (min_distance, Candidate, PlannerModel, SolverError, add_anchoring, add_cell_timeline,
                                  add_choice_vars, anchor_distance)
from nochmal.solver.instance import Instance
from nochmal.solver.interrupt import SigintStop

OPTIMAL = "optimal"  # fewest rolls found and every smaller count proven impossible
FEASIBLE = "feasible"  # a win found, smaller counts not all proven impossible (time limit)
INFEASIBLE = "infeasible"  # proven: the budget is not enough
UNKNOWN = "unknown"  # nothing found, nothing proven (time limit)


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
    solves: list[dict] = field(default_factory=list)  # per tried T: status and seconds

    def to_json(self) -> dict:
        return {
            "mission": self.mission, "players": self.players, "difficulty": self.difficulty,
            "budget": self.budget, "seed": self.seed, "status": self.status,
            "rolls_needed": self.rolls_needed, "lower_bound": self.lower_bound,
            "proven": self.status in (OPTIMAL, INFEASIBLE), "interrupted": self.interrupted,
            "wall_time": round(self.wall_time, 3),
            "plan": [{"roll": t + 1, "dice": self.rolls[t].text(), "active": t % self.players + 1,
                      "moves": [str(m) for m in row]} for t, row in enumerate(self.moves)],
            "solves": self.solves,
        }


def _team_candidates(board: Board, rolls: list[Roll], jokers: int) -> list[list[Candidate]]:
    """Per roll: every (cell mask, colour face, number face) the roll's dice allow on an empty
    sheet, pruned by anchoring distance (cells a player can cross before the roll)."""
    empty = Sheet.empty(board)
    index = placement_index(board, False)
    dist = anchor_distance(board, empty)
    out: list[list[Candidate]] = []
    before = 0
    for t, roll in enumerate(rolls):
        seen: set[tuple[int, str, str]] = set()
        cands = []
        cap = 0
        for cf, nf in roll.pairs():
            for colour, count, cost in resolutions(cf, nf, jokers):
                cap = max(cap, count)
                for mask in index.query(empty.crossed, board.full_mask, colour, count):
                    key = (mask, cf, nf)
                    if key in seen or min_distance(mask, dist) > before:
                        continue
                    seen.add(key)
                    cands.append(Candidate(t, mask, colour, count, cost, cf, nf))
        cands.sort(key=lambda c: (c.cost, -c.count, c.mask, c.colour_face, c.number_face))
        out.append(cands)
        before += cap
    return out


@dataclass
class TeamModel:
    model: cp_model.CpModel
    players: list[PlannerModel]
    rolls: list[Roll]


def build_team_model(board: Board, mission: Mission, rolls: list[Roll], n: int) -> TeamModel:
    """The feasibility model for 'all objectives hold after these rolls'."""
    model = cp_model.CpModel()
    T = len(rolls)
    cands = _team_candidates(board, rolls, board.jokers)
    inst = Instance(board, list(rolls), solo=False)
    pms = []
    for _ in range(n):
        pm = PlannerModel(inst, model, cands, [], {}, {})
        add_choice_vars(pm)
        add_cell_timeline(pm)
        add_anchoring(pm)
        pms.append(pm)
    # jokers per sheet
    spent = []
    for pm in pms:
        terms = [c.cost * pm.x[t][k] for t in range(T) for k, c in enumerate(cands[t]) if c.cost]
        expr = sum(terms) if terms else 0
        if terms:
            model.Add(expr <= board.jokers)
        spent.append(expr)
    # dice availability after the active player's pick
    for t, roll in enumerate(rolls):
        if n == 1 or t < FREE_ROLLS:
            continue
        a = t % n
        single_c = {f for f in roll.colours if roll.colours.count(f) == 1}
        single_n = {f for f in roll.numbers if roll.numbers.count(f) == 1}
        took_c = {f: [v for k, v in enumerate(pms[a].x[t]) if cands[t][k].colour_face == f] for f in single_c}
        took_n = {f: [v for k, v in enumerate(pms[a].x[t]) if cands[t][k].number_face == f] for f in single_n}
        for p in range(n):
            if p == a:
                continue
            for k, c in enumerate(cands[t]):
                for took in (took_c.get(c.colour_face), took_n.get(c.number_face)):
                    if took:
                        model.Add(pms[p].x[t][k] + sum(took) <= 1)
    _add_objectives(model, board, mission, pms, spent, n)
    return TeamModel(model, pms, list(rolls))


def _add_objectives(model: cp_model.CpModel, board: Board, mission: Mission, pms: list[PlannerModel],
                    spent: list, n: int) -> None:
    cache: dict[tuple[int, int], object] = {}

    def done(p: int, mask: int):
        """1 only if every cell of mask is crossed on sheet p at the end (0 when impossible)."""
        key = (p, mask)
        if key in cache:
            return cache[key]
        finals = [pms[p].final.get(bit, 0) for bit in bit_list(mask)]
        if any(isinstance(v, int) for v in finals):
            cache[key] = 0
            return 0
        d = model.NewBoolVar(f"done{p}_{mask}")
        for v in finals:
            model.AddImplication(d, v)
        cache[key] = d
        return d

    def score(p: int):
        terms = [board.column_points_first[c] * done(p, board.column_mask[c]) for c in range(board.cols)]
        terms += [board.colour_bonus_first * done(p, board.colour_mask[c]) for c in COLOURS]
        for bit in bit_list(board.star_mask):
            terms.append(-board.star_penalty * (1 - pms[p].final.get(bit, 0)))
        return sum(terms) + board.jokers - spent[p]

    def at_least(values: list, target: int, scope: str) -> None:
        if scope == "team":
            model.Add(sum(values) >= target)
        elif scope == "each":
            for v in values:
                model.Add(v >= target)
        else:
            picks = [model.NewBoolVar(f"any{p}") for p in range(n)]
            model.AddBoolOr(picks)
            for v, q in zip(values, picks):
                model.Add(v >= target).OnlyEnforceIf(q)

    for obj in mission.objectives:
        if obj.kind == "score":
            at_least([score(p) for p in range(n)], obj.threshold(n), obj.scope)
            continue
        if obj.kind == "jokers_left":
            at_least([board.jokers - spent[p] for p in range(n)], obj.threshold(n), obj.scope)
            continue
        items = objective_items(obj, board)
        need = items_needed(obj, items)
        per = [[done(p, m) for _, m in items] for p in range(n)]
        if obj.scope == "team":
            pooled = []
            for i in range(len(items)):
                lits = [per[p][i] for p in range(n) if not isinstance(per[p][i], int)]
                if not lits:
                    continue
                v = model.NewBoolVar(f"pooled{i}")
                model.AddBoolOr(lits).OnlyEnforceIf(v)
                pooled.append(v)
            model.Add(sum(pooled) >= need)
        else:
            at_least([sum(row) for row in per], need, obj.scope)


def _solve_T(board: Board, mission: Mission, rolls: list[Roll], n: int, time_limit: float,
             workers: int, stop: SigintStop) -> tuple[str, list[list[Move]] | None]:
    """Feasibility at exactly len(rolls) rolls: (status, moves per roll per player).

    Ctrl-C (``stop``) ends the solve early: status unknown unless a plan was already found."""
    tm = build_team_model(board, mission, rolls, n)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = max(1, workers)
    solver.parameters.max_time_in_seconds = max(0.01, time_limit)
    stop.watch(solver)
    try:
        status = solver.Solve(tm.model)
    finally:
        stop.watch(None)
    stop.note_result(solver, status)
    if status == cp_model.INFEASIBLE:
        return INFEASIBLE, None
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return UNKNOWN, None
    moves = []
    for t in range(len(rolls)):
        row = []
        for pm in tm.players:
            k = next((k for k, v in enumerate(pm.x[t]) if solver.BooleanValue(v)), None)
            if k is None:
                row.append(PASS)
            else:
                c = pm.candidates[t][k]
                row.append(Move.of(c.colour, c.count, board.cells_of(c.mask), c.colour_face == COLOUR_JOKER,
                                   c.number_face == NUMBER_JOKER))
        moves.append(row)
    return FEASIBLE, moves


def replay_team(mission: Mission, difficulty: str, rolls: list[Roll], moves: list[list[Move]]):
    """Replay moves through the engine's co-op Game (budget as the roll limit); the game."""
    n = len(moves[0]) if moves else 1
    game = coop_game(mission, difficulty, n)
    for t, row in enumerate(moves):
        if game.is_terminal():
            break
        game.apply_roll(rolls[t])
        while not game.is_terminal() and game.current_player() >= 0:
            game.apply_move(row[game.current_player()])
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


def plan_team(mission: Mission, players: int, seed: int | None = None, difficulty: str = "normal",
              rolls: list[Roll] | None = None, time_limit: float = 60.0, workers: int = 2,
              progress=None) -> TeamPlan:
    """The fewest rolls in which the team wins the mission on these dice (seeded by default).

    Galloping (T = 1, 2, 4, ... up to the budget) until a win is found, then binary search
    below it; each feasibility solve gets a share of the time left (an undecided T is
    skipped, not proven, and the status says so). Ctrl-C stops the search and returns what was
found so far, marked ``interrupted``. Every plan returned has passed ``validate_team_plan``.
    """
    t0 = time.monotonic()
    budget = coop_game(mission, difficulty, players).roll_limit  # checks players and difficulty
    board = load_board(mission.board)
    if rolls is None:
        if seed is None:
            raise SolverError("give a seed or the rolls")
        dice = 2 if players == 1 else 3
        rolls = [seeded_roll(seed, i, dice) for i in range(budget)]
    if len(rolls) < budget:
        raise SolverError(f"{len(rolls)} roll(s) given, the budget is {budget}")
    plan = TeamPlan(mission.id, players, difficulty, budget, seed, list(rolls[:budget]), UNKNOWN, None, 1)
    stop = SigintStop()  # Ctrl-C: stop searching, return the best plan so far (not proven)

    def elapsed() -> float:
        return time.monotonic() - t0

    def out_of_time() -> bool:
        return elapsed() >= time_limit - 0.05 or stop.requested.is_set()

    def attempt(T: int, share: float = 1.0) -> str:
        left = (time_limit - elapsed()) * share  # a share, so one hard T leaves time for others
        if left <= 0.05 or stop.requested.is_set():
            return UNKNOWN
        s0 = time.monotonic()
        status, moves = _solve_T(board, mission, rolls[:T], players, left, workers, stop)
        plan.solves.append({"rolls": T, "status": status, "seconds": round(time.monotonic() - s0, 3)})
        if progress is not None:
            progress(T, status)
        if status == FEASIBLE:
            game = replay_team(mission, difficulty, rolls, moves)
            won_on = mission_result(mission, game).won_on
            if won_on is None:
                raise TeamPlanError(f"the model's plan for {T} rolls does not win when replayed")
            moves = moves[:won_on]  # the objectives may hold earlier than T
            validate_team_plan(mission, difficulty, rolls, moves)
            plan.moves, plan.rolls_needed = moves, won_on
        return status

    def search() -> None:
        """Galloping, then binary search; fills ``plan``."""
        if all_met(mission.objectives, [Sheet.empty(board)] * players):
            moves = [[PASS] * players]  # met before any cross: won at the end of roll 1
            validate_team_plan(mission, difficulty, rolls, moves)
            plan.moves, plan.rolls_needed, plan.status = moves, 1, OPTIMAL
            return
        proven_lo = 0  # every T <= proven_lo is infeasible
        search_lo = 0  # below the next T to try (proven or not)
        T = 1
        while plan.rolls_needed is None:  # galloping: 1, 2, 4, ... up to the budget
            status = attempt(T, 1.0 if T == budget else 0.4)
            if status == FEASIBLE:
                break
            if status == INFEASIBLE:  # monotone: no smaller T wins either
                proven_lo = T
            search_lo = T
            if T == budget or out_of_time():
                break
            T = min(budget, 2 * T)
        if plan.rolls_needed is None:
            plan.lower_bound = proven_lo + 1
            plan.status = INFEASIBLE if proven_lo == budget else UNKNOWN
            return
        while plan.rolls_needed - search_lo > 1:  # binary search below the best plan
            mid = (search_lo + plan.rolls_needed) // 2
            status = attempt(mid, 0.5)
            if status == INFEASIBLE:
                proven_lo = search_lo = mid
            elif status == UNKNOWN:
                if out_of_time():
                    break
                search_lo = mid  # not proven: keep looking for better plans above it
        plan.lower_bound = proven_lo + 1
        plan.status = OPTIMAL if plan.rolls_needed == proven_lo + 1 else FEASIBLE

    with stop:
        search()
    plan.interrupted = stop.requested.is_set()
    plan.wall_time = elapsed()
    return plan


def describe_status(plan: TeamPlan) -> str:
    """One line: the fewest rolls and whether it is proven."""
    why = "interrupted" if plan.interrupted else "time limit"
    if plan.status == INFEASIBLE:
        return f"budget not enough (proven): no win within {plan.budget} roll(s); {plan.wall_time:.1f}s"
    if plan.status == OPTIMAL:
        return f"optimal: won on roll {plan.rolls_needed} of {plan.budget}, proven fewest; {plan.wall_time:.1f}s"
    if plan.status == FEASIBLE:
        return (f"feasible: won on roll {plan.rolls_needed} of {plan.budget}, not proven fewest "
                f"(proven lower bound {plan.lower_bound}; {why}); {plan.wall_time:.1f}s")
    return (f"unknown: no winning plan found and no proof ({why}) "
            f"(proven lower bound {plan.lower_bound}); {plan.wall_time:.1f}s")
