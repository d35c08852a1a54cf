"""The co-op missions' team models (solver/team.py searches with them): per player the solo
planner's building blocks (nochmal.solver.cpsat: one Boolean per (roll, candidate), the cell
timeline, anchoring through "crossed before roll t" literals) in one shared CP-SAT model, the
joker budget and the dice flow, and the mission's objectives: feasibility "all objectives hold
after exactly T rolls" (add_final_objectives) or earliest win "win[t] = all objectives hold
after t rolls, maximise the number of wins" (add_earliest_win). Candidates are enumerated with
the engine's placement tables per *dice pair* (colour face, number face), since in the co-op
dice flow it matters which dice a player takes:

- rolls 1-3 (and every roll with one player): everybody picks from all the dice;
- later rolls: the active player (roll index % n) picks a pair or passes; the passive
  players pick from the remaining dice, or from all of them after an active pass. A face
  showing on only one die is unavailable to a passive player when the active player took it.

Objectives come from the mission data (missions.objectives' own item lists).
"""

from __future__ import annotations

from dataclasses import dataclass

from ortools.sat.python import cp_model

from nochmal.bitsets import bit_list
from nochmal.board import COLOURS, Board
from nochmal.choice import Choice
from nochmal.dice import Roll
from nochmal.game import FREE_ROLLS
from nochmal.missions.cpsolver import Deadline
from nochmal.missions.model import Mission
from nochmal.missions.objectives import items_needed, objective_items
from nochmal.move import PASS, Move
from nochmal.sheet import Sheet, max_score, score_parts
from nochmal.solver.cpsat import (PlannerModel, add_anchoring, add_cell_timeline, add_choice_vars, all_crossed,
                                  hint_choices, read_choices, roll_candidates)


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


def check_deadline(deadline: Deadline | None) -> None:
    """OutOfTime once ``deadline`` has passed (None: never)."""
    if deadline is not None and deadline.passed():
        raise OutOfTime


def build_team_model(board: Board, mission: Mission, rolls: list[Roll], n: int,
                     deadline: Deadline | None = None, starts: list[Sheet] | None = None,
                     rolls_before: int = 0) -> TeamModel:
    """Per player the choices, cell timeline and anchoring, the joker budget and the dice
    flow; objectives are added by add_final_objectives or add_earliest_win. OutOfTime when
    ``deadline`` passes between two parts. ``starts``: the sheets before
    ``rolls[0]`` (default empty), after ``rolls_before`` rolls of the game."""
    model = cp_model.CpModel()
    T = len(rolls)
    starts = list(starts) if starts is not None else [Sheet.empty(board)] * n
    # per (mask, dice pair): in the co-op dice flow it matters which dice a player takes
    by_start: dict[tuple[int, int], list[list[Choice]]] = {}
    pms = []
    for start in starts:
        check_deadline(deadline)
        key = (start.crossed, start.jokers_used)
        if key not in by_start:
            by_start[key] = roll_candidates(board, start, rolls, start.jokers_left, per_dice_pair=True)
        pm = PlannerModel(board, start, model, by_start[key], [], {}, {})
        add_choice_vars(pm)
        add_cell_timeline(pm)
        check_deadline(deadline)
        add_anchoring(pm)
        pms.append(pm)
    # jokers per sheet
    spent = []
    for pm in pms:
        expr = spent_by(pm, T)
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
    add_objectives(tm.model, tm.board, mission, lambda p, bit: _cell(tm.players[p], bit), tm.spent, n)


def add_earliest_win(tm: TeamModel, mission: Mission, first: int,
                     deadline: Deadline | None = None) -> tuple[list, int, int]:
    """Optimisation: win[t] (t = first..T) means every objective holds after t rolls; wins
    persist, and maximising their number minimises the winning roll. Ties are broken by how
    far the team gets towards the objectives after the last roll (a gradient for the search
    while no win is known; one more win always outweighs it). Returns (win literals, the
    weight of one win, the lowest possible progress)."""
    model, n, T = tm.model, len(tm.players), len(tm.rolls)
    wins = []
    progress: list = []
    for t in range(first, T + 1):
        check_deadline(deadline)
        w = model.NewBoolVar(f"win{t}")
        if wins:
            model.AddImplication(wins[-1], w)
        spent = [spent_by(pm, t) + pm.start.jokers_used for pm in tm.players]

        def cell(p: int, bit: int, t: int = t):
            return _cell(tm.players[p], bit, t)

        add_objectives(model, tm.board, mission, cell, spent, n, enforce=w, tag=f"t{t}",
                        progress=progress if t == T else None)
        wins.append(w)
    lowest = sum(lo for _, lo, _ in progress)
    weight = sum(hi - lo for _, lo, hi in progress) + 1
    model.Maximize(weight * sum(wins) + sum(expr for expr, _, _ in progress))
    return wins, weight, lowest


def add_objectives(model: cp_model.CpModel, board: Board, mission: Mission, cell, spent: list, n: int,
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


def spent_by(pm: PlannerModel, rolls: int):
    """Jokers sheet ``pm`` used in its first ``rolls`` rolls (a linear expression or 0)."""
    terms = [c.cost * pm.x[t][k] for t in range(rolls) for k, c in enumerate(pm.candidates[t]) if c.cost]
    return sum(terms) if terms else 0


def add_team_hint(tm: TeamModel, moves: list[list[Move]]) -> None:
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


def read_moves(tm: TeamModel, solver: cp_model.CpSolver, rolls: int) -> list[list[Move]]:
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
