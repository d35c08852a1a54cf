"""Named rule settings: every OPTION of docs/rules.md lives here, with its default.

A settings object is saved with every game record, so a replay uses the same rules.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from nochmal.errors import RulesError, quoted
from nochmal.i18n import say, say_n

# Caps on the numbers a rule setting or a game record holds, so that no file can ask for an
# unbounded game. A solo game has 30 rolls (§5) and the calibrated co-op budgets are below 130;
# 1000 is also the mission loader's cap on a roll budget, so every mission game's record loads.
MAX_GAME_ROLLS = 1000  # solo_rolls, a record's roll_limit and the rolls a record holds
MAX_SEED = 2**62  # a dice seed (docs/rules.md §6), as the web API accepts


@dataclass(frozen=True)
class RuleSettings:
    """Switchable rules.

    bridging: docs/rules.md §3 OPTION; new cells may connect through already crossed cells of the
        same block (default off).
    solo_ends_on_second_colour: docs/rules.md §5 OPTION; a solo game also ends after the roll in
        which a second colour is completed (default off: always 30 rolls).
    solo_rolls: length of a solo game (the 30 letter boxes of the sheet).
    """

    bridging: bool = False
    solo_ends_on_second_colour: bool = False
    solo_rolls: int = 30

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "RuleSettings":
        known = {f.name: f.type for f in fields(cls)}
        if not isinstance(data, dict):
            raise RulesError(say("rules: expected an object of rule settings"))
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise RulesError(say_n("rules: unknown setting %(names)s", "rules: unknown settings %(names)s", len(unknown),
                                   names=tuple(unknown)))
        for key, value in data.items():
            want = bool if known[key] in ("bool", bool) else int
            if type(value) is not want:
                raise RulesError(say("rules: setting %(key)s must be %(type)s, got %(got)s", key=key, type=want.__name__,
                                     got=repr(value)))
        settings = cls(**data)
        if not 1 <= settings.solo_rolls <= MAX_GAME_ROLLS:
            raise RulesError(say("rules: setting solo_rolls must be 1..%(most)s, got %(got)s", most=MAX_GAME_ROLLS,
                                 got=quoted(settings.solo_rolls)))
        return settings


DEFAULT_RULES = RuleSettings()
