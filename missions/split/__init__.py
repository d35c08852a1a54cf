"""Who should do what: the split of a mission's missing work across the team's sheets.

``mission status`` says how many further crosses ONE sheet would need to finish an objective
alone. A team wants more: which sheet takes which missing star, column, colour or cell so
that the whole mission is done in the fewest rolls. A sheet crosses at most 5 cells a roll
(one connected group of up to five in ONE block; dice are ignored, as in missions/measures/),
all sheets cross in the same roll, so the slowest sheet decides: a split needs the max over
sheets of the rolls that sheet's crosses take. A sheet's rolls (:func:`sheet_figures`) are at
least ``ceil(crosses / 5)`` and the block slots of its target (missions.model.block_slots), and
at most the fewest rolls of its crossing path (nochmal.impossible.rolls_needed: its pieces of
one block); where those differ, the piece search (nochmal.missions.measures.rolls.fewest_rolls: a Steiner
tree over the open parts of blocks) raises the one and offers a path of fewer pieces for the
other; exact when the two meet.

The instance is plain data (:class:`SplitInstance`): *units* (a missing item and, per sheet,
the open cells that sheet would have to cross for it, or None where it is not that sheet's
to do) and *demands* (at least ``need`` of some units done; demands of one ``group`` are
alternatives, one of them suffices: the ``any`` scope). Two exact models, both CP-SAT:

- **subsets** (few units per sheet): the fewest crosses of every subset of a sheet's units is
  computed once (missions/measures/crosses.py ``fewest_crosses``, exact or an interval), then a CP-SAT
  model picks one subset per sheet (up to 6 units in all, a programme over the sets of units
  done tries every split instead). Interval figures give two solves: on the lower figures
  (a lower bound on the rolls) and on the upper ones (a split that is really achievable).
- **cells** (many units, e.g. 15 stars): one CP-SAT model with a cross variable per open
  cell and sheet, connected to the crossed region by a single-commodity flow (a legal
  crossing order exists exactly when every new cell hangs off the anchored region), stopped
  by a time limit; then it reports the proven bound and the best split found.

Both minimise the rolls first, then the total crosses. Cheap valid lower bounds (every unit
must be paid by its cheapest sheet) guard both. Before building the cells model (bounds
that meet, fast paths for a room's status after each tap): a split is found by local search
(moves and swaps of units) from the last split of the same units or from a greedy one, and
its rolls are proven when they meet a lower bound: the cheap one, :func:`rolls_feasible`
(every subset of units that fits a roll count, listed, and one per sheet picked by a cover
search or CP-SAT; where a sheet's rolls figures straddle the count, the exact one-sheet
check nochmal.missions.measures.fits.fits_rolls decides) or, where that cannot decide,
:func:`separator_lower_bound` (the cells a sheet crosses between its units); only otherwise
does CP-SAT run on the cells. A room's statuses reuse what did not change: the listings per
sheet state (filtered for fewer rolls or units), the separators, a tapped sheet's paths of
its state before the tap, the last split of the same (or of more) units as the seed. A split proven this way
has the local search's total crosses, not a solver's minimum (the rolls are what is proven).
:func:`check_split` validates a split without any solver. The crossing path of each sheet is a real order (each cell anchored when
placed) from ``fewest_crosses`` on the sheet's chosen target.

The modules, each importing only those before it: ``instance`` (the instance and the answer),
``figures`` (per-sheet figures, remembered per sheet state), ``cpsat`` (the solvers' set-up),
``bounds``, ``pick`` (one listed subset per sheet), ``listings`` (:func:`rolls_feasible`),
``search`` (greedy and local search), ``models`` (the two models, :func:`solve_split`) and
``team`` (:func:`team_plan`, :func:`status_document`).
"""

from __future__ import annotations

from nochmal.missions.split.instance import (CROSSES_PER_ROLL, SPLIT_SECONDS, rolls_for, Unit, Demand, SplitInstance,
                                             split_instance, has_cell_objectives, SheetPlan, Split, check_split)
from nochmal.missions.split.figures import sheet_figures, sheet_pieces, sheet_crosses
from nochmal.missions.split.bounds import unit_lower_bound, separator_lower_bound
from nochmal.missions.split.listings import rolls_feasible
from nochmal.missions.split.search import greedy_split, local_search
from nochmal.missions.split.models import SUBSET_LIMIT, solve_split, readable_path
from nochmal.missions.split.team import best_score_bound, TeamPlan, lost_said, team_plan, status_document

__all__ = ["status_document", "lost_said", "CROSSES_PER_ROLL", "Demand", "SheetPlan", "Split", "SplitInstance", "TeamPlan", "Unit",
           "best_score_bound", "check_split", "rolls_for", "sheet_crosses", "solve_split", "split_instance",
           "rolls_feasible", "separator_lower_bound", "team_plan", "unit_lower_bound", "SPLIT_SECONDS", "SUBSET_LIMIT",
           "greedy_split", "has_cell_objectives", "local_search", "readable_path", "sheet_figures", "sheet_pieces"]
