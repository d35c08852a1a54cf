"""Help and long output lines as people read them: flags without a value
placeholder, arguments in upper case in the usage line, and a status header that is
never broken in mid-phrase when piped (rich's default width is 80)."""

from __future__ import annotations

import re

import pytest
import typer
from typer.testing import CliRunner

from nochmal.cli import app

runner = CliRunner()


def command_paths(command, prefix=()):
    yield list(prefix)
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from command_paths(sub, (*prefix, name))


PATHS = list(command_paths(typer.main.get_command(app)))


def test_every_command_is_visited():
    names = {" ".join(p) for p in PATHS}
    assert {"", "replay", "mission status", "board show", "bench bots", "play", "puzzle"} <= names


@pytest.mark.parametrize("path", PATHS, ids=[" ".join(p) or "nochmal" for p in PATHS])
def test_help_shows_flags_bare_and_arguments_in_upper_case(path):
    res = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "<bool>" not in res.output
    usage = next(line for line in res.output.splitlines() if "Usage:" in line)
    assert "{" not in usage and "}" not in usage, usage
    for word in re.findall(r"\b[a-z_]+_[a-z_]+\b", usage):
        pytest.fail(f"lower-case argument name {word!r} in {usage!r}")


def test_replay_usage_names_its_argument():
    res = runner.invoke(app, ["replay", "--help"], env={"COLUMNS": "200"})
    assert "Usage: nochmal replay [OPTIONS] RECORD_FILE" in res.output
    assert re.search(r"--json\s+Print the result as JSON", res.output)


def test_mission_status_header_is_one_line_when_piped(tmp_path):
    sheet = tmp_path / "anna-with-a-rather-long-file-name.txt"
    sheet.write_text("H4 H5\n", encoding="utf-8")
    res = runner.invoke(app, ["mission", "status", "team-target", "-d", "normal", "-k", "3", str(sheet), str(sheet)])
    assert res.exit_code == 0, res.output
    header = res.stdout.splitlines()[0]
    assert "rolls used" in header and header.rstrip().endswith(("in progress", "won", "lost")), header
    assert len(header) > 80  # long enough that rich would have wrapped it


@pytest.mark.parametrize("path", [[], ["board"], ["bench"], ["mission"], ["batch"]], ids=lambda p: " ".join(p) or "nochmal")
def test_a_bare_group_prints_its_help_once_and_exits_0(path):
    """`nochmal`, `nochmal board`: the group's help on stdout, once, nothing on stderr."""
    res = runner.invoke(app, path, env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert res.stdout.count("Usage:") == 1 and res.stderr == "", res.output
