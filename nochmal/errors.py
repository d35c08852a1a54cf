"""The project's error types: every bad input gets one of these, never a bare traceback.

Modelled on python-chess: bad *notation* (InvalidMoveError) is distinct from a well-formed
move that the rules forbid (IllegalMoveError).
"""

from __future__ import annotations


class NochmalError(Exception):
    """Base of every error the toolkit raises on bad input or an illegal request."""


class BoardError(NochmalError):
    """A sheet layout file breaks the format or an invariant of rules.md §1.

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
