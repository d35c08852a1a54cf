"""The benchmark harness: bots meet the same dice (paired seeds), figures with 95 % CIs.

Solo: every bot plays every seed. Table of P players: the bot list is cycled over the P
seats and every seed is played once per rotation of the seats, so every bot sits in every
seat with the same dice. Per bot and seed the harness keeps the mean score (and, at a
table, the win share: 1 for an outright win, 1/k for a win shared by k) over its seats;
means, confidence intervals and the paired differences are taken over
seeds, which are the independent units; paired differences are given for every pair of bots
(later minus earlier in the list).

Confidence intervals are two-sided 95 % Student-t intervals (exact table up to 30 degrees
of freedom, 1.96 + 2.5/df beyond, within 0.002 of the true quantile).
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Callable, Sequence

from nochmal.bots.registry import make_agent
from nochmal.board import Board
from nochmal.errors import NochmalError, OptionError
from nochmal.game import Game
from nochmal.modes import Mode
from nochmal.play import play_game
from nochmal.rules import DEFAULT_RULES, MAX_SEED, RuleSettings

_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
         2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
         2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


class BenchMode(StrEnum):
    """How the benchmark seats the bots: a solo game each, or a race table with the seats
    rotated. A str enum: stores and JSON keep the text ("solo", "table")."""

    SOLO = "solo"
    TABLE = "table"

    @property
    def game_mode(self) -> Mode:
        """The game's mode (nochmal/modes.py): a table plays the race."""
        return Mode.SOLO if self is BenchMode.SOLO else Mode.COMPETITIVE

    @classmethod
    def parse(cls, text: str, option: str = "--mode") -> "BenchMode":
        """A member from its text (a stored campaign, an option), or an OptionError naming it."""
        try:
            return cls(text)
        except ValueError:
            raise OptionError(f"{option} {text!r}: use {' or '.join(cls)}") from None


def t_quantile(df: int) -> float:
    """Two-sided 95 % critical value of Student's t with ``df`` degrees of freedom."""
    if df < 1:
        return math.nan
    return _T975[df - 1] if df <= 30 else 1.96 + 2.5 / df


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
    """(mean, half-width of the 95 % CI); the half-width is nan for fewer than 2 values."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan
    m = sum(values) / n
    if n < 2:
        return m, math.nan
    var = sum((v - m) ** 2 for v in values) / (n - 1)
    return m, t_quantile(n - 1) * math.sqrt(var / n)


@dataclass
class BotFigures:
    bot: str
    games: int  # games the bot took part in (seats x seeds)
    mean_score: float
    score_ci: float
    win_rate: float | None  # None in solo
    win_ci: float | None
    decisions: int
    seconds_per_decision: float  # wall-clock
    cpu_seconds_per_decision: float  # CPU time of this process (fairer on a shared machine)


@dataclass
class PairedDiff:
    """Per-seed differences ``bot - baseline`` (same dice), mean and 95 % CI."""

    bot: str
    baseline: str
    metric: str  # "score" or "win"
    mean: float
    ci: float
    seeds: int


@dataclass
class BenchResult:
    mode: BenchMode
    players: int
    seeds: tuple[int, int]
    bots: list[BotFigures]
    paired: list[PairedDiff]
    per_seed: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    game: str = "nochmal"  # or "clever" (Clever 4ever)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["seeds"] = {"first": self.seeds[0], "last": self.seeds[1], "count": self.seeds[1] - self.seeds[0] + 1}
        return d


def summarize(mode: BenchMode | str, players: int, seeds: tuple[int, int], names: Sequence[str],
              scores: dict[str, list[float]], wins: dict[str, list[float]] | None,
              decisions: dict[str, int], seconds: dict[str, float], games: dict[str, int],
              cpu_seconds: dict[str, float] | None = None) -> BenchResult:
    """Figures from per-seed values (one value per seed and bot, seeds in the same order)."""
    figs, paired = [], []
    for name in names:
        m, ci = mean_ci(scores[name])
        wm = wci = None
        if wins is not None:
            wm, wci = mean_ci(wins[name])
        n_dec = decisions.get(name, 0)
        cpu = (cpu_seconds or {}).get(name, math.nan)
        figs.append(BotFigures(name, games.get(name, 0), m, ci, wm, wci, n_dec,
                               seconds.get(name, 0.0) / n_dec if n_dec else math.nan,
                               cpu / n_dec if n_dec else math.nan))
    # every later bot against every earlier one (the first bot is the baseline of all)
    for i, base in enumerate(names):
        for name in names[i + 1:]:
            for metric, table in (("score", scores), ("win", wins)):
                if table is None:
                    continue
                diffs = [a - b for a, b in zip(table[name], table[base])]
                m, ci = mean_ci(diffs)
                paired.append(PairedDiff(name, base, metric, m, ci, len(diffs)))
    per_seed = {"score": {n: list(scores[n]) for n in names}}
    if wins is not None:
        per_seed["win"] = {n: list(wins[n]) for n in names}
    return BenchResult(BenchMode(mode), players, seeds, figs, paired, per_seed)


class _Timed:
    """Wraps an agent, adding up the time and number of its decisions."""

    def __init__(self, agent, tally: dict, name: str):
        self.agent, self.tally, self.name = agent, tally, name

    def choose(self, game: Game):
        t, c = time.perf_counter(), time.process_time()
        move = self.agent.choose(game)
        rec = self.tally.setdefault(self.name, [0, 0.0, 0.0])
        rec[0] += 1
        rec[1] += time.perf_counter() - t
        rec[2] += time.process_time() - c
        return move


GAMES = ("nochmal", "clever")  # the games the harness plays: Noch mal! and Clever 4ever


def game_bots(game: str) -> tuple[list[str], Callable]:
    """(the bot names, ``make(name, seed)``) of a game; an OptionError names an unknown game."""
    if game == "clever":
        from nochmal.bots.clever import CLEVER_BOTS, clever_bot

        return list(CLEVER_BOTS), clever_bot
    if game == "nochmal":
        from nochmal.bots.registry import agent_names

        return agent_names(), make_agent
    raise OptionError(f"--game {game!r}: use {' or '.join(GAMES)}")


def _new_game(game: str, board: Board, players: int, rules: RuleSettings, mode: BenchMode):
    """A fresh game of either kind behind the shared state API (nochmal/clever/state_api.py)."""
    if game == "clever":
        from nochmal.clever import CleverGame

        return CleverGame(players)
    return Game(board, players, rules, mode.game_mode)


def run_bench(board: Board, names: Sequence[str], mode: BenchMode | str, seeds: tuple[int, int], players: int = 2,
              rules: RuleSettings = DEFAULT_RULES,
              progress: Callable[[int, int], None] | None = None, game: str = "nochmal") -> BenchResult:
    """Play the paired benchmark and summarise it (``progress(done, total)`` after each game);
    ``mode`` may be the member's text (a stored campaign's settings). ``game``: "nochmal" or
    "clever" (Clever 4ever: ``board`` and ``rules`` unused); both through one loop, play_game."""
    mode = BenchMode.parse(mode, "mode")
    first, last = seeds
    if first < 0 or last < first:
        raise OptionError(f"seeds {first}..{last}: need 0 <= first <= last")
    names = list(names)
    if not names:
        raise OptionError("no bots given")
    _, make = game_bots(game)
    for n in set(names):
        make(n)  # unknown names fail here, before any game
    if mode is BenchMode.SOLO:
        players = 1
    else:
        if not 2 <= players <= 4:
            raise OptionError(f"--players {players}: a table has 2..4 players")
        if len(names) > players:
            raise OptionError(f"{len(names)} bots do not fit a table of {players}")
    distinct = list(dict.fromkeys(names))
    scores = {n: [] for n in distinct}
    wins = {n: [] for n in distinct} if mode is BenchMode.TABLE else None
    tally: dict[str, list] = {}
    games = {n: 0 for n in distinct}
    seed_list = range(first, last + 1)
    total = len(seed_list) * (len(distinct) if mode is BenchMode.SOLO else players)
    done = 0
    for seed in seed_list:
        if mode is BenchMode.SOLO:
            for n in distinct:
                agent = _Timed(make(n, seed), tally, n)
                played = play_game(_new_game(game, board, 1, rules, mode), [agent], seed)
                scores[n].append(float(played.scores()[0]))
                games[n] += 1
                done += 1
                if progress:
                    progress(done, total)
            continue
        lineup = [names[s % len(names)] for s in range(players)]
        sums = {n: [0.0, 0.0, 0] for n in distinct}
        for rot in range(players):
            seats = [lineup[(s + rot) % players] for s in range(players)]
            agents = [_Timed(make(n, seed * 10 + s), tally, n) for s, n in enumerate(seats)]
            played = play_game(_new_game(game, board, players, rules, mode), agents, seed)
            win = played.winners()
            for s, n in enumerate(seats):
                acc = sums[n]
                acc[0] += played.scores()[s]
                acc[1] += 1.0 / len(win) if s in win else 0.0
                acc[2] += 1
                games[n] += 1
            done += 1
            if progress:
                progress(done, total)
        for n in distinct:
            acc = sums[n]
            scores[n].append(acc[0] / acc[2])
            wins[n].append(acc[1] / acc[2])
    decisions = {n: tally.get(n, [0, 0.0, 0.0])[0] for n in distinct}
    seconds = {n: tally.get(n, [0, 0.0, 0.0])[1] for n in distinct}
    cpu = {n: tally.get(n, [0, 0.0, 0.0])[2] for n in distinct}
    result = summarize(mode, players, (first, last), distinct, scores, wins, decisions, seconds, games, cpu)
    result.game = game
    return result


MAX_SEEDS = 1_000_000  # seeds in one --seeds range: a typo (1..1000000000) must not queue a billion tasks


def parse_seed_range(text: str) -> tuple[int, int]:
    """``A..B`` (inclusive) or a single seed ``A``, at most MAX_SEEDS seeds (the one parser of
    ``--seeds`` for `batch solve`, `batch bots`, `bench bots` and the benchmark scripts)."""
    parts = text.split("..")
    try:
        if len(parts) == 1:
            a = b = int(parts[0])
        elif len(parts) == 2:
            a, b = int(parts[0]), int(parts[1])
        else:
            raise ValueError
    except ValueError:
        raise OptionError(f"--seeds {text!r}: expected A..B, e.g. 100000..100199") from None
    if a < 0 or b < a:
        raise OptionError(f"--seeds {text!r}: need 0 <= A <= B")
    if b > MAX_SEED:
        raise OptionError(f"--seeds {text!r}: a seed is at most {MAX_SEED}")
    if b - a + 1 > MAX_SEEDS:
        raise OptionError(f"--seeds {text!r}: {b - a + 1} seeds; at most {MAX_SEEDS:,} in one run")
    return a, b
