"""Bonuses (docs/clever.md "Bonuses"): an action bonus unlocks the next slot of its track, a
fox is counted, both at once; a "?" bonus waits as a pending choice of the same player until
it is entered or forfeited, in the order the player chooses, and an entry may trigger more."""

from __future__ import annotations

from dataclasses import replace

from nochmal.clever.options import CleverRules
from nochmal.clever.sheet import Place, Sheet, blue_bit, blue_free, places
from nochmal.clever.sheetdata import ACTIONS, AREAS, MAX_DIE, SheetFacts


def award(facts: SheetFacts, rules: CleverRules, sheet: Sheet, bonuses: list[str]) -> tuple[Sheet, list[str]]:
    """Apply the automatic bonuses in order; return the sheet and the "?" bonuses that now
    wait for the player (a full track's end bonus among them)."""
    questions: list[str] = []
    for bonus in bonuses:
        if bonus == "fox":
            sheet = replace(sheet, foxes=sheet.foxes + 1)
        elif bonus in ACTIONS:
            i = ACTIONS.index(bonus)
            slots = facts.track_slots[bonus]
            if sheet.unlocked[i] < slots:
                unlocked = list(sheet.unlocked)
                unlocked[i] += 1
                sheet = replace(sheet, unlocked=tuple(unlocked))
                end = facts.track_end_bonus[bonus]
                if unlocked[i] == slots and end and (bonus != "reroll" or rules.reroll_track_bonus):
                    sheet, more = award(facts, rules, sheet, [end])
                    questions.extend(more)
        else:
            questions.append(bonus)
    return sheet, questions


def question_entries(facts: SheetFacts, rules: CleverRules, sheet: Sheet, kind: str) -> list[tuple[int, Place]]:
    """Every (number, place) a "?" bonus may be entered as: a number of one's choice in its
    area (the black "?": in any area); blue: any free cell, the number being its row. A grey
    segment takes the smallest number that covers it (a larger one changes nothing)."""
    areas = AREAS if kind == "?any" else (kind[1:],)
    out: list[tuple[int, Place]] = []
    for area in areas:
        if area == "blue":
            out.extend((r + 1, Place("blue", c)) for r in range(MAX_DIE) for c in range(MAX_DIE)
                       if blue_free(sheet, r, c))
        elif area == "grey":
            out.extend((len(facts.segments[p.spot].cells), p) for p in places(facts, rules, sheet, "grey", MAX_DIE))
        else:
            out.extend((v, p) for v in range(1, MAX_DIE + 1) for p in places(facts, rules, sheet, area, v))
    return out


def triggered(facts: SheetFacts, sheet: Sheet, rounds_started: int) -> list[str]:
    """Every bonus the sheet's entries and the round bonuses so far have given, in no
    particular order: what its foxes and unlocked slots must match (a state's check)."""
    got = [b for r, row in enumerate(sheet.yellow) for b in facts.yellow_bonuses[r][:len(row)] if b]
    for r, bonus in enumerate(facts.blue_row_bonuses):
        if bonus and sum(1 for c in range(MAX_DIE) if sheet.blue & blue_bit(r, c)) >= 2:
            got.append(bonus)
    if facts.blue_diagonal_bonus and sum(1 for i in range(MAX_DIE) if sheet.blue & blue_bit(i, i)) >= 2:
        got.append(facts.blue_diagonal_bonus)
    crossed = [s for s in facts.segments if sheet.grey >> s.index & 1]
    got += [b for s in crossed for b in s.bonuses]
    for shade in {s.shade for s in facts.segments}:
        if all(sheet.grey >> s.index & 1 for s in facts.segments if s.shade == shade):
            got.append("fox")
    got += [b for b in facts.green_bonuses[:len(sheet.green[0])] if b]
    got += [facts.pink_bonuses[i] for i, v in enumerate(sheet.pink)
            if facts.pink_bonuses[i] and v in facts.pink_bonus_numbers]
    got += [b for b in facts.round_bonuses[:rounds_started] if b]
    return got
