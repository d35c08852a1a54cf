"""The planner's experimental parts: model variants and searches that the benchmarks measure
(benchmarks/bench_planner.py, bench_proofs.py, probe_*.py; figures in docs/figures.md) and the
shipped planner (nochmal.solver.cpsat, DEFAULT_FEATURES) does not use.

``solve(instance, ..., features)`` is the planner with any set of ALL_FEATURES switched on;
with DEFAULT_FEATURES it does what nochmal.solver.cpsat.solve does. The parts:

- model: ``linear_anchor`` (anchoring as a sum, not a clause), ``reach_cuts``,
  ``pass_dominance`` (symmetry breaking; invalid in a race, solver/race.py);
- hints: ``bot_hint`` (the best of the fast bots' plays instead of the greedy one);
- workers: ``lb_tree`` (a best-bound tree search as the full-problem worker);
- searches after the first run: ``two_phase``, ``split_bound`` (an LP bound split on the
  completion literals), ``colour_cases`` (a case search over the colours under a cut),
  ``bound_probes`` (probes between plan and bound).
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from typing import Callable

from ortools.sat.python import cp_model, cp_model_helper

from nochmal.bitsets import bit_list
from nochmal.solver.cpsat import (DEFAULT_FEATURES, PlannerModel, Progress, Run, SolverError, add_anchoring,
                                  add_cell_timeline, add_choice_vars, add_hint, add_objective, anchor_literals,
                                  bot_steps, check_supported, enumerate_candidates, greedy_steps, keep_hint,
                                  plan_of_run, run_model)
from nochmal.solver.instance import Instance
from nochmal.solver.interrupt import SigintStop
from nochmal.solver.plan import Plan

ALL_FEATURES = frozenset({"reach_prune", "hint", "bot_hint", "max_lp", "linear_anchor", "reach_cuts",
                          "pass_dominance", "lb_tree", "two_phase", "split_bound", "colour_cases",
                          "bound_probes"})
SPLIT_SHARE = 0.25  # feature "split_bound": the share of the time limit left to split_bound
CASES_SHARE = 0.4  # features "colour_cases", "bound_probes": the share of the time limit for the first, plain run
PROBES_BIAS = 0.5  # feature "bound_probes": where between plan and bound a probe's target lies (0.5: bisection)
PROBE_MIN_TIME = 1.0  # feature "bound_probes": no probe on less time (a CP-SAT run costs ~2 s before it searches)
HINT_BOTS = ("greedy", "heuristic", "hard")  # fast registered bots tried by "bot_hint"


# --- model variants ---------------------------------------------------------------------------
def add_linear_anchoring(pm: PlannerModel) -> None:
    """Feature "linear_anchor": nochmal.solver.cpsat.add_anchoring with ``sum(ring) >= x``
    in place of the clause ``x -> or(ring)``."""
    fixed_off = 0
    for t, k, lits in anchor_literals(pm):
        if lits:
            pm.model.Add(sum(lits) >= pm.x[t][k])
        else:
            pm.model.Add(pm.x[t][k] == 0)
            fixed_off += 1
    pm.stats["never_anchored"] = fixed_off


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
    """nochmal.solver.cpsat.build_model with ``features`` switching the optional parts (the
    same model with DEFAULT_FEATURES)."""
    check_supported(instance)
    cands = enumerate_candidates(instance, prune="reach_prune" in features)
    pm = PlannerModel(instance.board, instance.start_sheet(), cp_model.CpModel(), cands, [], {}, {},
                      features=features)
    add_choice_vars(pm)
    add_cell_timeline(pm)
    (add_linear_anchoring if "linear_anchor" in features else add_anchoring)(pm)
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
                       plan_score: int | None = None) -> tuple[PlannerModel, Run]:
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

    run = run_model(pm, time_limit, workers, [], report if progress is not None else None, t0, random_seed, log,
                    configure=configure)
    return pm, run


def _min_bound(*bounds: int | None) -> int | None:
    known = [b for b in bounds if b is not None]
    return min(known) if known else None


# --- hints ------------------------------------------------------------------------------------
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


def _masks(pm: PlannerModel, chosen: list[int | None]) -> list[int | None]:
    return [None if k is None else pm.candidates[t][k].mask for t, k in enumerate(chosen)]


# --- the planner with any features -------------------------------------------------------------
def solve(instance: Instance, time_limit: float = 60.0, workers: int = 2,
          progress: Callable[[Progress], None] | None = None,
          features: frozenset = DEFAULT_FEATURES, hint: list[int | None] | None = None,
          random_seed: int = 0, log: bool = False) -> Plan:
    """nochmal.solver.cpsat.solve with ``features`` switching the model's parts, the hint,
    the workers and the searches after the first run (the same search with DEFAULT_FEATURES).

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
    run = run_model(pm, remaining * share, workers, subsolvers, progress, t0, random_seed, log)
    notes = [run.note]
    if two_phase and not run.optimal and not run.interrupted and (run.objective is not None or hinted):
        pm2 = build_model(instance, features)
        add_hint(pm2, _masks(pm, run.chosen if run.objective is not None else hinted))
        if run.bound is not None:
            pm2.model.Add(pm2.objective <= run.bound)
        remaining = time_limit - (time.monotonic() - t0)
        run2 = run_model(pm2, remaining, workers, ["lb_tree_search", "max_lp"], progress, t0, random_seed, log)
        notes.append("phase 2: " + run2.note)
        bounds = [b for b in (run.bound, run2.bound) if b is not None]
        bound = min(bounds) if bounds else None
        if run2.optimal:
            bound = run2.objective
        if run2.objective is not None and (run.objective is None or run2.objective > run.objective):
            pm, run = pm2, Run(run2.chosen, run2.objective, bound, False, run2.interrupted, "")
        else:
            run = Run(run.chosen, run.objective, bound, False, run2.interrupted, "")
    run = keep_hint(instance, pm, run, hinted, notes)  # never worse than the hint
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
            run = Run(run.chosen, run.objective, split, False, run.interrupted, "")
            if progress is not None:
                progress(Progress("bound", run.objective, split, time.monotonic() - t0))
    return plan_of_run(instance, pm, run, t0, notes)


def _colour_cases_phase(instance: Instance, features: frozenset, pm: PlannerModel, run: Run, time_limit: float,
                        workers: int, progress: Callable[[Progress], None] | None, t0: float, random_seed: int,
                        log: bool) -> tuple[PlannerModel, Run, str]:
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
        return pm2, Run(run2.chosen, run2.objective, bound, run2.optimal, interrupted, ""), note
    if run2.infeasible:
        bound = run.objective
    elif cut_bound(run2, run.objective) is not None:
        bound = _min_bound(run.bound, cut_bound(run2, run.objective))
    else:
        bound = run.bound
    note = (f"colour cases: {'no plan above' if run2.infeasible else 'open above'} {run.objective}, {run2.note}")
    return pm, Run(run.chosen, run.objective, bound, bound == run.objective, interrupted, ""), note


def cut_bound(run: Run, target: int) -> int | None:
    """The bound of a cut run (colour_case_search above ``target``) that timed out, None when
    CP-SAT has none: stopped before presolve it reports 0, below its own cut (a throwaway
    check on a SMALL instance of tests/planner/test_planner_cases.py: 0.0 at a time limit of 0). A
    bound of exactly 0 is never taken: for a plan worth -1 or less it is at least target + 1
    and looked real (tests/planner/test_planner_probes.py, seed 4, a plan worth -1 got the bound 0)."""
    if run.search_bound is None or run.search_bound < target + 1 or run.search_bound == 0.0:
        return None
    return math.floor(run.search_bound + 1e-6)


def _bound_probes_phase(instance: Instance, features: frozenset, pm: PlannerModel, run: Run, deadline: float,
                        workers: int, progress: Callable[[Progress], None] | None, t0: float, random_seed: int,
                        log: bool) -> tuple[PlannerModel, Run, str]:
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
                bound = _min_bound(bound, cut_bound(r, target - 1))  # plans below T: at most T - 1 < bound
                climb = True
                probes.append(f">={target}: open")
            if progress is not None:
                progress(Progress("bound", plan, bound, time.monotonic() - t0))
        interrupted = stop.interrupted
    note = f"bound probes: {', '.join(probes) or 'none'}"
    return best_pm, Run(chosen, plan, bound, bound == plan, interrupted, ""), note
