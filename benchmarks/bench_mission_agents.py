"""Co-op win rates: a bot alone against the same bot behind missions.tactics.MissionAgent.

    python benchmarks/bench_mission_agents.py --seeds 20 --players 2 --bot greedy

Per mission one line per kind of seat: games won of the seeds (0..N-1), difficulty normal,
and the seconds the games took. Prints figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import time

from nochmal.agents import make_agent
from nochmal.missions import builtin_missions, play_mission
from nochmal.missions.tactics import MissionAgent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20, help="seeds 0..N-1 (default 20)")
    ap.add_argument("--players", type=int, default=2, choices=(1, 2, 3, 4))
    ap.add_argument("--bot", default="greedy", help="the seats' own bot (a registry name)")
    args = ap.parse_args()
    for mission in builtin_missions():
        for label, seat in ((args.bot, lambda p: make_agent(args.bot, p)),
                            (f"mission({args.bot})", lambda p: MissionAgent(mission, make_agent(args.bot, p)))):
            t0 = time.perf_counter()
            wins = 0
            for seed in range(args.seeds):
                _, result = play_mission(mission, "normal", [seat(p) for p in range(args.players)], seed)
                wins += result.won
            print(f"{mission.id:13s} {args.players}p {label:18s} won {wins}/{args.seeds}  "
                  f"{time.perf_counter() - t0:.1f}s", flush=True)


if __name__ == "__main__":
    main()
