"""Start-up time of the command line: wall time of whole ``nochmal`` processes.

Hyperfine-style: every command is run ``--runs`` times after ``--warmup`` unmeasured runs,
and min / median / p95 wall seconds are printed per command. Give several trees with
``--tree LABEL=PATH`` (PATH: a ``nochmal`` console script, e.g. of an old checkout's own
venv); the runs of the trees are interleaved (old, new, old, new, ...), so a change of the
machine's load hits all trees alike and the ratio of medians in one run is the figure to
compare. Beside wall time the CPU time of each process (user + system, from
``getrusage(RUSAGE_CHILDREN)``) is given: on a shared machine it is the figure less
disturbed by other processes. The load average (``os.getloadavg``) is printed before and
after. Prints figures, asserts nothing.

Bytecode: the commands run without ``PYTHONDONTWRITEBYTECODE`` (set in some shells here), so
the warm-up runs write the ``__pycache__`` files a normal install has and every tree is
measured as people run it; ``--keep-environment`` measures with the environment as it is
(then a tree without caches compiles every module of the project at each start).

Usage:
    nice python benchmarks/bench_cli.py --runs 15
    nice python benchmarks/bench_cli.py --tree old=/tmp/old-cli/.venv/bin/nochmal \\
        --tree new=.venv/bin/nochmal --runs 15
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# A typed sheet (classic board, 7 lines of 15, x = crossed): H1, H2, H4 of the start column.
SHEET = "\n".join(["......." + "x" + "......."] * 2 + ["...............", ".......x.......",
                   "...............", "...............", "..............."]) + "\n"

# (name, arguments); {sheet} and {cells} are files written to a temporary folder.
COMMANDS = [
    ("--help", ["--help"]),
    ("moves", ["moves", "--colour", "y", "--count", "3"]),
    ("score", ["score", "{sheet}"]),
    ("rolls", ["rolls", "--seed", "7"]),
    ("mission status (score objective)", ["mission", "status", "team-target", "-d", "normal", "-k", "3",
                                          "{cells}", "{cells}"]),
]


def default_tree() -> str:
    """The ``nochmal`` script next to the running interpreter (this tree's venv)."""
    return str(Path(sys.executable).with_name("nochmal"))


def quantile(values: list[float], q: float) -> float:
    """The q-quantile by linear interpolation between order statistics."""
    xs = sorted(values)
    pos = q * (len(xs) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def run_once(exe: str, args: list[str], cwd: str, env: dict[str, str]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the child: user + system, exit code) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([exe, *args], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", default=[], metavar="LABEL=PATH",
                    help="A nochmal console script to measure (repeatable; default: this venv's).")
    ap.add_argument("--runs", type=int, default=15, help="Measured runs per command and tree (default 15).")
    ap.add_argument("--warmup", type=int, default=2, help="Unmeasured runs first (default 2).")
    ap.add_argument("--only", default="", help="Measure only the commands whose name contains this text.")
    ap.add_argument("--keep-environment", action="store_true",
                    help="Keep PYTHONDONTWRITEBYTECODE if set (default: drop it, so bytecode caches are used).")
    opts = ap.parse_args(argv)
    env = {**os.environ, "COLUMNS": "100"}
    if not opts.keep_environment:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    if opts.runs < 1 or opts.warmup < 0:
        print("error: --runs must be at least 1 and --warmup at least 0", file=sys.stderr)
        return 2
    trees: list[tuple[str, str]] = []
    for spec in opts.tree or [f"this={default_tree()}"]:
        label, sep, path = spec.partition("=")
        if not sep or not os.access(path, os.X_OK):
            print(f"error: --tree {spec!r}: expected LABEL=PATH to an executable nochmal script", file=sys.stderr)
            return 2
        trees.append((label, os.path.abspath(path)))
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "sheet.txt").write_text(SHEET, encoding="utf-8")
        Path(tmp, "cells.txt").write_text("H4 H5 G4\n", encoding="utf-8")
        files = {"sheet": str(Path(tmp, "sheet.txt")), "cells": str(Path(tmp, "cells.txt"))}
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
              f"{opts.runs} runs after {opts.warmup} warm-up runs; wall seconds; bytecode caches "
              f"{'not written' if env.get('PYTHONDONTWRITEBYTECODE') else 'written and used'}")
        print(f"{'command':<34} {'tree':<6} {'wall: min':>9} {'median':>7} {'p95':>6}   "
              f"{'CPU: min':>8} {'median':>7}  exit code")
        for name, template in COMMANDS:
            if opts.only and opts.only not in name:
                continue
            args = [a.format(**files) for a in template]
            times: dict[str, list[float]] = {label: [] for label, _ in trees}
            cpus: dict[str, list[float]] = {label: [] for label, _ in trees}
            codes: dict[str, set[int]] = {label: set() for label, _ in trees}
            for k in range(opts.warmup + opts.runs):
                for label, exe in trees:
                    seconds, cpu, code = run_once(exe, args, tmp, env)
                    codes[label].add(code)
                    if k >= opts.warmup:
                        times[label].append(seconds)
                        cpus[label].append(cpu)
            medians, cpu_medians = {}, {}
            for label, _ in trees:
                xs, cs = times[label], cpus[label]
                medians[label], cpu_medians[label] = statistics.median(xs), statistics.median(cs)
                print(f"{name:<34} {label:<6} {min(xs):9.3f} {medians[label]:7.3f} {quantile(xs, 0.95):6.3f}   "
                      f"{min(cs):8.3f} {cpu_medians[label]:7.3f}  {','.join(map(str, sorted(codes[label])))}")
            if len(trees) > 1:
                base = trees[0][0]
                print(" " * 35 + "; ".join(f"{label}/{base}: wall median {medians[label] / medians[base]:.2f}, "
                                          f"CPU median {cpu_medians[label] / cpu_medians[base]:.2f}"
                                          for label, _ in trees[1:]))
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
