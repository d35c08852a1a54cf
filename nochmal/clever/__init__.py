"""Clever 4ever (Wolfgang Warsch, Schmidt 2023): the printed sheet as data with its sources
(data/clever4ever.toml), one exact engine behind the project's state API, seeded dice and
verifiable records. docs/clever.md describes the rules as implemented and the OPTIONS."""

from nochmal.clever.actions import Action
from nochmal.clever.dice import DICE, Throw, seeded_throw
from nochmal.clever.game import CleverGame
from nochmal.clever.options import DEFAULT_OPTIONS, CleverRules
from nochmal.clever.record import CleverRecord, replay
from nochmal.clever.scoring import area_points, score
from nochmal.clever.sheet import Place, Sheet
from nochmal.clever.sheetdata import SheetFacts, clever4ever, load_sheet
from nochmal.clever.state import from_state, read_state_text, state_text, to_state

__all__ = ["Action", "CleverGame", "CleverRecord", "CleverRules", "DEFAULT_OPTIONS", "DICE", "Place", "Sheet",
           "SheetFacts", "Throw", "area_points", "clever4ever", "from_state", "load_sheet", "read_state_text", "replay",
           "score", "seeded_throw", "state_text", "to_state"]
