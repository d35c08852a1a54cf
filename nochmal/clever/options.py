"""Clever 4ever's OPTIONS: every rule the sources leave silent or ambiguous, named, with the
reading taken as its default (docs/clever.md "Options" says why for each). A record saves
them, so a replay plays by the same rules."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from nochmal.clever.errors import CleverRulesError

CHOICES = {
    "polish_scope": ("tray", "any"),
    "bonus_forfeit": ("when-unusable", "always"),
    "active_pass": ("always", "when-unusable"),
}


@dataclass(frozen=True)
class CleverRules:
    """Switchable rules (docs/clever.md "Options").

    rounds_1 .. rounds_4: rounds for 1-4 players; the sources give six for the solo game and
        are silent for more players: the family's counts (6, 6, 5, 4) by default.
    green_upper_needs_lower: a green field's upper half only after its lower half (one
        transcription's reading); default off: the two rows fill independently, as our
        source document says.
    polish_scope: "tray": polish silver changes only dice on the silver tray (our source
        document); "any": any die being entered.
    bonus_forfeit: "when-unusable": a "?" bonus may be given up only when it has no legal
        place; "always": at any time.
    active_pass: "always": the active player may pass a throw (it counts as one of the three;
        no die moves), as one transcription says ("one need not take a die, but loses the
        throw"); "when-unusable": only when no die in play can be entered (the family's
        rule as summarised for Ganz schön clever).
    passive_fallback: a passive player none of whose tray dice can be entered may take one of
        the active player's dice instead (the family's rule, and M; not in solo).
    pink_three_chains: the 3 that a pink 3 writes into the next field writes a 3 again
        (default off: one extra 3 only).
    reroll_track_bonus: the "?" printed at the end of the re-roll track is awarded when its
        last slot is unlocked (default on; one transcription leaves it unawarded).
    """

    rounds_1: int = 6
    rounds_2: int = 6
    rounds_3: int = 5
    rounds_4: int = 4
    green_upper_needs_lower: bool = False
    polish_scope: str = "tray"
    bonus_forfeit: str = "when-unusable"
    active_pass: str = "always"
    passive_fallback: bool = True
    pink_three_chains: bool = False
    reroll_track_bonus: bool = True

    def rounds(self, players: int) -> int:
        return getattr(self, f"rounds_{players}")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data) -> "CleverRules":
        if not isinstance(data, dict):
            raise CleverRulesError("options: expected an object of rule settings")
        types = {f.name: f.type for f in fields(cls)}
        unknown = sorted(set(data) - set(types))
        if unknown:
            raise CleverRulesError(f"options: unknown setting(s) {', '.join(map(str, unknown))}")
        for key, value in data.items():
            want = {"bool": bool, "int": int, "str": str}[types[key]]
            if type(value) is not want:
                raise CleverRulesError(f"options: setting {key} must be {want.__name__}, got {value!r}")
            if key in CHOICES and value not in CHOICES[key]:
                raise CleverRulesError(f"options: {key} is one of {', '.join(CHOICES[key])}, got {value!r}")
            if key.startswith("rounds_") and not 1 <= value <= 12:
                raise CleverRulesError(f"options: {key} must be 1..12, got {value!r}")
        return cls(**data)


DEFAULT_OPTIONS = CleverRules()
