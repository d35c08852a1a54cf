"""Competitive analysis benchmark: per record and seat, the seat's best score with the other
players' moves as recorded (solver/race.py), its proven bound, the status and the time.

    nochmal play --seat heuristic --seat heuristic --seed 3 --save p2.json
    python benchmarks/bench_race.py p2.json --time-limit 60
    python benchmarks/bench_race.py p2.json --seats 1 --features reach_prune,hint,max_lp

``--features``: a comma list of the race model's optional parts (``default`` = RACE_FEATURES,
``-name`` drops one). Prints the load, then one line per seat; nothing here is asserted.
"""

from __future__ import annotations

import argparse
import os
import time

from nochmal.record import GameRecord
from nochmal.solver.race import RACE_FEATURES, race_instance, solve_race

from bench_planner import parse_features

KNOWN = RACE_FEATURES | {"lb_tree"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", nargs="+")
    ap.add_argument("--seats", default="", help="comma list of 1-based seats (default: all)")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--features", default="default")
    args = ap.parse_args()
    feats = parse_features(args.features, RACE_FEATURES, KNOWN)
    print(f"# load {os.getloadavg()[0]:.1f}; time_limit={args.time_limit}s workers={args.workers} "
          f"features={','.join(sorted(feats))}", flush=True)
    for path in args.records:
        record = GameRecord.load(path)
        seats = [int(s) - 1 for s in args.seats.split(",") if s] or range(len(record.players))
        for seat in seats:
            t0 = time.monotonic()
            inst = race_instance(record, seat, 0, path)
            plan = solve_race(inst, time_limit=args.time_limit, workers=args.workers, features=feats)
            actual = record.verify(path).sheets[seat].score()
            print(f"{path} seat {seat + 1}: actual {actual}, best {plan.total}, bound {plan.bound}, "
                  f"{plan.status}, {time.monotonic() - t0:.1f}s, load {os.getloadavg()[0]:.1f}; {plan.note}",
                  flush=True)


if __name__ == "__main__":
    main()
