"""The command line starts without the heavy libraries (benchmarks/bench_cli.py measures the time).

OR-Tools, numpy, pandas and networkx together take most of a second to import; only the
commands that plan, play bots or measure graphs may load them. ssl (0.1-0.3 s) comes with
xml.sax.saxutils (it imports urllib.request), which only the SVG pictures need. pydantic
(about 50 ms) is what typer 0.2x converts option values with; nochmal/cli/coercion.py
converts plainly valid values without it, and the tests below check that its values are
typer's own. Each check runs in a fresh interpreter (a subprocess), so modules loaded by
other tests cannot hide an import.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("ortools", "numpy", "pandas", "networkx", "ssl", "pydantic")  # ssl: via xml.sax.saxutils -> urllib

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


def heavy_after(args: list[str], cwd) -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE.format(heavy=HEAVY), json.dumps(args)], cwd=cwd,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_of_the_cli_loads_no_heavy_library(tmp_path):
    assert heavy_after([], tmp_path) == []


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


def test_a_bad_option_value_still_gets_typers_message(tmp_path):
    """Values the light converter does not take go to typer's (pydantic) converter."""
    out = subprocess.run([sys.executable, "-m", "nochmal.cli", "rolls", "--seed", "x"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.startswith("error: Invalid value for '--seed'") and len(out.stderr.splitlines()) == 1


# --- the light converter against typer's own ------------------------------------------------
TEXTS = ["0", "-0", "7", "-7", "007", "+3", " 3", "3 ", "3.0", "3.5", "-2.25", ".5", "5.", "1e3", "1_000",
         "nan", "inf", "-inf", "", "x", "٣", "9" * 18, "9" * 19, "-" + "9" * 18, "18446744073709551616",
         "12.000000000000001", "0.1", "-0.0", "é", "a b", "-", "--x", "\x00", "\ud800"]


def _typer_params():
    """(command path, parameter) for every parameter of every command, as typer builds them."""
    import typer.main

    from nochmal.cli import app

    def walk(command, path):
        for param in command.params:
            yield path, param
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, f"{path} {name}")

    return list(walk(typer.main.get_command(app), "nochmal"))


def _outcome(runtime, param, value, ctx):
    try:
        got = runtime.coerce(value, param=param, ctx=ctx)
    except Exception as exc:  # typer's BadParameter, compared by type and message
        return ("error", type(exc).__name__, str(exc))
    return ("value", type(got).__name__, got if got == got else "nan")


def test_light_converter_agrees_with_typer_on_every_parameter(tmp_path):
    import typer
    from typer._coercion import build_runtime_param

    from nochmal.cli import app
    from nochmal.cli.coercion import _LightRuntimeParam, _handled

    existing = tmp_path / "there.txt"
    existing.write_text("x", encoding="utf-8")
    params = [(path, p) for path, p in _typer_params() if _handled(p)]
    kinds = {str(p.type_descriptor.annotation) for _, p in params}
    assert {"<class 'int'>", "<class 'float'>", "<class 'str'>", "<class 'pathlib.Path'>",
            "<class 'bool'>"} <= kinds, kinds
    ranged = [p for _, p in params if p.type_descriptor.parameter_info.min is not None]
    assert ranged  # options with a range (--count 1..5 and the like) are among them
    checked = 0
    ctx = typer.Context(typer.main.get_command(app))
    for path, param in params:
        desc = param.type_descriptor
        light = _LightRuntimeParam(desc.parameter_info, desc.annotation)
        typers = build_runtime_param(desc)
        values = [*TEXTS, str(existing), str(tmp_path), True, False, 3, 2.5]
        if param.multiple or param.nargs == -1:
            values = [tuple(values[i:i + 2]) for i in range(0, len(values), 2)] + [()]
        for value in values:
            assert _outcome(light, param, value, ctx) == _outcome(typers, param, value, ctx), (path, param.name, value)
            checked += 1
    assert checked > 1000
