"""The mission tests' shared pieces: a user mission's file text to vary, and the one-line error
a broken one gives (docs/missions.md: a bad file is one line naming the file and the key)."""

from __future__ import annotations

import pytest

from nochmal.missions import MissionError, parse_mission_text


def mission_toml(*, id: str = "my-mission", name: str = "Mine", description: str = "Cross A1 and O7 together.",
                 cells: tuple[str, ...] = ("A1", "O7"), scope: str = "team",
                 budgets: tuple[int, int, int] = (30, 25, 20), tables: str = "") -> str:
    """A mission file with one cells objective and the same easy / normal / hard budgets for 1-4
    players; ``tables`` (e.g. ``[names]``) stand between the description and the objectives."""
    easy, normal, hard = budgets
    listed = ", ".join(f'"{cell}"' for cell in cells)
    rows = "".join(f"{p} = {{ easy = {easy}, normal = {normal}, hard = {hard} }}\n" for p in (1, 2, 3, 4))
    return (f'\nid = "{id}"\nname = "{name}"\nsource = "user"\ndescription = "{description}"\n{tables}\n'
            f'[[objectives]]\nkind = "cells"\ncells = [{listed}]\nscope = "{scope}"\n\n[budgets]\n{rows}')


def mission_error(text: str, source: str = "bad.toml") -> str:
    """The MissionError a broken mission text gives, one line."""
    with pytest.raises(MissionError) as info:
        parse_mission_text(text, source)
    assert "\n" not in str(info.value)
    return str(info.value)
