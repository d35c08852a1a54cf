"""Published bot figures: runs the paired harness on held-out seeds and prints Markdown rows.

Held-out seeds start at 100000; tuning (benchmarks/tune_heuristic.py) only uses 1..1000.
Each suite is one harness run (nochmal.bots.harness.run_bench, the same code as
`nochmal bench bots`); pick the suites and sizes that fit the CPU you have, e.g.

    nice -n 10 python benchmarks/bench_bots.py solo --bots greedy,heuristic,lookahead --seeds 100000..100199
    nice -n 10 python benchmarks/bench_bots.py table --players 2 --bots greedy,lookahead --seeds 100000..100099

Progress goes to stderr; the Markdown table (and --json-out, if given) to stdout/a file.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from nochmal.board import load_board
from nochmal.bots.harness import BenchMode, parse_seed_range, run_bench
from nochmal.errors import NochmalError
from nochmal.fileio import atomic_write_text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=[m.value for m in BenchMode])
    ap.add_argument("--bots", required=True)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--seeds", default="100000..100099")
    ap.add_argument("--board", default="classic")
    ap.add_argument("--json-out", default=None)
    args = ap.parse_args()
    mode = BenchMode(args.mode)
    names = [n for n in args.bots.split(",") if n]
    try:
        seeds = parse_seed_range(args.seeds)
        board = load_board(args.board)
    except NochmalError as exc:
        ap.exit(2, f"error: {exc}\n")
    t0 = time.time()
    last = [0.0]

    def progress(done: int, total: int) -> None:
        if time.time() - last[0] > 10 or done == total:
            last[0] = time.time()
            print(f"  {done}/{total} games, {time.time() - t0:.0f}s", file=sys.stderr, flush=True)

    try:
        res = run_bench(board, names, mode, seeds, args.players, progress=progress)
    except NochmalError as exc:  # an unknown bot, a bad table size: named before any game is played
        ap.exit(2, f"error: {exc}\n")
    what = "solo" if mode is BenchMode.SOLO else f"table of {args.players}"
    print(f"{what}, board {args.board}, seeds {seeds[0]}..{seeds[1]} ({seeds[1] - seeds[0] + 1} seeds), "
          f"{time.time() - t0:.0f}s wall")
    print("| bot | games | mean score ± 95% CI | win rate ± 95% CI | s/decision (wall) | s/decision (CPU) |")
    print("|---|---|---|---|---|---|")
    for f in res.bots:
        win = "-" if f.win_rate is None else f"{100 * f.win_rate:.1f} ± {100 * f.win_ci:.1f} %"
        print(f"| {f.bot} | {f.games} | {f.mean_score:.2f} ± {f.score_ci:.2f} | {win} | {f.seconds_per_decision:.4f} | {f.cpu_seconds_per_decision:.4f} |")
    for d in res.paired:
        k, unit = (100, " %") if d.metric == "win" else (1, "")
        print(f"paired {d.metric}: {d.bot} − {d.baseline} = {k * d.mean:.2f} ± {k * d.ci:.2f}{unit} ({d.seeds} seeds)")
    if args.json_out:
        try:
            atomic_write_text(args.json_out, json.dumps(res.to_dict(), indent=1) + "\n")
        except (NochmalError, OSError) as exc:
            ap.exit(2, f"error: --json-out: {exc}\n")


if __name__ == "__main__":
    main()
