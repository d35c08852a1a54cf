"""Finding a good split fast: a greedy split, a local search over moves and swaps of units
from the last split of the same units, and the lower bound raised until it meets the split's
rolls (listings, then separators) so that no CP-SAT model needs to run.
"""

from __future__ import annotations

from nochmal.cache import Cache
from nochmal.missions.cpsolver import Deadline
from nochmal.missions.split.bounds import separator_lower_bound
from nochmal.missions.split.figures import upper_cost
from nochmal.missions.split.instance import CROSSES_PER_ROLL, Demand, SplitInstance
from nochmal.missions.split.listings import rolls_feasible


def greedy_split(inst: SplitInstance, allowed: list[list[int]], seconds: float = 1.0,
                 enough: int = 0, lift=None) -> list[tuple[int, ...]]:
    """A good split fast (an upper bound and the CP-SAT hint): units go, hardest first, to the
    sheet where the slowest sheet grows least; then :func:`local_search` moves and swaps
    units while that lowers (rolls, crosses). Demands that need only some units take their cheapest ones;
    of alternative demands, the cheapest alternative. The search stops as soon as the split
    needs at most ``enough`` rolls (a proven lower bound: nothing can be faster);
    ``lift(split)``, called when a short first search misses that bound, may return a
    better one (so that the search does not hunt long for a split that cannot exist)."""
    n = len(inst.sheets)
    deadline = Deadline(seconds)

    def cost(p: int, units) -> tuple[int, int]:
        return upper_cost(inst, p, units)

    def single(u: int) -> tuple[int, int]:
        return min(cost(p, (u,)) for p in range(n) if inst.units[u].masks[p] is not None)

    wanted: list[int] = []
    groups: dict[int, list[Demand]] = {}
    for d in inst.demands:
        if d.group is None:
            wanted.extend(sorted(d.units, key=single)[: d.need])
        else:
            groups.setdefault(d.group, []).append(d)
    for alternatives in groups.values():
        best = min(alternatives, key=lambda d: sum(c for _, c in sorted(single(u) for u in d.units)[: d.need]))
        wanted.extend(sorted(best.units, key=single)[: best.need])
    split: list[list[int]] = [[] for _ in range(n)]
    for u in sorted(set(wanted), key=single, reverse=True):
        options = []
        for p in range(n):
            if inst.units[u].masks[p] is None:
                continue
            trial = cost(p, split[p] + [u])
            slowest = max([trial[0]] + [cost(q, split[q])[0] for q in range(n) if q != p])
            options.append((slowest, trial[1] - cost(p, split[p])[1], p))
        split[min(options)[2]].append(u)
    if lift is not None:  # a short search first; if it misses the bound, try to lift the bound before searching on
        split = local_search(inst, split, cost, deadline.within(seconds * 0.4), enough)
        if _split_key([cost(p, split[p]) for p in range(n)])[0] > enough:
            enough = max(enough, lift(split))
            deadline = Deadline(max(deadline.left(), seconds / 2))  # (lifting may have taken a while)
    return [tuple(a) for a in local_search(inst, split, cost, deadline, enough)]


# The last splits found, by their units (objective and name; not the sheets, which change with
# every tap): the seed of the next search for the same units. Only a starting point: whatever
# it holds, the split is checked and the bounds proven as for any other.
LAST_SPLITS = Cache("missions.split.last_splits", 256)


def _units_key(inst: SplitInstance) -> tuple:
    return len(inst.sheets), tuple((u.objective, u.name) for u in inst.units), inst.demands


def remember_split(inst: SplitInstance, split) -> None:
    """Keep ``split`` as the seed of the next search for the same units (:func:`remembered_split`)."""
    LAST_SPLITS.put(_units_key(inst), tuple(tuple(a) for a in split))


def remembered_split(inst: SplitInstance) -> list[list[int]] | None:
    """The last split of the same units; else the latest of more units (a room where an item
    got done since: star hunt crosses a star) restricted to these, when it holds them all."""
    key = _units_key(inst)
    seed = LAST_SPLITS.peek(key)
    recent = LAST_SPLITS.items() if seed is None else []
    if seed is None:
        index = {(u.objective, u.name): i for i, u in enumerate(inst.units)}
        for (n, names, _), old in reversed(recent):
            if n != key[0] or not index.keys() <= set(names):
                continue
            seed = tuple(tuple(index[names[u]] for u in units if names[u] in index) for units in old)
            break
    if seed is None or any(inst.units[u].masks[p] is None for p, units in enumerate(seed) for u in units):
        return None
    return [list(units) for units in seed]


def raise_lower(inst: SplitInstance, lower: int, upper: int, time_limit: float):
    """Lift a lower bound on the rolls towards a split's ``upper``: :func:`rolls_feasible` per
    roll count while it decides, and where it cannot (too many subsets, the time) the
    separator bound, then rolls_feasible on from there. Returns (the bound, a split that needs
    only the bound's rolls when rolls_feasible found one else None, its name). (The separator
    bound used to run first; in the rooms of bench_rooms it never lifted what rolls_feasible
    proves anyway, at 3-17 ms a status.)"""
    deadline = Deadline(time_limit)
    bound = "lower bound"
    separated = False  # the separator bound ran
    while lower < upper and not deadline.passed():
        left = deadline.left()  # (half the time kept for the separator bound until it ran)
        feasible, split = rolls_feasible(inst, lower, time_limit=Deadline(
            max(0.01, left if separated else min(left, time_limit / 2)), deadline))
        if feasible:
            return lower, split, "lower bound (every split within it listed)"
        if feasible is False:
            lower += 1
            bound = "lower bound (no split within one roll fewer)"
            continue
        if separated:
            break
        separated = True
        raised = separator_lower_bound(inst, lower, upper, Deadline(time_limit / 2, deadline))
        if raised == lower:
            break
        lower, bound = raised, "separator lower bound"
    if lower < upper and not separated:  # (the time ran out before rolls_feasible decided)
        raised = separator_lower_bound(inst, lower, upper, Deadline(time_limit / 2, deadline))
        if raised > lower:
            lower, bound = raised, "separator lower bound"
    return lower, None, bound


def _split_key(costs: list[tuple[int, int]]) -> tuple[int, int, int]:
    """How good a split is, smoothly, from each sheet's (rolls, crosses): its rolls, then per
    sheet that needs those rolls one plus its crosses beyond the roll before (what must go to
    make it one roll faster), then the total crosses. Lexicographically lower is better; the
    first and last entries are the split's (rolls, crosses) that CP-SAT minimises."""
    rolls = max((r for r, _ in costs), default=0)
    floor = CROSSES_PER_ROLL * (rolls - 1)
    return rolls, sum(1 + max(0, c - floor) for r, c in costs if r == rolls), sum(c for _, c in costs)


# the work one check of local_search stands for under by_work (missions/cpsolver.py WORK_PER_CHECK):
# a check follows every move and swap of a sheet's units, 30-60 ms with cold figures
_STEP_WORK = 0.03


def local_search(inst: SplitInstance, split, cost, deadline: Deadline, enough: int = 0) -> list[list[int]]:
    """Improve a split by moving one unit off a sheet that needs the most rolls, or swapping
    it with a unit of another sheet, while that lowers :func:`_split_key` (the set of units
    done stays the same, so every demand stays met). Stops at a local optimum, at
    ``deadline``, or once the split needs at most ``enough`` rolls."""
    n = len(inst.sheets)
    split = [list(a) for a in split]
    costs = [cost(p, split[p]) for p in range(n)]
    current = _split_key(costs)
    while current[0] > enough and not deadline.passed(_STEP_WORK):
        rolls = current[0]
        slow = [p for p in range(n) if costs[p][0] == rolls]
        best = None
        for p in slow:
            for u in split[p]:
                rest_p = [v for v in split[p] if v != u]
                for q in range(n):
                    if q == p or inst.units[u].masks[q] is None or cost(q, [u])[0] > rolls:
                        continue  # (u alone already needs more rolls on q: no move or swap of it helps)
                    trial = list(costs)
                    trial[p] = cost(p, rest_p)
                    trial[q] = cost(q, split[q] + [u])
                    key = _split_key(trial)
                    if key < current and (best is None or key < best[0]):
                        best = (key, p, u, q, None, trial)
                    for v in split[q]:  # swap u and v
                        if inst.units[v].masks[p] is None:
                            continue
                        trial = list(costs)
                        trial[p] = cost(p, rest_p + [v])
                        trial[q] = cost(q, [w for w in split[q] if w != v] + [u])
                        key = _split_key(trial)
                        if key < current and (best is None or key < best[0]):
                            best = (key, p, u, q, v, trial)
            if deadline.passed(_STEP_WORK):
                break
        if best is None:
            break
        current, p, u, q, v, costs = best
        split[p].remove(u)
        split[q].append(u)
        if v is not None:
            split[q].remove(v)
            split[p].append(v)
    return split
