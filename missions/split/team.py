"""A team's plan: the split of what is missing, the best score each sheet can still reach, and
the reasons either shows that the mission can no longer be won; with a mission status, the
JSON document the CLI and the web app print.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nochmal.i18n import Message, say_n
from nochmal.bitsets import bit_list
from nochmal.board import COLOURS
from nochmal.missions.measures.graphs import crosses_per_cell
from nochmal.missions.model import IN_PROGRESS, LOST, Mission
from nochmal.missions.objectives import team_score
from nochmal.missions.split.figures import sheet_crosses
from nochmal.missions.split.instance import CROSSES_PER_ROLL, SPLIT_SECONDS, Split, split_instance
from nochmal.missions.split.models import solve_split
from nochmal.sheet import Sheet


def best_score_bound(sheet: Sheet, rolls_left: int) -> int:
    """An upper bound on the sheet's team-rules score after ``rolls_left`` more rolls: every
    column and colour its fewest crosses alone could still finish, every star it could still
    reach, and the jokers it has left (jokers never come back). Items are counted
    independently, so the bound is valid but not always reachable."""
    board = sheet.board
    budget = CROSSES_PER_ROLL * rolls_left
    score = team_score(sheet)
    for c in range(board.cols):
        mask = board.column_mask[c]
        if mask & ~sheet.crossed and sheet_crosses(sheet, mask).lower <= budget:
            score += board.column_points_first[c]
    for colour in COLOURS:
        mask = board.colour_mask[colour]
        if mask & ~sheet.crossed and sheet_crosses(sheet, mask).lower <= budget:
            score += board.colour_bonus_first
    dist = crosses_per_cell(sheet)
    for b in bit_list(board.star_mask & ~sheet.crossed):
        if dist.get(b, budget + 1) <= budget:
            score += board.star_penalty
    return score


@dataclass
class TeamPlan:
    """Everything beyond one-sheet figures: the split, the early loss, score bounds."""

    split: Split
    rolls_left: int
    lost_early: list[str] = field(default_factory=list)
    score_bounds: list[dict] = field(default_factory=list)
    lost_said: list[Message] = field(default_factory=list)  # ``lost_early`` to be said in a language

    def to_dict(self) -> dict:
        return {"split": self.split.to_dict(), "lost_early": bool(self.lost_early),
                "lost_reasons": self.lost_early, "score_bounds": self.score_bounds}

    def lines(self) -> list[str]:
        out = ["who should do what:"] + ["  " + line for line in self.split.lines()]
        if not self.split.instance.has_cells and self.score_bounds:
            out[-1] += "; what counts is the best score still reachable:"
        for b in self.score_bounds:
            out.append(f"  {b['description']}: best still reachable at most {b['best_reachable']} "
                       f"(needs {b['target']})")
        return out  # the reasons of an early loss are printed with the state (status_document)


def team_plan(mission: Mission, sheets, rolls_left: int, time_limit: float = SPLIT_SECONDS) -> TeamPlan:
    """The split, the score bounds, and the reasons the split or a score bound show that the
    mission can no longer be won (coop.lost_reasons gives the others: budget, jokers, a
    sheet alone)."""
    sheets = list(sheets)
    n = len(sheets)
    split = solve_split(split_instance(mission, sheets), time_limit)
    lost = []
    if split.rolls_lower > rolls_left:
        lost.append(say_n("the best split of the missing cell objectives needs at least %(n)s roll, only %(left)s left",
                          "the best split of the missing cell objectives needs at least %(n)s rolls, only %(left)s left",
                          split.rolls_lower, left=rolls_left))
    bounds = []
    for obj in mission.objectives:
        if obj.kind == "score":  # (a missed jokers_left target is coop.lost_reasons' to report)
            target = obj.threshold(n)
            values = [best_score_bound(s, rolls_left) for s in sheets]
            best = sum(values) if obj.scope == "team" else (min(values) if obj.scope == "each" else max(values))
            bounds.append({"description": obj.describe(n), "target": target, "best_reachable": best,
                           "per_sheet": values})
            if best < target:
                lost.append(say_n("%(what)s: at most %(n)s point still reachable in %(rolls)s",
                                  "%(what)s: at most %(n)s points still reachable in %(rolls)s", best,
                                  what=obj.description(n), rolls=say_n("%(n)s roll", "%(n)s rolls", rolls_left)))
    return TeamPlan(split, rolls_left, [str(m) for m in lost], bounds, lost)


def lost_said(st, plan: TeamPlan | None) -> list[Message]:
    """The reasons of status_document's ``lost_reasons`` as Messages, in its order (a room's
    phones say them in their languages: docs/web.md "Languages")."""
    said = list(st.lost_said)
    if st.state == IN_PROGRESS and plan is not None and plan.lost_early:
        said += [m for m in plan.lost_said if str(m) not in st.lost_reasons]
    return said


def status_document(st, labels: list[str], plan: TeamPlan | None) -> dict:
    """The ``nochmal mission status --json`` document (rooms send the same): the status of
    coop.mission_status, the sheets' labels, the impossible sheets and the team plan. The
    state is ``st.state`` (one vocabulary, missions/model.py), except that a mission still
    "in progress" whose split cannot finish in the rolls left is "lost" with the plan's
    reasons added to ``lost_reasons``."""
    data = st.to_dict()
    bad = [(p, reasons) for p, reasons in enumerate(st.impossible) if reasons]
    state, reasons = st.state, [str(m) for m in lost_said(st, plan)]
    if state == IN_PROGRESS and plan is not None and plan.lost_early:
        state = LOST
    out = {**{k: v for k, v in data.items() if k != "objectives"}, "state": state, "lost_reasons": reasons,
           "sheets": list(labels),
           "impossible": [{"sheet": p + 1, "file": labels[p], "reasons": r} for p, r in bad],
           "objectives": data["objectives"], "team": plan.to_dict() if plan is not None and not bad else None}
    if bad:
        out["all_met"] = None
    return out
