"""The solo verdicts (docs/rules.md §5): their own module, so that nochmal.i18n can say them
without importing the engine (nochmal.game, which raises its refusals with nochmal.i18n.say)."""

from __future__ import annotations


def rating(score: int) -> str:
    """The solo rating line of the rulebook (docs/rules.md §5, verdicts paraphrased), in English;
    nochmal.i18n.rating gives it in the players' languages (the German ones the rulebook's)."""
    N_ = str  # marks the verdicts for extraction (pybabel -k N_, docs/web.md); nochmal.i18n imports this module
    table = [(41, N_("superhero")), (37, N_("exceptional")), (33, N_("professional")), (29, N_("super")),
             (25, N_("excellent")), (21, N_("great")), (17, N_("experienced")), (13, N_("good")),
             (9, N_("getting there")), (5, N_("not bad")), (1, N_("needs practice")), (0, N_("taking part counts"))]
    for low, verdict in table:
        if score >= low:
            return verdict
    return N_("try again")
