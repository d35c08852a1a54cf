"""The room status child's start (nochmal/web/rooms/status.py ``start_status_child``): the
searches' libraries loaded (the Dreyfus-Wagner programme in use among them, compiled or numpy)
and their objects frozen out of the garbage collector's full passes
(``preload_searches``), run in a separate interpreter (freezing the test process would change
the collector for the whole suite)."""

from __future__ import annotations

import os
import subprocess
import sys

CHILD = """
import gc, os, sys
from nochmal.web.rooms.status import start_status_child
before = gc.get_freeze_count()
start_status_child(os.getppid())
from nochmal.missions.measures.steiner import programme
print(before, gc.get_freeze_count(), "ortools.sat.python.cp_model" in sys.modules, programme.cache_info().currsize == 1)
"""


def test_the_status_child_freezes_its_libraries_objects_at_its_start():
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}, check=True).stdout.split()
    before, after = int(out[0]), int(out[1])
    assert before == 0 and after > 10_000  # (OR-Tools and numpy alone make tens of thousands)
    assert out[2:] == ["True", "True"]
