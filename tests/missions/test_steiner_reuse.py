"""missions/measures/crosses.py ``_approximate`` grows the lazy subset of a sheet state asked again
for a smaller target (a team target after another sheet crossed a star) to the subset its
last answer ended with, after the first round: the figures equal a fresh search's (nothing
remembered), and the witness is a legal crossing order of that many crosses that covers
the target."""

from __future__ import annotations

import random

import pytest

from nochmal.missions.measures import crosses
from nochmal.bitsets import bit_list
from nochmal.board import load_board
from nochmal.missions.measures.crosses import fewest_crosses

from sheets_support import random_sheet, replay  # sheets grown by legal one-cell crosses

CLASSIC = load_board("classic")

# the figures asserted exact come from CP-SAT's deterministic limits where CP-SAT gives them
# (tests/conftest.py cpsat_by_work)
pytestmark = pytest.mark.usefixtures("cpsat_by_work")


@pytest.mark.parametrize("seed", range(6))
def test_a_shrinking_target_on_one_sheet_state_gives_the_fresh_figures(seed, monkeypatch):
    rng = random.Random(500 + seed)
    sheet = random_sheet(CLASSIC, rng, rng.randint(0, 6))
    target = CLASSIC.star_mask
    used = []
    real = crosses.remembered_subset

    def spy(*args):
        found = real(*args)
        used.append(found is not None)
        return found

    monkeypatch.setattr(crosses, "remembered_subset", spy)
    crosses.RECENT.clear()
    fewest_crosses(sheet, target)
    for _ in range(3):  # other sheets cross stars: one or two of them leave the target
        stars = bit_list(target & ~sheet.crossed)
        for b in rng.sample(stars, min(len(stars) - 1, rng.randint(1, 2))):
            target &= ~(1 << b)
        warm = fewest_crosses(sheet, target)
        saved = crosses.RECENT.snapshot()
        crosses.RECENT.clear()
        fresh = fewest_crosses(sheet, target)
        crosses.RECENT.clear()
        crosses.RECENT.update(saved)
        assert fresh.exact and warm.exact and warm.value == fresh.value
        final = replay(sheet, warm.cells)
        assert final.crossed & target == target and len(warm.cells) == warm.upper
    assert any(used)  # the remembered subset was taken at least once (else this tests nothing new)
