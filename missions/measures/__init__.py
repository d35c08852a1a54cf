"""Graph measures of a sheet for the missions: how far a sheet is from crossing some cells
(a column, a colour, the stars, a mission's cells), in crosses or in rolls. Missions
(missions/objectives.py) and the split of a team's targets (missions/split/) use them; the
planner and the rules core do not, so OR-Tools' models, numpy's tables and the compiled
programme stay out of the core.

- ``graphs``: the per-cell fewest crosses and reachability on bit masks, named targets;
- ``steiner``: node-weighted Steiner trees (Dreyfus-Wagner, compiled in ``_steiner.c``; CP-SAT);
- ``crosses``: the fewest further crosses to a target (and to k of some groups);
- ``rolls``: the fewest further rolls, one block a roll;
- ``pair_bounds``: rolls bounds from the part graph alone, for the split's subsets;
- ``fits``: whether a target fits a number of rolls (an entry bound, then CP-SAT).

Why a graph: how far a sheet is from crossing some cells depends only on adjacency and
anchoring, not on dice. A cross is legal when it is in the start column or next to a crossed
cell, and a one-cell placement is always one block and connected, so any set ``S`` of new
cells can be crossed one by one exactly when every connected piece of ``S`` touches the start
column or a crossed cell. Contract all crossed cells into one *root* node (weight 0) adjacent
to every anchored open cell; then the fewest crosses that cross a target set ``T`` is a
node-weighted Steiner tree connecting the root and ``T`` through open cells (each of weight 1).
Dice are ignored on purpose: the figures count crosses or blocks, not dice. numpy loads on
use, so a command that needs no figure starts fast; networkx is a test dependency only (the
board as networkx graphs is tests/graphs_support.py).
"""
