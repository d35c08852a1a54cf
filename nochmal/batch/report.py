"""The summary of a store: counts, means with 95 % CIs, the proof rate, time percentiles,
and a histogram of the scores as an SVG picture (plain text, no library).

Means and CIs come from nochmal/bots/harness.py (``mean_ci``; for a bots store the whole
``summarize``), so a bots campaign reports the same figures as ``nochmal bench bots``.
"""

from __future__ import annotations

import math
from collections import Counter
from xml.sax.saxutils import escape

from nochmal.batch.store import OK, Store
from nochmal.bots.harness import BenchMode, mean_ci, summarize


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) by linear interpolation between order statistics."""
    if not values:
        return math.nan
    xs = sorted(values)
    pos = q * (len(xs) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


PERCENTILES = (0.5, 0.9, 0.99, 1.0)


def time_percentiles(values: list[float]) -> dict[str, float]:
    return {("max" if q == 1.0 else f"p{round(q * 100)}"): percentile(values, q) for q in PERCENTILES}


def _finite(x: float) -> float | None:
    """JSON has no nan: None stands for 'not defined' (e.g. a CI of one value)."""
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


BEST_SERIES = "best found, every seed"
PROVEN_SERIES = "proven optimum"


def best_distribution(best: list[float], proven: list[bool]) -> list[dict]:
    """Per best score: how many seeds reached it and how many of them are proven optimal (the
    optimum's distribution is the proven part; the rest are lower bounds of their optimum)."""
    seeds, sure = Counter(best), Counter(b for b, p in zip(best, proven) if p)
    return [{"score": int(b) if float(b).is_integer() else b, "seeds": seeds[b], "proven": sure[b]}
            for b in sorted(seeds)]


def summary(store: Store) -> dict:
    """The store's figures as plain data (``--json``); ``scores`` maps a series name to the
    scores the histogram draws (left out of ``--json``: a solve store's ``distribution``
    counts them)."""
    rows = store.rows()
    ok = [r for r in rows if r.status == OK]
    failed = [r for r in rows if r.status != OK]
    data = {"store": str(store.path), "kind": store.kind, "settings": store.campaign,
            "tasks": len(rows), "ok": len(ok), "failed": len(failed),
            "failures": [{"key": r.key, "error": r.error} for r in failed[:20]],
            "task_seconds": {k: _finite(v) for k, v in time_percentiles([r.seconds for r in ok]).items()}}
    if store.kind == "solve":
        best = [float(r.result["best"]) for r in ok]
        bounds = [float(r.result["bound"]) for r in ok if r.result["bound"] is not None]
        proven = [1.0 if r.result["proven"] else 0.0 for r in ok]
        m, ci = mean_ci(best)
        bm, bci = mean_ci(bounds)
        pm, pci = mean_ci(proven)
        data.update({
            "best": {"mean": _finite(m), "ci": _finite(ci), "min": min(best, default=None),
                     "max": max(best, default=None)},
            "bound": {"mean": _finite(bm), "ci": _finite(bci), "count": len(bounds)},
            "proven": {"count": int(sum(proven)), "rate": _finite(pm), "ci": _finite(pci)},
            "solve_seconds": {k: _finite(v) for k, v in
                              time_percentiles([r.result["solve_seconds"] for r in ok]).items()},
        })
        proven_flags = [bool(r.result["proven"]) for r in ok]
        data["distribution"] = best_distribution(best, proven_flags)
        data["scores"] = {BEST_SERIES: best, PROVEN_SERIES: [b for b, p in zip(best, proven_flags) if p]}
    elif store.kind == "calibrate":
        data["games"] = calibration_games(ok)
        data["scores"] = {"team score": [float(r.result["team_score"]) for r in ok]}
    else:
        bench, scores = bots_bench(store, ok)
        bench_data = bench.to_dict()
        bench_data.pop("per_seed")
        bench_data["seeds"]["count"] = len(ok)  # the seeds stored (failed ones leave gaps)
        data["bench"] = _json_safe(bench_data)
        data["scores"] = scores
    return data


def calibration_games(ok_rows) -> list[dict]:
    """A calibrate store's games per mission and player count: how many, how many met
    (over every budget and bot the searches tried; nochmal/batch/calibrate.py)."""
    groups: dict[tuple[str, int], list[bool]] = {}
    for r in ok_rows:
        groups.setdefault((r.settings["mission"], r.settings["players"]), []).append(bool(r.result["met"]))
    return [{"mission": m, "players": p, "games": len(met), "met": sum(met)}
            for (m, p), met in sorted(groups.items())]


def bots_bench(store: Store, ok_rows=None):
    """(the harness's BenchResult over the stored seeds, per-bot scores) of a bots store."""
    ok = ok_rows if ok_rows is not None else [r for r in store.rows() if r.status == OK]
    settings = store.campaign
    mode = BenchMode.parse(settings["mode"], f"{store.path}: settings.mode")  # stored as its text
    names = list(dict.fromkeys(settings["bots"]))
    seeds = [r.settings["seed"] for r in ok]
    scores = {n: [r.result["bots"][n]["score"] for r in ok] for n in names}
    wins = {n: [r.result["bots"][n]["win"] for r in ok] for n in names} if mode is BenchMode.TABLE else None
    totals = {field: {n: sum(r.result["bots"][n][field] for r in ok) for n in names}
              for field in ("decisions", "seconds", "cpu_seconds", "games")}
    bench = summarize(mode, settings["players"], (min(seeds, default=0), max(seeds, default=0)),
                      names, scores, wins, totals["decisions"], totals["seconds"], totals["games"],
                      totals["cpu_seconds"])
    bench.game = settings.get("game", "nochmal")
    return bench, scores


def _json_safe(value):
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    if isinstance(value, float):
        return _finite(value)
    return value


SERIES_COLOURS = ("#3465a4", "#cc0000", "#4e9a06", "#c4a000", "#75507b", "#ce5c00")


def histogram_svg(series: dict[str, list[float]], title: str, width: int = 720, height: int = 360) -> str:
    """Bars of how often each score occurs (one bar group per score; several series side by side),
    with value labels on the axes; integer scores get one bin each, others ~30 bins."""
    values = [v for vs in series.values() for v in vs]
    left, right, top, bottom = 56, 16, (40 if len(series) == 1 else 60), 48
    plot_w, plot_h = width - left - right, height - top - bottom
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="15">{escape(title)}</text>']
    if not values:
        out.append(f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle">no scores stored</text></svg>')
        return "\n".join(out) + "\n"
    lo, hi = math.floor(min(values)), math.ceil(max(values))
    integral = all(float(v).is_integer() for v in values)
    step = 1 if integral and hi - lo <= 120 else max(1, math.ceil((hi - lo + 1) / 30))
    bins = list(range(lo - lo % step if step > 1 else lo, hi + 1, step))
    counts = {name: Counter((math.floor(v) - bins[0]) // step for v in vs) for name, vs in series.items()}
    peak = max(max(c.values(), default=0) for c in counts.values()) or 1
    slot = plot_w / len(bins)
    bar = max(1.0, slot * 0.9 / len(series))
    axis_y = top + plot_h
    out.append(f'<line x1="{left}" y1="{axis_y}" x2="{left + plot_w}" y2="{axis_y}" stroke="black"/>')
    out.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{axis_y}" stroke="black"/>')
    for count in sorted({round(peak * k / 4) for k in range(5)}):  # count gridlines
        y = axis_y - plot_h * count / peak
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{count}</text>')
    for s, (name, c) in enumerate(counts.items()):
        colour = SERIES_COLOURS[s % len(SERIES_COLOURS)]
        for b, n in sorted(c.items()):
            x = left + b * slot + slot * 0.05 + s * bar
            h = plot_h * n / peak
            out.append(f'<rect class="bar" data-series="{escape(name)}" data-score="{bins[b]}" data-count="{n}" '
                       f'x="{x:.1f}" y="{axis_y - h:.1f}" width="{bar:.1f}" height="{h:.1f}" fill="{colour}"/>')
    label_every = max(1, math.ceil(len(bins) / 12))
    for b in range(0, len(bins), label_every):
        x = left + (b + 0.5) * slot
        out.append(f'<text x="{x:.1f}" y="{axis_y + 16}" text-anchor="middle">{bins[b]}</text>')
    out.append(f'<text x="{left + plot_w / 2}" y="{height - 8}" text-anchor="middle">score'
               f'{"" if step == 1 else f" (bins of {step})"}</text>')
    out.append(f'<text x="14" y="{top + plot_h / 2}" text-anchor="middle" '
               f'transform="rotate(-90 14 {top + plot_h / 2})">count</text>')
    if len(series) > 1:
        x = left + 10
        for s, name in enumerate(series):
            out.append(f'<rect x="{x}" y="{top - 26}" width="10" height="10" fill="{SERIES_COLOURS[s % 6]}"/>'
                       f'<text x="{x + 14}" y="{top - 17}">{escape(name)}</text>')
            x += 34 + 7 * len(name)  # ~7 px a character at 12 px sans-serif
    out.append("</svg>")
    return "\n".join(out) + "\n"
