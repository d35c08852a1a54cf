"""Fuzzing every reader, then every command: "no traceback, ever" as a property.

Readers and mutations: tests/fuzz_cases.py. The property: a reader returns a value or raises
a NochmalError with ONE non-empty line of bounded length; nothing else escapes, and each
input finishes within a time guard (SIGALRM; memory stays bounded because every count the
readers enumerate is capped). The longer campaign with figures: benchmarks/fuzz.py.

Through the CLI: a sample of mutated files per command, in process (CliRunner) and, marked
slow, as real subprocesses: exit 0, 1 or 2, never a traceback, errors on one line.
"""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import fuzz_cases
from nochmal.cli import app

GUARD_SECONDS = 30  # far above any reader's time on any input seen (benchmarks/RESULTS.md)


class Hang(Exception):
    pass


def _guarded(reader, text: str):
    def ring(signum, frame):
        raise Hang(f"reader took more than {GUARD_SECONDS} s")

    old = signal.signal(signal.SIGALRM, ring)
    signal.alarm(GUARD_SECONDS)
    try:
        return fuzz_cases.check(reader, text)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


EXAMPLES = {"cell list": 40, "record": 60, "mission toml": 80, "board toml": 80, "custom board toml": 80}


@pytest.mark.parametrize("name", list(fuzz_cases.READERS))
def test_a_reader_returns_or_raises_one_line_on_mutated_input(name):
    reader = fuzz_cases.READERS[name]
    seeds = fuzz_cases.seeds()[name]

    @settings(max_examples=EXAMPLES.get(name, 150), deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(seed=st.integers(0, 2**32 - 1), which=st.integers(0, 9))
    def mutated(seed, which):
        rng = random.Random(seed)
        _guarded(reader, fuzz_cases.mutate(seeds[which % len(seeds)], rng, name))

    @settings(max_examples=EXAMPLES.get(name, 150) // 3, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(text=st.one_of(st.text(max_size=400), st.binary(max_size=400).map(lambda b: b.decode("latin-1"))))
    def arbitrary(text):
        _guarded(reader, text)

    mutated()
    arbitrary()


def test_the_mutations_reach_both_outcomes():
    """The fuzzer must produce accepted and refused inputs for the readers, or it tests little."""
    rng = random.Random(3)
    for name in ("typed sheet", "move", "board toml", "mission toml", "rolls json"):
        seeds = fuzz_cases.seeds()[name]
        outcomes = [fuzz_cases.check(fuzz_cases.READERS[name], fuzz_cases.mutate(rng.choice(seeds), rng, name))
                    for _ in range(300)]
        assert any(o is None for o in outcomes) and any(o is not None for o in outcomes), name
    for name, seeds in fuzz_cases.seeds().items():
        for text in seeds:
            assert fuzz_cases.check(fuzz_cases.READERS[name], text) is None, (name, text[:80])


def test_the_property_catches_a_broken_reader():
    def broken(text):
        return int(text)

    with pytest.raises(ValueError):
        fuzz_cases.check(broken, "x")
    from nochmal.errors import NochmalError

    def long_lines(text):
        raise NochmalError("first line\nsecond line")

    assert "\n" not in fuzz_cases.check(long_lines, "")  # NochmalError escapes control characters


# --- through the CLI ---------------------------------------------------------------------------

def test_commands_on_mutated_files_in_process(tmp_path):
    runner = CliRunner()
    rng = random.Random(17)
    for args in fuzz_cases.cli_cases(rng, tmp_path, per_command=4):
        res = runner.invoke(app, args)
        assert res.exception is None or isinstance(res.exception, SystemExit), (args, repr(res.exception))
        fuzz_cases.assert_clean_exit(args, res.exit_code, res.stdout, res.stderr)


@pytest.mark.slow
def test_commands_on_mutated_files_as_subprocesses(tmp_path):
    exe = shutil.which("nochmal", path=str(Path(sys.executable).parent)) or shutil.which("nochmal")
    assert exe, "the nochmal command is installed with the package"
    rng = random.Random(29)
    for args in fuzz_cases.cli_cases(rng, tmp_path, per_command=1):
        proc = subprocess.run([exe, *args], capture_output=True, text=True, timeout=120,
                              errors="backslashreplace", stdin=subprocess.DEVNULL)
        fuzz_cases.assert_clean_exit(args, proc.returncode, proc.stdout, proc.stderr)
