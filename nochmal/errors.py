"""The project's error types: every bad input gets one of these, never a bare traceback.

Modelled on python-chess: bad *notation* (InvalidMoveError) is distinct from a well-formed
move that the rules forbid (IllegalMoveError).
"""

from __future__ import annotations


# An error is one line a person reads: control characters quoted from the input are
# escaped, and a message that quotes a huge input is cut in the middle (the start names the
# file and the problem).
MAX_MESSAGE = 1000


def quoted(value, limit: int = 40) -> str:
    """A value from the input for an error line: its repr, cut so that a huge value cannot
    flood the line (a number of 30+ digits is given by its size)."""
    big = isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**30
    text = f"a {value.bit_length()}-bit number" if big else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class NochmalError(Exception):
    """Base of every error the toolkit raises on bad input or an illegal request."""

    def __str__(self) -> str:
        text = super().__str__()
        if not text.isprintable():  # a newline or control character quoted from the input
            text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
        if len(text) > MAX_MESSAGE:
            cut = len(text) - MAX_MESSAGE + 40
            text = f"{text[: MAX_MESSAGE - 200]} ...({cut} characters cut)... {text[-160:]}"
        return text


class BoardError(NochmalError):
    """A sheet layout file breaks the format or an invariant of docs/rules.md §1.

    ``problems`` lists every broken invariant, so `board check` can show them all.
    """

    def __init__(self, source: str, problems: list[str]):
        self.source = source
        self.problems = list(problems)
        super().__init__(f"{source}: " + "; ".join(self.problems))


class SheetError(NochmalError):
    """A typed sheet or compact sheet text is malformed."""


class InvalidMoveError(NochmalError):
    """A move text cannot be parsed (bad notation)."""


class IllegalMoveError(NochmalError):
    """A well-formed move that the rules do not allow in this position."""


class RecordError(NochmalError):
    """A game record is broken JSON, of an unknown version, or fails verification."""


class OptionError(NochmalError):
    """A bad value for an option or argument of a command or function call (not a bad
    file): the command line exits 2 for it, a usage error, and 1 for the others."""


class PositionTextError(NochmalError):
    """A game position's text is malformed (bad notation, like InvalidMoveError)."""


class IllegalPositionError(NochmalError):
    """A well-formed game position that the rules cannot reach or the mode does not allow."""
