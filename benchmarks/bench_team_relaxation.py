"""The team planner's relaxation bound (solver/team_relaxation.py relaxation_bound) per mission and
player count on seeded dice: the bound, the dice-free slot bound it starts from, the seconds.

    python benchmarks/bench_team_relaxation.py lockstep,star-hunt 1,2,3,4 10 [--seed 1]

Figures: benchmarks/RESULTS.md, section "Analysis and team planning fixes".
"""

from __future__ import annotations

import argparse
import time

from nochmal.board import load_board
from nochmal.dice import seeded_roll
from nochmal.missions.loader import load_mission
from nochmal.missions.model import rolls_lower_bound
from nochmal.solver.team_relaxation import relaxation_bound


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("missions", help="comma-separated mission ids")
    ap.add_argument("players", help="comma-separated player counts")
    ap.add_argument("seconds", type=float, help="time for all the checks of one bound")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--difficulty", default="normal")
    args = ap.parse_args()
    for mission_id in args.missions.split(","):
        mission = load_mission(mission_id)
        board = load_board(mission.board)
        for n in map(int, args.players.split(",")):
            budget = mission.budget(n, args.difficulty)
            rolls = [seeded_roll(args.seed, i, 2 if n == 1 else 3) for i in range(budget)]
            t0 = time.monotonic()
            solves: list = []
            bound = relaxation_bound(board, mission, rolls, n, args.seconds, solves=solves)
            print(f"{mission_id} players {n} budget {budget} slot bound {rolls_lower_bound(mission.objectives, board, n)} "
                  f"relaxation {bound} {time.monotonic() - t0:.2f}s checks "
                  + ", ".join(f"{s['rolls']}: {s['status'].split()[-1]}" for s in solves), flush=True)


if __name__ == "__main__":
    main()
