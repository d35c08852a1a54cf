"""Atomic writes give shared files the usual permissions: 0666 minus the umask for
a new file, the old mode for a replaced one; never mkstemp's 0600. Oracle: the mode a plain
``open(path, "w")`` gives a file in the same folder under the same umask."""

from __future__ import annotations

import os
import stat

import pytest

from nochmal.fileio import atomic_write_text


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o077, 0o002])
def test_new_file_gets_what_open_would_give(tmp_path, umask):
    old = os.umask(umask)
    try:
        with open(tmp_path / "plain.txt", "w") as fh:
            fh.write("x")
        atomic_write_text(tmp_path / "atomic.txt", "x")
    finally:
        os.umask(old)
    assert mode(tmp_path / "atomic.txt") == mode(tmp_path / "plain.txt") == 0o666 & ~umask


def test_replaced_file_keeps_its_mode(tmp_path):
    path = tmp_path / "g.json"
    path.write_text("old")
    os.chmod(path, 0o640)
    atomic_write_text(path, "new")
    assert path.read_text() == "new" and mode(path) == 0o640


def test_record_and_svg_from_the_cli_are_readable_by_others(tmp_path):
    from typer.testing import CliRunner

    from nochmal.cli import app

    old = os.umask(0o022)
    try:
        runner = CliRunner()
        assert runner.invoke(app, ["solo", "--seed", "4", "--save", str(tmp_path / "g.json")]).exit_code == 0
        res = runner.invoke(app, ["render", str(tmp_path / "g.json"), "--svg", str(tmp_path / "g.svg")])
        assert res.exit_code == 0
    finally:
        os.umask(old)
    assert mode(tmp_path / "g.json") == mode(tmp_path / "g.svg") == 0o644


def test_check_writable_agrees_with_the_write_it_promises(tmp_path):
    """check_writable (run before a game, so a bad --save fails before the first roll) refuses
    exactly where atomic_write_text would fail: /proc takes no new file even from root, which
    os.access alone says it would; a writable folder passes and is left empty."""
    from nochmal.errors import NochmalError
    from nochmal.fileio import check_writable

    check_writable(tmp_path / "game.json")
    assert list(tmp_path.iterdir()) == []
    target = "/proc/nochmal-test.json"
    with pytest.raises(NochmalError) as later:
        atomic_write_text(target, "x")
    with pytest.raises(NochmalError) as now:
        check_writable(target)
    assert str(now.value).startswith(target) and "\n" not in str(now.value)
    assert str(later.value).startswith(target)
