"""Value calibration: does a one-ply bot's evaluation predict the scores its own games reach?

For every decision of the bot (``ntuple`` or ``heuristic``, solo) on a seed range, the
value of the chosen after-state is compared with the game's final score: error = final -
value. The mean error is reported by rolls left and by sheet statistics that no single
n-tuple group sees whole (columns one or two cells short, colours at most four cells
short, jokers left), with 95 % CIs over games, since the decisions of one game share its
dice. A bucket far from zero is a bias that a richer evaluation could remove; buckets all
near zero mean the evaluation agrees with its own play on the sheets it visits (it says
nothing of the choices it never makes). Use tuning seeds (1..1000) only, e.g.

    nice -n 5 python benchmarks/value_calibration.py --bot ntuple --seeds 1..400

Markdown to stdout, progress to stderr, --json-out for the per-bucket figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass

from nochmal.board import COLOURS, Board, load_board
from nochmal.bots.evaluation import estimated_rolls_left
from nochmal.bots.harness import parse_seed_range
from nochmal.bots.heuristic import Engine, choice_move
from nochmal.errors import NochmalError
from nochmal.fileio import atomic_write_text
from nochmal.game import Game
from nochmal.play import play_game

PHASES = ((1, 5), (6, 10), (11, 20), (21, 29))  # rolls left after the decision
MIN_GAMES = 30  # buckets seen in fewer games are not reported


@dataclass(frozen=True)
class Decision:
    """One decision: the after-state's value and the statistics it is bucketed by."""

    rolls_left: int
    value: float
    columns_short: int  # columns missing one or two cells
    colours_short: int  # colours missing one to four cells
    jokers_left: int


def play_recorded(board: Board, engine: Engine, seed: int) -> tuple[list[Decision], int]:
    """Play one solo game greedily on ``engine``'s evaluation; its decisions and final score."""
    columns = board.column_mask
    colours = [board.colour_mask[c] for c in COLOURS]
    decisions: list[Decision] = []

    class Recorder:
        name = "recorder"

        def choose(self, game: Game):
            value, choice = engine.rank(game, False)[0]
            sheet = game.sheets[0]
            crossed = sheet.crossed | (choice.mask if choice else 0)
            decisions.append(Decision(
                rolls_left=estimated_rolls_left(game),
                value=value,
                columns_short=sum(1 for m in columns if 0 < (m & ~crossed).bit_count() <= 2),
                colours_short=sum(1 for m in colours if 0 < (m & ~crossed).bit_count() <= 4),
                jokers_left=sheet.jokers_left - (choice.cost if choice else 0),
            ))
            return choice_move(game, choice)

    game = play_game(Game(board, 1, mode="solo"), [Recorder()], seed)
    return decisions, game.scores()[0]


def bucket_errors(games: dict[int, tuple[list[Decision], int]], key) -> dict[tuple[int, int], dict]:
    """{(phase index, bucket): {mean, ci, games}}: the per-game mean error (final - value)
    of the decisions in the bucket, averaged over games; CI = 1.96 SD / sqrt(games)."""
    per: dict[tuple[int, int], dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for seed, (decisions, final) in games.items():
        for d in decisions:
            for p, (lo, hi) in enumerate(PHASES):
                if lo <= d.rolls_left <= hi:
                    per[(p, key(d))][seed].append(final - d.value)
    out = {}
    for k, by_game in sorted(per.items()):
        means = [statistics.fmean(v) for v in by_game.values()]
        ci = 1.96 * statistics.stdev(means) / len(means) ** 0.5 if len(means) > 1 else float("inf")
        out[k] = {"mean": statistics.fmean(means), "ci": ci, "games": len(means)}
    return out


# name: (Decision field, cap: the last bucket holds the cap and more); None = one bucket
GROUPINGS = {
    "all decisions": (None, 0),
    "columns one or two cells short": ("columns_short", 6),
    "colours at most four cells short": ("colours_short", 3),
    "jokers left": ("jokers_left", 6),
}


def grouping_key(field: str | None, cap: int):
    return (lambda d: 0) if field is None else (lambda d: min(getattr(d, field), cap))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bot", choices=["ntuple", "heuristic"], default="ntuple")
    ap.add_argument("--seeds", default="1..400", help="tuning seeds only (1..1000)")
    ap.add_argument("--board", default="classic")
    ap.add_argument("--json-out", default=None)
    args = ap.parse_args()
    try:
        board = load_board(args.board)
        first, last = parse_seed_range(args.seeds)
    except NochmalError as exc:
        ap.exit(2, f"error: {exc}\n")
    engine = Engine(tuples=args.bot == "ntuple")
    games = {}
    for seed in range(first, last + 1):
        games[seed] = play_recorded(board, engine, seed)
        if (seed - first + 1) % 50 == 0:
            print(f"  {seed - first + 1}/{last - first + 1} games", file=sys.stderr, flush=True)
    finals = [f for _, f in games.values()]
    print(f"{args.bot}, board {args.board}, seeds {first}..{last}: mean score {statistics.fmean(finals):.2f}; "
          f"mean error (final - value) ± 95% CI over games, buckets seen in {MIN_GAMES}+ games")
    report = {}
    for name, (field, cap) in GROUPINGS.items():
        table = bucket_errors(games, grouping_key(field, cap))
        report[name] = [{"rolls_left": list(PHASES[p]), "bucket": b, **v} for (p, b), v in table.items()]
        print(f"\n{name}\n")
        buckets = sorted({b for _, b in table})
        labels = ["all" if field is None else f"{b}+" if b == cap else str(b) for b in buckets]
        print("| rolls left | " + " | ".join(labels) + " |")
        print("|---" * (len(buckets) + 1) + "|")
        for p, (lo, hi) in enumerate(PHASES):
            cells = []
            for b in buckets:
                v = table.get((p, b))
                cells.append(f"{v['mean']:+.2f} ± {v['ci']:.2f}" if v and v["games"] >= MIN_GAMES else "")
            print(f"| {lo}-{hi} | " + " | ".join(cells) + " |")
    if args.json_out:
        try:
            atomic_write_text(args.json_out, json.dumps({"bot": args.bot, "seeds": [first, last],
                                                         "groupings": report}, indent=1) + "\n")
        except (NochmalError, OSError) as exc:
            ap.exit(2, f"error: --json-out: {exc}\n")


if __name__ == "__main__":
    main()
