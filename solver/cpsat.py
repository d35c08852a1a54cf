"""The clairvoyant solo optimum as a CP-SAT model.

Shape: every roll's candidate placements are enumerated once over the whole sheet
with the engine's placement tables (every connected same-block subset of each (colour,
count) the roll's dice allow, jokers resolved at their cost). One Boolean per (roll,
candidate), at most one per roll (none = pass). Per cell and roll a literal "crossed before
roll t" links the rolls: a chosen candidate must have a cell in the start column or next to
a cell crossed before its roll (anchoring is a constraint, not an enumeration filter, since
the sheet changes). Column, colour and star literals feed the objective (solo: upper values,
colour bonus first value, +1 per unused joker, minus the star penalty per uncrossed star).

Every plan returned here went through nochmal.solver.validate first.
"""

from __future__ import annotations

import heapq
import itertools
import math
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from ortools.sat.python import cp_model, cp_model_helper

from nochmal.bitsets import bit_list, neighbours_of
from nochmal.agents import GreedyAgent
from nochmal.board import COLOURS, Board
from nochmal.choice import Choice
from nochmal.dice import Roll, resolutions
from nochmal.errors import NochmalError
from nochmal.missions.cpsolver import cp_solver
from nochmal.placements import placement_index
from nochmal.sheet import Sheet, score_parts

from nochmal.solver.instance import Instance
from nochmal.solver.interrupt import SigintStop
from nochmal.solver.plan import FEASIBLE, OPTIMAL, UNKNOWN, Plan, Step
from nochmal.solver.validate import new_game, replay, validate

# optional model parts, switchable so benchmarks can measure each (see benchmarks/RESULTS.md)
DEFAULT_FEATURES = frozenset({"reach_prune", "hint", "max_lp"})
ALL_FEATURES = frozenset({"reach_prune", "hint", "bot_hint", "max_lp", "linear_anchor", "reach_cuts",
                          "pass_dominance", "lb_tree", "two_phase", "split_bound", "colour_cases",
                          "bound_probes"})
SPLIT_SHARE = 0.25  # feature "split_bound": the share of the time limit left to split_bound
CASES_SHARE = 0.4  # features "colour_cases", "bound_probes": the share of the time limit for the first, plain run
PROBES_BIAS = 0.5  # feature "bound_probes": where between plan and bound a probe's target lies (0.5: bisection)
PROBE_MIN_TIME = 1.0  # feature "bound_probes": no probe on less time (a CP-SAT run costs ~2 s before it searches)
HINT_BOTS = ("greedy", "heuristic", "hard")  # fast registered bots tried by "bot_hint"


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


def anchor_distance(board: Board, start: Sheet) -> list[int]:
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
    cannot be anchored in time (anchor_distance > cells crossable before the roll) is dropped."""
    index = placement_index(board, False)
    dist = anchor_distance(board, start) if prune else None
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
            cands = [c for c in cands if min_distance(c.mask, dist) <= before]
        cands.sort(key=lambda c: (c.cost, -c.count, c.mask, c.colour_face, c.number_face))
        out.append(cands)
        before += caps[t]
    return out


def enumerate_candidates(instance: Instance, prune: bool = True) -> list[list[Choice]]:
    """The solo candidates of an instance (roll_candidates, cheapest dice pair per mask)."""
    start = instance.start_sheet()
    return roll_candidates(instance.board, start, instance.rolls, start.jokers_left, prune)


def min_distance(mask: int, dist: list[int]) -> int:
    """The smallest ``dist`` of the cells in ``mask``."""
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
    colours_done: list = field(default_factory=list)  # the colour bonus literals of pm.completions (colour_case_search)
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


def add_anchoring(pm: PlannerModel) -> None:
    """A chosen candidate touches the start column / the start sheet's crosses, or has a
    neighbour crossed before its roll. Candidates that can never be anchored are fixed off."""
    m = pm.model
    board = pm.board
    start = pm.start
    fixed_off = 0
    for t, cands in enumerate(pm.candidates):
        for k, c in enumerate(cands):
            if c.mask & start.anchored:
                continue
            ring = neighbours_of(c.mask, board.neighbour_mask) & ~c.mask & ~start.crossed
            lits = [pm.crossed_before[j, t] for j in bit_list(ring) if (j, t) in pm.crossed_before]
            if lits and "linear_anchor" in pm.features:
                m.Add(sum(lits) >= pm.x[t][k])
            elif lits:
                m.AddBoolOr(lits).OnlyEnforceIf(pm.x[t][k])
            else:
                m.Add(pm.x[t][k] == 0)
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


def add_reach_cuts(pm: PlannerModel) -> None:
    """Redundant: reaching column distance d from the start column needs a cross in every
    column in between first (the crossed cells form paths from the start column).

    reach[side, j, t]: some cell at column distance j on that side was crossed before roll
    t; it implies reach[side, j-1, t], is covered by those cells' literals, and a candidate
    whose nearest cell is at distance d needs reach[side, d-1, t]. A side whose start sheet
    already has crosses away from the start column is left out (its crosses may be sources).
    """
    m = pm.model
    board = pm.board
    start = pm.start
    h = board.start_column
    col_of = [board.index_of_bit[bit] % board.cols for bit in range(board.n_cells)]
    reach: dict[tuple[int, int, int], object] = {}
    h_started = bool(start.crossed & board.start_mask)

    def side_ok(side: int) -> bool:
        cols = range(h + side, board.cols if side > 0 else -1, side)
        return not any(start.crossed & board.column_mask[c] for c in cols)

    def lit(side: int, j: int, t: int):
        key = (side, j, t)
        if key in reach:
            return reach[key]
        if j == 0 and h_started:
            reach[key] = 1
            return 1
        c = h + side * j
        cells = [pm.crossed_before[bit, t] for bit in bit_list(board.column_mask[c])
                 if (bit, t) in pm.crossed_before]
        if not cells:
            reach[key] = 0
            return 0
        v = m.NewBoolVar(f"reach{side}_{j}_{t}")
        m.Add(v <= sum(cells))
        m.AddBoolOr(cells).OnlyEnforceIf(v)
        if j > 0:
            prev = lit(side, j - 1, t)
            if isinstance(prev, int):
                if prev == 0:
                    m.Add(v == 0)
            else:
                m.AddImplication(v, prev)
        reach[key] = v
        return v

    ok = {s: side_ok(s) for s in (-1, 1)}
    cuts = 0
    for t, cands in enumerate(pm.candidates):
        for k, c in enumerate(cands):
            if c.mask & start.anchored:
                continue
            cols = [col_of[bit] for bit in bit_list(c.mask)]
            side = 1 if cols[0] > h else -1
            if not ok[side]:
                continue
            d = min(abs(x - h) for x in cols)
            need = lit(side, d - 1, t)
            if isinstance(need, int):
                if need == 0:
                    m.Add(pm.x[t][k] == 0)
                continue
            m.AddImplication(pm.x[t][k], need)
            cuts += 1
    pm.stats["reach_cuts"] = cuts


def add_pass_dominance(pm: PlannerModel) -> None:
    """Symmetry breaking: a plan that passes on roll t and plays c on roll t+1, where roll t
    could have played the same cells at no higher joker cost, is no better than playing c on
    roll t and passing on t+1 (same crosses before every later roll, c anchored at t since
    nothing was crossed in between). So such a c at t+1 requires that roll t does not pass."""
    m = pm.model
    added = 0
    for t in range(len(pm.candidates) - 1):
        here = {c.mask: c.cost for c in pm.candidates[t]}
        row = pm.x[t]
        for k, c in enumerate(pm.candidates[t + 1]):
            cost = here.get(c.mask)
            if cost is not None and cost <= c.cost:
                m.Add(sum(row) >= pm.x[t + 1][k])
                added += 1
    pm.stats["pass_dominance"] = added


def build_model(instance: Instance, features: frozenset = DEFAULT_FEATURES) -> PlannerModel:
    """The whole model from small builders; ``features`` switches the optional parts."""
    check_supported(instance)
    cands = enumerate_candidates(instance, prune="reach_prune" in features)
    pm = PlannerModel(instance.board, instance.start_sheet(), cp_model.CpModel(), cands, [], {}, {},
                      features=features)
    add_choice_vars(pm)
    add_cell_timeline(pm)
    add_anchoring(pm)
    if "reach_cuts" in features:
        add_reach_cuts(pm)
    if "pass_dominance" in features:
        add_pass_dominance(pm)
    add_objective(pm)
    pm.stats["candidates"] = sum(len(c) for c in cands)
    return pm


# --- a dedicated bound: the LP relaxation split on the completion literals ----------------------
def lp_relaxation(model: cp_model.CpModel):
    """The model's LP relaxation (GLOP): every variable continuous within its domain, each
    constraint as its linear form (a clause as sum >= 1, an implication as lit <= lit, a
    domain with holes as its hull: only ever looser). Returns the solver, its variables by
    proto index, and a function giving the model objective of the last solve."""
    from ortools.linear_solver import pywraplp

    proto = model.Proto()
    lp = pywraplp.Solver.CreateSolver("GLOP")
    v = [lp.NumVar(var.domain[0], var.domain[len(var.domain) - 1], "") for var in proto.variables]

    def lit(ref: int):
        return v[ref] if ref >= 0 else 1 - v[-ref - 1]

    for c in proto.constraints:
        enforced = [lit(e) for e in c.enforcement_literal]
        if c.has_linear() and not enforced:
            expr = sum(co * v[i] for i, co in zip(c.linear.vars, c.linear.coeffs))
            lo, hi = c.linear.domain[0], c.linear.domain[len(c.linear.domain) - 1]
            if lo > cp_model.INT_MIN:
                lp.Add(expr >= lo)
            if hi < cp_model.INT_MAX:
                lp.Add(expr <= hi)
        elif c.has_bool_or():
            lp.Add(sum(lit(r) for r in c.bool_or.literals) + sum(1 - e for e in enforced) >= 1)
        elif c.has_bool_and():
            for r in c.bool_and.literals:
                for e in enforced:
                    lp.Add(lit(r) >= e)
        elif c.has_at_most_one():
            lp.Add(sum(lit(r) for r in c.at_most_one.literals) <= 1)
        else:
            raise SolverError("lp_relaxation: a constraint kind the planner's models do not use")
    obj = proto.objective
    lp.Minimize(sum(co * v[i] for i, co in zip(obj.vars, obj.coeffs)))
    scale = obj.scaling_factor or 1  # Maximize is stored as minimising the negation, scaled by -1
    return lp, v, lambda: (lp.Objective().Value() + obj.offset) * scale


def split_bound(pm: PlannerModel, target: int, time_limit: float) -> tuple[int, dict]:
    """A proven upper bound on the model's optimum: best-first branch and bound on the
    completion literals (``pm.completions``, the most points at stake first) over the LP
    relaxation. A node whose LP value rounds down to at most ``target`` (a plan's score)
    is closed; the bound is the largest open node's, at least ``target``. Why: the LP is
    weak mostly because every colour and column sits near 0.87 complete; fixing which are
    complete cuts it far down (benchmarks/RESULTS.md). Ctrl-C ends it with the bound so far.
    Stats: the root LP, nodes solved, nodes left open, seconds."""
    from ortools.linear_solver import pywraplp

    t0 = time.monotonic()
    lp, v, value = lp_relaxation(pm.model)
    lits = [(v[var.Index()], w) for var, w in pm.completions]
    tol = 1e-3  # GLOP's tolerances: a value this close below an integer still counts as it

    def relax(fixed: dict[int, int]):
        for i, (var, _) in enumerate(lits):
            var.SetBounds(fixed.get(i, 0), fixed.get(i, 1))
        if lp.Solve() != pywraplp.Solver.OPTIMAL:
            return None, None  # infeasible: no plan in this node
        return math.floor(value() + tol), [var.solution_value() for var, _ in lits]

    root, sol = relax({})
    tick = itertools.count(1)  # heap tie-break: dicts do not compare
    heap = [] if root is None or root <= target else [(-root, 0, {}, sol)]
    leaves, nodes = [], 1  # nodes: LPs solved
    with SigintStop() as stop:
        while heap and time.monotonic() - t0 < time_limit and not stop.requested.is_set():
            neg, _, fixed, sol = heapq.heappop(heap)
            frac = [(w * min(x, 1 - x), i) for i, ((_, w), x) in enumerate(zip(lits, sol))
                    if i not in fixed and 1e-6 < x < 1 - 1e-6]
            if not frac:
                leaves.append(-neg)  # every completion literal integral: nothing left to split
                continue
            i = max(frac)[1]
            children = []
            for val in (1, 0):
                if children and time.monotonic() - t0 >= time_limit:
                    break  # out of time between the two children: the node stays open as it was
                child = {**fixed, i: val}
                ub, child_sol = relax(child)
                nodes += 1
                children.append((ub, child, child_sol))
            if len(children) < 2:
                heapq.heappush(heap, (neg, next(tick), fixed, sol))
                break
            for ub, child, child_sol in children:
                if ub is not None and ub > target:
                    heapq.heappush(heap, (-ub, next(tick), child, child_sol))
    bound = max([target] + leaves + [-h[0] for h in heap])
    return bound, {"root": root, "nodes": nodes, "open": len(heap) + len(leaves),
                   "time": round(time.monotonic() - t0, 2)}


# --- a dedicated search for the proof: the colour cases under a cut ----------------------------
def colour_case_search(instance: Instance, features: frozenset, target: int, time_limit: float, workers: int,
                       progress: Callable[[Progress], None] | None, t0: float, random_seed: int = 0,
                       log: bool = False, known_bound: int | None = None,
                       plan_score: int | None = None) -> tuple[PlannerModel, _Run]:
    """Is there a plan worth more than ``target`` (a plan's score)? The model built again
    with ``objective >= target + 1``, searched by CP-SAT case by case over which colours are
    completed: a fixed search that decides the colour bonus literals first (not completed
    first), then CP-SAT's own choices, with the full LP (linearization 2) in every node.
    Why: the LP's gap comes from the all-or-nothing completions (every colour about 0.87
    complete in the LP, benchmarks/RESULTS.md); with the colours decided the cut closes a
    case by its LP, and the cut keeps the search on plans better than the target (without
    it the same search proves nothing). INFEASIBLE (``infeasible``) proves ``target``
    optimal; a plan found is better than the target. ``known_bound`` (the first run's)
    caps the bounds reported to ``progress``; ``plan_score`` (default ``target``) is the
    best plan known, reported until the cut search finds one (bound_probes' targets lie
    above it)."""
    pm = build_model(instance, features)
    pm.model.Add(pm.objective >= target + 1)
    if pm.colours_done:
        pm.model.AddDecisionStrategy(pm.colours_done, cp_model.CHOOSE_FIRST, cp_model.SELECT_MIN_VALUE)

    def configure(solver: cp_model.CpSolver) -> None:
        if workers >= 2:  # the full-problem worker searches the cases; the other runs LNS
            params = cp_model_helper.SatParameters()  # (subsolver_params.add() cannot be written to)
            params.name = "colour_cases"
            params.search_branching = cp_model.FIXED_SEARCH
            params.linearization_level = 2
            solver.parameters.subsolver_params.append(params)
            solver.parameters.subsolvers.append("colour_cases")
        else:
            solver.parameters.search_branching = cp_model.FIXED_SEARCH
            solver.parameters.linearization_level = 2

    def report(event: Progress) -> None:  # in the whole problem's terms: never a bound above the known one
        bound = event.bound if event.bound is None else max(target, event.bound)
        if known_bound is not None:
            bound = known_bound if bound is None else min(bound, known_bound)
        known = target if plan_score is None else plan_score
        progress(Progress(event.kind, known if event.objective is None else event.objective, bound, event.elapsed))

    run = _run(pm, time_limit, workers, [], report if progress is not None else None, t0, random_seed, log,
               configure=configure)
    return pm, run


def _min_bound(*bounds: int | None) -> int | None:
    known = [b for b in bounds if b is not None]
    return min(known) if known else None


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


def best_bot_steps(instance: Instance) -> list[int | None]:
    """The best of the fast registered bots' plays (a primal hint; bots are not trusted for
    anything else: the model checks the hint like any other assignment)."""
    from nochmal.bots.registry import agent_names, make_agent

    names = [n for n in HINT_BOTS if n in agent_names()]
    best, best_score = None, None
    for name in names:
        masks, score = bot_steps(instance, make_agent(name, 0))
        if best_score is None or score > best_score:
            best, best_score = masks, score
    return best if best is not None else greedy_steps(instance)


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


def complete_hint(pm: PlannerModel, chosen: list[int | None], time_limit: float = 5.0) -> bool:
    """Replace the model's hint by a complete one: every variable's value in the best
    solution with the choices fixed to ``chosen`` (candidate index per roll, None: pass),
    found by a short solve of a copy (the choices fix nearly everything by propagation). A partial hint leaves CP-SAT
    to complete it, which on the race model (solver/race.py) failed: its first solution
    scored far below the hinted play. False, and the hint left as it was, if the copy
    finds no solution in time (the caller keeps its own fallback)."""
    chosen = list(chosen) + [None] * (len(pm.x) - len(chosen))
    copy = pm.model.Clone()
    copy.ClearHints()
    for t, row in enumerate(pm.x):
        for k, var in enumerate(row):
            copy.Add(copy.GetBoolVarFromProtoIndex(var.Index()) == (1 if chosen[t] == k else 0))
    # the objective stays: one-sided literals (all_crossed) go true; Ctrl-C is the caller's (solver/interrupt.py)
    solver = cp_solver(time_limit, 1, catch_sigint=False)
    if solver.Solve(copy) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
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
class _Run:
    """What one CP-SAT run returned."""

    chosen: list[int | None]
    objective: int | None
    bound: int | None
    optimal: bool
    interrupted: bool
    note: str
    infeasible: bool = False  # CP-SAT proved the model has no solution (colour_case_search's cut)
    search_bound: float | None = None  # CP-SAT's bound even without a solution (the cut model's)


def _run(pm: PlannerModel, time_limit: float, workers: int, subsolvers: list[str],
         progress: Callable[[Progress], None] | None, t0: float, random_seed: int, log: bool,
         configure: Callable[[cp_model.CpSolver], None] | None = None) -> _Run:
    """One CP-SAT run on a built model; SIGINT stops it and keeps the best assignment.
    ``configure`` sets further solver parameters (colour_case_search)."""
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
    return _Run(chosen, objective, bound, status == cp_model.OPTIMAL, interrupted, note,
                status == cp_model.INFEASIBLE, search_bound if math.isfinite(search_bound) else None)


def _masks(pm: PlannerModel, chosen: list[int | None]) -> list[int | None]:
    return [None if k is None else pm.candidates[t][k].mask for t, k in enumerate(chosen)]


def solve(instance: Instance, time_limit: float = 60.0, workers: int = 2,
          progress: Callable[[Progress], None] | None = None,
          features: frozenset = DEFAULT_FEATURES, hint: list[int | None] | None = None,
          random_seed: int = 0, log: bool = False) -> Plan:
    """The best plan found within ``time_limit`` seconds, validated, with its status.

    Ctrl-C (SIGINT) stops the search and returns the best plan so far, marked not proven
    (``interrupted``; status feasible with the bound reached, or unknown).

    Feature ``split_bound``: the last quarter of the time (SPLIT_SHARE) goes to split_bound
    when CP-SAT did not prove its plan, and the smaller bound is kept.

    Feature ``colour_cases``: the first run gets 40 % of the time (CASES_SHARE); if it
    did not prove its plan, the rest goes to colour_case_search above that plan's score
    (better plan kept, smaller bound kept; no plan above it proves the plan optimal).

    Feature ``bound_probes``: as ``colour_cases``, but the rest of the time goes to probes
    of targets T between the plan and the bound (_bound_probes_phase); takes precedence.

    Feature ``two_phase``: half the time with the max_lp worker (good plans), then, if not
    proven, the rest with a best-bound tree search (``lb_tree_search``) hinted with the
    first plan (or the greedy hint when the first phase found none) and capped by the first
    bound; the better plan and the lower bound are kept.

    The plan returned is never worse than the hint (greedy by default): when the search
    returns nothing better in time, the hint is the plan.
    """
    t0 = time.monotonic()
    pm = build_model(instance, features)
    if hint is None and "bot_hint" in features:
        hint = best_bot_steps(instance)
    elif hint is None and "hint" in features:
        hint = greedy_steps(instance)
    hinted = add_hint(pm, hint) if hint is not None else None
    if "lb_tree" in features:
        subsolvers = ["lb_tree_search", "max_lp"]
    elif "max_lp" in features:
        # the default 2-worker portfolio keeps only a tiny LP (presolve turns the model
        # into clauses); a full-problem max_lp worker (full linearization) proves far more
        subsolvers = ["max_lp", "default_lp"]
    else:
        subsolvers = []
    remaining = time_limit - (time.monotonic() - t0)
    two_phase = "two_phase" in features and workers == 2
    share = (0.5 if two_phase else CASES_SHARE if features & {"colour_cases", "bound_probes"}
             else 1.0 - SPLIT_SHARE if "split_bound" in features else 1.0)
    run = _run(pm, remaining * share, workers, subsolvers, progress, t0, random_seed, log)
    notes = [run.note]
    if two_phase and not run.optimal and not run.interrupted and (run.objective is not None or hinted):
        pm2 = build_model(instance, features)
        add_hint(pm2, _masks(pm, run.chosen if run.objective is not None else hinted))
        if run.bound is not None:
            pm2.model.Add(pm2.objective <= run.bound)
        remaining = time_limit - (time.monotonic() - t0)
        run2 = _run(pm2, remaining, workers, ["lb_tree_search", "max_lp"], progress, t0, random_seed, log)
        notes.append("phase 2: " + run2.note)
        bounds = [b for b in (run.bound, run2.bound) if b is not None]
        bound = min(bounds) if bounds else None
        if run2.optimal:
            bound = run2.objective
        if run2.objective is not None and (run.objective is None or run2.objective > run.objective):
            pm, run = pm2, _Run(run2.chosen, run2.objective, bound, False, run2.interrupted, "")
        else:
            run = _Run(run.chosen, run.objective, bound, False, run2.interrupted, "")
    if hinted is not None:
        hint_total = _engine_score(instance, plan_from_choice(instance, pm, hinted))
        if run.objective is None or run.objective < hint_total:  # never worse than the hint
            notes.append(f"the hint ({hint_total}) kept: the search returned "
                         + ("no plan" if run.objective is None else f"only {run.objective}"))
            run = _Run(hinted, hint_total, run.bound, False, run.interrupted, "")
    if "bound_probes" in features and not run.optimal and not run.interrupted and run.objective is not None:
        pm, run, note = _bound_probes_phase(instance, features, pm, run, t0 + time_limit, workers, progress, t0,
                                            random_seed, log)
        notes.append(note)
    elif "colour_cases" in features and not run.optimal and not run.interrupted and run.objective is not None:
        pm, run, note = _colour_cases_phase(instance, features, pm, run, time_limit - (time.monotonic() - t0),
                                            workers, progress, t0, random_seed, log)
        notes.append(note)
    elif "split_bound" in features and not run.optimal and not run.interrupted and run.objective is not None:
        split, stats = split_bound(pm, run.objective, time_limit - (time.monotonic() - t0))
        notes.append(f"split bound {split} (root LP {stats['root']}, {stats['nodes']} LPs, {stats['open']} open)")
        if run.bound is None or split < run.bound:
            run = _Run(run.chosen, run.objective, split, False, run.interrupted, "")
            if progress is not None:
                progress(Progress("bound", run.objective, split, time.monotonic() - t0))
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


def _colour_cases_phase(instance: Instance, features: frozenset, pm: PlannerModel, run: _Run, time_limit: float,
                        workers: int, progress: Callable[[Progress], None] | None, t0: float, random_seed: int,
                        log: bool) -> tuple[PlannerModel, _Run, str]:
    """Feature "colour_cases": the rest of the time to colour_case_search with the first
    run's plan as target; the better plan, the smaller bound (the cut run's bound counts
    for plans above the target only, so it is at least the target)."""
    with SigintStop() as stop:  # a press while the model is built stops the search at once
        pm2, run2 = colour_case_search(instance, features, run.objective, time_limit, workers, progress, t0,
                                       random_seed, log, run.bound)
        interrupted = stop.interrupted
    if run2.objective is not None and run2.objective > run.objective:
        bound = run2.objective if run2.optimal else _min_bound(run.bound, run2.bound)
        note = f"colour cases: a better plan ({run2.objective}), {run2.note}"
        return pm2, _Run(run2.chosen, run2.objective, bound, run2.optimal, interrupted, ""), note
    if run2.infeasible:
        bound = run.objective
    elif _cut_bound(run2, run.objective) is not None:
        bound = _min_bound(run.bound, _cut_bound(run2, run.objective))
    else:
        bound = run.bound
    note = (f"colour cases: {'no plan above' if run2.infeasible else 'open above'} {run.objective}, {run2.note}")
    return pm, _Run(run.chosen, run.objective, bound, bound == run.objective, interrupted, ""), note


def _cut_bound(run: _Run, target: int) -> int | None:
    """The bound of a cut run (colour_case_search above ``target``) that timed out, None when
    CP-SAT has none: stopped before presolve it reports 0, below its own cut (a throwaway
    check on a SMALL instance of tests/test_planner_cases.py: 0.0 at a time limit of 0). A
    bound of exactly 0 is never taken: for a plan worth -1 or less it is at least target + 1
    and looked real (tests/test_planner_probes.py, seed 4, a plan worth -1 got the bound 0)."""
    if run.search_bound is None or run.search_bound < target + 1 or run.search_bound == 0.0:
        return None
    return math.floor(run.search_bound + 1e-6)


def _bound_probes_phase(instance: Instance, features: frozenset, pm: PlannerModel, run: _Run, deadline: float,
                        workers: int, progress: Callable[[Progress], None] | None, t0: float, random_seed: int,
                        log: bool) -> tuple[PlannerModel, _Run, str]:
    """Feature "bound_probes": narrow the gap between the plan P and the bound B by probes
    "a plan worth at least T?" (colour_case_search with target T - 1), T from P + 1 up to
    B, PROBES_BIAS of the way (bisection), each on the remaining time over the probes a
    bisection still needs. Why: a T above the optimum comes back infeasible in seconds and
    proves B = T - 1 without the optimal plan (benchmarks/RESULTS.md, "colour cases"); a
    plan found raises P (the optimum, when proven within the cut model). After the first
    probe out of time (its cut model's bound still counts for plans from T on) the rest goes
    to probes at P + 1, which find better plans (colour_cases' search). The model is built
    per probe: build_model costs ~0.1 s on 30 rolls (CpModel.clone 0.003 s), against ~2 s
    of CP-SAT presolve per probe."""
    best_pm, chosen, plan, bound = pm, run.chosen, run.objective, run.bound
    climb = bound is None  # probes at P + 1 only
    probes = []
    with SigintStop() as stop:  # a press while a model is built stops the search at once
        while not stop.interrupted and (bound is None or bound > plan):
            remaining = deadline - time.monotonic()
            if remaining < PROBE_MIN_TIME:
                break
            target = plan + 1 if climb else plan + 1 + int(PROBES_BIAS * (bound - plan - 1))
            needed = 1 if climb else max(1, math.ceil(math.log2(bound - plan + 1)))
            pm2, r = colour_case_search(instance, features, target - 1, remaining / needed, workers, progress, t0,
                                        random_seed, log, bound, plan)
            if r.objective is not None and r.objective >= target:
                best_pm, chosen, plan = pm2, r.chosen, r.objective
                bound = plan if r.optimal else _min_bound(bound, r.bound)
                probes.append(f">={target}: {plan}{' proven' if r.optimal else ''}")
            elif r.infeasible:
                bound = target - 1
                probes.append(f">={target}: none")
            else:
                bound = _min_bound(bound, _cut_bound(r, target - 1))  # plans below T: at most T - 1 < bound
                climb = True
                probes.append(f">={target}: open")
            if progress is not None:
                progress(Progress("bound", plan, bound, time.monotonic() - t0))
        interrupted = stop.interrupted
    note = f"bound probes: {', '.join(probes) or 'none'}"
    return best_pm, _Run(chosen, plan, bound, bound == plan, interrupted, ""), note


def _engine_score(instance: Instance, steps: list[Step]) -> int:
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
