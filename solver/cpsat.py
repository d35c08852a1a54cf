"""The clairvoyant solo optimum as a CP-SAT model.

Shape: every roll's candidate placements are enumerated once over the whole sheet
with the engine's placement tables (every connected same-block subset of each (colour,
count) the roll's dice allow, jokers resolved at their cost). One Boolean per (roll,
candidate), at most one per roll (none = pass). Per cell and roll a literal "crossed before
roll t" links the rolls: a chosen candidate must have a cell in the start column or next to
a cell crossed before its roll (anchoring is a constraint, not an enumeration filter, since
the sheet changes). Column, colour and star literals feed the objective (solo: upper values,
colour bonus first value, +1 per unused joker, minus the star penalty per uncrossed star).

Every plan returned here went through nochmal.solver.validate first. The model and the search
are what ships (DEFAULT_FEATURES); the variants measured by the benchmarks (further cuts, a
split LP bound, colour cases, bound probes, two phases) live in nochmal.solver.experiments.
"""

from __future__ import annotations

import heapq
import math
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from ortools.sat.python import cp_model

from nochmal.bitsets import bit_list, neighbours_of
from nochmal.agents import GreedyAgent
from nochmal.board import COLOURS, Board
from nochmal.choice import Choice
from nochmal.dice import Roll, resolutions
from nochmal.errors import NochmalError
from nochmal.missions.cpsolver import Deadline, cp_solver
from nochmal.placements import placement_index
from nochmal.sheet import Sheet, score_parts

from nochmal.solver.instance import Instance
from nochmal.solver.interrupt import SigintStop
from nochmal.solver.plan import FEASIBLE, OPTIMAL, UNKNOWN, Plan, Step
from nochmal.solver.validate import new_game, replay, validate

# the optional model parts that ship (the others: nochmal.solver.experiments.ALL_FEATURES,
# measured in docs/figures.md): candidates pruned by reach, the greedy hint, a max_lp worker
DEFAULT_FEATURES = frozenset({"reach_prune", "hint", "max_lp"})


class SolverError(NochmalError):
    """The planner cannot handle this instance (e.g. an unsupported rule option)."""


@dataclass
class Progress:
    """A progress event: a better plan or a better bound."""

    kind: str  # "solution" | "bound"
    objective: int | None
    bound: int | None
    elapsed: float


# --- checks and static facts -------------------------------------------------------------
def check_supported(instance: Instance) -> None:
    """Reject rule settings the model does not encode, with the reason."""
    if instance.rules.bridging:
        raise SolverError("the planner does not support the 'bridging' rule option (new crosses connecting "
                          "through crossed cells); solve with bridging off")
    if instance.rules.solo_ends_on_second_colour:
        raise SolverError("the planner does not support 'solo_ends_on_second_colour'; solve with it off")
    if not instance.solo:
        raise SolverError("the solo planner needs a solo instance")
    for i, roll in enumerate(instance.rolls, 1):
        if len(roll.colours) != 2 or len(roll.numbers) != 2:
            raise SolverError(f"roll {i} ({roll.text()}) is not a solo roll of 2 + 2 dice")


def anchor_crosses(board: Board, start: Sheet) -> list[int]:
    """Per bit: the fewest new crosses needed *before* a cell can be anchored.

    A crossed cell is always connected through crossed cells to the start column or to the
    start sheet's crosses (every placement is connected and anchored), so a cell outside the
    start column needs a path of crossed cells to one of its neighbours. 0-1 shortest paths:
    start-sheet crosses cost 0, other cells 1. A lower bound used only to prune candidates.
    """
    n = board.n_cells
    big = 10 ** 6
    reach = [big] * n  # fewest new crosses so that this cell is crossed (path incl. itself)
    heap: list[tuple[int, int]] = []
    for bit in range(n):
        if board.start_mask >> bit & 1 or start.crossed >> bit & 1:
            reach[bit] = 0 if start.crossed >> bit & 1 else 1
            heap.append((reach[bit], bit))
    heapq.heapify(heap)
    while heap:
        d, bit = heapq.heappop(heap)
        if d > reach[bit]:
            continue
        nb = board.neighbour_mask[bit]
        while nb:
            low = nb & -nb
            nb ^= low
            j = low.bit_length() - 1
            nd = d + (0 if start.crossed >> j & 1 else 1)
            if nd < reach[j]:
                reach[j] = nd
                heapq.heappush(heap, (nd, j))
    out = []
    for bit in range(n):
        if board.start_mask >> bit & 1:
            out.append(0)
            continue
        nb, best = board.neighbour_mask[bit], big
        while nb:
            low = nb & -nb
            nb ^= low
            best = min(best, reach[low.bit_length() - 1])
        out.append(best)
    return out


def roll_capacity(rolls: list[Roll], jokers_left: int) -> list[int]:
    """Per roll: the most cells it can cross (number joker = 5 while marks remain)."""
    caps = []
    for roll in rolls:
        best = 0
        for cf, nf in roll.pairs():
            for _, count, _ in resolutions(cf, nf, jokers_left):
                best = max(best, count)
        caps.append(best)
    return caps


def roll_candidates(board: Board, start: Sheet, rolls: list[Roll], jokers_left: int, prune: bool = True,
                    per_dice_pair: bool = False) -> list[list[Choice]]:
    """Per roll, the candidates: every cell mask its dice allow on the start sheet's open
    cells, as a placed Choice (nochmal/choice.py). Solo
    (``per_dice_pair`` False): each mask once, with the cheapest dice pair (fewest jokers).
    Co-op (True): each (mask, dice pair) once, since which dice a player takes matters
    there (solver/team.py). Anchoring is left to the model; with ``prune`` a mask that
    cannot be anchored in time (anchor_crosses > cells crossable before the roll) is dropped."""
    index = placement_index(board, False)
    dist = anchor_crosses(board, start) if prune else None
    caps = roll_capacity(rolls, jokers_left)
    out: list[list[Choice]] = []
    before = 0  # most cells crossable before roll t
    for t, roll in enumerate(rolls):
        best: dict[tuple, Choice] = {}
        for cf, nf in roll.pairs():
            for colour, count, cost in resolutions(cf, nf, jokers_left):
                for mask in index.query(start.crossed, board.full_mask, colour, count):
                    key = (mask, cf, nf) if per_dice_pair else mask
                    old = best.get(key)
                    if old is None or cost < old.cost:
                        best[key] = Choice(cf, nf, colour, count, cost, mask)
        cands = list(best.values())
        if prune:
            cands = [c for c in cands if fewest_in(c.mask, dist) <= before]
        cands.sort(key=lambda c: (c.cost, -c.count, c.mask, c.colour_face, c.number_face))
        out.append(cands)
        before += caps[t]
    return out


def enumerate_candidates(instance: Instance, prune: bool = True) -> list[list[Choice]]:
    """The solo candidates of an instance (roll_candidates, cheapest dice pair per mask)."""
    start = instance.start_sheet()
    return roll_candidates(instance.board, start, instance.rolls, start.jokers_left, prune)


def fewest_in(mask: int, dist: list[int]) -> int:
    """The fewest crosses ``dist`` (anchor_crosses) of any cell in ``mask``."""
    best = 10 ** 6
    while mask:
        low = mask & -mask
        mask ^= low
        best = min(best, dist[low.bit_length() - 1])
    return best


# --- the model ----------------------------------------------------------------------------
@dataclass
class PlannerModel:
    """The CP-SAT model plus the maps needed to read a plan back out of a solution: one
    sheet's part (solo: the whole model; co-op: one per player in a shared model)."""

    board: Board
    start: Sheet  # the sheet the rolls start from
    model: cp_model.CpModel
    candidates: list[list[Choice]]  # per roll: the placed choices the model may pick
    x: list[list[cp_model.IntVar]]
    crossed_before: dict[tuple[int, int], cp_model.IntVar]  # (bit, t) -> crossed before roll t
    final: dict[int, cp_model.LinearExprT]  # bit -> crossed at the end (0/1 expression)
    objective: cp_model.LinearExprT = 0
    features: frozenset = DEFAULT_FEATURES
    completions: list = field(default_factory=list)  # (literal, points): the column/colour values the plan may win
    colours_done: list = field(default_factory=list)  # the colour bonus literals of pm.completions (experiments)
    stats: dict = field(default_factory=dict)


def add_choice_vars(pm: PlannerModel) -> None:
    """One Boolean per (roll, candidate); at most one per roll (none = pass)."""
    m = pm.model
    for t, cands in enumerate(pm.candidates):
        row = [m.NewBoolVar(f"x{t}_{k}") for k in range(len(cands))]
        pm.x.append(row)
        if len(row) > 1:
            m.AddAtMostOne(row)


def add_cell_timeline(pm: PlannerModel) -> None:
    """crossed_before[bit, t] for t = 1..T: the cell was crossed in a roll before t.

    Linked by ``before[t] = before[t-1] + (crossed in roll t-1)``; the final value <= 1
    makes every cell crossed at most once. Cells no candidate covers stay constant.
    """
    m = pm.model
    T = len(pm.candidates)
    covering: dict[int, list[list]] = {}
    for t, cands in enumerate(pm.candidates):
        for k, c in enumerate(cands):
            for bit in bit_list(c.mask):
                covering.setdefault(bit, [[] for _ in range(T)])[t].append(pm.x[t][k])
    for bit, per_roll in covering.items():
        prev = None
        for t in range(1, T + 1):
            now = per_roll[t - 1]
            if prev is None and not now:
                continue
            if not now:
                pm.crossed_before[bit, t] = prev
                continue
            var = m.NewBoolVar(f"c{bit}_{t}")
            m.Add(var == (prev if prev is not None else 0) + sum(now))
            pm.crossed_before[bit, t] = var
            prev = var
        pm.final[bit] = prev if prev is not None else 0
    pm.stats["timeline_vars"] = len(pm.crossed_before)


def anchor_literals(pm: PlannerModel):
    """Per candidate the start sheet does not anchor: (roll t, index k, the literals "this
    neighbour was crossed before roll t"; empty: it can never be anchored)."""
    for t, cands in enumerate(pm.candidates):
        for k, c in enumerate(cands):
            if c.mask & pm.start.anchored:
                continue
            ring = neighbours_of(c.mask, pm.board.neighbour_mask) & ~c.mask & ~pm.start.crossed
            yield t, k, [pm.crossed_before[j, t] for j in bit_list(ring) if (j, t) in pm.crossed_before]


def add_anchoring(pm: PlannerModel) -> None:
    """A chosen candidate touches the start column / the start sheet's crosses, or has a
    neighbour crossed before its roll. Candidates that can never be anchored are fixed off."""
    fixed_off = 0
    for t, k, lits in anchor_literals(pm):
        if lits:
            pm.model.AddBoolOr(lits).OnlyEnforceIf(pm.x[t][k])
        else:
            pm.model.Add(pm.x[t][k] == 0)
            fixed_off += 1
    pm.stats["never_anchored"] = fixed_off


def all_crossed(model: cp_model.CpModel, lits: list, name: str):
    """A literal that can be true only when every entry of ``lits`` (literals, or constant
    0/1) is: the constant 0 when one entry is 0, 1 when all are 1, else a new Boolean."""
    if any(isinstance(v, int) and v == 0 for v in lits):
        return 0
    lits = [v for v in lits if not isinstance(v, int)]
    if not lits:
        return 1
    done = model.NewBoolVar(name)
    for v in lits:
        model.AddImplication(done, v)
    return done


def add_objective(pm: PlannerModel) -> None:
    """Solo scoring by the engine's rule (nochmal.sheet.score_parts) on the model's literals:
    a column or colour the start sheet scored keeps its first or later value, one the plan
    completes scores its first value (solo: no race), +1 per joker left, -penalty per star
    left open."""
    m = pm.model
    board = pm.board
    start = pm.start

    def done(mask: int, name: str):
        return all_crossed(m, [1 if start.crossed >> bit & 1 else pm.final.get(bit, 0) for bit in bit_list(mask)],
                           name)

    columns_later = [start.cols_lower >> c & 1 for c in range(board.cols)]
    columns_first = [1 if start.cols_upper >> c & 1 else 0 if columns_later[c] else done(board.column_mask[c], f"col{c}")
                     for c in range(board.cols)]
    colours_later = [start.colours_lower >> i & 1 for i in range(len(COLOURS))]
    colours_first = [1 if start.colours_upper >> i & 1 else 0 if colours_later[i]
                     else done(board.colour_mask[colour], f"colour{colour}") for i, colour in enumerate(COLOURS)]
    spent = [c.cost * pm.x[t][k] for t, cands in enumerate(pm.candidates) for k, c in enumerate(cands) if c.cost]
    if spent:
        m.Add(sum(spent) <= start.jokers_left)
    stars_open = [1 - pm.final.get(bit, 0) for bit in bit_list(board.star_mask & ~start.crossed)]
    parts = score_parts(board, columns_first, colours_first, stars_open, start.jokers_left - sum(spent),
                        columns_later, colours_later)
    pm.colours_done = [v for v in colours_first if not isinstance(v, int)]
    pm.completions = ([(v, board.colour_bonus_first) for v in pm.colours_done]
                      + [(v, board.column_points_first[c]) for c, v in enumerate(columns_first) if not isinstance(v, int)])
    pm.objective = parts.total
    m.Maximize(pm.objective)


def build_model(instance: Instance, prune: bool = True) -> PlannerModel:
    """The whole model from small builders; ``prune``: leave out the candidates that cannot
    be anchored in time (feature "reach_prune")."""
    check_supported(instance)
    cands = enumerate_candidates(instance, prune)
    pm = PlannerModel(instance.board, instance.start_sheet(), cp_model.CpModel(), cands, [], {}, {})
    add_choice_vars(pm)
    add_cell_timeline(pm)
    add_anchoring(pm)
    add_objective(pm)
    pm.stats["candidates"] = sum(len(c) for c in cands)
    return pm


# --- hints and reading plans back -------------------------------------------------------------
def greedy_steps(instance: Instance, agent=None) -> list[int | None]:
    """A bot's play on the instance's rolls (default greedy), as a cell mask or None (pass)."""
    masks, _ = bot_steps(instance, agent or GreedyAgent())
    return masks


def bot_steps(instance: Instance, agent) -> tuple[list[int | None], int]:
    """A bot's play through the engine: masks per roll and the final score."""
    game = new_game(instance)
    out = []
    for roll in instance.rolls:
        game.apply_roll(roll)
        move = agent.choose(game)
        out.append(None if move.is_pass else instance.board.mask_of(move.cells))
        game.apply_move(move)
    return out, game.sheets[0].score()


def add_hint(pm: PlannerModel, masks: list[int | None]) -> list[int | None] | None:
    """Hint a full assignment (one mask or None per roll): the candidate index per roll
    (None: pass), or None without hinting if a mask is not a candidate."""
    chosen = []
    for t, mask in enumerate(masks):
        k = None
        if mask is not None:
            k = next((k for k, c in enumerate(pm.candidates[t]) if c.mask == mask), None)
            if k is None:
                return None
        chosen.append(k)
    hint_choices(pm, chosen)
    return chosen


def hint_choices(pm: PlannerModel, chosen: list[int | None]) -> None:
    """Hint the candidate index per roll (None: pass) and the cell timeline it implies;
    rolls beyond ``chosen`` are hinted as passes."""
    chosen = list(chosen) + [None] * (len(pm.x) - len(chosen))
    for t, row in enumerate(pm.x):
        for k, var in enumerate(row):
            pm.model.AddHint(var, 1 if chosen[t] == k else 0)
    crossed_at: dict[int, int] = {}
    for t, k in enumerate(chosen):
        if k is not None:
            for bit in bit_list(pm.candidates[t][k].mask):
                crossed_at[bit] = t
    seen = set()
    for (bit, t), var in pm.crossed_before.items():
        if var.Index() not in seen:  # a roll without candidates on a cell reuses its literal
            seen.add(var.Index())
            pm.model.AddHint(var, 1 if bit in crossed_at and crossed_at[bit] < t else 0)


def complete_hint(pm: PlannerModel, chosen: list[int | None], time_limit: float | Deadline = 5.0) -> bool:
    """Replace the model's hint by a complete one: every variable's value in the best
    solution with the choices fixed to ``chosen`` (candidate index per roll, None: pass),
    found by a short solve of a copy (the choices fix nearly everything by propagation). A partial hint leaves CP-SAT
    to complete it, which on the race model (solver/race.py) failed: its first solution
    scored far below the hinted play. False, and the hint left as it was, if the copy
    finds no solution in time (the caller keeps its own fallback). ``time_limit``: seconds, or
    a step of the caller's Deadline (missions/cpsolver.py)."""
    chosen = list(chosen) + [None] * (len(pm.x) - len(chosen))
    copy = pm.model.Clone()
    copy.ClearHints()
    for t, row in enumerate(pm.x):
        for k, var in enumerate(row):
            copy.Add(copy.GetBoolVarFromProtoIndex(var.Index()) == (1 if chosen[t] == k else 0))
    # the objective stays: one-sided literals (all_crossed) go true; Ctrl-C is the caller's (solver/interrupt.py)
    deadline = time_limit if isinstance(time_limit, Deadline) else Deadline(time_limit)
    solver, status = deadline.solve(copy, workers=1, catch_sigint=False)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return False
    values = solver.ResponseProto().solution
    pm.model.ClearHints()
    hint = pm.model.Proto().solution_hint
    hint.vars.extend(range(len(values)))
    hint.values.extend(values)
    return True


def read_choices(pm: PlannerModel, value: Callable[[cp_model.IntVar], bool]) -> list[int | None]:
    """The candidate index chosen per roll (None: pass) under ``value`` (a solver's or a
    solution callback's BooleanValue)."""
    return [next((k for k, v in enumerate(row) if value(v)), None) for row in pm.x]


def plan_from_choice(instance: Instance, pm: PlannerModel, chosen: list[int | None]) -> list[Step]:
    steps = []
    board = instance.board
    for t, (roll, k) in enumerate(zip(instance.rolls, chosen)):
        steps.append(Step.of(instance.first_roll + t, roll, None if k is None else pm.candidates[t][k], board))
    return steps


class _Callback(cp_model.CpSolverSolutionCallback):
    """Keeps the best assignment (for Ctrl-C) and reports improvements."""

    def __init__(self, pm: PlannerModel, report: Callable[[Progress], None] | None, t0: float):
        super().__init__()
        self.pm = pm
        self.report = report
        self.t0 = t0
        self.best: list[int | None] | None = None
        self.best_obj: int | None = None
        self.lock = threading.Lock()

    def on_solution_callback(self) -> None:
        chosen = read_choices(self.pm, self.BooleanValue)
        obj = round(self.ObjectiveValue())
        with self.lock:
            self.best, self.best_obj = chosen, obj
        if self.report:
            self.report(Progress("solution", obj, round(self.BestObjectiveBound()), time.monotonic() - self.t0))


@dataclass
class Run:
    """What one CP-SAT run returned."""

    chosen: list[int | None]
    objective: int | None
    bound: int | None
    optimal: bool
    interrupted: bool
    note: str
    infeasible: bool = False  # CP-SAT proved the model has no solution (experiments.colour_case_search's cut)
    search_bound: float | None = None  # CP-SAT's bound even without a solution (the cut model's)


def run_model(pm: PlannerModel, time_limit: float, workers: int, subsolvers: list[str],
              progress: Callable[[Progress], None] | None, t0: float, random_seed: int, log: bool,
              configure: Callable[[cp_model.CpSolver], None] | None = None) -> Run:
    """One CP-SAT run on a built model; SIGINT stops it and keeps the best assignment.
    ``configure`` sets further solver parameters (experiments.colour_case_search)."""
    solver = cp_solver(time_limit, workers, random_seed, log=log)
    if workers == 2 and subsolvers:
        # with 2 workers only the first subsolver runs the full problem; the other worker
        # runs the LNS / local-search portfolio
        solver.parameters.subsolvers.extend(subsolvers)
    if configure is not None:
        configure(solver)
    cb = _Callback(pm, progress, t0)
    if progress is not None:
        solver.best_bound_callback = lambda b: progress(Progress("bound", cb.best_obj, round(b),
                                                                 time.monotonic() - t0))
    with SigintStop() as stop:
        status = stop.solve(solver, pm.model, cb)
        interrupted = stop.interrupted
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        chosen = read_choices(pm, solver.BooleanValue)
        objective = round(solver.ObjectiveValue())
        bound = round(solver.BestObjectiveBound())
    elif cb.best is not None:
        chosen, objective, bound = cb.best, cb.best_obj, None
    else:
        chosen, objective, bound = [None] * len(pm.x), None, None
    note = (f"{pm.stats['candidates']} candidates, {solver.NumBranches()} branches, "
            f"{solver.NumConflicts()} conflicts")
    search_bound = solver.BestObjectiveBound()
    return Run(chosen, objective, bound, status == cp_model.OPTIMAL, interrupted, note,
                status == cp_model.INFEASIBLE, search_bound if math.isfinite(search_bound) else None)


def solve(instance: Instance, time_limit: float = 60.0, workers: int = 2,
          progress: Callable[[Progress], None] | None = None, hint: list[int | None] | None = None,
          random_seed: int = 0, log: bool = False) -> Plan:
    """The best plan found within ``time_limit`` seconds, validated, with its status.

    Ctrl-C (SIGINT) stops the search and returns the best plan so far, marked not proven
    (``interrupted``; status feasible with the bound reached, or unknown).

    The plan returned is never worse than the hint (greedy by default): when the search
    returns nothing better in time, the hint is the plan. Variants with other model parts
    or searches: nochmal.solver.experiments.solve.
    """
    t0 = time.monotonic()
    deadline = Deadline(time_limit)  # building counts on the wall clock; under by_work only the solve's work
    pm = build_model(instance)
    hinted = add_hint(pm, greedy_steps(instance) if hint is None else hint)
    # the default 2-worker portfolio keeps only a tiny LP (presolve turns the model into
    # clauses); a full-problem max_lp worker (full linearization) proves far more
    run = run_model(pm, deadline.left(), workers, ["max_lp", "default_lp"], progress, t0,
                    random_seed, log)
    notes = [run.note]
    run = keep_hint(instance, pm, run, hinted, notes)
    return plan_of_run(instance, pm, run, t0, notes)


def keep_hint(instance: Instance, pm: PlannerModel, run: Run, hinted: list[int | None] | None,
              notes: list[str]) -> Run:
    """The run, or the hint (candidate index per roll) when the run found nothing better:
    a plan is never worse than its hint (a note says so)."""
    if hinted is None:
        return run
    hint_total = engine_score(instance, plan_from_choice(instance, pm, hinted))
    if run.objective is not None and run.objective >= hint_total:
        return run
    notes.append(f"the hint ({hint_total}) kept: the search returned "
                 + ("no plan" if run.objective is None else f"only {run.objective}"))
    return Run(hinted, hint_total, run.bound, False, run.interrupted, "")


def plan_of_run(instance: Instance, pm: PlannerModel, run: Run, t0: float, notes: list[str]) -> Plan:
    """The run's plan, scored by the engine and validated (finish_plan), its notes joined."""
    wall = time.monotonic() - t0
    plan_status = OPTIMAL if run.optimal else (FEASIBLE if run.bound is not None else UNKNOWN)
    steps = plan_from_choice(instance, pm, run.chosen)
    plan = finish_plan(instance, steps, plan_status, run.bound, wall, run.interrupted)
    # a solution short of the optimum may leave a completion literal false with its cells all
    # crossed (all_crossed only implies them): the engine then scores more than the model
    # said, never less (a model that claims more than the engine gives is a bug)
    if run.objective is not None and run.objective > plan.total:
        raise SolverError(f"model objective {run.objective} is above the engine's score {plan.total}")
    plan.note = "; ".join(notes)
    return plan


def engine_score(instance: Instance, steps: list[Step]) -> int:
    """The final score of these steps, replayed through the engine."""
    return replay(instance, Plan(steps, 0, {})).sheets[0].score()


def finish_plan(instance: Instance, steps: list[Step], status: str, bound: int | None, wall: float,
                interrupted: bool = False) -> Plan:
    """Score the steps through the engine, attach the status, validate, return."""
    sheet = replay(instance, Plan(steps, 0, {})).sheets[0]
    breakdown = sheet.score_breakdown().to_dict()
    total = breakdown["total"]
    if bound is not None and bound < total:
        raise SolverError(f"solver bound {bound} is below a plan worth {total}")
    if status == OPTIMAL and bound != total:
        status = FEASIBLE
    if status == FEASIBLE and bound == total:  # e.g. the two phases' bound meets the plan
        status = OPTIMAL
    plan = Plan(steps, total, breakdown, status, bound, round(wall, 3), instance.board.name,
                instance.first_roll, interrupted)
    return validate(instance, plan)
