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
    """Base of every error the toolkit raises on bad input or an illegal request. Its one
    argument is the English line or a nochmal.i18n.Message (msgid and values, said in a
    player's language where one is known: ``said(exc.message, lang)``)."""

    @property
    def message(self):
        """The Message or text this error was raised with."""
        return self.args[0] if self.args else ""

    def __str__(self) -> str:
        return self.in_language("en")

    def in_language(self, lang: str) -> str:
        """The line in ``lang`` (a Message in its words; a plain text the catalogs hold in
        theirs, any other unchanged), as one line a person reads."""
        if lang == "en" or not self.args:
            text = super().__str__()
        else:
            from nochmal.i18n import said  # core too; late so that errors.py imports nothing at load

            text = said(self.message, lang)
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
        self.problems = [str(p) for p in problems]  # a reader's reason may be a Message: English here
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


# The errors below name what went wrong where a bare NochmalError or ValueError stood. One
# that replaced a ValueError some code catches is a ValueError too (as python-chess's errors
# are), so that code still catches it; docs/glossary.md lists them all.
class RollError(NochmalError):
    """A roll's text or JSON is malformed, or its dice do not fit the game (docs/rules.md)."""


class SeedError(NochmalError):
    """A seed outside 0..MAX_SEED (nochmal/dice.py)."""


class RulesError(NochmalError):
    """A rule settings object is malformed (docs/rules.md, the options)."""


class SetupError(NochmalError, ValueError):
    """A game asked for with a mode, a number of players or of agents the rules do not have."""


class OutOfTurnError(NochmalError):
    """A roll, a move, an undo or a hint asked for when the game is not at that point."""


class StorageError(NochmalError):
    """A file or folder the toolkit writes cannot be written or created."""


class ServeError(NochmalError):
    """The web app cannot listen on the address given."""


class BotError(NochmalError):
    """An unknown bot name, or a bot that chose a move the rules forbid."""


class WeightsError(NochmalError, ValueError):
    """A bot's weights (a file or tables) do not fit the bot's features or the sheet."""


class SeatNameError(NochmalError, ValueError):
    """A seat's name is empty, too long or holds control characters."""


class OptimaError(NochmalError, ValueError):
    """A puzzle optima file (nochmal/puzzles.py) breaks its format."""


class InfeasibleError(NochmalError, ValueError):
    """A missions figure asked for what cannot be: target cells the start column cannot
    reach, more groups than exist, demands no split meets (docs/missions.md)."""


class NoPlanError(NochmalError):
    """The planner found no plan where one was asked for (to save, to show): none within its
    time, or none at all (docs/planner.md)."""
