"""The team plan's relaxation: a cheap proven lower bound on the rolls any win needs (one
block per roll and sheet, no anchoring, no dice flow; solver/team.py starts its search from it).
"""

from __future__ import annotations

import time

from ortools.sat.python import cp_model

from nochmal.bitsets import bit_list
from nochmal.board import Board
from nochmal.dice import Roll, resolutions
from nochmal.missions.cpsolver import Deadline
from nochmal.missions.model import Mission, rolls_lower_bound
from nochmal.sheet import Sheet
from nochmal.solver.interrupt import SigintStop
from nochmal.solver.plan import FEASIBLE, INFEASIBLE, UNKNOWN
from nochmal.solver.team_model import add_objectives

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


def relaxation_feasible(board: Board, mission: Mission, rolls: list[Roll], n: int, deadline: Deadline,
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
    add_objectives(model, board, mission, lambda p, bit: crossed[p][bit], spent, n)
    _, status = deadline.solve(model, stop.solve, workers=workers)
    if status == cp_model.INFEASIBLE:
        return INFEASIBLE
    return FEASIBLE if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) else UNKNOWN


def relaxation_bound(board: Board, mission: Mission, rolls: list[Roll], n: int, time_limit: float | Deadline,
                     workers: int = 2, stop: SigintStop | None = None, known_win: int | None = None,
                     solves: list | None = None, starts: list[Sheet] | None = None) -> int:
    """A proven lower bound on the rolls any win needs (len(rolls) + 1: no win at all within
    them): the dice-free block-slot bound (missions.model.rolls_lower_bound), raised by a
    binary search with relaxation_feasible between it and ``known_win`` (a real win's roll,
    so feasible in the relaxation) or len(rolls). A check that ends unproven counts as
    feasible, so the bound stays proven; ``time_limit`` (seconds, or a run's Deadline) covers
    all the checks. With
    ``starts`` (the sheets before rolls[0]) the rolls count from there, and the slot bound,
    which is for empty sheets, is not used."""
    stop = stop or SigintStop()
    deadline = time_limit if isinstance(time_limit, Deadline) else Deadline(time_limit)
    slots = rolls_lower_bound(mission.objectives, board, n) if starts is None else 0
    lo = max(0, min(len(rolls) + 1, slots) - 1)  # every T <= lo: no win
    hi = known_win if known_win is not None else len(rolls) + 1  # a win by hi (len + 1: unknown)
    while lo + 1 < hi:
        if deadline.left() <= 0.05 or stop.requested.is_set():
            break
        mid = (lo + hi) // 2
        s0 = time.monotonic()
        status = relaxation_feasible(board, mission, rolls[:mid], n, deadline.within(RELAX_CHECK), workers, stop,
                                     starts)
        if solves is not None:
            solves.append({"rolls": mid, "status": f"relaxation {status}", "seconds": round(time.monotonic() - s0, 3)})
        if status == INFEASIBLE:
            lo = mid
        else:
            hi = mid
    return lo + 1
