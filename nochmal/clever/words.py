"""Clever 4ever's words for people (docs/clever.md "The web page"): the dice, the phases, the
places of the dice and the bonuses, as Messages said in a player's language
(nochmal.i18n say; the notation of nochmal/clever/actions.py stays the machine's words)."""

from __future__ import annotations

from nochmal.i18n import N_, Message, say

COLOURS = {"white": N_("White"), "yellow": N_("Yellow"), "blue": N_("Blue"), "grey": N_("Grey"),
           "green": N_("Green"), "pink": N_("Pink")}
PHASES = {"active": N_("Active turn"), "passive": N_("Pick from the silver tray"), "extra": N_("Extra dice (+1)"),
          "over": N_("Game over")}
WHERE = {"pool": N_("In play"), "tray": N_("Silver tray"), "field": N_("On the fields")}
KINDS = {"take": N_("take a die"), "pass": N_("Pass"), "reroll": N_("Re-roll"), "extra": N_("+1: one more die"),
         "done": N_("Done"), "bonus": N_('enter a "?"'), "forfeit": N_('give up a "?"')}
BONUSES = {"reroll": N_("Re-roll"), "plus-one": "+1", "polish": N_("Polish silver"), "fox": N_("Fox"),
           "?any": N_('"?" any area')}


def colour(name: str) -> Message:
    return say(COLOURS[name])


def bonus(kind: str) -> Message:
    """A bonus's name: a "?" names its area."""
    if kind in BONUSES:
        return say(BONUSES[kind])
    return say('"?" %(area)s', area=colour(kind[1:]))
