"""Fewest rolls, a second implementation (nochmal/impossible.py explains the first): a small
CP-SAT model that knows nothing of the piece argument, shared by tests/missions/test_feasibility.py,
tests/missions/test_split_reuse.py and benchmarks/bench_feasibility.py."""

from __future__ import annotations

from nochmal.bitsets import bit_list, components
from nochmal.missions.cpsolver import cp_solver
from nochmal.board import Board
from nochmal.placements import MAX_COUNT


def rolls_needed_cpsat(board: Board, crossed: int, rolls: int, time_limit: float | None = None,
                       work: float = 10.0) -> bool | None:
    """Whether ``crossed`` can be crossed in at most ``rolls`` rolls (bridging off), by CP-SAT.

    Model: per crossed cell its roll T (1..rolls). Each roll's cells form one tree: every
    cell has a parent (a neighbour of the same block crossed on the same roll, lower rank)
    or is the roll's single root, so the cells of a roll are connected and in one block.
    A root is anchored: in the start column or next to a cell crossed on an earlier roll.
    At most MAX_COUNT cells per roll. None when the limit ends the search undecided: ``work``
    units of CP-SAT's deterministic time (one worker, seed 0: the same verdict on any machine,
    what a test asserts), or ``time_limit`` seconds when given (the benchmark's budget).
    """
    from ortools.sat.python import cp_model

    cells = bit_list(crossed)
    if not cells:
        return True
    model = cp_model.CpModel()
    when = {c: model.NewIntVar(1, rolls, f"t{c}") for c in cells}
    rank = {c: model.NewIntVar(0, MAX_COUNT - 1, f"r{c}") for c in cells}
    root = {c: model.NewBoolVar(f"root{c}") for c in cells}
    on = {(c, t): model.NewBoolVar(f"x{c}_{t}") for c in cells for t in range(1, rolls + 1)}
    for c in cells:
        model.AddExactlyOne(on[c, t] for t in range(1, rolls + 1))
        model.Add(when[c] == sum(t * on[c, t] for t in range(1, rolls + 1)))
        parents = []
        anchors = []
        for d in bit_list(board.neighbour_mask[c] & crossed):
            if board.block_of_bit[d] == board.block_of_bit[c]:
                p = model.NewBoolVar(f"p{c}_{d}")
                model.Add(when[d] == when[c]).OnlyEnforceIf(p)
                model.Add(rank[d] < rank[c]).OnlyEnforceIf(p)
                parents.append(p)
            a = model.NewBoolVar(f"a{c}_{d}")
            model.Add(when[d] < when[c]).OnlyEnforceIf(a)
            anchors.append(a)
        model.AddExactlyOne([root[c], *parents])
        if not board.start_mask >> c & 1:
            model.AddBoolOr(anchors).OnlyEnforceIf(root[c])
    # redundant cuts that let the solver prove "too few rolls" quickly: one root per roll,
    # and a roll's cells lie in one connected part of a block's crossed cells, 5 at most
    model.Add(sum(root.values()) <= rolls)
    for block in board.blocks:
        for part in components(crossed & block.mask, board.neighbour_mask):
            model.Add(sum(root[c] for c in bit_list(part)) >= -(-part.bit_count() // MAX_COUNT))
    for t in range(1, rolls + 1):
        model.Add(sum(on[c, t] for c in cells) <= MAX_COUNT)
        roots_here = []
        for c in cells:
            both = model.NewBoolVar(f"rt{c}_{t}")
            model.AddBoolAnd([root[c], on[c, t]]).OnlyEnforceIf(both)
            model.AddBoolOr([root[c].Not(), on[c, t].Not()]).OnlyEnforceIf(both.Not())
            roots_here.append(both)
        model.AddAtMostOne(roots_here)
    solver = cp_solver(time_limit, min_time=None) if time_limit is not None else cp_solver(deterministic_time=work)
    status = solver.Solve(model)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return True
    if status == cp_model.INFEASIBLE:
        return False
    return None
