"""How fast is the exact impossible-sheet check, and how fast would CP-SAT decide the same?

For the sheets of seeded greedy solo games after rolls 5, 10, 20 and 30: the fewest rolls
by the piece argument (nochmal.impossible.rolls_needed, CPU microseconds per call), and
CP-SAT (tests/rolls_oracle.py rolls_needed_cpsat, one worker) asked "<= fewest" (feasible) and "<= fewest - 1"
(must be refused), each with a time limit. Prints figures, asserts nothing.

Usage:  nice -n 10 python benchmarks/bench_feasibility.py [--seeds 3] [--cpsat-limit 20]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from nochmal.bots.registry import make_agent
from nochmal.board import load_board
from nochmal.impossible import rolls_needed
from nochmal.play import play_solo

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from rolls_oracle import rolls_needed_cpsat  # noqa: E402  (tests/ is not a package; the oracle is the tests')

TURNS = (5, 10, 20, 30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="greedy solo games (seeds 1..N)")
    parser.add_argument("--cpsat-limit", type=float, default=20.0, help="seconds per CP-SAT decision")
    parser.add_argument("--repeat", type=int, default=200, help="calls per sheet for the exact check")
    args = parser.parse_args()
    board = load_board("classic")
    print(f"{'seed':>4} {'roll':>4} {'cells':>5} {'fewest':>6} {'exact us':>9} "
          f"{'cpsat <=k':>14} {'cpsat <=k-1':>14}")
    for seed in range(1, args.seeds + 1):
        record = play_solo(board, make_agent("greedy", seed), seed)
        for _, game in record.replay():
            if game.rolls_done not in TURNS or game.roll is not None:
                continue
            crossed = game.sheets[0].crossed
            start = time.process_time()
            for _ in range(args.repeat):
                need = rolls_needed(board, crossed)
            micro = (time.process_time() - start) / args.repeat * 1e6
            cells = []
            for k in (need.lower, need.lower - 1):
                start = time.perf_counter()
                answer = rolls_needed_cpsat(board, crossed, k, time_limit=args.cpsat_limit)
                word = {True: "yes", False: "no", None: "unknown"}[answer]
                cells.append(f"{word} {time.perf_counter() - start:6.2f}s")
            print(f"{seed:>4} {game.rolls_done:>4} {crossed.bit_count():>5} {need.lower:>6} {micro:>9.0f} "
                  f"{cells[0]:>14} {cells[1]:>14}", flush=True)


if __name__ == "__main__":
    main()
