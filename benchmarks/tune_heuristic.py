"""Tune the evaluation weights of the heuristic bot (fitted value iteration, tuning seeds only).

Each round plays solo games (official rules) with the current weights and a little seeded
exploration, records every position after a decision with its features and the rolls
still to come, and fits by ridge regression what the game went on to score beyond the
score-if-it-ended-now. The new weights are then played greedily on a fixed evaluation set
(also inside the tuning range 1..1000) and the best set seen is written to
nochmal/bots/weights.py. Held-out seeds (100000 and up) are never touched here.

    nice -n 10 python benchmarks/tune_heuristic.py --rounds 6 --games 400 --eval 200
"""

from __future__ import annotations

import argparse
import ast
import sys
import time
from pathlib import Path

import numpy as np

from nochmal.board import load_board
from nochmal.bots.evaluation import N_BASE, PHASE_TERMS, phase_basis
from nochmal.bots.heuristic import HeuristicAgent
from nochmal.bots.lookahead import expected_next_value
from nochmal.bots.weights import WEIGHTS
from nochmal.dice import seeded_roll
from nochmal.fileio import atomic_write_text
from nochmal.game import Game

TUNING_SEEDS = range(1, 1001)
WEIGHTS_FILE = Path(__file__).resolve().parent.parent / "nochmal" / "bots" / "weights.py"


def play_and_record(board, weights, seed: int, explore: float, backup: bool = False):
    """One solo game: design rows (features times phase terms), score-now per row, final score,
    and (with ``backup``) per row the expectimax backup over the next roll under ``weights``."""
    agent = HeuristicAgent(seed=seed, weights=weights, explore=explore)
    engine = agent.engine
    game = Game(board, 1, mode="solo")
    rows, nows, backups = [], [], []
    while not game.is_terminal():
        if game.current_player() < 0:
            game.apply_roll(seeded_roll(seed, game.rolls_done, game.dice_per_kind))
            continue
        rolls_left = game.roll_limit - game.rolls_done - 1
        game.apply_move(agent.choose(game))
        sheet = game.sheets[0]
        ev = engine.evaluator(game)
        ctx = ev.context(game, 0, rolls_left)
        now, f = ev.full_features(sheet.crossed, sheet.anchored, sheet.jokers_left, ctx)
        rows.append([x * b for b in phase_basis(rolls_left) for x in f])
        nows.append(now)
        if backup:
            if rolls_left == 0:
                backups.append(now)
            else:
                nctx = engine.context(game, 0, rolls_left - 1)
                backups.append(expected_next_value(ev, sheet.crossed, sheet.anchored, sheet.jokers_left, nctx, 2))
    if backup:
        return rows, nows, float(game.scores()[0]), backups
    return rows, nows, float(game.scores()[0])


def lambda_targets(rows, nows, final: float, weights, lam: float) -> list[float]:
    """TD(lambda) targets for the part beyond score-now (lam = 1: the plain final score)."""
    w = np.asarray(weights, dtype=float)
    values = [n + float(np.asarray(row) @ w) for row, n in zip(rows, nows)]
    out = [0.0] * len(rows)
    g = final
    for t in range(len(rows) - 1, -1, -1):
        nxt = values[t + 1] if t + 1 < len(rows) else final
        g = final if t == len(rows) - 1 else (1 - lam) * nxt + lam * g
        out[t] = g - nows[t]
    return out


def fit(rows: list[list[float]], targets: list[float], ridge: float) -> list[float]:
    X = np.asarray(rows, dtype=float)
    y = np.asarray(targets, dtype=float)
    scale = np.maximum(np.abs(X).max(axis=0), 1e-9)
    Xs = X / scale
    w = np.linalg.solve(Xs.T @ Xs + ridge * np.eye(Xs.shape[1]), Xs.T @ y)
    return [float(v) for v in (w / scale)]


def evaluate(board, weights, seeds) -> float:
    total = 0.0
    for seed in seeds:
        _, _, score = play_and_record(board, weights, seed, 0.0)
        total += score
    return total / len(seeds)


def read_weights_module(path: Path) -> list[float]:
    """The WEIGHTS list of a weights module written by this script (parsed, not executed)."""
    tree = ast.parse(path.read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "WEIGHTS" for t in node.targets):
            return [float(x) for x in ast.literal_eval(node.value)]
    raise SystemExit(f"{path}: no WEIGHTS list")


def write_weights(weights: list[float], note: str, out: Path = WEIGHTS_FILE) -> None:
    lines = [
        '"""Tuned evaluation weights (data). Written by benchmarks/tune_heuristic.py; do not edit by hand.',
        "",
        "Layout: PHASE_TERMS blocks of N_BASE weights, block k multiplied by phase_basis(rolls left)[k]",
        "(see nochmal.bots.evaluation: FEATURE_NAMES for the order within a block, phase_basis).",
        '"""',
        "",
        f"# {note}",
        "WEIGHTS = [",
    ]
    for i in range(0, len(weights), 6):
        lines.append("    " + " ".join(f"{w!r}," for w in (round(x, 6) for x in weights[i:i + 6])))
    lines.append("]")
    atomic_write_text(out, "\n".join(lines) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--games", type=int, default=400, help="training games per round")
    ap.add_argument("--eval", type=int, default=200, help="evaluation games (seeds 801..1000 at most)")
    ap.add_argument("--explore", type=float, default=0.1)
    ap.add_argument("--ridge", type=float, default=1.0)
    ap.add_argument("--keep", type=int, default=2, help="rounds of data kept for each fit")
    ap.add_argument("--lam", type=float, default=1.0, help="TD(lambda) targets; 1 = Monte-Carlo")
    ap.add_argument("--backup", type=float, default=0.0,
                    help="share of the expectimax backup (value iteration) in each target; 0 = none")
    ap.add_argument("--out", default=str(WEIGHTS_FILE), help="where to write the weights module")
    ap.add_argument("--start", default="", help="start from this weights module instead of the package's")
    ap.add_argument("--dry-run", action="store_true", help="do not write the weights file")
    args = ap.parse_args()
    board = load_board("classic")
    eval_seeds = list(range(1001 - args.eval, 1001))  # top of the tuning range
    train_pool = [s for s in TUNING_SEEDS if s not in set(eval_seeds)]
    start = WEIGHTS
    if args.start:
        start = read_weights_module(Path(args.start))
    weights = list(start) + [0.0] * (N_BASE * PHASE_TERMS - len(start))
    best_w, best_mean = weights, evaluate(board, weights, eval_seeds)
    print(f"start: eval mean {best_mean:.2f} on seeds {eval_seeds[0]}..{eval_seeds[-1]}", file=sys.stderr)
    history: list[tuple[list, list]] = []
    cursor = 0
    for rnd in range(1, args.rounds + 1):
        t = time.time()
        rows, targets = [], []
        for _ in range(args.games):
            seed = train_pool[cursor % len(train_pool)]
            cursor += 1
            if args.backup > 0:
                r, nows, final, bk = play_and_record(board, weights, seed, args.explore, backup=True)
                mc = lambda_targets(r, nows, final, weights, args.lam)
                targets += [args.backup * (b - n) + (1 - args.backup) * m for b, n, m in zip(bk, nows, mc)]
            else:
                r, nows, final = play_and_record(board, weights, seed, args.explore)
                targets += lambda_targets(r, nows, final, weights, args.lam)
            rows += r
        history.append((rows, targets))
        history = history[-args.keep:]
        all_rows = [x for h in history for x in h[0]]
        all_t = [x for h in history for x in h[1]]
        weights = fit(all_rows, all_t, args.ridge)
        mean = evaluate(board, weights, eval_seeds)
        print(f"round {rnd}: {len(all_rows)} positions, eval mean {mean:.2f} ({time.time() - t:.0f}s)",
              file=sys.stderr)
        if mean > best_mean:
            best_w, best_mean = weights, mean
    assert len(best_w) == N_BASE * PHASE_TERMS
    note = (f"fitted value iteration: {args.rounds} rounds x {args.games} games, seeds 1..1000 only; "
            f"greedy play mean {best_mean:.2f} on tuning seeds {eval_seeds[0]}..{eval_seeds[-1]}")
    print(note)
    if not args.dry_run:
        write_weights(best_w, note, Path(args.out))


if __name__ == "__main__":
    main()
