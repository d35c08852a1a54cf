"""Calibrate the co-op missions' roll budgets (and the team-target score) by simulation.

The games are exactly the ones players get: roll budget B as the game's roll limit (bots
that plan read the rolls left from it, so every budget is played for real, never cut from a
longer game) and the mission's stop condition. For every mission and player count 1-4:

1. the win rate of the strongest team as a function of the budget on seeds 1..N: at each
   budget measured, every candidate bot plays the same seeds and the best rate counts
   (the best bot can change with the budget);
2. for each difficulty the measured budget whose rate is nearest the aim (easy 80 %,
   normal 50 %, hard 20 %), found by a doubling search and bisection; easy >= normal >=
   hard is enforced;
3. the rates with those budgets again on fresh seeds N+1..2N (out of sample), printed.

Team target: the bot with the best median team score after REFERENCE_ROLLS rolls (a solo
game's length) on the probe seeds plays; the score to reach is its median team score after
REFERENCE_ROLLS rolls on separate seeds 2001.. (--target-seeds), rounded; then budgets as
above.

The mission TOML files are rewritten (atomically; only the [budgets] table and the
team-target line change) only with --write.

Example:
    nice -n 10 python benchmarks/calibrate_missions.py --seeds 40 --write
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path

from nochmal.bots.registry import agent_names, make_agent
from nochmal.board import load_board
from nochmal.fileio import atomic_write_text
from nochmal.game import Game
from nochmal.missions.loader import builtin_mission_files, read_mission_file
from nochmal.missions.model import DIFFICULTIES, PLAYER_COUNTS, Mission
from nochmal.missions.objectives import all_met, team_score
from nochmal.play import play_game, play_solo

AIMS = {"easy": 0.80, "normal": 0.50, "hard": 0.20}
REFERENCE_ROLLS = 30
CAP = 200  # the largest budget considered


def bot_speed(name: str) -> float:
    """Mean milliseconds per decision in one seeded solo game."""
    board = load_board("classic")
    t0 = time.perf_counter()
    record = play_solo(board, make_agent(name, 1), 1)
    return 1000 * (time.perf_counter() - t0) / max(1, sum(len(ms) for _, ms in record.rolls))


def mission_game(mission: Mission, players: int, budget: int, target: int | None, stop: bool = True) -> Game:
    """The co-op game exactly as players get it, with ``budget`` rolls (and a score target)."""
    objectives = mission.objectives
    if target is not None:
        def won(game: Game) -> bool:
            return sum(team_score(s) for s in game.sheets) >= target
    else:
        def won(game: Game) -> bool:
            return all_met(objectives, game.sheets)
    return Game(load_board(mission.board), players, mode="coop", roll_limit=budget, stop_after_roll=won if stop else None)


def play_seed(mission, players, bot, seed, budget, target, stop=True) -> Game:
    game = mission_game(mission, players, budget, target, stop)
    return play_game(game, [make_agent(bot, seed * 10 + p) for p in range(players)], seed)


class Curve:
    """Win rate of the strongest team as a function of the budget, measured lazily.

    At each budget every candidate bot plays the same seeds and the best rate counts (the
    strongest team *for that budget*: bots that plan read the rolls left, so which bot is
    strongest can change with the budget). Memoised; ``best_bot[budget]`` names the bot.
    """

    def __init__(self, mission, players, bots, seeds, target):
        self.args = (mission, players, list(bots))
        self.seeds = list(seeds)
        self.target = target
        self.memo: dict[int, float] = {}
        self.best_bot: dict[int, str] = {}

    def rate(self, budget: int) -> float:
        if budget not in self.memo:
            mission, players, bots = self.args
            best = (-1.0, "")
            for bot in bots:
                wins = 0
                for s in self.seeds:
                    game = play_seed(mission, players, bot, s, budget, self.target)
                    if game.rolls_done <= budget and self._met(game):
                        wins += 1
                best = max(best, (wins / len(self.seeds), bot), key=lambda r: r[0])
            self.memo[budget], self.best_bot[budget] = best
        return self.memo[budget]

    def _met(self, game: Game) -> bool:
        if self.target is not None:
            return sum(team_score(s) for s in game.sheets) >= self.target
        return all_met(self.args[0].objectives, game.sheets)

    def budget_for(self, aim: float, cap: int, start: int = 16) -> int:
        """The measured budget whose rate is nearest ``aim`` (ties: the smaller budget).

        Doubling search up from ``start`` (short games are cheap), then bisection, measure
        the budgets around the crossing; the choice is then made among ALL measured budgets,
        so a curve that is not monotone (long horizons can make planning bots worse) still
        gets the nearest measured rate, never a blind extrapolation.
        """
        lo, hi = 1, min(start, cap)
        while self.rate(hi) < aim and hi < cap:
            lo, hi = hi + 1, min(2 * hi, cap)
        if self.rate(hi) >= aim:
            while lo < hi:
                mid = (lo + hi) // 2
                if self.rate(mid) >= aim:
                    hi = mid
                else:
                    lo = mid + 1
            if lo > 1:
                self.rate(lo - 1)
        return min(self.memo, key=lambda b: (abs(self.memo[b] - aim), b))


def choose_budgets(curve: Curve, cap: int) -> dict[str, int]:
    out = {d: curve.budget_for(aim, cap) for d, aim in AIMS.items()}
    out["normal"] = min(out["normal"], out["easy"])
    out["hard"] = min(out["hard"], out["normal"])
    return out


def rewrite_file(path: Path, budgets: dict[int, dict[str, int]], targets: dict[int, int] | None) -> str:
    """The file text with a new [budgets] table (and at_least line); everything else kept."""
    text = path.read_text(encoding="utf-8")
    lines = []
    for p in PLAYER_COUNTS:
        row = ", ".join(f"{d} = {budgets[p][d]}" for d in DIFFICULTIES)
        lines.append(f"{p} = {{ {row} }}")
    new_block = "[budgets]\n" + "\n".join(lines) + "\n"
    text, n = re.subn(r"\[budgets\]\n(?:\d = \{[^\n]*\}\n)+", new_block, text)
    if n != 1:
        raise SystemExit(f"{path}: cannot find the [budgets] table in the expected form")
    if targets is not None:
        row = ", ".join(f"{p} = {targets[p]}" for p in PLAYER_COUNTS)
        text, n = re.subn(r"at_least = \{[^\n]*\}", f"at_least = {{ {row} }}", text)
        if n != 1:
            raise SystemExit(f"{path}: cannot find the at_least line in the expected form")
    return text


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bots", nargs="*", default=None,
                    help="candidate bots (default: every registered bot except random that takes at most --max-ms per decision)")
    ap.add_argument("--max-ms", type=float, default=5.0, help="speed limit for the default candidates")
    ap.add_argument("--seeds", type=int, default=40, help="seeds to choose budgets on (the same number again to check)")
    ap.add_argument("--probe-seeds", type=int, default=8, help="seeds for picking the team-target bot")
    ap.add_argument("--target-seeds", type=int, default=100,
                    help="seeds (2001..) for the team-target score, apart from the budget seeds")
    ap.add_argument("--missions", nargs="*", default=None, help="mission ids (default: all shipped)")
    ap.add_argument("--players", nargs="*", type=int, default=list(PLAYER_COUNTS))
    ap.add_argument("--cap", type=int, default=CAP)
    ap.add_argument("--write", action="store_true", help="write the budgets into the mission files")
    args = ap.parse_args(argv)
    if args.bots:
        bots = args.bots
        for b in bots:
            if b not in agent_names():
                raise SystemExit(f"unknown bot {b!r}; known: {', '.join(agent_names())}")
    else:
        bots, seen = [], set()
        for name in agent_names():
            kind = type(make_agent(name, 0))
            if name == "random" or kind in seen:  # random is no team; level aliases repeat a bot
                continue
            seen.add(kind)
            ms = bot_speed(name)
            if ms <= args.max_ms:
                bots.append(name)
            print(f"bot {name}: {ms:.1f} ms per decision{'' if ms <= args.max_ms else ' (too slow, skipped; name it with --bots)'}")
    choose_seeds = range(1, args.seeds + 1)
    check_seeds = range(args.seeds + 1, 2 * args.seeds + 1)
    probe_seeds = range(1001, 1001 + args.probe_seeds)
    target_seeds = range(2001, 2001 + args.target_seeds)
    print(f"candidates {', '.join(bots)}; team-target bot chosen on seeds 1001..{1000 + args.probe_seeds}; "
          f"choose on seeds 1..{args.seeds}, check on {args.seeds + 1}..{2 * args.seeds}; cap {args.cap} rolls", flush=True)
    for path in builtin_mission_files():
        mission = read_mission_file(path)
        if args.missions and mission.id not in args.missions:
            continue
        score_mode = mission.objectives[0].kind == "score" and len(mission.objectives) == 1
        budgets = mission.budget_table()
        targets = dict(mission.objectives[0].at_least) if score_mode else None
        for p in args.players:
            t0 = time.time()
            target = None
            if score_mode:  # the strongest bot = best median team score over REFERENCE_ROLLS rolls
                medians = {b: statistics.median(
                    sum(play_seed(mission, p, b, s, REFERENCE_ROLLS, None, stop=False).scores()) for s in probe_seeds)
                    for b in bots}
                bot = max(medians, key=lambda b: (medians[b], -bots.index(b)))
                target = round(statistics.median(
                    sum(play_seed(mission, p, bot, s, REFERENCE_ROLLS, None, stop=False).scores()) for s in target_seeds))
                targets[p] = target
                probe = ", ".join(f"{b} median {m:g}" for b, m in medians.items())
            else:
                bot, probe = None, "best of " + ", ".join(bots) + " at each budget"
            team = [bot] if bot else bots
            curve = Curve(mission, p, team, choose_seeds, target)
            check = Curve(mission, p, team, check_seeds, target)
            b = choose_budgets(curve, args.cap)
            budgets[p] = b
            cells = [f"{d} {b[d]:>3}: {100 * curve.rate(b[d]):3.0f}% / {100 * check.rate(b[d]):3.0f}% "
                     f"{curve.best_bot[b[d]]}" for d in DIFFICULTIES]
            extra = f" target {target}" if score_mode else ""
            print(f"{mission.id:<13} {p}p{extra}: " + " | ".join(cells) +
                  f"   [{probe}] {time.time() - t0:.0f}s", flush=True)
        if args.write:
            atomic_write_text(path, rewrite_file(path, budgets, targets if score_mode else None))
            read_mission_file(path)  # the written file must load
            print(f"wrote {path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
