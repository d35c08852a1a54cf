"""Team planning for co-op missions: the fewest rolls in which the team can win with perfect
coordination on known dice, or a proof that the roll budget is not enough.

Two CP-SAT models share one core (build_team_model): feasibility "all objectives hold after
exactly T rolls" (add_final_objectives) and earliest win "win[t] = all objectives hold after t
rolls, maximise the number of wins" (add_earliest_win). Per player the core has the solo
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
pass). A relaxation (relaxation_bound: one block per roll and sheet, no anchoring, no dice
flow) proves a first lower bound in well under a second on the built-in missions; cheap
feasibility checks at T = bound, 2 x bound, ... may raise it; the earliest-win model then
searches the rest in one go, and the bound reported is the larger of the relaxation's and
CP-SAT's. Measured: the earliest-win model finds far earlier
wins on whole-sheet missions than a binary search over T did (benchmarks/RESULTS.md, Team
planning).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from nochmal.bots.registry import make_agent
from nochmal.bitsets import bit_list
from nochmal.board import COLOURS, Board, load_board
from nochmal.choice import Choice
from nochmal.dice import Roll, resolutions, seeded_roll
from nochmal.errors import NochmalError
from nochmal.game import FREE_ROLLS
from nochmal.missions.coop import coop_game, mission_record, mission_result
from nochmal.missions.cpsolver import cp_solver
from nochmal.missions.model import Mission, rolls_lower_bound
from nochmal.missions.objectives import all_met, items_needed, objective_items
from nochmal.move import PASS, Move
from nochmal.record import GameRecord
from nochmal.sheet import Sheet, max_score, score_parts
from nochmal.solver.cpsat import (PlannerModel, SolverError, add_anchoring, add_cell_timeline,
                                  add_choice_vars, all_crossed, hint_choices, read_choices,
                                  roll_candidates)
from nochmal.solver.interrupt import SigintStop
from nochmal.solver.plan import FEASIBLE, INFEASIBLE, OPTIMAL, UNKNOWN

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


@dataclass
class TeamModel:
    board: Board
    model: cp_model.CpModel
    players: list[PlannerModel]
    rolls: list[Roll]
    spent: list  # per player: jokers used by the end of the rolls, the start sheet's included
    rolls_before: int = 0  # rolls of the game before rolls[0] (decides who is active)


class OutOfTime(Exception):
    """The deadline passed while a model was being built (the time limit covers building)."""


def _check_deadline(deadline: float | None) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise OutOfTime


def build_team_model(board: Board, mission: Mission, rolls: list[Roll], n: int,
                     deadline: float | None = None, starts: list[Sheet] | None = None,
                     rolls_before: int = 0) -> TeamModel:
    """Per player the choices, cell timeline and anchoring, the joker budget and the dice
    flow; objectives are added by add_final_objectives or add_earliest_win. OutOfTime when
    ``deadline`` (time.monotonic()) passes between two parts. ``starts``: the sheets before
    ``rolls[0]`` (default empty), after ``rolls_before`` rolls of the game."""
    model = cp_model.CpModel()
    T = len(rolls)
    starts = list(starts) if starts is not None else [Sheet.empty(board)] * n
    # per (mask, dice pair): in the co-op dice flow it matters which dice a player takes
    by_start: dict[tuple[int, int], list[list[Choice]]] = {}
    pms = []
    for start in starts:
        _check_deadline(deadline)
        key = (start.crossed, start.jokers_used)
        if key not in by_start:
            by_start[key] = roll_candidates(board, start, rolls, start.jokers_left, per_dice_pair=True)
        pm = PlannerModel(board, start, model, by_start[key], [], {}, {})
        add_choice_vars(pm)
        add_cell_timeline(pm)
        _check_deadline(deadline)
        add_anchoring(pm)
        pms.append(pm)
    # jokers per sheet
    spent = []
    for pm in pms:
        expr = _spent_by(pm, T)
        if not isinstance(expr, int):
            model.Add(expr <= pm.start.jokers_left)
        spent.append(expr + pm.start.jokers_used)
    # dice availability after the active player's pick
    for t, roll in enumerate(rolls):
        if n == 1 or rolls_before + t < FREE_ROLLS:
            continue
        a = (rolls_before + t) % n
        took = _took_single_faces(model, roll, pms[a].candidates[t], pms[a].x[t], f"took{t}")
        for p in range(n):
            if p == a:
                continue
            for k, c in enumerate(pms[p].candidates[t]):
                for face in (("c", c.colour_face), ("n", c.number_face)):
                    if face in took:  # the active player took the only die showing it
                        model.AddImplication(pms[p].x[t][k], took[face].Not())
    return TeamModel(board, model, pms, list(rolls), spent, rolls_before)


def _cell(pm: PlannerModel, bit: int, t: int | None = None):
    """Sheet ``pm``'s cell ``bit`` crossed before roll t of the model (None: at the end):
    1 when the start sheet has it, else the model's literal (0 when no candidate covers it)."""
    if pm.start.crossed >> bit & 1:
        return 1
    return pm.final.get(bit, 0) if t is None else pm.crossed_before.get((bit, t), 0)


def _took_single_faces(model: cp_model.CpModel, roll: Roll, cands: list[Choice], x: list, tag: str) -> dict:
    """Per face shown by only one die of the roll (key ("c", face) or ("n", face)): a literal
    "the active player took that die" (the active player's choices are at most one, so the
    sum of the choices using the face is 0 or 1). One literal per face keeps the passive
    players' exclusions binary clauses (a long sum per candidate made 40-roll models take
    ~14 s to build)."""
    single = {("c", f) for f in roll.colours if roll.colours.count(f) == 1}
    single |= {("n", f) for f in roll.numbers if roll.numbers.count(f) == 1}
    users: dict[tuple[str, str], list] = {face: [] for face in single}
    for k, c in enumerate(cands):
        for face in (("c", c.colour_face), ("n", c.number_face)):
            if face in users:
                users[face].append(x[k])
    took = {}
    for face, vars_ in users.items():
        if vars_:
            lit = model.NewBoolVar(f"{tag}_{face[0]}{face[1]}")
            model.Add(lit == sum(vars_))
            took[face] = lit
    return took


def add_final_objectives(tm: TeamModel, mission: Mission) -> None:
    """Feasibility: every objective holds after the model's last roll."""
    n = len(tm.players)
    _add_objectives(tm.model, tm.board, mission, lambda p, bit: _cell(tm.players[p], bit), tm.spent, n)


def add_earliest_win(tm: TeamModel, mission: Mission, first: int,
                     deadline: float | None = None) -> tuple[list, int, int]:
    """Optimisation: win[t] (t = first..T) means every objective holds after t rolls; wins
    persist, and maximising their number minimises the winning roll. Ties are broken by how
    far the team gets towards the objectives after the last roll (a gradient for the search
    while no win is known; one more win always outweighs it). Returns (win literals, the
    weight of one win, the lowest possible progress)."""
    model, n, T = tm.model, len(tm.players), len(tm.rolls)
    wins = []
    progress: list = []
    for t in range(first, T + 1):
        _check_deadline(deadline)
        w = model.NewBoolVar(f"win{t}")
        if wins:
            model.AddImplication(wins[-1], w)
        spent = [_spent_by(pm, t) + pm.start.jokers_used for pm in tm.players]

        def cell(p: int, bit: int, t: int = t):
            return _cell(tm.players[p], bit, t)

        _add_objectives(model, tm.board, mission, cell, spent, n, enforce=w, tag=f"t{t}",
                        progress=progress if t == T else None)
        wins.append(w)
    lowest = sum(lo for _, lo, _ in progress)
    weight = sum(hi - lo for _, lo, hi in progress) + 1
    model.Maximize(weight * sum(wins) + sum(expr for expr, _, _ in progress))
    return wins, weight, lowest


def _add_objectives(model: cp_model.CpModel, board: Board, mission: Mission, cell, spent: list, n: int,
                    enforce=None, tag: str = "", progress: list | None = None) -> None:
    """The mission's objectives on the sheets described by ``cell(p, bit)`` (0 or a literal:
    the cell is crossed on sheet p) and ``spent[p]`` (jokers used), enforced only when the
    literal ``enforce`` is true (always when None). With ``progress``, also appends per
    objective (expression, lowest, highest value) of how far the team got towards it."""
    cache: dict[tuple[int, int], object] = {}

    def add(constraint):
        if enforce is not None and not isinstance(constraint, bool):
            constraint.OnlyEnforceIf(enforce)
        return constraint

    def require(ok: bool) -> None:
        """A constant outcome: always met, or never (then ``enforce`` must be false)."""
        if ok:
            return
        if enforce is not None:
            model.Add(enforce == 0)
        else:
            model.AddBoolOr([])  # unsatisfiable

    def done(p: int, mask: int):
        """True only if every cell of mask is crossed on sheet p (0 when impossible)."""
        key = (p, mask)
        if key not in cache:
            cache[key] = all_crossed(model, [cell(p, bit) for bit in bit_list(mask)], f"done{tag}_{p}_{mask}")
        return cache[key]

    def score(p: int):
        """Team rules: first values only (nochmal.sheet.score_parts on the model's literals)."""
        return score_parts(board, [done(p, board.column_mask[c]) for c in range(board.cols)],
                           [done(p, board.colour_mask[c]) for c in COLOURS],
                           [1 - cell(p, bit) for bit in bit_list(board.star_mask)], board.jokers - spent[p]).total

    def at_least(values: list, target: int, scope: str) -> None:
        if scope == "team":
            total = sum(values)
            if isinstance(total, int):
                require(total >= target)
            else:
                add(model.Add(total >= target))
        elif scope == "each":
            for v in values:
                if isinstance(v, int):
                    require(v >= target)
                else:
                    add(model.Add(v >= target))
        else:
            picks = [model.NewBoolVar(f"any{tag}_{p}") for p in range(n)]
            add(model.AddBoolOr(picks))
            for v, q in zip(values, picks):
                if isinstance(v, int):
                    if v < target:
                        model.Add(q == 0)
                else:
                    model.Add(v >= target).OnlyEnforceIf(q)

    def measure(expr, lo: int, hi: int) -> None:
        if progress is not None:
            progress.append((expr, lo, hi))

    stars = board.star_mask.bit_count()
    for obj in mission.objectives:
        if obj.kind == "score":
            scores = [score(p) for p in range(n)]
            at_least(scores, obj.threshold(n), obj.scope)
            measure(sum(scores), -n * board.star_penalty * stars, n * max_score(board))
            continue
        if obj.kind == "jokers_left":
            left = [board.jokers - spent[p] for p in range(n)]
            at_least(left, obj.threshold(n), obj.scope)
            measure(sum(left), 0, n * board.jokers)
            continue
        items = objective_items(obj, board)
        need = items_needed(obj, items)
        per = [[done(p, m) for _, m in items] for p in range(n)]
        if obj.scope == "team":
            pooled = []
            for i in range(len(items)):
                if any(isinstance(per[p][i], int) and per[p][i] for p in range(n)):
                    pooled.append(1)  # done already on a start sheet (a game's position)
                    continue
                lits = [per[p][i] for p in range(n) if not isinstance(per[p][i], int)]
                if not lits:
                    continue
                v = model.NewBoolVar(f"pooled{tag}_{i}")
                model.AddBoolOr(lits).OnlyEnforceIf(v)
                pooled.append(v)
            at_least(pooled, need, "team")
            measure(sum(pooled), 0, len(pooled))
        else:
            at_least([sum(row) for row in per], need, obj.scope)
            measure(sum(sum(row) for row in per), 0, n * len(items))


# --- the relaxation: a cheap proven lower bound on the rolls --------------------------------
RELAX_SHARE = 0.25  # of the time limit, at most, for the relaxation's checks
RELAX_CHECK = 2.0  # seconds, at most, per check: one near the threshold can take far longer
# (column-relay, 2 players, seed 1: 18 rolls still open after 20 s; benchmarks/RESULTS.md)


def roll_caps(roll: Roll, jokers: int) -> dict[str, list[tuple[int, int]]]:
    """Per colour, the (joker cost, most cells) options a pick from this roll's dice gives
    (nochmal.dice.resolutions), dominated options left out: what the relaxation may cross."""
    best: dict[tuple[str, int], int] = {}
    for cf, nf in roll.pairs():
        for colour, count, cost in resolutions(cf, nf, jokers):
            best[colour, cost] = max(best.get((colour, cost), 0), count)
    out: dict[str, list[tuple[int, int]]] = {}
    for (colour, cost), cap in sorted(best.items(), key=lambda kv: kv[0][1]):
        if all(cap > c for _, c in out.get(colour, [])):  # a dearer option must cross more
            out.setdefault(colour, []).append((cost, cap))
    return out


def relaxation_feasible(board: Board, mission: Mission, rolls: list[Roll], n: int, time_limit: float,
                        workers: int, stop: SigintStop, starts: list[Sheet] | None = None) -> str:
    """Whether the team can meet the objectives after len(rolls) rolls in the relaxation:
    every roll each sheet crosses up to the count its pick allows in *one block* of the
    pick's colour (any cells of it, anchoring ignored), every player picks from all the dice
    (no active/passive flow), jokers within the sheet's marks. Every real plan is a plan of
    the relaxation (a placement is a connected piece of one colour, so inside one block), so
    INFEASIBLE here proves that no real plan wins in len(rolls) rolls. FEASIBLE or UNKNOWN
    prove nothing. ``starts``: the sheets before rolls[0] (default empty)."""
    model = cp_model.CpModel()
    starts = list(starts) if starts is not None else [Sheet.empty(board)] * n
    crossed = []
    spent = []
    for p, start in enumerate(starts):
        z = {bit: 1 if start.crossed >> bit & 1 else model.NewBoolVar(f"z{p}_{bit}") for bit in range(board.n_cells)}
        per_block: dict[int, list] = {b.index: [] for b in board.blocks}
        costs = []
        for t, roll in enumerate(rolls):
            caps = roll_caps(roll, start.jokers_left)
            picks = []
            for block in board.blocks:
                for cost, cap in caps.get(block.colour, []):
                    y = model.NewBoolVar(f"y{p}_{t}_{block.index}_{cost}")
                    picks.append(y)
                    per_block[block.index].append(min(cap, block.size) * y)
                    if cost:
                        costs.append(cost * y)
            if len(picks) > 1:
                model.AddAtMostOne(picks)  # one block per roll
        for block in board.blocks:
            new = [z[bit] for bit in bit_list(block.mask & ~start.crossed)]
            if new:
                model.Add(sum(new) <= sum(per_block[block.index]))
        used = sum(costs) if costs else 0
        if not isinstance(used, int):
            model.Add(used <= start.jokers_left)
        crossed.append(z)
        spent.append(used + start.jokers_used)
    _add_objectives(model, board, mission, lambda p, bit: crossed[p][bit], spent, n)
    solver = cp_solver(time_limit, workers)
    status = stop.solve(solver, model)
    if status == cp_model.INFEASIBLE:
        return INFEASIBLE
    return FEASIBLE if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) else UNKNOWN


def relaxation_bound(board: Board, mission: Mission, rolls: list[Roll], n: int, time_limit: float,
                     workers: int = 2, stop: SigintStop | None = None, known_win: int | None = None,
                     solves: list | None = None, starts: list[Sheet] | None = None) -> int:
    """A proven lower bound on the rolls any win needs (len(rolls) + 1: no win at all within
    them): the dice-free block-slot bound (missions.model.rolls_lower_bound), raised by a
    binary search with relaxation_feasible between it and ``known_win`` (a real win's roll,
    so feasible in the relaxation) or len(rolls). A check that ends unproven counts as
    feasible, so the bound stays proven; ``time_limit`` covers all the checks. With
    ``starts`` (the sheets before rolls[0]) the rolls count from there, and the slot bound,
    which is for empty sheets, is not used."""
    stop = stop or SigintStop()
    t0 = time.monotonic()
    slots = rolls_lower_bound(mission.objectives, board, n) if starts is None else 0
    lo = max(0, min(len(rolls) + 1, slots) - 1)  # every T <= lo: no win
    hi = known_win if known_win is not None else len(rolls) + 1  # a win by hi (len + 1: unknown)
    while lo + 1 < hi:
        left = time_limit - (time.monotonic() - t0)
        if left <= 0.05 or stop.requested.is_set():
            break
        mid = (lo + hi) // 2
        s0 = time.monotonic()
        status = relaxation_feasible(board, mission, rolls[:mid], n, min(left, RELAX_CHECK), workers, stop, starts)
        if solves is not None:
            solves.append({"rolls": mid, "status": f"relaxation {status}", "seconds": round(time.monotonic() - s0, 3)})
        if status == INFEASIBLE:
            lo = mid
        else:
            hi = mid
    return lo + 1


def _spent_by(pm: PlannerModel, rolls: int):
    """Jokers sheet ``pm`` used in its first ``rolls`` rolls (a linear expression or 0)."""
    terms = [c.cost * pm.x[t][k] for t in range(rolls) for k, c in enumerate(pm.candidates[t]) if c.cost]
    return sum(terms) if terms else 0


def _run_solver(tm: TeamModel, time_limit: float, workers: int, stop: SigintStop,
                hint: list[list[Move]] | None = None) -> tuple[cp_model.CpSolver, int]:
    """Solve a team model (Ctrl-C through ``stop``); (solver, CP-SAT status)."""
    if hint:
        _add_hint(tm, hint)
    solver = cp_solver(time_limit, workers)
    return solver, stop.solve(solver, tm.model)


def _add_hint(tm: TeamModel, moves: list[list[Move]]) -> None:
    """Hint a known plan (moves per roll per player) to the solver, per player through the
    solo planner's hint_choices."""
    board = tm.board
    rolls = min(len(moves), len(tm.rolls))
    for p, pm in enumerate(tm.players):
        chosen = []
        for t in range(rolls):
            move = moves[t][p]
            key = None if move.is_pass else (board.mask_of(move.cells), move.colour_face, move.number_face)
            chosen.append(next((k for k, c in enumerate(pm.candidates[t])
                                if key == (c.mask, c.colour_face, c.number_face)), None))
        hint_choices(pm, chosen)


def _read_moves(tm: TeamModel, solver: cp_model.CpSolver, rolls: int) -> list[list[Move]]:
    """The solution's moves for the first ``rolls`` rolls, per roll per player."""
    chosen = [read_choices(pm, solver.BooleanValue) for pm in tm.players]
    moves = []
    for t in range(rolls):
        row = []
        for pm, picks in zip(tm.players, chosen):
            k = picks[t]
            row.append(PASS if k is None else pm.candidates[t][k].move(tm.board))
        moves.append(row)
    return moves


def _solve_T(board: Board, mission: Mission, rolls: list[Roll], n: int, deadline: float,
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
    solver, status = _run_solver(tm, deadline - time.monotonic(), workers, stop)
    if status == cp_model.INFEASIBLE:
        return INFEASIBLE, None
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return UNKNOWN, None
    return FEASIBLE, _read_moves(tm, solver, len(rolls))


def _solve_earliest(board: Board, mission: Mission, rolls: list[Roll], n: int, first: int, deadline: float,
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
    solver, status = _run_solver(tm, deadline - time.monotonic(), workers, stop, hint)
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
    return (OPTIMAL if optimal else FEASIBLE), won, lower, _read_moves(tm, solver, won)


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
    ``validate_team_plan``.

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
    k = len(prefix)  # rolls already played
    if len(rolls) < budget and not (known and len(known) <= len(rolls)):
        raise SolverError(f"{len(rolls)} roll(s) given, the budget is {budget}")
    horizon = min(budget, len(rolls))
    plan = TeamPlan(mission.id, players, difficulty, budget, seed, list(rolls[:horizon]), UNKNOWN, None, 1)
    plan.given = k
    stop = SigintStop()  # Ctrl-C: stop searching, return the best plan so far (not proven)
    starts = None  # the sheets after the prefix (None: empty)
    if k:
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
        starts = list(game.sheets)

    def elapsed() -> float:
        return time.monotonic() - t0

    def accept(moves: list[list[Move]], T: int) -> None:
        """Replay a model's plan through the engine; keep it as the best so far."""
        if moves[:k] != prefix:
            raise TeamPlanError(f"the plan for {T} rolls does not start with the moves played")
        game = replay_team(mission, difficulty, rolls, moves)
        won_on = mission_result(mission, game).won_on
        if won_on is None:
            raise TeamPlanError(f"the model's plan for {T} rolls does not win when replayed")
        moves = moves[:won_on]  # the objectives may hold earlier than T
        validate_team_plan(mission, difficulty, rolls, moves)
        plan.moves, plan.rolls_needed = moves, won_on

    def attempt(T: int, share: float) -> str:
        """Feasibility of a win after exactly T rolls, with a share of the time left."""
        left = (time_limit - elapsed()) * share  # a share, so one hard T leaves time for others
        if left <= 0.05 or stop.requested.is_set():
            return UNKNOWN
        s0 = time.monotonic()
        status, moves = _solve_T(board, mission, rolls[k:T], players, time.monotonic() + left, workers, stop,
                                 starts, k)
        plan.solves.append({"rolls": T, "status": status, "seconds": round(time.monotonic() - s0, 3)})
        if progress is not None:
            progress(T, status)
        if status == FEASIBLE:
            accept(prefix + moves, T)
        return status

    def earliest(first: int, last: int, hint: list[list[Move]] | None) -> tuple[str, int]:
        """The earliest win in rolls first..last in one optimisation, with all the time left;
        (status, proven lower bound on the winning roll)."""
        left = time_limit - elapsed()
        if left <= 0.05 or stop.requested.is_set():
            return UNKNOWN, first
        s0 = time.monotonic()
        hint = plan.moves or hint
        status, won, lower, moves = _solve_earliest(board, mission, rolls[k:last], players, first - k,
                                                    t0 + time_limit, workers, stop, hint[k:] if hint else None,
                                                    starts, k)
        if won is not None:
            won += k
        lower += k
        plan.solves.append({"rolls": f"{first}-{last}", "status": status, "seconds": round(time.monotonic() - s0, 3)})
        if progress is not None:
            progress(f"{first}-{last}", status)
        if moves is not None and (plan.rolls_needed is None or won < plan.rolls_needed):
            accept(prefix + moves, won)
        return status, lower

    def search() -> None:
        """The bots' game (a first plan if they win, else a hint); the relaxation's bound B;
        feasibility checks at T = B, 2B, ... (each infeasible one proves a lower bound) until one is not proven
        infeasible; then one earliest-win optimisation over the rolls between the proven
        bound and the best plan (or the budget), hinted with the best plan or the bots' moves."""
        if not k and all_met(mission.objectives, [Sheet.empty(board)] * players):
            moves = [[PASS] * players]  # met before any cross: won at the end of roll 1
            validate_team_plan(mission, difficulty, rolls, moves)
            plan.moves, plan.rolls_needed, plan.status = moves, 1, OPTIMAL
            return
        if known:
            accept([list(row) for row in known], len(known))
            plan.solves.append({"rolls": plan.rolls_needed, "status": "known plan", "seconds": round(elapsed(), 3)})
        bots, won_on = bot_moves(mission, difficulty, rolls[:horizon], players, prefix=prefix)
        if won_on is not None and (plan.rolls_needed is None or won_on < plan.rolls_needed):
            accept(bots, won_on)
            plan.solves.append({"rolls": won_on, "status": "bots' plan", "seconds": round(elapsed(), 3)})
        # the relaxation's proven bound first: cheap, and often far above CP-SAT's after seconds
        s0 = time.monotonic()
        relax = k + relaxation_bound(board, mission, rolls[k:horizon], players, time_limit * RELAX_SHARE, workers,
                                     stop, None if plan.rolls_needed is None else plan.rolls_needed - k,
                                     plan.solves, starts)
        plan.relaxation_bound = relax
        if progress is not None and relax > k + 1:
            progress(f"{k + 1}-{relax - 1}", f"infeasible (relaxation, {time.monotonic() - s0:.1f}s)")
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
            status = attempt(T, GALLOP_SHARE)
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
        status, lower = earliest(proven_lo + 1, last, bots)
        lower = max(lower, proven_lo + 1)
        if status == INFEASIBLE:  # no win at all (a known plan would be a solution): last == budget
            plan.lower_bound, plan.status = budget + 1, INFEASIBLE
            return
        if plan.rolls_needed is None:
            plan.lower_bound, plan.status = lower, UNKNOWN
            return
        plan.lower_bound = min(lower, plan.rolls_needed)
        plan.status = OPTIMAL if plan.rolls_needed == plan.lower_bound else FEASIBLE

    with stop:
        search()
    plan.interrupted = stop.requested.is_set()
    plan.wall_time = elapsed()
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
