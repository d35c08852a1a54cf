"""The readers under fuzz and the mutations they get (shared by tests/engine/test_fuzz_readers.py
and the longer campaign benchmarks/fuzz.py).

Every reader takes a text, as a file would hold it, and goes through the project's own
parse path. The property (``check``): a reader returns a value or raises a NochmalError
whose message is ONE non-empty line of bounded length; nothing else escapes.

Mutations start from valid inputs: truncation, character flips, insertions of odd text
(unicode, control characters, quotes, brackets), deletions, duplications, numbers swapped
for huge / negative / float / non-numbers, JSON values swapped for wrong types, keys
dropped or added, deep nesting, the empty text.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import stat
import tempfile
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Callable

from nochmal.bots.registry import make_agent
from nochmal.board import load_board, parse_board_text
from nochmal.dice import Roll
from nochmal.errors import NochmalError
from nochmal.fileio import load_json_text
from nochmal.missions.loader import parse_mission_text
from nochmal.move import Move
from nochmal.play import play_competitive, play_solo
from nochmal.record import GameRecord
from nochmal.rules import MAX_SEED
from nochmal.sheet import Sheet, format_typed_sheet, parse_typed_sheet
from nochmal.solver.instance import Instance
from nochmal.solver.plan import Plan, Step

MAX_MESSAGE = 2000  # characters: a message may quote a value, never the whole input


class ReaderBug(AssertionError):
    """A reader broke the property: not a one-line NochmalError."""


def check(reader: Callable[[str], object], text: str) -> str | None:
    """Run a reader; None if it accepted the text, else the one-line error message."""
    try:
        reader(text)
        return None
    except NochmalError as exc:
        msg = str(exc)
        if not msg or "\n" in msg or "\r" in msg or len(msg) > MAX_MESSAGE:
            raise ReaderBug(f"bad error message ({len(msg)} chars): {msg[:300]!r}") from exc
        return msg


# --- the readers ---------------------------------------------------------------------------

CLASSIC = load_board("classic")


def _json(text: str):
    return load_json_text(text, lambda reason: NochmalError(f"<fuzz>: {reason}"))


def read_typed_sheet(text: str):
    sheet = parse_typed_sheet(text, CLASSIC, "<fuzz>")
    sheet.score()
    return sheet


def read_compact_sheet(text: str):
    return Sheet.from_text(text, CLASSIC)


def read_cell_list(text: str):
    """The mission status reader: a typed sheet or a list of cells, from a file."""
    from nochmal.cli.mission_cmds import read_sheet_any

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "sheet.txt"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        return read_sheet_any(path, CLASSIC)


def read_move(text: str):
    move = Move.parse(text)
    assert Move.parse(str(move)) == move, "a parsed move must print and parse back to itself"
    return move


def read_roll_json(text: str):
    return Roll.from_json(_json(text))


def read_roll_text(text: str):
    return Roll.from_text(text)


def read_board_toml(text: str):
    board = parse_board_text(text, "<fuzz>")
    Sheet.empty(board).score()
    return board


def read_custom_board_toml(text: str):
    """Non-strict, as boards embedded in records and instances are read."""
    board = parse_board_text(text, "<fuzz>", strict=False)
    Sheet.empty(board).placements("y", 1)
    return board


def read_mission_toml(text: str):
    return parse_mission_text(text, "<fuzz>")


def read_record(text: str):
    record = GameRecord.loads(text, "<fuzz>")
    return record.verify("<fuzz>")


def read_rolls_json(text: str):
    return Instance.from_rolls_json(_json(text), "<fuzz>")


def read_instance_json(text: str):
    return Instance.from_json(_json(text), "<fuzz>")


def read_plan_json(text: str):
    return Plan.loads(text, "<fuzz>")


READERS: dict[str, Callable[[str], object]] = {
    "typed sheet": read_typed_sheet,
    "compact sheet": read_compact_sheet,
    "cell list": read_cell_list,
    "move": read_move,
    "roll json": read_roll_json,
    "roll text": read_roll_text,
    "board toml": read_board_toml,
    "custom board toml": read_custom_board_toml,
    "mission toml": read_mission_toml,
    "record": read_record,
    "rolls json": read_rolls_json,
    "instance json": read_instance_json,
    "plan json": read_plan_json,
}


# --- valid inputs to start from --------------------------------------------------------------

@lru_cache(maxsize=None)
def seeds() -> dict[str, list[str]]:
    solo = play_solo(CLASSIC, make_agent("greedy", 3), 3)
    duel = play_competitive(load_board("purple"), [make_agent("greedy", 1), make_agent("random", 2)], 5)
    final = solo.verify().sheets[0]
    boards = [(Path(__file__).resolve().parent.parent / "boards" / f"{n}.toml").read_text() for n in ("classic", "red")]
    missions = [p.read_text() for p in sorted(Path(str(resources.files("nochmal.missions"))).glob("*.toml"))]
    rolls = [r.to_json() for r, _ in solo.rolls[:6]]
    mid_game = Instance.from_record(solo, after_turn=4, count=5)
    instance = mid_game.to_json()
    # the solo record's own moves as a plan (what `nochmal solve --json` writes, minus "instance")
    played = [moves[0][1] for _, moves in solo.rolls[4:9]]
    plan = Plan([Step(mid_game.first_roll + t, roll.text()) if m.is_pass else
                 Step(mid_game.first_roll + t, roll.text(), m.colour_face, m.number_face, m.colour, m.count,
                      m.joker_cost, list(m.cells)) for t, (roll, m) in enumerate(zip(mid_game.rolls, played))],
                final.score(), final.score_breakdown().to_dict(), first_roll=mid_game.first_roll)
    return {
        "typed sheet": [format_typed_sheet(final), "\n".join(CLASSIC.printed) + "\njokers_used: 2\n"],
        "compact sheet": [final.text(), Sheet.empty(CLASSIC).text()],
        "cell list": ["H4 H5 G4\nH3, H2\njokers_used: 1\n", format_typed_sheet(final)],
        "move": ["b4 H4 H5 H6 H7", "xg?3 A1 A2 A3", "pass", "y1 H1"],
        "roll json": ['{"colours": ["y", "x", "b"], "numbers": ["3", "?", "1"]}', '{"colours": ["o", "g"], "numbers": ["5", "2"]}'],
        "roll text": ["ybx/3?5", "og/52"],
        "board toml": boards,
        "custom board toml": boards + ['name = "tiny"\ngrid = ["yyb", "ygb"]\ncolumn_points_first = [1, 1, 1]\n'
                                       'column_points_later = [0, 0, 0]\ncolour_bonus_first = 5\ncolour_bonus_later = 3\n'
                                       'jokers = 2\nstar_penalty = 2\nstart_column = "B"\n'],
        "mission toml": missions,
        "record": [solo.dumps(), duel.dumps()],
        "rolls json": [json.dumps(rolls)],
        "instance json": [json.dumps(instance)],
        "plan json": [plan.dumps()],
    }


# --- mutations -------------------------------------------------------------------------------

ODD_TEXT = ["\x00", "\x1b[31m", "\r\n", "\u2028", "é", "\U0001F600", "İ", "ǅ", "\ufeff", "\ud800", '"', "'",
            "[", "]", "{", "}", "=", ",", ":", "#", "/", "\\", "x", "X", "?", "-1", "0", "9" * 30,
            "1e309", "nan", "inf", "true", "null", "  ", "\t"]
ODD_NUMBERS = ["-1", "0", "-0", "1e309", "-1e309", "nan", "inf", "3.5", "9" * 25, "-" + "9" * 25,
               "9" * 5000, "1001", "800000000000", "2147483648", "18446744073709551616", "0x10", "1_000", '"8"']
ODD_VALUES = [None, True, -1, 0, 10**30, -(10**30), 2**63, 1.5, float("inf"), "", "x" * 3000, "\u0000\n",
              [], {}, [[[[[[[[[[[]]]]]]]]]]], {"a": {"b": {"c": {}}}}, ["H4"] * 500, list(range(200))]
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def mutate(text: str, rng: random.Random, name: str = "") -> str:
    """One to three random mutations of ``text``."""
    for _ in range(rng.randint(1, 3)):
        text = rng.choice(_MUTATIONS)(text, rng, name)
    return text


def _truncate(text, rng, name):
    return text[: rng.randrange(len(text) + 1)]


def _flip(text, rng, name):
    if not text:
        return rng.choice(ODD_TEXT)
    i = rng.randrange(len(text))
    return text[:i] + rng.choice(ODD_TEXT + [chr(rng.randrange(32, 0x3000))]) + text[i + 1:]


def _insert(text, rng, name):
    i = rng.randrange(len(text) + 1)
    return text[:i] + rng.choice(ODD_TEXT) * rng.choice((1, 1, 2, 50)) + text[i:]


def _delete(text, rng, name):
    if not text:
        return text
    i = rng.randrange(len(text))
    return text[:i] + text[i + rng.randint(1, 40):]


def _duplicate(text, rng, name):
    if not text:
        return text
    i = rng.randrange(len(text))
    j = min(len(text), i + rng.randint(1, 200))
    return text[:j] + text[i:j] * rng.choice((1, 2, 20)) + text[j:]


def _swap_number(text, rng, name):
    spots = list(_NUMBER.finditer(text))
    if not spots:
        return _insert(text, rng, name)
    m = rng.choice(spots)
    return text[: m.start()] + rng.choice(ODD_NUMBERS) + text[m.end():]


def _nest(text, rng, name):
    i = rng.randrange(len(text) + 1)
    depth = rng.choice((50, 1000, 5000))
    opener = rng.choice(("[", '{"a":', "[[", "a = ["))
    return text[:i] + opener * depth + text[i:]


def _empty(text, rng, name):
    return rng.choice(("", " ", "\n", "{}", "[]", "#", "\ufeff"))


def _json_value(text, rng, name):
    """Parse as JSON, replace / drop / add one value somewhere, print again."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return _swap_number(text, rng, name)
    containers = []

    def walk(node, depth=0):
        if isinstance(node, (dict, list)) and depth < 8:
            containers.append(node)
            for child in (node.values() if isinstance(node, dict) else node):
                walk(child, depth + 1)

    walk(data)
    if not containers:
        return json.dumps(rng.choice(ODD_VALUES))
    node = rng.choice(containers)
    value = rng.choice(ODD_VALUES)
    if isinstance(node, dict):
        if node and rng.random() < 0.25:
            node.pop(rng.choice(list(node)))
        elif rng.random() < 0.15:
            node[rng.choice(("extra", "", "\n", "x" * 100))] = value
        elif node:
            node[rng.choice(list(node))] = value
    elif node:
        i = rng.randrange(len(node))
        if rng.random() < 0.3:
            del node[i]
        else:
            node[i] = value
    else:
        node.append(value)
    return json.dumps(data)


def _toml_value(text, rng, name):
    """Replace the value of one ``key = value`` line by an odd literal, or drop the line."""
    lines = text.split("\n")
    spots = [i for i, line in enumerate(lines) if re.match(r"^\s*[\w\"-]+\s*=", line)]
    if not spots:
        return _insert(text, rng, name)
    i = rng.choice(spots)
    key = lines[i].split("=", 1)[0]
    if rng.random() < 0.2:
        del lines[i]
    else:
        odd = rng.choice(["-1", "800000000000", "9" * 40, "1.5", "nan", '"x"', '""', "true", "[]", "[1, 2]",
                          '["y"]', "{}", '{ 1 = 3 }', '"' + "é" * 300 + '"', "[" * 3000 + "]" * 3000])
        lines[i] = f"{key}= {odd}"
    return "\n".join(lines)


_MUTATIONS = [_truncate, _flip, _insert, _delete, _duplicate, _swap_number, _swap_number, _nest, _empty,
              _json_value, _json_value, _toml_value, _toml_value]


# --- command lines ----------------------------------------------------------------------------

def cli_cases(rng: random.Random, tmp: Path, per_command: int) -> list[list[str]]:
    """Command lines, each with mutated input files written to ``tmp``."""
    seeds_ = seeds()
    cases = []

    def file(kind: str, suffix: str) -> str:
        path = tmp / f"in{len(cases)}-{rng.randrange(10**6)}{suffix}"
        text = mutate(rng.choice(seeds_[kind]), rng, kind)
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        return str(path)

    svg = str(tmp / "out.svg")
    for _ in range(per_command):
        cases += [
            ["score", file("typed sheet", ".txt")],
            ["render", file("typed sheet", ".txt"), "--svg", svg],
            ["render", file("record", ".json"), "--svg", svg],
            ["replay", file("record", ".json"), "--verify"],
            ["board", "check", file("board toml", ".toml")],
            ["board", "show", file("custom board toml", ".toml")],
            ["mission", "show", file("mission toml", ".toml")],
            ["mission", "status", file("mission toml", ".toml"), file("cell list", ".txt"), "-d", "easy", "-k", "9"],
            ["mission", "status", "lockstep", file("cell list", ".txt"), "-d", "normal", "-k", "12"],
            ["moves", "--sheet", file("typed sheet", ".txt"), "-c", "y", "-n", "2"],
            ["hint", "--sheet", file("typed sheet", ".txt"), "--solo", "--roll",
             mutate(rng.choice(seeds_["roll json"]), rng, "roll json")],
            ["solve", "--rolls", file("rolls json", ".json"), "--time-limit", "0.5", "--workers", "1"],
            ["solve", "--record", file("record", ".json"), "--time-limit", "0.5", "--workers", "1"],
            ["analyse", file("record", ".json"), "--time-limit", "0.1", "--workers", "1", "--top", "1"],
            ["solo", "--board", file("board toml", ".toml"), "--seed", "1"],
            ["play", "--resume", file("record", ".json")],  # no input: a resumed game ends at once
            ["rolls", "--seed", str(rng.choice([0, 1, 2**31, 2**63, -1])), "--count", str(rng.choice([1, 30, 0]))],
        ]
        cases += audit_cases(rng, tmp, file)
    return cases


# --- the shapes an outside security audit used: where a command writes, seeds at
# and past the one range (nochmal.rules.MAX_SEED), numbers that are not finite, worker counts
# without end, text that is not UTF-8. Only paths under the fuzzer's own folder are used.

SURROGATE = "\udced\udca0\udc80"  # the bytes ED A0 80 (UTF-8 of U+D800) as Python hands them over
ODD_SEEDS = [0, MAX_SEED, MAX_SEED + 1, -1, 2**63, 10**30, "9" * 5000, "1e3", "0x10"]
BAD_FLOATS = ["nan", "NaN", "inf", "-inf", "1e309", "-1", "0", "-0", "1e-400", "86401", "abc", ""]
ODD_FLOATS = BAD_FLOATS + ["0.2", "1"]
BAD_WORKERS = ["0", "-1", "65", "1000000", "9" * 30, "1.5"]


def special_targets(tmp: Path) -> dict[str, Path]:
    """Paths under ``tmp/targets`` a write must never replace: a FIFO, a folder, links to them,
    a link to a regular file (written through, stays a link), a dangling link and, as root, a
    character device node of our own (the null device's numbers: nothing a test writes to it
    goes anywhere, and /dev itself is never named). Made once; assert_targets_intact checks them."""
    folder = tmp / "targets"
    if folder.is_dir():
        return _targets(folder)
    folder.mkdir()
    os.mkfifo(folder / "fifo")
    (folder / "dir").mkdir()
    (folder / "file.txt").write_text("the link's target\n", encoding="utf-8")
    for link, to in (("to-fifo", "fifo"), ("to-dir", "dir"), ("to-file", "file.txt"), ("dangling", "gone/x.json")):
        os.symlink(to, folder / link)
    if os.geteuid() == 0:
        os.mknod(folder / "device", stat.S_IFCHR | 0o600, os.makedev(1, 3))
    return _targets(folder)


def reset_targets(tmp: Path) -> None:
    """Make the special targets afresh (after a run that damaged them)."""
    shutil.rmtree(tmp / "targets", ignore_errors=True)
    special_targets(tmp)


def _targets(folder: Path) -> dict[str, Path]:
    return {p.name: p for p in sorted(folder.iterdir()) if p.name != "file.txt"}


def assert_targets_intact(tmp: Path) -> None:
    """Every special target is what special_targets made: no node replaced by a file, no link
    replaced, no temporary file left beside them, nothing written into the folder."""
    folder = tmp / "targets"
    if not folder.is_dir():
        return
    kinds = {"fifo": stat.S_ISFIFO, "dir": stat.S_ISDIR, "device": stat.S_ISCHR, "file.txt": stat.S_ISREG}
    links = {"to-fifo": "fifo", "to-dir": "dir", "to-file": "file.txt", "dangling": "gone/x.json"}
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted(n for n in [*kinds, *links] if n != "device" or os.geteuid() == 0), names
    for name, test in kinds.items():
        if (folder / name).exists() or name != "device":
            assert test(os.lstat(folder / name).st_mode), f"{name} was replaced"
    for name, to in links.items():
        assert (folder / name).is_symlink() and os.readlink(folder / name) == to, f"the link {name} was replaced"
    assert list((folder / "dir").iterdir()) == [], "something was written into the folder"


def surrogate_record() -> str:
    """A valid solo record whose player name holds a lone surrogate as a JSON escape."""
    data = json.loads(seeds()["record"][0])
    data["players"][0] = "human:\ud800"
    return json.dumps(data)


def audit_cases(rng: random.Random, tmp: Path, file: Callable[[str, str], str]) -> list[list[str]]:
    """One command line of each audit shape (see above), values picked by ``rng``. A batch
    line always carries a value the command refuses: a valid one would start a cluster."""
    targets = [str(p) for p in special_targets(tmp).values()]
    out = rng.choice(targets + [str(tmp / "new.json")])
    record = tmp / f"surrogate-{rng.randrange(10**6)}.json"
    record.write_text(surrogate_record(), encoding="utf-8")
    weird = tmp / f"{SURROGATE}.txt"
    weird.write_text("x\n", encoding="utf-8", errors="surrogateescape")
    seed = str(rng.choice(ODD_SEEDS))
    return [
        ["solo", "--seed", seed, "--save", out],
        ["render", file("typed sheet", ".txt"), "--svg", rng.choice(targets), "--allow-impossible"],
        ["render", str(record), "--svg", rng.choice(targets)],
        ["replay", str(record), "--verify"],
        ["solve", "--seed", seed, "-k", "2", "-t", rng.choice(ODD_FLOATS), "--workers",
         rng.choice(BAD_WORKERS + ["1"]), "--save", rng.choice(targets)],
        ["analyse", file("record", ".json"), "-t", rng.choice(BAD_FLOATS), "--workers", "1"],
        ["analyse", file("record", ".json"), "-t", "0.1", "--workers", rng.choice(BAD_WORKERS)],
        ["rolls", "--seed", seed, "--count", "1"],
        ["puzzle", "--seed", seed, "--planner-time", rng.choice(ODD_FLOATS)],  # no input: ends at once
        ["play", "--seed", seed, "--save", rng.choice(targets)],
        ["batch", "solve", "--seeds", rng.choice([seed, f"0..{seed}", f"{seed}..{seed}"]), "-t", rng.choice(BAD_FLOATS),
         "--store", str(tmp / "s.sqlite")],
        ["batch", "solve", "--seeds", "1", "--store", rng.choice(targets)],
        ["batch", "solve", "--seeds", "1", rng.choice(["--workers", "--threads"]), rng.choice(BAD_WORKERS),
         "--store", str(tmp / "s.sqlite")],
        ["batch", "calibrate", "--max-ms", rng.choice(BAD_FLOATS), "--store", str(tmp / "c.sqlite")],
        ["batch", "report", rng.choice(targets), "--svg", rng.choice(targets)],
        ["bench", "bots", "--seeds", "1..2", "--workers", rng.choice(BAD_WORKERS)],
        ["play", "--seat", rng.choice([f"human:{SURROGATE}", SURROGATE, f"human:A{SURROGATE[0]}"]), "--seed", "1"],
        rng.choice([["board", "show"], ["mission", "show"]]) + [SURROGATE],
        ["solo", "--bot", SURROGATE],
        ["score", str(weird)],
        ["render", str(record), "--svg", str(tmp / f"{SURROGATE}.svg")],
    ]


def assert_clean_exit(args, code: int, stdout: str, stderr: str) -> None:
    """Exit 0, 1 or 2; no traceback; on error at most one 'error:' line."""
    assert code in (0, 1, 2), (args, code, stderr[-500:])
    assert "Traceback" not in stdout + stderr, (args, stderr[-2000:])
    if code != 0:
        lines = [line for line in stderr.splitlines() if line.strip()]
        assert lines, (args, "an error exit with nothing on stderr")
        errors = [line for line in lines if line.startswith("error: ") or line.startswith("Usage:")
                  or "Error" in line or "Try " in line]
        assert errors, (args, lines)
        assert sum(line.startswith("error: ") for line in lines) <= 1, (args, lines)
