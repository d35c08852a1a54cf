"""The command line against an outside security audit's inputs: a write never
replaces a device, a FIFO, a folder or a link; text that is not UTF-8 (a record's escaped lone
surrogate, command-line bytes, a typed answer) is one ``error:`` line or "not understood",
never a traceback; one seed range everywhere (nochmal.rules.MAX_SEED); float options refuse
nan and inf; ``--workers`` is bounded. Every path written is under the test's own tmp_path:
device nodes are made there (as root), never a system device."""

from __future__ import annotations

import json
import os
import random
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import nochmal as nm
from nochmal.bots import make_agent
from nochmal.cli import app
from nochmal.errors import NochmalError
from nochmal.fileio import atomic_write_text, check_writable
from nochmal.rules import MAX_SEED

import fuzz_cases

runner = CliRunner()
ROOT = os.geteuid() == 0
SURROGATE_BYTES = b"\xed\xa0\x80"  # UTF-8 of U+D800: no valid UTF-8 text holds it
SURROGATE_ARG = SURROGATE_BYTES.decode("utf-8", "surrogateescape")  # what Python makes of it in argv


def run(*args, input: str = ""):
    return runner.invoke(app, [str(a) for a in args], input=input)


def one_error(res, code: int, *needles: str) -> str:
    """The result is exit ``code`` with exactly one line on stderr, ``error: ...``, holding every needle."""
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert res.exit_code == code, (res.exit_code, res.stdout[-500:], res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    assert "Traceback" not in res.stdout + res.stderr
    return lines[0]


@pytest.fixture(scope="module")
def record_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("rec") / "g.json"
    nm.play_solo(nm.load_board("classic"), make_agent("greedy", 2), 2).save(path)
    return path


@pytest.fixture(autouse=True)
def no_cluster(monkeypatch):
    """No test here may start a Dask cluster: every batch line carries a value the command
    refuses first. (Without the checks it would start one, with --workers 1000000 processes.)"""
    import nochmal.batch.runner as batch_runner

    def refuse(*args, **kwargs):
        raise AssertionError("a cluster was started")

    monkeypatch.setattr(batch_runner, "connect", refuse)


def nochmal_exe() -> str:
    exe = shutil.which("nochmal", path=str(Path(sys.executable).parent)) or shutil.which("nochmal")
    assert exe, "the nochmal command is installed with the package"
    return exe


# --- writes: never replace what is not a regular file ----------------------------------------

def special(tmp_path: Path, kind: str) -> Path:
    """A FIFO, a folder or (root only) a character device node of our own under tmp_path; the
    node has the null device's numbers, and the code under test must not even open it."""
    path = tmp_path / kind
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        if not ROOT:
            pytest.skip("making a device node needs root")
        os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))
    return path


KINDS = {"fifo": (stat.S_ISFIFO, "a FIFO"), "device": (stat.S_ISCHR, "a character device"),
         "folder": (stat.S_ISDIR, "a folder")}
WRITERS = {
    "render --svg": lambda rec, out: ["render", rec, "--svg", out],
    "solo --save": lambda rec, out: ["solo", "--seed", "3", "--save", out],
    "solve --save": lambda rec, out: ["solve", "--seed", "3", "-k", "2", "-t", "1", "--workers", "1", "--save", out],
    "play --save": lambda rec, out: ["play", "--seed", "3", "--save", out],
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("writer", WRITERS)
def test_a_special_target_is_refused_and_left_as_it_was(tmp_path, record_file, kind, writer):
    """`render --svg /tmp/n` (a character device) replaced the node with a file and exited 0;
    as root `--svg /dev/full` replaced the system's /dev/full. Now one line naming the path and
    what it is, exit 1, and the node is still there."""
    target = special(tmp_path, kind)
    is_kind, words = KINDS[kind]
    res = run(*WRITERS[writer](record_file, target))
    one_error(res, 1, str(target), "not a regular file", words, "give a file path")
    assert is_kind(os.lstat(target).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == [kind]  # no temporary file left
    if kind == "folder":
        assert list(target.iterdir()) == []


def test_a_link_is_written_through_and_stays_a_link(tmp_path, record_file):
    """A symlink given as the target was replaced by a file while its target kept the old
    text. Now the file the link points to gets the picture and the link stays a link."""
    real = tmp_path / "real.svg"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.svg"
    link.symlink_to("real.svg")
    res = run("render", record_file, "--svg", link)
    assert res.exit_code == 0, res.stderr
    assert link.is_symlink() and os.readlink(link) == "real.svg"
    assert real.read_text(encoding="utf-8").startswith("<?xml")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.svg", "real.svg"]


def test_a_link_to_a_fifo_is_refused_and_both_stay(tmp_path, record_file):
    special(tmp_path, "fifo")
    link = tmp_path / "out.json"
    link.symlink_to("fifo")
    one_error(run("solo", "--seed", "3", "--save", link), 1, f"{link} (a link to {tmp_path / 'fifo'})",
              "a FIFO")
    assert link.is_symlink() and stat.S_ISFIFO(os.stat(link).st_mode)


def test_a_dangling_link_makes_its_target(tmp_path):
    link = tmp_path / "game.json"
    link.symlink_to("saved.json")
    assert run("solo", "--seed", "3", "--save", link).exit_code == 0
    assert link.is_symlink() and nm.GameRecord.load(tmp_path / "saved.json").seed == 3


def test_the_writers_refuse_special_files_directly(tmp_path):
    """The one writer (nochmal/fileio.py) and its early check agree."""
    fifo = special(tmp_path, "fifo")
    for write in (lambda: atomic_write_text(fifo, "x"), lambda: check_writable(fifo)):
        with pytest.raises(NochmalError, match="not a regular file: a FIFO"):
            write()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.parametrize("command, needle", [(["report", "{store}"], "no such store file"),
                                             (["solve", "--seeds", "1", "--store", "{store}"], "not a regular file")])
@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_batch_store_that_is_a_special_file_is_refused_not_opened(tmp_path, command, needle, kind):
    """SQLite opening a FIFO as a store blocked `batch solve` until something wrote to it.
    A subprocess, so that the old hang fails the test (hang guard: 120 s) instead of hanging."""
    store = special(tmp_path, kind)
    args = [a.replace("{store}", str(store)) for a in command]
    done = subprocess.run([nochmal_exe(), "batch", *args], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {store}") and needle in lines[0], done.stderr
    assert KINDS[kind][0](os.lstat(store).st_mode)


# --- text that is not UTF-8 ----------------------------------------------------------------

@pytest.fixture()
def surrogate_record(tmp_path) -> Path:
    path = tmp_path / "s.json"
    path.write_text(fuzz_cases.surrogate_record(), encoding="utf-8")
    assert "\\ud800" in path.read_text(encoding="utf-8")  # the JSON escape, as the audit wrote it
    return path


@pytest.mark.parametrize("command", [["replay", "{rec}", "--verify"], ["render", "{rec}", "--svg", "{tmp}/x.svg"]])
def test_a_record_with_a_lone_surrogate_is_one_line(tmp_path, surrogate_record, command):
    """A player "human:\\ud800" ended `replay --verify` and `render --svg` in a traceback from
    rich's printing."""
    args = [a.replace("{rec}", str(surrogate_record)).replace("{tmp}", str(tmp_path)) for a in command]
    one_error(run(*args), 1, str(surrogate_record), "players.0")
    assert not (tmp_path / "x.svg").exists()


@pytest.mark.parametrize("args, needle", [
    (["play", "--seat", f"human:{SURROGATE_ARG}", "--seed", "1", "--save", "{tmp}/g.json"], "--seat 'human:\\udced"),
    (["solo", "--bot", SURROGATE_ARG], "--bot '\\udced"),
    (["board", "show", SURROGATE_ARG], "'\\udced"),
    (["mission", "show", f"{SURROGATE_ARG}.toml"], "'\\udced"),
    (["score", f"{{tmp}}/{SURROGATE_ARG}.txt"], "\\udced"),
    (["solo", "--seed", "1", "--save", f"{{tmp}}/{SURROGATE_ARG}.json"], "--save '"),
])
def test_command_line_text_that_is_not_utf8_is_one_line(tmp_path, args, needle):
    """`--seat "human:$(printf '\\xed\\xa0\\x80')"`: Python hands the bytes over as lone
    surrogates; the game printed them (a traceback on a strict UTF-8 stdout) and saved a
    record that `replay` then refused. Refused before any command runs, exit 2."""
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    line = one_error(run(*args), 2, needle, "not valid UTF-8")
    assert line.isascii()
    assert list(tmp_path.iterdir()) == []


def test_command_line_bytes_through_the_real_script(tmp_path):
    """The same through the installed script, with the bytes as a shell passes them, on
    strict UTF-8 streams (as in a UTF-8 locale other than C.UTF-8)."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    done = subprocess.run([nochmal_exe(), "play", "--seat", b"human:" + SURROGATE_BYTES, "--seed", "1",
                           "--save", str(tmp_path / "g.json")],
                          capture_output=True, timeout=120, stdin=subprocess.DEVNULL, env=env, cwd=tmp_path)
    err = done.stderr.decode("utf-8", "backslashreplace")
    assert done.returncode == 2 and err.count("\n") == 1 and err.startswith("error: --seat"), err
    assert not (tmp_path / "g.json").exists()


def test_typed_bytes_that_are_not_utf8_are_not_understood(tmp_path):
    """A choice typed at the prompt with bytes that are not UTF-8: on strict streams (a UTF-8
    locale) reading it was a UnicodeDecodeError traceback. Now the game answers "not
    understood" and goes on."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    done = subprocess.run([nochmal_exe(), "play", "--seed", "1"], input=SURROGATE_BYTES + b" H4\nquit\n",
                          capture_output=True, timeout=120, env=env, cwd=tmp_path)
    out, err = (s.decode("utf-8", "backslashreplace") for s in (done.stdout, done.stderr))
    assert done.returncode == 0 and "Traceback" not in err, err
    assert "not understood" in out and "\\udced" in out


def test_sheets_and_toml_that_are_not_utf8_are_one_line(tmp_path):
    """The other text inputs: a typed sheet with the bytes of a surrogate, a board TOML with an
    escaped one (TOML has no lone surrogates) and a --roll JSON with one."""
    sheet = tmp_path / "s.txt"
    sheet.write_bytes(b"H4 " + SURROGATE_BYTES + b"\n")
    one_error(run("score", sheet), 1, str(sheet), "not a UTF-8 text file")
    board = tmp_path / "b.toml"
    board.write_text((Path(__file__).parents[2] / "boards" / "classic.toml").read_text(encoding="utf-8")
                     .replace('name = "classic"', 'name = "\\ud800"'), encoding="utf-8")
    assert "\\ud800" in board.read_text(encoding="utf-8")
    one_error(run("board", "show", board), 1, str(board))
    sheet.write_text("H4\n", encoding="utf-8")
    one_error(run("hint", "--sheet", sheet, "--solo", "--roll", '{"colours": ["\\ud800", "y"], "numbers": ["1", "2"]}'),
              2, "--roll", "colours.0")


# --- one seed range ------------------------------------------------------------------------

def test_the_largest_seed_a_game_is_played_on_replays(tmp_path):
    """`solo --seed 4611686018427387905 --save x.json` succeeded and `replay x.json --verify`
    refused the record. The last seed of the range plays and replays; the next is refused."""
    path = tmp_path / "x.json"
    assert run("solo", "--seed", MAX_SEED, "--save", path).exit_code == 0
    res = run("replay", path, "--verify")
    assert res.exit_code == 0 and "verified" in res.stdout, res.stderr
    one_error(run("solo", "--seed", MAX_SEED + 1, "--save", path.with_name("y.json")), 2, f"--seed {MAX_SEED + 1}",
              str(MAX_SEED))
    assert not path.with_name("y.json").exists()


@pytest.mark.parametrize("args, option", [
    (["rolls", "--seed", "{seed}"], "--seed"),
    (["solve", "--seed", "{seed}", "-k", "2"], "--seed"),
    (["solve", "--mission", "lockstep", "--players", "2", "--seed", "{seed}", "-t", "0.1"], "--seed"),
    (["play", "--seed", "{seed}"], "--seed"),
    (["puzzle", "--seed", "{seed}"], "--seed"),
    (["batch", "solve", "--seeds", "{seed}", "--store", "{tmp}/s.sqlite"], "--seeds"),
    (["batch", "bots", "--seeds", "{seed}..{seed}", "--store", "{tmp}/b.sqlite"], "--seeds"),
    (["bench", "bots", "--seeds", "{seed}"], "--seeds"),
])
def test_every_seed_option_has_the_records_range(tmp_path, args, option):
    seed = str(MAX_SEED + 1)
    args = [a.replace("{seed}", seed).replace("{tmp}", str(tmp_path)) for a in args]
    one_error(run(*args), 2, option, seed, f"at most {MAX_SEED}")
    assert list(tmp_path.iterdir()) == []


def test_the_dice_and_the_record_reader_share_the_range(record_file):
    """The core: seeded rolls and the record reader take exactly 0..MAX_SEED."""
    nm.seeded_roll(MAX_SEED, 0)
    with pytest.raises(NochmalError, match=str(MAX_SEED)):
        nm.seeded_roll(MAX_SEED + 1, 0)
    data = json.loads(record_file.read_text(encoding="utf-8"))
    for seed, ok in ((MAX_SEED, True), (MAX_SEED + 1, False)):
        text = json.dumps({**data, "seed": seed})
        if ok:
            nm.GameRecord.loads(text, "r")
        else:
            with pytest.raises(NochmalError, match=str(MAX_SEED)):
                nm.GameRecord.loads(text, "r")


# --- numbers: finite floats, bounded workers -------------------------------------------------

@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e309", "0", "-1"])
@pytest.mark.parametrize("args, option", [
    (["batch", "solve", "--seeds", "1..2", "--store", "{tmp}/s.sqlite", "-t", "{v}"], "--time-limit"),
    (["batch", "calibrate", "--store", "{tmp}/c.sqlite", "--bots", "greedy", "--max-ms", "{v}"], "--max-ms"),
    (["solve", "--rolls", "{tmp}/missing.json", "-t", "{v}"], "--time-limit"),
    (["analyse", "{tmp}/missing.json", "-t", "{v}"], "--time-limit"),
])
def test_float_options_refuse_what_is_not_a_finite_positive_number(tmp_path, value, args, option):
    """`batch solve -t nan` was accepted and stored NaN (not JSON) in the store; `solve -t inf`
    ran without a limit. One line, exit 2, before any input is read or anything stored."""
    args = [a.replace("{v}", value).replace("{tmp}", str(tmp_path)) for a in args]
    one_error(run(*args), 2, option)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("value", ["0", "{max+1}", "1000000", "9" * 30])
@pytest.mark.parametrize("args, option", [
    (["solve", "--rolls", "{tmp}/missing.json", "--workers", "{v}"], "--workers"),
    (["analyse", "{tmp}/missing.json", "--workers", "{v}"], "--workers"),
    (["batch", "solve", "--seeds", "1", "--store", "{tmp}/s.sqlite", "--workers", "{v}"], "--workers"),
    (["batch", "solve", "--seeds", "1", "--store", "{tmp}/s.sqlite", "--threads", "{v}"], "--threads"),
    (["batch", "bots", "--seeds", "1", "--store", "{tmp}/b.sqlite", "--workers", "{v}"], "--workers"),
    (["batch", "calibrate", "--store", "{tmp}/c.sqlite", "--bots", "greedy", "--workers", "{v}"], "--workers"),
    (["bench", "bots", "--seeds", "1", "--workers", "{v}"], "--workers"),
])
def test_workers_are_bounded(tmp_path, value, args, option):
    """--workers had no upper bound: a typo started processes until memory ran out. Refused
    before any input is read."""
    from nochmal.batch.runner import MAX_WORKERS

    value = value.replace("{max+1}", str(MAX_WORKERS + 1))
    args = [a.replace("{v}", value).replace("{tmp}", str(tmp_path)) for a in args]
    one_error(run(*args), 2, option)
    assert list(tmp_path.iterdir()) == []


# --- the audit's shapes as the fuzzer makes them ---------------------------------------------

def test_the_audit_shapes_end_cleanly_and_leave_every_target(tmp_path):
    """tests/fuzz_cases.py audit_cases (benchmarks/fuzz.py --cli runs many more): each command
    line exits 0, 1 or 2 with at most one error line, and no special target is replaced."""
    rng = random.Random(5)

    def file(kind: str, suffix: str) -> str:
        path = tmp_path / f"in-{rng.randrange(10**9)}{suffix}"
        path.write_text(fuzz_cases.mutate(rng.choice(fuzz_cases.seeds()[kind]), rng, kind), encoding="utf-8",
                        errors="surrogatepass")
        return str(path)

    for _ in range(2):
        for args in fuzz_cases.audit_cases(rng, tmp_path, file):
            res = runner.invoke(app, args)
            assert res.exception is None or isinstance(res.exception, SystemExit), (args, repr(res.exception))
            fuzz_cases.assert_clean_exit(args, res.exit_code, res.stdout, res.stderr)
            fuzz_cases.assert_targets_intact(tmp_path)
