"""The command line starts without the heavy libraries (benchmarks/bench_cli.py measures the time).

OR-Tools, numpy, pandas and networkx together take most of a second to import; only the
commands that plan, play bots or measure graphs may load them. ssl (0.1-0.3 s) comes with
xml.sax.saxutils (it imports urllib.request), which only the SVG pictures need. pydantic
(about 50 ms) is what typer 0.2x converts every option value with, through its private
machinery only, so a command that takes a value loads it (docs/figures.md, command-line
start-up); importing the command line does not. Each check runs in a fresh interpreter (a
subprocess), so modules loaded by other tests cannot hide an import.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("ortools", "numpy", "pandas", "networkx", "ssl")  # ssl: via xml.sax.saxutils -> urllib

PROBE = """
import json, sys
from nochmal.cli import app_for
args = json.loads(sys.argv[1])
if args:
    try:
        app_for(args)(args, standalone_mode=False)  # as the nochmal script runs them
    except SystemExit:
        pass
print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)))
"""


def heavy_after(args: list[str], cwd, heavy: tuple[str, ...] = HEAVY) -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE.format(heavy=heavy), json.dumps(args)], cwd=cwd,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_of_the_cli_loads_no_heavy_library(tmp_path):
    assert heavy_after([], tmp_path, (*HEAVY, "pydantic")) == []


def test_the_command_table_names_what_each_module_registers():
    """nochmal.cli.COMMAND_MODULES lets `nochmal NAME` load only NAME's module: each entry
    must be exactly what the module's register() adds, and the whole app is their union."""
    import typer

    from nochmal.cli import COMMAND_MODULES, app, build_app

    def names(a: typer.Typer) -> list[str]:
        return sorted([c.name for c in a.registered_commands] + [g.name for g in a.registered_groups])

    for module, registered in COMMAND_MODULES.items():
        assert names(build_app([module])) == sorted(registered), module
    assert names(app) == sorted(n for ns in COMMAND_MODULES.values() for n in ns)


def test_a_command_loads_only_its_own_module(tmp_path):
    probe = ("import sys; from nochmal.cli import main; sys.argv = ['nochmal', 'rolls', '--seed', '7']\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in sys.modules if m.startswith('nochmal.cli.') and m.endswith('_cmds')))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "['nochmal.cli.engine_cmds']"


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


def test_mission_status_loads_only_numpy(tmp_path):
    """A score objective's figure runs the Steiner search (numpy arrays); the per-cell
    distances of the split are a breadth-first search, not networkx; no CP-SAT."""
    cells = tmp_path / "cells.txt"
    cells.write_text("H4 H5 G4\n", encoding="utf-8")
    args = ["mission", "status", "team-target", "-d", "normal", "-k", "3", str(cells), str(cells)]
    assert heavy_after(args, tmp_path) == ["numpy"]


def test_a_bad_option_value_gets_typers_message_on_one_line(tmp_path):
    """typer's (pydantic) converter words the error; the command line prints it as one line."""
    out = subprocess.run([sys.executable, "-m", "nochmal.cli", "rolls", "--seed", "x"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.startswith("error: Invalid value for '--seed'") and len(out.stderr.splitlines()) == 1
