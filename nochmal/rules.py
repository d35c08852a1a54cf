"""Named rule settings: every OPTION of docs/rules.md lives here, with its default.

A settings object is saved with every game record, so a replay uses the same rules.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from nochmal.errors import NochmalError


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
            raise NochmalError("rules: expected an object of rule settings")
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise NochmalError(f"rules: unknown setting(s) {', '.join(unknown)}")
        for key, value in data.items():
            want = bool if known[key] in ("bool", bool) else int
            if type(value) is not want:
                raise NochmalError(f"rules: setting {key} must be {want.__name__}, got {value!r}")
        settings = cls(**data)
        if settings.solo_rolls < 1:
            raise NochmalError("rules: solo_rolls must be at least 1")
        return settings


DEFAULT_RULES = RuleSettings()
