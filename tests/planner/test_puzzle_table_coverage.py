"""The shipped puzzle optima cover every seed the table promises: the daily puzzles of
2026-12-01..2027-12-31 and the puzzle seeds 1..100, each answered by the loader the
front ends use (nochmal/puzzles.py's known_optimum) for the campaign's game."""

from __future__ import annotations

from nochmal.board import load_board
from nochmal.puzzles import OPTIMA_FILE, known_optimum, parse_daily_range
from nochmal.rules import RuleSettings

DAILY_SEEDS = parse_daily_range("2026-12-01..2027-12-31")
NUMBERED_SEEDS = list(range(1, 101))
LISTED_SEEDS = DAILY_SEEDS + NUMBERED_SEEDS


def runs(seeds: list[int], *groups: list[int]) -> str:
    """``seeds`` as runs of neighbours within one of ``groups`` (the daily seeds, whose days
    follow each other across month ends, and the numbered ones): '20261230..20270102, 7'."""
    parts: list[list[int]] = []
    for group in groups:
        at = {seed: k for k, seed in enumerate(group)}
        mine = [seed for seed in seeds if seed in at]
        for k, seed in enumerate(mine):
            if k and at[seed] == at[mine[k - 1]] + 1:
                parts[-1].append(seed)
            else:
                parts.append([seed])
    return ", ".join(str(p[0]) if len(p) == 1 else f"{p[0]}..{p[-1]}" for p in parts)


def test_runs_name_neighbouring_seeds_once():
    daily, numbered = [20261230, 20261231, 20270101, 20270102], [1, 2, 3]
    assert runs([20261230, 20261231, 20270101, 20270102, 1, 3], daily, numbered) == "20261230..20270102, 1, 3"
    assert runs([20270102, 1, 2], daily, numbered) == "20270102, 1..2"  # not one run across the groups
    assert runs([], daily, numbered) == ""


def test_the_shipped_table_answers_every_listed_seed():
    assert len(LISTED_SEEDS) == 396 + 100 and len(set(LISTED_SEEDS)) == len(LISTED_SEEDS)
    board, rules = load_board("classic"), RuleSettings()  # the campaign's game: 30 solo rolls
    missing = [seed for seed in LISTED_SEEDS if known_optimum(board, seed, rules) is None]
    assert not missing, (f"{OPTIMA_FILE} lacks {len(missing)} of the {len(LISTED_SEEDS)} listed seeds: "
                         f"{runs(missing, DAILY_SEEDS, NUMBERED_SEEDS)}")
