"""Clever 4ever's words for people (docs/clever.md "The web page"): the dice, the phases, the
places of the dice, the bonuses and whole actions, as Messages said in a player's language
(nochmal.i18n say; the notation of nochmal/clever/actions.py stays the machine's words)."""

from __future__ import annotations

from nochmal.clever.actions import Action
from nochmal.clever.sheet import Place
from nochmal.clever.sheetdata import SheetFacts
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


def place_words(place: Place, facts: SheetFacts) -> Message:
    """Where an entry goes, for people: the area and its row, column, cell or half."""
    area = colour(place.area)
    if place.area == "yellow":
        return say("%(area)s, row %(n)s", area=area, n=place.spot + 1)
    if place.area == "blue":
        return say("%(area)s, column %(n)s", area=area, n=place.spot + 1)
    if place.area == "grey":
        r, c = facts.segments[place.spot].cells[0]
        return say("%(area)s, row %(row)s column %(column)s", area=area, row=r + 1, column=c + 1)
    if place.area == "green":
        return say("%(area)s, upper half", area=area) if place.spot else say("%(area)s, lower half", area=area)
    return area


def action_words(action: Action, facts: SheetFacts) -> Message:
    """An action as the page lists it (the notation is the machine's, docs/clever.md "Actions")."""
    if action.kind in ("reroll", "pass", "done"):
        return say(KINDS[action.kind])
    if action.kind == "forfeit":
        return say("give up %(bonus)s", bonus=bonus(action.bonus))
    what = colour(action.die) if action.die else bonus(action.bonus)
    said = say("%(what)s %(number)s → %(place)s", what=what, number=action.number, place=place_words(action.place, facts))
    return say("+1: %(entry)s", entry=said) if action.kind == "extra" else said
