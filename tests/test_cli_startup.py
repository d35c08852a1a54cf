"""The command line starts without the heavy libraries (benchmarks/bench_cli.py measures the time).

OR-Tools, numpy, pandas and networkx together take most of a second to import; only the
commands that plan, play bots or measure graphs may load them. ssl (0.1-0.3 s) comes with
xml.sax.saxutils (it imports urllib.request), which only the SVG pictures need. Each check runs in a fresh
interpreter (a subprocess), so modules loaded by other tests cannot hide an import.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("ortools", "numpy", "pandas", "networkx", "ssl")  # ssl: via xml.sax.saxutils -> urllib

PROBE = """
import json, sys
from nochmal.cli import app
args = json.loads(sys.argv[1])
if args:
    try:
        app(args, standalone_mode=False)
    except SystemExit:
        pass
print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)))
"""


def heavy_after(args: list[str], cwd) -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE.format(heavy=HEAVY), json.dumps(args)], cwd=cwd,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_of_the_cli_loads_no_heavy_library(tmp_path):
    assert heavy_after([], tmp_path) == []


@pytest.mark.parametrize("args", [
    ["--help"],
    ["moves", "--colour", "y", "--count", "3"],
    ["score", "{sheet}"],
    ["rolls", "--seed", "7"],
    ["board", "show", "classic"],
])
def test_light_commands_load_no_heavy_library(tmp_path, args):
    sheet = tmp_path / "sheet.txt"
    sheet.write_text("\n".join(["." * 7 + "x" + "." * 7] + ["." * 15] * 6) + "\n", encoding="utf-8")
    assert heavy_after([a.format(sheet=sheet) for a in args], tmp_path) == []
