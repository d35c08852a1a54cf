"""Puzzle seeds and their known optima.

The daily puzzle's seed is the UTC date as the number YYYYMMDD. The proven best scores of
the daily and numbered puzzle seeds come from a campaign of the planner
(`nochmal batch solve --daily ... --seeds 1..100`, benchmarks/RESULTS.md "Puzzle optima")
and ship as ``nochmal/data/puzzle_optima.json``; a seed not in that table is solved on
demand by the front ends.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from nochmal.board import BUILTIN_BOARDS, Board, load_board
from nochmal.cache import memo
from nochmal.errors import OptimaError, OptionError
from nochmal.rules import RuleSettings
from nochmal.fileio import is_decimal

OPTIMA_FILE = Path(__file__).parent / "data" / "puzzle_optima.json"
OPTIMA_FORMAT = "nochmal-puzzle-optima/1"
MAX_DAILY_DAYS = 3660  # a --daily range of ten years at most: a typo must not queue a million tasks


def daily_seed(today: date | None = None) -> int:
    """Seed of the daily puzzle: the UTC date as the number YYYYMMDD (2026-11-30 -> 20261130)."""
    today = today or datetime.now(timezone.utc).date()
    return today.year * 10000 + today.month * 100 + today.day


def parse_daily_range(text: str, option: str = "--daily") -> list[int]:
    """``2026-12-01..2027-12-31`` (inclusive) or one date: the daily seeds of those days."""
    parts = text.split("..")
    try:
        if len(parts) not in (1, 2):
            raise ValueError
        first = date.fromisoformat(parts[0].strip())
        last = date.fromisoformat(parts[-1].strip())
    except ValueError:
        raise OptionError(f"{option} {text!r}: expected FIRST..LAST as dates, e.g. 2026-12-01..2027-12-31") from None
    days = (last - first).days + 1
    if days < 1:
        raise OptionError(f"{option} {text!r}: the last date is before the first")
    if days > MAX_DAILY_DAYS:
        raise OptionError(f"{option} {text!r}: {days} days; at most {MAX_DAILY_DAYS} in one run")
    return [daily_seed(first + timedelta(days=k)) for k in range(days)]


@dataclass(frozen=True)
class PuzzleOptimum:
    """What the campaign found for one seed: ``best`` is a score reached by a plan that was
    replayed through the engine; no play can beat ``bound``; ``proven`` when they meet."""

    seed: int
    best: int
    bound: int
    proven: bool

    def to_dict(self) -> dict:
        return {"best": self.best, "bound": self.bound, "proven": self.proven}


def optima_document(optima: list[PuzzleOptimum], board: str, rolls: int, time_limit: float) -> dict:
    """The shipped file's content: the campaign's settings and seed -> best, bound, proven."""
    return {"format": OPTIMA_FORMAT, "board": board, "rolls": rolls, "time_limit": time_limit,
            "seeds": {str(o.seed): o.to_dict() for o in sorted(optima, key=lambda o: o.seed)}}


def optima_text(doc: dict) -> str:
    """The optima document as JSON text, one line per seed (small diffs as a campaign goes on)."""
    head = {key: value for key, value in doc.items() if key != "seeds"}
    lines = ",\n".join(f"  {json.dumps(seed)}: {json.dumps(entry)}" for seed, entry in doc["seeds"].items())
    return json.dumps(head)[:-1] + ', "seeds": {\n' + lines + "\n}}\n"


def parse_optima(doc: dict, where: str) -> tuple[dict, dict[int, PuzzleOptimum]]:
    """Validate an optima document; every problem names the key (``where`` names the file)."""
    if not isinstance(doc, dict) or doc.get("format") != OPTIMA_FORMAT:
        raise OptimaError(f"{where}: not a puzzle optima file (format {OPTIMA_FORMAT!r} expected)")
    settings = {key: doc.get(key) for key in ("board", "rolls", "time_limit")}
    seeds = doc.get("seeds")
    if not isinstance(seeds, dict):
        raise OptimaError(f"{where}: key 'seeds' must be an object")
    out = {}
    for key, entry in seeds.items():
        ok = (is_decimal(key) and isinstance(entry, dict) and set(entry) == {"best", "bound", "proven"}
              and all(isinstance(entry[k], int) and not isinstance(entry[k], bool) for k in ("best", "bound"))
              and isinstance(entry["proven"], bool) and entry["best"] <= entry["bound"]
              and entry["proven"] == (entry["best"] == entry["bound"]))
        if not ok:
            raise OptimaError(f"{where}: seeds.{key}: expected {{best, bound, proven}} with best <= bound "
                             f"and proven exactly when they meet")
        out[int(key)] = PuzzleOptimum(int(key), entry["best"], entry["bound"], entry["proven"])
    return settings, out


@memo("puzzles.shipped", 1)  # OPTIMA_FILE read once (clear_caches("puzzles.") reads it again)
def _shipped() -> tuple[dict, dict[int, PuzzleOptimum]]:
    if not OPTIMA_FILE.exists():
        return {}, {}
    return parse_optima(json.loads(OPTIMA_FILE.read_text(encoding="utf-8")), str(OPTIMA_FILE))


def known_optimum(board: Board, seed: int, rules: RuleSettings) -> PuzzleOptimum | None:
    """The shipped campaign result for this puzzle, or None: a seed not in the table, or a
    game unlike the campaign's (another board, a board file, a rule option, another length)."""
    settings, table = _shipped()
    name = settings.get("board")
    if name not in BUILTIN_BOARDS or board is not load_board(name):
        return None
    if rules != RuleSettings(solo_rolls=settings.get("rolls")):
        return None
    return table.get(seed)
