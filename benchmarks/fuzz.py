"""A longer fuzz campaign than CI runs: mutated inputs for every reader, crashes counted.

Readers and mutations: tests/fuzz_cases.py (the same as tests/engine/test_fuzz_readers.py, many
more inputs). A crash is anything but a one-line NochmalError: another exception, a
message of several lines, more than --timeout seconds for one input, or memory beyond the
process limit (--memory-mb, set with RLIMIT_AS so a runaway input raises MemoryError).
Crashing inputs are written to --out for replay.

A CLI crash is also a special --save/--svg target (a FIFO, a device node, a link; all under
the run's temporary folder) replaced or written into (fuzz_cases.assert_targets_intact).

With --http N, first the HTTP fuzzer of the suite (tests/security/test_security_fuzz.py: every
endpoint of the OpenAPI schema, valid and invalid inputs, up to N per endpoint and mode)
runs in a pytest subprocess; an endpoint whose input got a 5xx, or a refusal off the
app's JSON shape, counts as a crash.

Usage:  nice -n 10 python benchmarks/fuzz.py [--seconds 60] [--seed 1] [--out fuzz-crashes] [--cli N] [--http N]
"""

from __future__ import annotations

import argparse
import random
import resource
import signal
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import fuzz_cases  # noqa: E402  (tests/ is not a package)


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="wall time per reader")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=int, default=10, help="seconds one input may take")
    parser.add_argument("--memory-mb", type=int, default=3000, help="address-space limit of this process")
    parser.add_argument("--reader", action="append", help="only these readers (default: all)")
    parser.add_argument("--out", type=Path, default=Path("fuzz-crashes"), help="folder for crashing inputs")
    parser.add_argument("--cli", type=int, default=0, help="then this many mutated command lines per command "
                                                             "(in process, through the CLI app; with the audit's "
                                                             "shapes: special --save/--svg targets under a temp "
                                                             "folder, seeds past the range, nan, huge --workers, "
                                                             "names that are not UTF-8)")
    parser.add_argument("--http", type=int, default=0, help="first the HTTP fuzzer with up to this many inputs per "
                                                              "endpoint and generation mode (the suite runs 25)")
    args = parser.parse_args()
    http_crashes = _fuzz_http(args.http) if args.http else 0  # before the memory limit: its own process
    limit = args.memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    signal.signal(signal.SIGALRM, _alarm)
    seeds = fuzz_cases.seeds()
    names = args.reader or list(fuzz_cases.READERS)
    print(f"{'reader':<18} {'inputs':>7} {'accepted':>8} {'refused':>8} {'crashes':>7} {'slowest s':>9}")
    total_crashes = 0
    for name in names:
        reader = fuzz_cases.READERS[name]
        rng = random.Random(f"{args.seed}:{name}")
        tried = accepted = refused = 0
        crashes: Counter[str] = Counter()
        slowest = 0.0
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            text = fuzz_cases.mutate(rng.choice(seeds[name]), rng, name)
            tried += 1
            start = time.monotonic()
            signal.alarm(args.timeout)
            try:
                outcome = fuzz_cases.check(reader, text)
                accepted += outcome is None
                refused += outcome is not None
            except Timeout:
                crashes[f"timeout > {args.timeout}s"] += 1
                _save(args.out, name, tried, text, "timeout")
            except BaseException as exc:  # the point: anything that is not a NochmalError
                if isinstance(exc, KeyboardInterrupt):
                    raise
                kind = f"{type(exc).__name__}: {str(exc)[:80]}"
                if crashes[kind] == 0:
                    _save(args.out, name, tried, text, traceback.format_exc())
                crashes[kind] += 1
            finally:
                signal.alarm(0)
            slowest = max(slowest, time.monotonic() - start)
        total_crashes += sum(crashes.values())
        print(f"{name:<18} {tried:>7} {accepted:>8} {refused:>8} {sum(crashes.values()):>7} {slowest:>9.2f}",
              flush=True)
        for kind, n in crashes.most_common():
            print(f"    {n} x {kind}", flush=True)
    if args.cli:
        total_crashes += _fuzz_cli(args)
    print(f"crashes in all: {total_crashes + http_crashes}")


def _fuzz_http(examples: int) -> int:
    """The suite's HTTP fuzzer with more inputs; its failing tests (one per endpoint at most)."""
    import os
    import subprocess

    test = Path(__file__).resolve().parent.parent / "tests" / "test_security_fuzz.py"
    env = {**os.environ, "NOCHMAL_FUZZ_EXAMPLES": str(examples)}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", str(test)],
                         env=env, capture_output=True, text=True)
    lines = run.stdout.splitlines()
    for line in lines:
        if line.startswith(("HTTP fuzzer:", "FAILED")):
            print(line, flush=True)
    summary = next((line for line in lines if line.startswith("HTTP fuzzer:")), None)
    if summary is None:
        print(f"the HTTP fuzzer did not run (exit {run.returncode}):\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
        return 1
    return sum(line.startswith("FAILED") for line in lines)


def _fuzz_cli(args) -> int:
    """Mutated files through every command (tests/fuzz_cases.py cli_cases): crashes per command."""
    import tempfile

    from typer.testing import CliRunner

    from nochmal.cli import app

    runner = CliRunner()
    rng = random.Random(f"{args.seed}:cli")
    tried: Counter[str] = Counter()
    crashed: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as folder:
        for argv in fuzz_cases.cli_cases(rng, Path(folder), args.cli):
            command = " ".join(argv[:2]) if argv[0] in ("board", "mission", "batch", "bench") else argv[0]
            tried[command] += 1
            signal.alarm(args.timeout * 6)
            try:
                res = runner.invoke(app, argv)
                if res.exception is not None and not isinstance(res.exception, SystemExit):
                    raise res.exception
                fuzz_cases.assert_clean_exit(argv, res.exit_code, res.stdout, res.stderr)
                fuzz_cases.assert_targets_intact(Path(folder))
            except BaseException as exc:
                if isinstance(exc, KeyboardInterrupt):
                    raise
                crashed[command] += 1
                fuzz_cases.reset_targets(Path(folder))  # a replaced target must not count again
                _save(args.out, "cli-" + command.replace(" ", "-"), tried[command], " ".join(argv),
                      "".join(traceback.format_exception(exc)))
            finally:
                signal.alarm(0)
    print(f"{'command':<18} {'runs':>7} {'crashes':>7}")
    for command in tried:
        print(f"{command:<18} {tried[command]:>7} {crashed[command]:>7}")
    print(f"CLI inputs in all: {sum(tried.values())}, crashes: {sum(crashed.values())}")
    return sum(crashed.values())


def _save(folder: Path, name: str, index: int, text: str, why: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    stem = folder / f"{name.replace(' ', '_')}-{index}"
    stem.with_suffix(".input").write_text(text, encoding="utf-8", errors="surrogatepass")
    stem.with_suffix(".why").write_text(why, encoding="utf-8", errors="backslashreplace")


if __name__ == "__main__":
    main()
