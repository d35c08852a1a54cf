"""Tune the evaluation weights of the heuristic bot (fitted value iteration, tuning seeds only).

Each round plays solo games (official rules) with the current weights and a little seeded
exploration, records every position after a decision with its features and the rolls
still to come, and fits by ridge regression what the game went on to score beyond the
score-if-it-ended-now. The new weights are then played greedily on a fixed evaluation set
(also inside the tuning range 1..1000) and the best set seen is written to
nochmal/bots/weights.py. Held-out seeds (100000 and up) are never touched here.

    nice -n 10 python benchmarks/tune_heuristic.py --rounds 6 --games 400 --eval 200

``--policy lookahead1`` plays the training games with the one-roll look-ahead instead (the
positions and the returns of a stronger player), ``--select lookahead1`` picks the best
round by that player's mean, ``--jobs 2`` plays games in two processes.
"""

from __future__ import annotations

import argparse
import ast
import multiprocessing
import random
import sys
import time
from pathlib import Path

import numpy as np

from nochmal.board import load_board
from nochmal.bots.evaluation import FEATURE_NAMES, N_BASE, PHASE_TERMS, check_weight_names, phase_basis
from nochmal.bots.heuristic import HeuristicAgent, choice_move, pick_explored
from nochmal.bots.lookahead import LookaheadAgent, expected_next_value, expected_two_ply
from nochmal.bots.weights import WEIGHTS
from nochmal.dice import seeded_roll
from nochmal.fileio import atomic_write_text
from nochmal.game import Game

TUNING_SEEDS = range(1, 1001)
WEIGHTS_FILE = Path(__file__).resolve().parent.parent / "nochmal" / "bots" / "weights.py"


class _ExploringLookahead:
    """lookahead1 (one roll deep) that now and then plays one of its 3 best choices (seeded)."""

    def __init__(self, seed: int, weights, explore: float):
        self.agent = LookaheadAgent(seed=seed, weights=weights, deep=0)
        self.engine = self.agent.engine
        self.rng = random.Random(seed)
        self.explore = explore

    def choose(self, game: Game):
        return choice_move(game, pick_explored(self.agent.rank(game), self.rng, self.explore)[1])


def make_player(policy: str, seed: int, weights, explore: float):
    """The data-generating (and selecting) player: the heuristic (one ply) or lookahead1."""
    if policy == "heuristic":
        return HeuristicAgent(seed=seed, weights=weights, explore=explore)
    if policy == "lookahead1":
        return _ExploringLookahead(seed, weights, explore)
    raise SystemExit(f"unknown policy {policy!r}: use heuristic or lookahead1")


def play_and_record(board, weights, seed: int, explore: float, backup: int = 0,
                    policy: str = "heuristic"):
    """One solo game: design rows (features times phase terms), score-now per row, final score,
    and (with ``backup`` = 1 or 2) per row the expectimax backup over the next one or two
    rolls under ``weights``."""
    agent = make_player(policy, seed, weights, explore)
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
            elif backup == 1 or rolls_left == 1:
                nctx = engine.context(game, 0, rolls_left - 1)
                backups.append(expected_next_value(ev, sheet.crossed, sheet.anchored, sheet.jokers_left, nctx, 2))
            else:
                ctx1 = engine.context(game, 0, rolls_left - 1)
                ctx2 = engine.context(game, 0, rolls_left - 2)
                backups.append(expected_two_ply(ev, sheet.crossed, sheet.anchored, sheet.jokers_left, ctx1, ctx2, 2))
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


def _play_one(job):
    weights, seed, explore, backup, policy = job
    return play_and_record(load_board("classic"), weights, seed, explore, backup, policy)


def play_many(weights, seeds, explore: float, backup: int, policy: str, jobs: int) -> list:
    """play_and_record over seeds, in ``jobs`` processes (results in seed order)."""
    work = [(weights, s, explore, backup, policy) for s in seeds]
    if jobs <= 1:
        return [_play_one(w) for w in work]
    with multiprocessing.Pool(jobs) as pool:
        return pool.map(_play_one, work, chunksize=4)


def evaluate(weights, seeds, policy: str = "heuristic", jobs: int = 1) -> float:
    """Mean score of ``policy`` (no exploration) with these weights on ``seeds``."""
    results = play_many(weights, seeds, 0.0, 0, policy, jobs)
    return sum(r[2] for r in results) / len(seeds)


def read_weights_module(path: Path) -> list[float]:
    """The WEIGHTS list of a weights module written by this script (parsed, not executed)."""
    tree = ast.parse(path.read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "WEIGHTS" for t in node.targets):
            return [float(x) for x in ast.literal_eval(node.value)]
    raise SystemExit(f"{path}: no WEIGHTS list")


def read_weights_names(path: Path) -> list[str] | None:
    """The FEATURES list of a weights module (None for an old module without one)."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "FEATURES" for t in node.targets):
            return [str(x) for x in ast.literal_eval(node.value)]
    return None


def write_weights(weights: list[float], note: str, out: Path = WEIGHTS_FILE) -> None:
    lines = [
        '"""Tuned evaluation weights (data). Written by benchmarks/tune_heuristic.py; do not edit by hand.',
        "",
        "Layout: PHASE_TERMS blocks of N_BASE weights, block k multiplied by phase_basis(rolls left)[k]",
        "(FEATURES names the order within a block: nochmal.bots.evaluation.FEATURE_NAMES; phase_basis).",
        '"""',
        "",
        "# the feature of each weight within a block, checked against the evaluation's FEATURE_NAMES on use",
        "FEATURES = [",
    ]
    row: list[str] = []
    for name in FEATURE_NAMES:
        if row and len("    " + " ".join(row + [repr(name) + ","])) > 100:
            lines.append("    " + " ".join(row))
            row = []
        row.append(repr(name) + ",")
    lines += ["    " + " ".join(row), "]", "",
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
    ap.add_argument("--policy", default="heuristic", choices=("heuristic", "lookahead1"),
                    help="who plays the training games (lookahead1: one roll deep, ~30x slower)")
    ap.add_argument("--select", default="heuristic", choices=("heuristic", "lookahead1"),
                    help="who plays the selection games that pick the best round")
    ap.add_argument("--jobs", type=int, default=1, help="processes for playing games")
    ap.add_argument("--backup-depth", type=int, default=1, choices=(1, 2),
                    help="rolls the expectimax backup looks ahead (2: the deep bot's own search, ~20x slower)")
    args = ap.parse_args()
    eval_seeds = list(range(1001 - args.eval, 1001))  # top of the tuning range
    train_pool = [s for s in TUNING_SEEDS if s not in set(eval_seeds)]
    start = WEIGHTS
    if args.start:
        start = read_weights_module(Path(args.start))
        names = read_weights_names(Path(args.start))
        if names is not None:
            try:
                check_weight_names(names, args.start)
            except ValueError as exc:
                raise SystemExit(str(exc)) from None
    weights = list(start) + [0.0] * (N_BASE * PHASE_TERMS - len(start))
    best_w, best_mean = weights, evaluate(weights, eval_seeds, args.select, args.jobs)
    print(f"start: eval mean {best_mean:.2f} on seeds {eval_seeds[0]}..{eval_seeds[-1]}", file=sys.stderr)
    history: list[tuple[list, list]] = []
    cursor = 0
    depth = args.backup_depth if args.backup > 0 else 0  # rolls the backup looks ahead; 0 = none
    for rnd in range(1, args.rounds + 1):
        t = time.time()
        rows, targets = [], []
        seeds = [train_pool[(cursor + i) % len(train_pool)] for i in range(args.games)]
        cursor += args.games
        for r, nows, final, *rest in play_many(weights, seeds, args.explore, depth, args.policy,
                                               args.jobs):
            mc = lambda_targets(r, nows, final, weights, args.lam)
            if args.backup > 0:
                targets += [args.backup * (b - n) + (1 - args.backup) * m for b, n, m in zip(rest[0], nows, mc)]
            else:
                targets += mc
            rows += r
        history.append((rows, targets))
        history = history[-args.keep:]
        all_rows = [x for h in history for x in h[0]]
        all_t = [x for h in history for x in h[1]]
        weights = fit(all_rows, all_t, args.ridge)
        mean = evaluate(weights, eval_seeds, args.select, args.jobs)
        print(f"round {rnd}: {len(all_rows)} positions, eval mean {mean:.2f} ({time.time() - t:.0f}s)",
              file=sys.stderr)
        if mean > best_mean:
            best_w, best_mean = weights, mean
    assert len(best_w) == N_BASE * PHASE_TERMS
    note = (f"fitted value iteration: {args.rounds} rounds x {args.games} games played by {args.policy}, "
            f"seeds 1..1000 only; {args.select} play mean {best_mean:.2f} on tuning seeds "
            f"{eval_seeds[0]}..{eval_seeds[-1]}")
    print(note)
    if not args.dry_run:
        write_weights(best_w, note, Path(args.out))


if __name__ == "__main__":
    main()
