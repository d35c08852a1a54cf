"""A CP-SAT builder shared by the split's cells model (missions/split/models.py) and
missions/measures/fits.py: the cells a sheet crosses next, each anchored through the others.
"""

from __future__ import annotations

from nochmal.bitsets import bit_list
from nochmal.sheet import Sheet


def add_anchored_cells(m, sheet: Sheet, prefix: str = "") -> dict:
    """CP-SAT variables for the cells a sheet crosses next: a boolean per open cell, and a
    single-commodity flow from the anchored cells that every chosen cell consumes, so the
    chosen cells are exactly those each connected to the anchored cells through chosen cells
    (a legal crossing order exists, one cell at a time, bridging off). Used by
    missions/measures/fits.py and the split's cells model (missions/split/models.py)."""
    board = sheet.board
    open_mask = board.full_mask & ~sheet.crossed
    open_bits = bit_list(open_mask)
    y = {b: m.NewBoolVar(f"y{prefix}_{b}") for b in open_bits}
    cap = len(open_bits)
    inflow: dict[int, list] = {b: [] for b in open_bits}
    outflow: dict[int, list] = {b: [] for b in open_bits}
    for b in open_bits:
        if sheet.anchored >> b & 1:  # the crossed region (or the start column) feeds it
            f = m.NewIntVar(0, cap, f"r{prefix}_{b}")
            m.Add(f <= cap * y[b])
            inflow[b].append(f)
        for c in bit_list(board.neighbour_mask[b] & open_mask):
            f = m.NewIntVar(0, cap, f"f{prefix}_{b}_{c}")
            m.Add(f <= cap * y[b])
            m.Add(f <= cap * y[c])
            outflow[b].append(f)
            inflow[c].append(f)
    for b in open_bits:
        m.Add(sum(inflow[b]) - sum(outflow[b]) == y[b])
    return y
