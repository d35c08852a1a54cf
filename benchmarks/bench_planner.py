"""Planner benchmark: per seed the best score, the proven bound, the status and the time.

    python benchmarks/bench_planner.py --rolls 12 --seeds 1-50 --time-limit 60
    python benchmarks/bench_planner.py --rolls 30 --seeds 1-10 --time-limit 60

``--features`` switches optional model parts (comma list, see nochmal.solver.experiments
ALL_FEATURES; ``default`` = the planner's defaults) so each can be measured on its own.
Prints one line per seed, then medians; nothing here is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from nochmal.solver.cpsat import DEFAULT_FEATURES
from nochmal.solver.experiments import ALL_FEATURES, solve
from nochmal.solver.instance import Instance
from nochmal.rules import RuleSettings


def parse_seeds(text: str) -> list[int]:
    """Seeds as "1-50" or "1,18,20" (or both mixed); argparse's type: bad text is one line."""
    out: list[int] = []
    for part in text.split(","):
        try:
            if "-" in part:
                lo, hi = part.split("-")
                out.extend(range(int(lo), int(hi) + 1))
            else:
                out.append(int(part))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{part!r} is not a seed or a range like 1-50") from None
    return out


def add_solve_arguments(ap: argparse.ArgumentParser, rolls: int, seeds: str) -> None:
    """The instance and solver arguments every planner benchmark takes (bench_proofs too)."""
    ap.add_argument("--rolls", type=int, default=rolls)
    ap.add_argument("--seeds", type=parse_seeds, default=seeds, help=f"e.g. 1-50 or 1,18,20 (default {seeds})")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per solve")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--board", default="classic")


def parse_features(text: str, default: frozenset = DEFAULT_FEATURES, known: frozenset = ALL_FEATURES) -> frozenset:
    """``default,-lp,beam``: the default features, one taken out, one added (bench_race.py too)."""
    feats: set[str] = set()
    for tok in filter(None, text.split(",")):
        if tok == "default":
            feats |= default
        elif tok.startswith("-"):
            feats.discard(tok[1:])
        elif tok in known:
            feats.add(tok)
        else:
            sys.exit(f"unknown feature {tok!r}; known: {', '.join(sorted(known))}")
    return frozenset(feats)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_solve_arguments(ap, rolls=12, seeds="1-50")
    ap.add_argument("--features", default="default")
    args = ap.parse_args()
    feats = parse_features(args.features)
    seeds = args.seeds
    print(f"# rolls={args.rolls} time_limit={args.time_limit}s workers={args.workers} "
          f"board={args.board} features={','.join(sorted(feats)) or '-'}", flush=True)
    print(f"{'seed':>5} {'best':>5} {'bound':>5} {'gap':>4} {'status':>9} {'time':>7}", flush=True)
    rows = []
    t_all = time.monotonic()
    for seed in seeds:
        inst = Instance.from_seed(seed, args.board, RuleSettings(solo_rolls=args.rolls), count=args.rolls)
        plan = solve(inst, time_limit=args.time_limit, workers=args.workers, features=feats)
        gap = plan.gap
        rows.append((plan.total, plan.bound, gap, plan.status, plan.wall_time))
        print(f"{seed:>5} {plan.total:>5} {plan.bound if plan.bound is not None else '-':>5} "
              f"{gap if gap is not None else '-':>4} {plan.status:>9} {plan.wall_time:>7.2f}", flush=True)
    best = [r[0] for r in rows]
    gaps = [r[2] for r in rows if r[2] is not None]
    times = [r[4] for r in rows]
    proven = sum(r[3] == "optimal" for r in rows)
    print(f"# seeds {len(rows)}: proven optimal {proven}/{len(rows)}; best mean {statistics.mean(best):.2f} "
          f"median {statistics.median(best)}; gap median {statistics.median(gaps) if gaps else '-'}; "
          f"time median {statistics.median(times):.2f}s max {max(times):.2f}s; "
          f"wall {time.monotonic() - t_all:.0f}s", flush=True)


if __name__ == "__main__":
    main()
