"""Piped output is never wrapped at the terminal width: a script reading `nochmal
solo | ...` with a narrow COLUMNS got the sheet's rows and the score line broken mid-phrase."""

from __future__ import annotations

import os
import subprocess
import sys


def test_piped_solo_keeps_every_line_whole_at_a_narrow_width(tmp_path):
    env = dict(os.environ, COLUMNS="40")
    out = subprocess.run([sys.executable, "-m", "nochmal.cli", "solo", "--seed", "1", "--bot", "greedy"],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    score = [line for line in lines if line.startswith("score ")]
    assert len(score) == 1 and "columns" in score[0] and "stars" in score[0], lines
    colours = [line for line in lines if line.startswith("colours ")]
    assert len(colours) == 1 and all(f"{c} " in colours[0] for c in "ygbro"), lines
    assert any(len(line) > 40 for line in lines)  # the width was really not applied
