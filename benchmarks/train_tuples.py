"""Learn the n-tuple residual of the evaluation (nochmal/bots/tuples.py) by TD(0) self-play.

The one-ply bot plays solo games (official rules) greedily on evaluation + residual; after
every decision the residual of the previous after-state moves towards the value of the new
one (temporal difference, the after-state learning that made n-tuple networks strong at
2048). The last decision of a game is valued exactly (the final score), so the values are
anchored at the end and learned backwards through the phases. The dice are seeded
(``seeded_roll``) from a training range of their own (default 10 000 001 and up), disjoint
from the held-out range of the published figures (100000..100199); after each stage the
greedy bot is scored on the tuning seeds 801..1000 and the tables are written atomically.

    nice -n 5 python benchmarks/train_tuples.py --stages 60000:0.05 --out /tmp/stage1.npz
    nice -n 5 python benchmarks/train_tuples.py --start /tmp/stage1.npz --stages 90000:0.03 --first-seed 10060001

(the shipped tables; about 60 min in all on one core).

A stage ``G:A`` plays G games with step size A (the total change of a sheet's value per
update, shared by its entries). ``--start FILE`` continues from saved tables.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from nochmal.board import load_board
from nochmal.bots.heuristic import Engine, after_choice, choice_values, rank_key
from nochmal.bots.tuples import TupleResidual, phase_of, shipped_path
from nochmal.dice import seeded_roll
from nochmal.errors import NochmalError
from nochmal.game import Game
from nochmal.sheet import Sheet

SOLO_ROLLS = 30
SELECTION_SEEDS = range(801, 1001)
HELD_OUT = range(100000, 100200)  # the published figures' seeds: never trained on


def parse_stages(text: str) -> list[tuple[int, float]]:
    """'60000:0.05,60000:0.03' -> [(60000, 0.05), (60000, 0.03)]."""
    stages = []
    for part in text.split(","):
        try:
            games, alpha = part.split(":")
            stages.append((int(games), float(alpha)))
        except ValueError:
            raise NochmalError(f"--stages: {part!r} is not GAMES:STEP (e.g. 60000:0.05)") from None
        if stages[-1][0] < 1 or not 0 < stages[-1][1] <= 1:
            raise NochmalError(f"--stages: {part!r} needs games >= 1 and 0 < step <= 1")
    return stages


class SelfPlay:
    """Solo games on raw masks with one Engine whose evaluation includes ``tuples``."""

    def __init__(self, tuples: TupleResidual):
        self.board = load_board("classic")
        self.tuples = tuples
        self.engine = Engine(tuples=tuples)
        game = Game(self.board, 1, mode="solo")  # fresh sheet: solo points, for the contexts
        self.ev = self.engine.evaluator(game)
        self.contexts = [self.engine.context(game, 0, r) for r in range(SOLO_ROLLS)]

    def play(self, seed: int, step: float = 0.0, trace: list | None = None) -> int:
        """One greedy game on seed ``seed``'s dice; with ``step`` > 0 the tables learn.
        ``trace`` collects (value, crossed, anchored, jokers left, rolls left) per decision."""
        board, ev, lay = self.board, self.ev, self.tuples.layout
        X, A, jl = 0, board.start_mask, board.jokers
        prev = None  # the previous after-state: masks, jokers, context, its entries, its table
        for t in range(SOLO_ROLLS):
            roll = seeded_roll(seed, t, 2)
            rolls_left = SOLO_ROLLS - 1 - t
            value, choice = max(choice_values(ev, self.contexts[rolls_left], X, A, jl, roll.choices(jl)),
                                key=rank_key)
            X, A, jl = after_choice(ev, X, A, jl, choice)
            if trace is not None:
                trace.append((value, X, A, jl, rolls_left))
            if step and prev is not None:  # move the previous after-state towards this value
                pX, pA, pj, ctx, entries, table = prev
                now = ev.base_value(pX, pA, ctx) + ev.joker_value(ctx, pj)  # with today's tables
                delta = step / len(entries) * (value - now)
                for i in entries:
                    table[i] += delta
            if step and rolls_left > 0:
                prev = (X, A, jl, self.contexts[rolls_left], lay.indices(X, A, jl),
                        self.tuples.tables[phase_of(rolls_left)])
        # solo: every completed column and colour scores its first value
        return Sheet(board, X, board.jokers - jl).with_all_completions_scored().score()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stages", default="60000:0.05,60000:0.03", help="GAMES:STEP,... (default %(default)s)")
    ap.add_argument("--first-seed", type=int, default=10_000_001,
                    help="dice of training game i come from seed FIRST+i (default %(default)s)")
    ap.add_argument("--start", type=Path, help="continue from these tables (default: all zero)")
    ap.add_argument("--out", type=Path, default=shipped_path(), help="where to write (default: the shipped file)")
    ap.add_argument("--report", type=int, default=1000, help="print progress every N games")
    ap.add_argument("--no-select", action="store_true", help="skip scoring seeds 801..1000 after each stage")
    args = ap.parse_args(argv)
    try:
        stages = parse_stages(args.stages)
        board = load_board("classic")
        tuples = TupleResidual.load(args.start, board) if args.start else TupleResidual.zeros(board)
        total = sum(g for g, _ in stages)
        if args.first_seed <= HELD_OUT[-1] and args.first_seed + total > HELD_OUT[0]:
            raise NochmalError(f"training seeds {args.first_seed}..{args.first_seed + total - 1} overlap "
                               f"the held-out range {HELD_OUT[0]}..{HELD_OUT[-1]}")
        sp = SelfPlay(tuples)
        seed = args.first_seed
        t0 = time.time()
        for k, (games, step) in enumerate(stages, 1):
            scores = []
            for g in range(1, games + 1):
                scores.append(sp.play(seed, step))
                seed += 1
                if args.report and g % args.report == 0:
                    print(f"stage {k} ({step}): {g}/{games} games, mean of the last {args.report} "
                          f"{statistics.mean(scores[-args.report:]):.2f}, {time.time() - t0:.0f} s", flush=True)
            tuples.save(args.out)
            if not args.no_select:
                sel = [sp.play(s) for s in SELECTION_SEEDS]
                print(f"stage {k} done: one-ply mean on seeds 801..1000 {statistics.mean(sel):.2f}; "
                      f"tables written to {args.out}", flush=True)
    except NochmalError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"interrupted; {args.out} holds the tables of the last finished stage, if any",
              file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
