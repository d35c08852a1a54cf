"""Clever 4ever: the engine's legal-move speed and the bots' solo means on held-out seeds.

Prints figures, asserts nothing (speed is never a test). Single process, single thread.

1. Microseconds per ``legal_moves()`` call over a fixed set of decision states, taken from
   seeded random and greedy games (solo and 2-4 players), every state asked ``--repeat``
   times; wall clock and CPU time of this process.
2. Random solo games per CPU-second through the real API (``play`` with the random bot).
3. The bots' solo means on seeds ``--seeds A..B`` (held out: the greedy weights were set on
   seeds 0-59, the rollout bot's budget on seeds 2000-2059), with a 95 % interval, the paired
   difference of each bot and the first, the rating table's band of each mean, and the CPU
   time of a decision (the rollout bot's budget is counted in rollouts: this is its measure).

Usage:  nice -n 10 python benchmarks/bench_clever.py [--seeds 1000..1199] [--repeat 20]
        [--bots random,greedy,rollout]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from nochmal.bots.clever import clever_bot, play
from nochmal.clever import CleverGame, clever4ever


def states(per_setup: int = 2) -> list[CleverGame]:
    out: list[CleverGame] = []
    for players in (1, 2, 3, 4):
        for bot in ("random", "greedy"):
            for seed in range(per_setup):
                def keep(game):
                    if not game.is_terminal() and not game.is_chance_node():
                        out.append(game.clone())

                play(CleverGame(players), [clever_bot(bot, seed + p) for p in range(players)], 500 + seed, keep)
    return out


def interval(values: list[float]) -> tuple[float, float]:
    mean = statistics.mean(values)
    return mean, 1.96 * statistics.stdev(values) / len(values) ** 0.5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1000..1199")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--bots", default="random,greedy,rollout")
    args = parser.parse_args()
    first, last = (int(x) for x in args.seeds.split(".."))
    print(f"load average {os.getloadavg()[0]:.1f}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")

    pool = states()
    wall, cpu = time.perf_counter(), time.process_time()
    moves = 0
    for _ in range(args.repeat):
        for game in pool:
            moves += len(game.legal_moves())
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    calls = args.repeat * len(pool)
    print(f"legal_moves: {len(pool)} states x {args.repeat}: {1e6 * wall / calls:.1f} us wall, "
          f"{1e6 * cpu / calls:.1f} us CPU per call ({moves / calls:.1f} actions per state)")

    cpu = time.process_time()
    n = 200
    for seed in range(n):
        play(CleverGame(1), [clever_bot("random", seed)], seed)
    print(f"random solo games: {n / (time.process_time() - cpu):.0f} per CPU-second")

    facts = clever4ever()
    seeds = range(first, last + 1)
    bots = args.bots.split(",")
    scores = {}
    for bot in bots:
        decisions = [0]

        def count(game, decisions=decisions):
            decisions[0] += bool(game.history) and game.history[-1][0] >= 0

        cpu = time.process_time()
        scores[bot] = [play(CleverGame(1), [clever_bot(bot, s)], s, count).scores()[0] for s in seeds]
        cpu = time.process_time() - cpu
        mean, half = interval(scores[bot])
        print(f"{bot}: mean {mean:.1f} +- {half:.1f} (95 %), min {min(scores[bot])}, max {max(scores[bot])}, "
              f"{cpu / len(seeds) * 1000:.0f} ms CPU a game, {cpu / decisions[0] * 1000:.1f} ms CPU a decision; "
              f"band of the mean: {facts.rating(round(mean))!r}", flush=True)
    for bot in bots[1:]:
        diff, half = interval([b - a for b, a in zip(scores[bot], scores[bots[0]])])
        print(f"{bot} - {bots[0]}, paired on {len(seeds)} seeds: {diff:.1f} +- {half:.1f}")
    if len(bots) > 2:
        diff, half = interval([b - a for b, a in zip(scores[bots[-1]], scores[bots[-2]])])
        print(f"{bots[-1]} - {bots[-2]}, paired on {len(seeds)} seeds: {diff:.1f} +- {half:.1f}")

if __name__ == "__main__":
    main()
