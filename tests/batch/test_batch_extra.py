"""Dask is the ``batch`` extra (pyproject.toml): without it, ``nochmal batch`` and ``nochmal
bench`` stop with one line naming the extra, and every other command works as before."""

from __future__ import annotations

import subprocess
import sys

import pytest

WITHOUT_DASK = """
import sys
sys.modules.update(dict.fromkeys(["dask", "dask.distributed", "distributed"]))  # as if not installed
from nochmal.cli import main
sys.argv = ["nochmal", *sys.argv[1:]]
main()
"""


@pytest.mark.parametrize("args", [
    ["bench", "bots", "--bots", "greedy,heuristic", "--seeds", "1..2"],
    ["batch", "bots", "--bots", "greedy,heuristic", "--seeds", "1..2", "--store", "{tmp}/bots.sqlite"],
])
def test_batch_without_dask_names_the_extra(tmp_path, args):
    out = subprocess.run([sys.executable, "-c", WITHOUT_DASK, *[a.format(tmp=tmp_path) for a in args]],
                         cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 1
    assert out.stderr.splitlines() == [
        "error: batch and bench run on Dask, which is not installed: pip install -e '.[batch]' (or pip install 'nochmal[batch]')"]


def test_other_commands_need_no_dask(tmp_path):
    out = subprocess.run([sys.executable, "-c", WITHOUT_DASK, "solo", "--seed", "1", "--bot", "greedy"],
                         cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0 and "seed 1, bot greedy" in out.stdout
