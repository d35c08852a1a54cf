"""Engine speed: legal-placement queries and greedy solo games per second.

Prints figures, asserts nothing (speed is never a test). Two measurements, single process,
single thread:

1. Microseconds per legal-placement query (sheet, colour, count) over a fixed set of
   mid-game positions taken deterministically from seeded greedy and random games
   (solo and 2-4 players). Every position is asked all 25 (colour, count) pairs.
   * cold: for each position a fresh PlacementIndex (empty per-block tables), so every
     block state of that position is computed on first use; the index is built outside the
     timed region, only the queries are timed;
   * warm: the shared index after one pass, timed over several passes, both straight
     through ``PlacementIndex.query`` and through the public ``Sheet.placements``.
2. Greedy solo games per second through the real Game API
   (``play_game(Game(board, 1, mode="solo"), [GreedyAgent()], seed)``), first a cold run
   on a fresh board object, then steady state.

Every figure is given as wall-clock and as CPU time of this process: the machine is shared,
and the CPU figure is the one less disturbed by other processes.

Usage:  nice -n 10 python benchmarks/bench_engine.py [--positions 300] [--games 2000]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from importlib import resources

from nochmal.agents import GreedyAgent, RandomAgent
from nochmal.board import COLOURS, parse_board_text
from nochmal.dice import seeded_roll
from nochmal.game import Game
from nochmal.placements import PlacementIndex
from nochmal.play import play_game
from nochmal.sheet import Sheet


def fresh_classic():
    """A new Board object (its placement caches empty), not the shared built-in one."""
    text = resources.files("nochmal.boards").joinpath("classic.toml").read_text(encoding="utf-8")
    return parse_board_text(text, "classic.toml")


def collect_positions(board, count: int) -> list[Sheet]:
    """Distinct mid-game sheets (rolls 6..24) from seeded games, in a fixed order."""
    seen: set[tuple[int, int]] = set()
    out: list[Sheet] = []
    seed = 0
    while len(out) < count:
        players = (1, 2, 3, 4)[seed % 4]
        mode = "solo" if players == 1 else "competitive"
        kinds = [GreedyAgent(seed + p) if (seed + p) % 2 == 0 else RandomAgent(seed + p) for p in range(players)]
        game = Game(board, players, mode=mode)
        while not game.is_terminal() and game.rolls_done < 25:
            player = game.current_player()
            if player < 0:
                if game.rolls_done >= 6 and game.rolls_done % 3 == 0:
                    for sheet in game.sheets:
                        key = (sheet.crossed, sheet.jokers_used)
                        if key not in seen and len(out) < count:
                            seen.add(key)
                            out.append(sheet)
                game.apply_roll(seeded_roll(seed, game.rolls_done, game.dice_per_kind))
            else:
                game.apply_move(kinds[player].choose(game))
        seed += 1
    return out


def _clocks() -> tuple[int, int]:
    return time.perf_counter_ns(), time.process_time_ns()


def bench_queries(board, positions: list[Sheet], repeat: int) -> dict:
    """Per-query microseconds as (wall-clock, CPU time) pairs; best pass for warm figures."""
    pairs = [(c, n) for c in COLOURS for n in range(1, 6)]
    n_queries = len(positions) * len(pairs)

    # cold: a fresh index per position, built outside the timed region
    cold_wall = cold_cpu = build_wall = 0
    results_cold = 0
    for sheet in positions:
        b0 = time.perf_counter_ns()
        index = PlacementIndex(board, False)
        build_wall += time.perf_counter_ns() - b0
        q = index.query
        crossed, anchored = sheet.crossed, sheet.anchored
        w0, c0 = _clocks()
        for colour, count in pairs:
            results_cold += len(q(crossed, anchored, colour, count))
        w1, c1 = _clocks()
        cold_wall += w1 - w0
        cold_cpu += c1 - c0

    def best_of(run) -> tuple[float, float]:
        run()  # warm the tables
        best_w = best_c = None
        for _ in range(repeat):
            w0, c0 = _clocks()
            run()
            w1, c1 = _clocks()
            best_w = w1 - w0 if best_w is None else min(best_w, w1 - w0)
            best_c = c1 - c0 if best_c is None else min(best_c, c1 - c0)
        return best_w / n_queries / 1000, best_c / n_queries / 1000

    index = PlacementIndex(board, False)
    q = index.query
    work = [(s.crossed, s.anchored, c, n) for s in positions for c, n in pairs]

    def run_index():
        for crossed, anchored, colour, count in work:
            q(crossed, anchored, colour, count)

    api_work = [(s, c, n) for s in positions for c, n in pairs]

    def run_api():
        for sheet, colour, count in api_work:
            sheet.placements(colour, count)

    warm_index = best_of(run_index)
    warm_api = best_of(run_api)
    results_warm = sum(len(q(*args)) for args in work)
    return {
        "positions": len(positions), "queries": n_queries, "placements": results_warm,
        "agree": results_warm == results_cold,
        "cold": (cold_wall / n_queries / 1000, cold_cpu / n_queries / 1000),
        "build_ms": build_wall / len(positions) / 1e6,
        "warm_index": warm_index, "warm_api": warm_api,
    }


def bench_games(games: int) -> dict:
    board = fresh_classic()
    t0 = time.perf_counter()
    cold_games = min(100, games)
    for seed in range(cold_games):
        play_game(Game(board, 1, mode="solo"), [GreedyAgent(seed)], seed)
    cold = time.perf_counter() - t0
    t0, c0 = time.perf_counter(), time.process_time()
    total = 0
    for seed in range(games):
        game = play_game(Game(board, 1, mode="solo"), [GreedyAgent(seed)], seed)
        total += game.scores()[0]
    warm, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"cold_games": cold_games, "cold_per_s": cold_games / cold, "games": games,
            "per_s": games / warm, "per_cpu_s": games / cpu, "mean_score": total / games}


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown cpu"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--games", type=int, default=2000)
    args = ap.parse_args(argv)

    print(f"python {platform.python_version()} on {cpu_name()}, one process, one thread")
    board = fresh_classic()
    positions = collect_positions(board, args.positions)
    crosses = [s.crossed.bit_count() for s in positions]
    print(f"positions: {len(positions)} mid-game sheets (rolls 6..24 of seeded greedy/random games), "
          f"{min(crosses)}..{max(crosses)} crosses, mean {sum(crosses) / len(crosses):.1f}")
    r = bench_queries(board, positions, args.repeat)
    print(f"placement query (sheet, colour, count): {r['queries']} queries, {r['placements']} placements "
          f"(cold and warm answers {'agree' if r['agree'] else 'DISAGREE'})")
    print(f"  building a fresh PlacementIndex (not in the query figures): {r['build_ms']:.2f} ms wall-clock")
    for label, key in (("cold  (fresh PlacementIndex per position)", "cold"),
                       (f"warm  PlacementIndex.query, best of {args.repeat}", "warm_index"),
                       (f"warm  Sheet.placements, best of {args.repeat}  ", "warm_api")):
        wall, cpu = r[key]
        print(f"  {label}: {wall:.2f} us/query wall-clock, {cpu:.2f} us/query CPU")
    g = bench_games(args.games)
    print(f"greedy solo games via play_game: cold (fresh board, first {g['cold_games']} games) "
          f"{g['cold_per_s']:.0f} games/s; steady {g['per_s']:.0f} games/s wall-clock, "
          f"{g['per_cpu_s']:.0f} games per CPU-second, over {g['games']} games (mean score {g['mean_score']:.2f})")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
