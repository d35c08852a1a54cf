"""Probe (the 30-roll proof gap, docs/figures.md): a beam search over the known rolls as the planner's primal half.

    python benchmarks/probe_beam_primal.py --seeds 2-4 --widths 10 50
    python benchmarks/probe_beam_primal.py --seeds 2-9 --widths 50 --solve 60 --workers 2

Finding the optimum costs CP-SAT a median of 19 s on proven seeds (RESULTS, "where the time
goes"); the hint it starts from is the greedy bot's play. Here a beam search keeps the
``width`` best sheets after every roll (distinct crossed cells and jokers), each valued by
the heuristic bot's evaluation (nochmal.bots.evaluation, phase weights for the rolls left),
and ends on the exact score. Every beam plan is replayed through the engine (the score must
agree). Printed per seed: the beam's score and time per width against the stored optimum of
nochmal/data/puzzle_optima.json (proven or not); with ``--solve S`` also the default solve
against the same solve hinted with the widest beam's plan, interleaved per seed. Nothing is
asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from nochmal.bots.heuristic import Engine, choice_values
from nochmal.rules import RuleSettings
from nochmal.solver.cpsat import greedy_steps, solve
from nochmal.solver.instance import Instance
from nochmal.solver.validate import new_game

from bench_planner import parse_seeds
from bench_proofs import Row, load

OPTIMA = Path(__file__).resolve().parent.parent / "nochmal" / "data" / "puzzle_optima.json"


def beam_plan(instance: Instance, width: int, tuples: bool = False) -> tuple[list[int | None], int]:
    """The best final sheet of a beam of ``width``: masks per roll (None: pass) and its score."""
    game = new_game(instance)
    engine = Engine(tuples=tuples)
    ev = engine.evaluator(game)
    sheet = game.sheets[0]
    n = len(instance.rolls)
    # (crossed, jokers left) -> (value, anchored, masks so far)
    beam = {(sheet.crossed, sheet.jokers_left): (0.0, sheet.anchored, ())}
    for t, roll in enumerate(instance.rolls):
        rolls_left = n - t - 1
        ctx = ev.context(game, 0, rolls_left)
        if rolls_left == 0:
            ctx.weights = [0.0] * len(ctx.weights)
            ctx.tuples = None
        children: dict[tuple[int, int], tuple[float, int, tuple]] = {}
        picks_by_jokers: dict[int, list] = {}
        for (crossed, jl), (_, anchored, path) in beam.items():
            picks = picks_by_jokers.get(jl)
            if picks is None:
                picks = picks_by_jokers[jl] = roll.choices(jl)
            for value, choice in choice_values(ev, ctx, crossed, anchored, jl, picks):
                if choice is None:
                    key, new_anchored, step = (crossed, jl), anchored, None
                else:
                    key = (crossed | choice.mask, jl - choice.cost)
                    new_anchored, step = anchored | ev.neighbours(choice.mask), choice.mask
                old = children.get(key)
                if old is None or value > old[0]:
                    children[key] = (value, new_anchored, path + (step,))
        best = sorted(children.items(), key=lambda kv: kv[1][0], reverse=True)[:width]
        beam = dict(best)
    (_, _), (value, _, path) = max(beam.items(), key=lambda kv: kv[1][0])
    return list(path), round(value)


def engine_score(instance: Instance, masks: list[int | None]) -> int:
    """Replay masks through the engine (the cheapest legal pick for each mask)."""
    game = new_game(instance)
    for roll, mask in zip(instance.rolls, masks):
        game.apply_roll(roll)
        move = next(m for m in game.legal_moves()
                    if (mask is None and m.is_pass) or (mask is not None and not m.is_pass
                                                        and game.board.mask_of(m.cells) == mask))
        game.apply_move(move)
    return game.sheets[0].score()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=parse_seeds, default=parse_seeds("2-12"))
    ap.add_argument("--widths", type=int, nargs="+", default=[50, 200])
    ap.add_argument("--tuples", action="store_true", help="value with the n-tuple residual too")
    ap.add_argument("--solve", type=float, default=0.0, metavar="S",
                    help="also solve S seconds, default hint and beam hint, interleaved")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    optima = json.loads(OPTIMA.read_text())["seeds"]
    print(f"# widths={args.widths} tuples={args.tuples} solve={args.solve} workers={args.workers} "
          f"pid={os.getpid()}; load average before: {load()}", flush=True)
    gaps: dict[int, list[int]] = {w: [] for w in args.widths}
    times: dict[int, list[float]] = {w: [] for w in args.widths}
    greedy_gaps: list[int] = []
    solves: dict[str, list[Row]] = {"greedy hint": [], "beam hint": []}
    for seed in args.seeds:
        inst = Instance.from_seed(seed, "classic", RuleSettings(solo_rolls=30), count=30)
        opt = optima.get(str(seed))
        ref = opt["best"] if opt else None
        greedy = engine_score(inst, greedy_steps(inst))
        line = [f"seed {seed:>4} optimum {ref}{'' if opt and opt['proven'] else '?'} greedy {greedy}"]
        if ref is not None:
            greedy_gaps.append(ref - greedy)
        widest = None
        for w in args.widths:
            t0 = time.monotonic()
            masks, score = beam_plan(inst, w, args.tuples)
            dt = time.monotonic() - t0
            replayed = engine_score(inst, masks)
            if replayed != score:
                raise SystemExit(f"seed {seed} width {w}: beam says {score}, the engine {replayed}")
            times[w].append(dt)
            if ref is not None:
                gaps[w].append(ref - score)
            line.append(f"w{w} {score} ({dt:.1f}s)")
            widest = masks
        print("  ".join(line), flush=True)
        if args.solve:
            for name, hint in (("greedy hint", None), ("beam hint", widest)):
                plan = solve(inst, time_limit=args.solve, workers=args.workers, hint=hint)
                solves[name].append(Row(seed, plan.total, plan.bound, plan.status, plan.wall_time))
                print(f"    {name:<12} best {plan.total} bound {plan.bound} {plan.status:<9} "
                      f"{plan.wall_time:6.2f}s load {load()}", flush=True)
    print(f"# load average after: {load()}")
    if greedy_gaps:
        print(f"greedy: optimum - score median {statistics.median(greedy_gaps)}, max {max(greedy_gaps)}")
    for w in args.widths:
        if gaps[w]:
            print(f"width {w}: optimum - score median {statistics.median(gaps[w])}, max {max(gaps[w])}, "
                  f"at the optimum or above {sum(1 for g in gaps[w] if g <= 0)}/{len(gaps[w])}; "
                  f"time median {statistics.median(times[w]):.2f}s")
    for name, rows in solves.items():
        if rows:
            proven = [r for r in rows if r.status == "optimal"]
            print(f"solve, {name}: {len(proven)}/{len(rows)} proven, time median "
                  f"{statistics.median(r.wall for r in rows):.1f}s (all), mean best "
                  f"{statistics.mean(r.best for r in rows):.2f}")


if __name__ == "__main__":
    main()
