"""One generic checker: any objective on any list of sheets.

Scopes (docs/missions.md): ``team`` pools the sheets (a column, colour, star or cell counts when
it is done on at least one sheet; scores and jokers are summed; a colour *count* counts
distinct colours over all sheets), ``each`` needs every sheet on its own, ``any`` needs one
sheet on its own. Scores are team-rule scores: every complete column at its first value,
every complete colour 5.

The fewest further crosses per sheet (missions/measures/crosses.py) answers: how many more crosses would
THIS sheet need to finish what is still missing of the objective by itself (``team``: what
no sheet has done yet; ``each``/``any``: what this sheet lacks). It is exact or an interval,
and it is not defined for score and jokers objectives (a score is not a set of cells and
jokers never come back).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nochmal.board import COLOUR_NAMES, COLOURS, COLUMN_LETTERS, Board
from nochmal.cache import memo
from nochmal.errors import OptionError
from nochmal.i18n import TERMS, Message, said, say, say_n
from nochmal.missions.measures.crosses import CrossesEstimate, fewest_crosses, fewest_crosses_choose
from nochmal.missions.model import Objective
from nochmal.sheet import Sheet


@dataclass
class ObjectiveStatus:
    """How far the team is with one objective.

    progress / total: items done (team: pooled; any: the best sheet; each: summed over sheets)
    of the items needed, or for score / jokers the value reached (team: the sum; each: the
    lowest sheet; any: the best sheet) against the threshold. contributing: sheets that add to it.
    missing: human-readable items still missing; missing_parts: the same as data, per line
    (the sheet it speaks of, 0-based or None for the team; "closest" / "best" / ""; the rest),
    so that a front end names the sheet its own way. crosses: per sheet, fewest further crosses
    (None where not defined).
    """

    objective: Objective
    met: bool
    progress: int
    total: int
    contributing: list[int]
    missing: list[str]
    crosses: list[CrossesEstimate | None] = field(default_factory=list)
    missing_parts: list[tuple[int | None, str, str]] = field(default_factory=list)
    said_missing: list[Message | str] = field(default_factory=list)  # ``missing`` to be said in a language

    def to_dict(self, players: int, lang: str = "en") -> dict:
        """As JSON; the description and the missing lines in ``lang`` (docs/web.md "Languages")."""
        return {
            "kind": self.objective.kind, "scope": self.objective.scope,
            "description": said(self.objective.description(players), lang), "met": self.met,
            "progress": self.progress, "total": self.total,
            "contributing": [p + 1 for p in self.contributing],  # sheet numbers from 1
            "missing": self.missing if lang == "en" else [said(m, lang) for m in self.said_missing],
            "fewest_crosses": [None if c is None else c.to_dict() for c in self.crosses],
        }


def team_score(sheet: Sheet) -> int:
    """The sheet's score under team rules (every column first value, colours 5)."""
    return Sheet(sheet.board, sheet.crossed, sheet.jokers_used).with_all_completions_scored().score()


def objective_items(obj: Objective, board: Board) -> list[tuple[str, int]]:
    """(name, cell mask) of each item of a set objective."""
    if obj.kind == "columns":
        return [(COLUMN_LETTERS[c], board.column_mask[c]) for c in obj.columns]
    if obj.kind == "colours":
        colours = obj.colours if obj.colours is not None else COLOURS
        return [(COLOUR_NAMES[c], board.colour_mask[c]) for c in colours]
    if obj.kind == "stars":
        return [(name, board.mask_of([name])) for name in board.cells_of(board.star_mask)]
    if obj.kind == "cells":
        return [(name, board.mask_of([name])) for name in obj.cells]
    raise OptionError(obj.kind)  # a kind that is not a set of items (score, jokers_left)


def items_needed(obj: Objective, items: list) -> int:
    """How many items must be done: all listed ones, or the count."""
    if obj.kind == "stars" or (obj.kind == "colours" and obj.colours is None):
        return obj.count
    return len(items)


def evaluate(obj: Objective, sheets: list[Sheet], with_crosses: bool = True) -> ObjectiveStatus:
    """Evaluate one objective on the team's sheets."""
    if obj.kind in ("score", "jokers_left"):
        return _evaluate_threshold(obj, sheets, with_crosses)
    board = sheets[0].board
    items = objective_items(obj, board)
    need = items_needed(obj, items)
    choose = need < len(items)  # a count over a pool of items
    done = [[m & ~s.crossed == 0 for _, m in items] for s in sheets]  # done[p][i]
    if obj.scope == "team":
        pooled = [any(d[i] for d in done) for i in range(len(items))]
        k = sum(pooled)
        met = k >= need
        contributing = [p for p, d in enumerate(done) if any(d)]
        open_items = [i for i in range(len(items)) if not pooled[i]]
        more = max(0, need - k)
        parts = [] if met else [(None, "", text) for text in _missing_text(obj, items, open_items, more, choose)]
        crosses = []
        if with_crosses:
            for s in sheets:
                crosses.append(_crosses_for(s, [items[i][1] for i in open_items], more, choose))
        return _status(obj, met, min(k, need), need, contributing, parts, crosses)
    per = [sum(d) for d in done]
    ok = [c >= need for c in per]
    if obj.scope == "each":
        met = all(ok)
        progress, total = sum(min(c, need) for c in per), need * len(sheets)
        contributing = [p for p, good in enumerate(ok) if good]
        parts = []
        for p, d in enumerate(done):
            if not ok[p]:
                open_items = [i for i in range(len(items)) if not d[i]]
                parts.append((p, "", _joined(_missing_text(obj, items, open_items, need - per[p], choose), ", ")))
    else:  # any
        met = any(ok)
        best = max(range(len(sheets)), key=lambda p: per[p])
        progress, total = min(per[best], need), need
        contributing = [p for p, good in enumerate(ok) if good] or ([best] if per[best] else [])
        parts = []
        if not met:
            open_items = [i for i in range(len(items)) if not done[best][i]]
            parts = [(best, "closest", _joined(_missing_text(obj, items, open_items, need - per[best], choose), ", "))]
    crosses = []
    if with_crosses:
        for p, s in enumerate(sheets):
            open_items = [i for i in range(len(items)) if not done[p][i]]
            crosses.append(_crosses_for(s, [items[i][1] for i in open_items], max(0, need - per[p]), choose))
    return _status(obj, met, progress, total, contributing, parts, crosses)


def _status(obj, met, progress, total, contributing, parts, crosses) -> ObjectiveStatus:
    """The status with its missing lines in words ("closest sheet 2: G, H") made from ``parts``
    (each rest a text or a Message: a colour's name, "2 more of: ...")."""
    said_lines = [_line(*part) for part in parts]
    return ObjectiveStatus(obj, met, progress, total, contributing, [str(m) for m in said_lines], crosses,
                           [(p, role, str(rest)) for p, role, rest in parts], said_lines)


def _line(p: int | None, role: str, rest: Message | str) -> Message | str:
    if p is None:
        return rest
    if role == "closest":
        return say("closest sheet %(n)s: %(rest)s", n=p + 1, rest=rest)
    if role == "best":
        return say("best sheet %(n)s: %(rest)s", n=p + 1, rest=rest)
    return say("sheet %(n)s: %(rest)s", n=p + 1, rest=rest)


def _missing_text(obj: Objective, items, open_items: list[int], more: int, choose: bool) -> list[Message | str]:
    """The open items by name (a colour by its Message: said in the reader's language), or
    "N more of: ..." when the objective counts over a pool of items."""
    colours = (obj.colours if obj.colours is not None else COLOURS) if obj.kind == "colours" else None
    names = [say(TERMS[colours[i]]) if colours else items[i][0] for i in open_items]
    if not choose:
        return names
    return [say("%(n)s more of: %(names)s", n=more, names=_joined(names, " "))]


def _joined(values: list, sep: str) -> Message | str:
    """``values`` joined by ``sep``; a Message (no words of its own) where one of them is a Message."""
    if all(isinstance(v, str) for v in values):
        return sep.join(values)
    slots = {f"v{k}": v for k, v in enumerate(values)}
    return Message(sep.join(f"%({k})s" for k in slots), slots)


def _crosses_for(sheet: Sheet, open_masks: list[int], more: int, choose: bool) -> CrossesEstimate:
    return _crosses_cached(sheet, tuple(open_masks), more, choose)


@memo("missions.objectives.crosses", 4096)
def _crosses_cached(sheet: Sheet, open_masks: tuple[int, ...], more: int, choose: bool) -> CrossesEstimate:
    """Cached per sheet state: a table room asks again after every tap on another sheet."""
    if more <= 0:
        return CrossesEstimate(0, 0, (), "exact")
    if choose:
        return fewest_crosses_choose(sheet, open_masks, more)
    target = 0
    for m in open_masks:
        target |= m
    return fewest_crosses(sheet, target)


def _evaluate_threshold(obj: Objective, sheets: list[Sheet], with_crosses: bool) -> ObjectiveStatus:
    n = len(sheets)
    target = obj.threshold(n)
    if obj.kind == "score":
        values = [team_score(s) for s in sheets]
    else:
        values = [s.jokers_left for s in sheets]
    if obj.scope == "team":
        total_value = sum(values)
        met = total_value >= target
        contributing = [p for p, v in enumerate(values) if v > 0]
        parts = [] if met else [(None, "", _more(obj.kind, target - total_value, team=True))]
        progress = total_value
    elif obj.scope == "each":
        met = all(v >= target for v in values)
        contributing = [p for p, v in enumerate(values) if v >= target]
        parts = [(p, "", _more(obj.kind, target - v)) for p, v in enumerate(values) if v < target]
        progress = min(values)
    else:
        best = max(values)
        met = best >= target
        contributing = [p for p, v in enumerate(values) if v >= target]
        parts = [] if met else [(values.index(best), "best", _more(obj.kind, target - best))]
        progress = best
    crosses: list = []
    if with_crosses:
        crosses = [None] * n
        if obj.kind == "jokers_left" and met:
            crosses = [CrossesEstimate(0, 0, (), "exact") for _ in sheets]
    return _status(obj, met, progress, target, contributing, parts, crosses)


def _more(kind: str, n: int, team: bool = False) -> Message:
    """What a score or jokers objective still lacks: "3 more points for the team" (in the
    plural form of ``n``)."""
    if kind == "score":
        return say_n("%(n)s more point for the team", "%(n)s more points for the team", n) if team else \
            say_n("%(n)s more point", "%(n)s more points", n)
    return say_n("%(n)s more unused joker for the team", "%(n)s more unused jokers for the team", n) if team else \
        say_n("%(n)s more unused joker", "%(n)s more unused jokers", n)


def all_met(objectives, sheets: list[Sheet]) -> bool:
    """Whether every objective holds (fast: no crosses search)."""
    return all(evaluate(o, sheets, with_crosses=False).met for o in objectives)
