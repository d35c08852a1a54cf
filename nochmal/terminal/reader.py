"""Reading what a person types, one line at a time (a pipe or a test can play a game too)."""

from __future__ import annotations

import sys
from typing import Callable

from rich.console import Console

from nochmal.errors import NochmalError

Reader = Callable[[str], "str | None"]


class InputEnded(NochmalError):
    """The input stream ended while a human still had to decide."""


def default_reader(console: Console) -> Reader:
    """Prompt on ``console`` and read one line from stdin; None at end of input.

    When stdin is not a terminal (a pipe, a test) the line is echoed so a transcript reads
    like the session it was.
    """

    def read(prompt: str) -> str | None:
        console.print(prompt, end="", markup=False, highlight=False)
        line = sys.stdin.readline()
        if not line:
            console.print("")
            return None
        line = line.rstrip("\r\n")
        if not sys.stdin.isatty():
            console.print(line, markup=False, highlight=False)
        return line

    return read
