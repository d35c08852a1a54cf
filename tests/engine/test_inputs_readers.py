"""Every command that reads a text file refuses a binary one with one line.

One reader path (nochmal.fileio.read_text_file): "not a UTF-8 text file", exit 1, never a
UnicodeDecodeError traceback.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from nochmal.cli import app

runner = CliRunner()
BINARY = b"\xff\xfe\x00[{\x80\x81 not text"


def _commands(f: str, out: str) -> list[list[str]]:
    return [
        ["solve", "--rolls", f, "--time-limit", "1"],
        ["solve", "--record", f, "--time-limit", "1"],
        ["score", f],
        ["render", f, "--svg", out],
        ["replay", f],
        ["analyse", f],
        ["board", "check", f],
        ["board", "show", f + ".toml"],
        ["moves", "--colour", "y", "--count", "2", "--sheet", f],
        ["hint", "--sheet", f, "--roll", '{"colours": ["y", "g", "b"], "numbers": ["1", "2", "3"]}'],
        ["mission", "status", "lockstep", f, "-d", "easy", "-k", "3"],
        ["mission", "show", f + ".toml"],
    ]


@pytest.mark.parametrize("index", range(12))
def test_a_binary_file_is_one_error_line(tmp_path, index):
    f = tmp_path / "bin"
    f.write_bytes(BINARY)
    (tmp_path / "bin.toml").write_bytes(BINARY)
    args = _commands(str(f), str(tmp_path / "out.svg"))[index]
    res = runner.invoke(app, args)
    assert res.exit_code == 1, (args, res.output)
    assert res.exception is None or isinstance(res.exception, SystemExit), (args, repr(res.exception))
    assert "not a UTF-8 text file" in res.output, (args, res.output)
    assert "Traceback" not in res.output
