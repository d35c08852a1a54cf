"""Clever 4ever's errors: the project's error kinds (nochmal/errors.py), so that a front end
catching a NochmalError, an InvalidMoveError or an IllegalMoveError serves both games."""

from __future__ import annotations

from nochmal.errors import BoardError, IllegalMoveError, IllegalPositionError, InvalidMoveError, RecordError, RulesError


class SheetDataError(BoardError):
    """The sheet's data file breaks the format; ``problems`` names every key at fault."""


class InvalidActionError(InvalidMoveError):
    """An action text cannot be parsed (bad notation)."""


class IllegalActionError(IllegalMoveError):
    """A well-formed action that the rules do not allow now."""


class CleverRecordError(RecordError):
    """A Clever 4ever record is broken, of an unknown format or version, or fails replay."""


class CleverRulesError(RulesError):
    """An unknown or badly typed Clever 4ever rule setting (an OPTION)."""


class CleverStateError(IllegalPositionError):
    """A game state (nochmal/clever/state.py) that is malformed or breaks a rule of the sheet."""
