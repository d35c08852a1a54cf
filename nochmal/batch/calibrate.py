"""Mission calibration on the batch runner: the co-op missions' roll budgets (and the
team-target score) set by simulation, every game a stored task (`nochmal batch calibrate`).

The games are exactly the ones players get: roll budget B as the game's roll limit (bots
that plan read the rolls left from it, so every budget is played for real, never cut from a
longer game) and the mission's stop condition. For every mission and player count:

1. the win rate of the strongest team as a function of the budget on seeds 1..N: at each
   budget measured, every candidate bot plays the same seeds and the best rate counts
   (the best bot can change with the budget);
2. for each difficulty the measured budget whose rate is nearest the aim (easy 80 %,
   normal 50 %, hard 20 %), found by a doubling search and bisection; easy >= normal >=
   hard is enforced;
3. the rates with those budgets again on fresh seeds N+1..2N (out of sample).

Team target: the bot with the best median team score after REFERENCE_ROLLS rolls (a solo
game's length) on the probe seeds plays; the score to reach is its median team score after
REFERENCE_ROLLS rolls on separate seeds 2001.. (``target_seeds``), rounded; then budgets as
above.

The searches are sequential (the next budget depends on the last rate), the games are not:
each round replays every search from the results known so far, collects the games the
searches wait for (one budget per search, all its seeds and bots), runs them at once on the
cluster, and stores them. A run stopped anywhere resumes from the store: the replayed
searches find their games stored and ask only for the rest.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from nochmal.batch.runner import Task
from nochmal.errors import OptionError

AIMS = {"easy": 0.80, "normal": 0.50, "hard": 0.20}
REFERENCE_ROLLS = 30
CAP = 200  # the largest budget considered
CAMPAIGN = {"calibration": 1}  # the store's identity: every game's settings are in its own row


# --- one game: the task -------------------------------------------------------------------
def game_key(settings: dict) -> str:
    s = settings
    return (f"{s['mission']}/{s['players']}p/{s['bot']}/seed={s['seed']}/budget={s['budget']}"
            f"/target={s['target']}/stop={int(s['stop'])}")


def game_task(settings: dict, threads: int) -> dict:  # noqa: ARG001 (no CP-SAT)
    """One co-op game of a shipped mission: whether the team met the mission (or the score
    target) within the budget, the rolls played, the team score."""
    from nochmal.missions.objectives import all_met, team_score

    mission = _mission(settings["mission"])
    game = play_mission(mission, settings["players"], settings["bot"], settings["seed"], settings["budget"],
                        settings["target"], settings["stop"])
    score = sum(team_score(s) for s in game.sheets)
    met = score >= settings["target"] if settings["target"] is not None else all_met(mission.objectives, game.sheets)
    return {"met": bool(met and game.rolls_done <= settings["budget"]), "rolls": game.rolls_done, "team_score": score}


def _mission(mission_id: str):
    """A shipped mission by id (missions/loader.py reads them once per worker process)."""
    from nochmal.missions.loader import shipped_mission

    mission = shipped_mission(mission_id)
    if mission is None:
        raise OptionError(f"no shipped mission {mission_id!r}")
    return mission


def play_mission(mission, players: int, bot: str, seed: int, budget: int, target: int | None, stop: bool = True):
    """The co-op game exactly as players get it, with ``budget`` rolls (and a score target),
    played to its end by a team of ``bot`` (seat p seeded ``seed * 10 + p``)."""
    from nochmal.board import load_board
    from nochmal.bots.registry import make_agent
    from nochmal.game import Game
    from nochmal.missions.objectives import all_met, team_score
    from nochmal.modes import Mode
    from nochmal.play import play_game

    if target is not None:
        def won(game: Game) -> bool:
            return sum(team_score(s) for s in game.sheets) >= target
    else:
        def won(game: Game) -> bool:
            return all_met(mission.objectives, game.sheets)
    game = Game(load_board(mission.board), players, mode=Mode.COOP, roll_limit=budget,
                stop_after_roll=won if stop else None)
    return play_game(game, [make_agent(bot, seed * 10 + p) for p in range(players)], seed)


def bot_speed(name: str) -> float:
    """Mean milliseconds per decision in one seeded solo game."""
    import time

    from nochmal.board import load_board
    from nochmal.bots.registry import make_agent
    from nochmal.play import play_solo

    t0 = time.perf_counter()
    record = play_solo(load_board("classic"), make_agent(name, 1), 1)
    return 1000 * (time.perf_counter() - t0) / max(1, sum(len(ms) for _, ms in record.rolls))


def candidate_bots(max_ms: float) -> tuple[list[str], dict[str, float]]:
    """The default team candidates: every registered bot that decides within ``max_ms`` (not
    random, which is no team, and not a level alias of a bot already in), with the speeds."""
    from nochmal.bots.registry import agent_names, make_agent

    bots, speeds, seen = [], {}, set()
    for name in agent_names():
        kind = type(make_agent(name, 0))
        if name == "random" or kind in seen:
            continue
        seen.add(kind)
        speeds[name] = bot_speed(name)
        if speeds[name] <= max_ms:
            bots.append(name)
    return bots, speeds


# --- the searches over stored results ---------------------------------------------------------
class Missing(Exception):
    """A search needs games that are not played yet (their settings)."""

    def __init__(self, games: list[dict]):
        super().__init__(f"{len(games)} game(s) to play")
        self.games = games


class Results:
    """The games played so far, by key."""

    def __init__(self, rows: dict[str, dict] | None = None):
        self.rows = rows or {}

    def need(self, games: list[dict]) -> list[dict]:
        """The results of these games in order; Missing when any is not played yet."""
        missing = [g for g in games if game_key(g) not in self.rows]
        if missing:
            raise Missing(missing)
        return [self.rows[game_key(g)] for g in games]


class Curve:
    """Win rate of the strongest team as a function of the budget, measured lazily.

    At each budget every candidate bot plays the same seeds and the best rate counts (the
    strongest team *for that budget*: bots that plan read the rolls left, so which bot is
    strongest can change with the budget). ``rate`` raises Missing for a budget not played
    yet; ``best_bot[budget]`` names the bot.
    """

    def __init__(self, measure: Callable[[int], tuple[float, str]]):
        self.measure = measure
        self.memo: dict[int, float] = {}
        self.best_bot: dict[int, str] = {}

    def rate(self, budget: int) -> float:
        if budget not in self.memo:
            self.memo[budget], self.best_bot[budget] = self.measure(budget)
        return self.memo[budget]

    def budget_for(self, aim: float, cap: int, start: int = 16) -> int:
        """The measured budget whose rate is nearest ``aim`` (ties: the smaller budget).

        Doubling search up from ``start`` (short games are cheap), then bisection, measure
        the budgets around the crossing; the choice is then made among ALL measured budgets,
        so a curve that is not monotone (long horizons can make planning bots worse) still
        gets the nearest measured rate, never a blind extrapolation.
        """
        lo, hi = 1, min(start, cap)
        while self.rate(hi) < aim and hi < cap:
            lo, hi = hi + 1, min(2 * hi, cap)
        if self.rate(hi) >= aim:
            while lo < hi:
                mid = (lo + hi) // 2
                if self.rate(mid) >= aim:
                    hi = mid
                else:
                    lo = mid + 1
            if lo > 1:
                self.rate(lo - 1)
        return min(self.memo, key=lambda b: (abs(self.memo[b] - aim), b))


def choose_budgets(curve: Curve, cap: int) -> dict[str, int]:
    out = {d: curve.budget_for(aim, cap) for d, aim in AIMS.items()}
    out["normal"] = min(out["normal"], out["easy"])
    out["hard"] = min(out["hard"], out["normal"])
    return out


@dataclass(frozen=True)
class Settings:
    """What a calibration run plays: candidate bots, seed counts, the budget cap."""

    bots: tuple[str, ...]
    seeds: int = 40
    probe_seeds: int = 8
    target_seeds: int = 100
    cap: int = CAP

    @property
    def choose_seeds(self) -> range:
        return range(1, self.seeds + 1)

    @property
    def check_seeds(self) -> range:
        return range(self.seeds + 1, 2 * self.seeds + 1)


@dataclass
class Outcome:
    """The calibration of one mission for one player count."""

    mission: str
    players: int
    budgets: dict[str, int]
    rates: dict[str, float]  # on the seeds the budgets were chosen on
    check_rates: dict[str, float]  # the same budgets on fresh seeds
    best_bot: dict[str, str]
    target: int | None = None
    probe: dict[str, float] = field(default_factory=dict)  # team target: bot -> median team score

    def to_dict(self) -> dict:
        return {"mission": self.mission, "players": self.players, "budgets": self.budgets, "rates": self.rates,
                "check_rates": self.check_rates, "best_bot": self.best_bot, "target": self.target,
                "probe": self.probe}


def _games(mission: str, players: int, bots, seeds, budget: int, target: int | None, stop: bool = True) -> list[dict]:
    return [{"mission": mission, "players": players, "bot": bot, "seed": seed, "budget": budget, "target": target,
             "stop": stop} for bot in bots for seed in seeds]


def is_score_mission(mission) -> bool:
    return mission.objectives[0].kind == "score" and len(mission.objectives) == 1


def calibrate_one(mission, players: int, settings: Settings, results: Results) -> Outcome:
    """Replay the search for one mission and player count; Missing when it waits for games."""
    mid = mission.id
    target, probe = None, {}
    team = list(settings.bots)
    if is_score_mission(mission):
        probe_seeds = range(1001, 1001 + settings.probe_seeds)
        games = _games(mid, players, team, probe_seeds, REFERENCE_ROLLS, None, stop=False)
        scores = [r["team_score"] for r in results.need(games)]
        per_bot = {bot: statistics.median(scores[k * len(probe_seeds):(k + 1) * len(probe_seeds)])
                   for k, bot in enumerate(team)}
        bot = max(per_bot, key=lambda b: (per_bot[b], -team.index(b)))
        target_games = _games(mid, players, [bot], range(2001, 2001 + settings.target_seeds), REFERENCE_ROLLS,
                              None, stop=False)
        target = round(statistics.median(r["team_score"] for r in results.need(target_games)))
        team, probe = [bot], per_bot

    def measure(seeds) -> Callable[[int], tuple[float, str]]:
        def rate(budget: int) -> tuple[float, str]:
            best = (-1.0, "")
            for bot in team:
                played = results.need(_games(mid, players, [bot], seeds, budget, target))
                best = max(best, (sum(r["met"] for r in played) / len(played), bot), key=lambda r: r[0])
            return best
        return rate

    curve, check = Curve(measure(settings.choose_seeds)), Curve(measure(settings.check_seeds))
    budgets = choose_budgets(curve, settings.cap)
    needed: list[dict] = []
    for budget in budgets.values():  # the three check rates at once
        try:
            check.rate(budget)
        except Missing as m:
            needed += m.games
    if needed:
        raise Missing(needed)
    return Outcome(mid, players, budgets, {d: curve.rate(b) for d, b in budgets.items()},
                   {d: check.rate(b) for d, b in budgets.items()},
                   {d: curve.best_bot[b] for d, b in budgets.items()}, target, probe)


def calibrate(missions: list, players: list[int], settings: Settings, results: Results,
              play: Callable[[list[Task]], Results],
              on_round: Callable[[int, int], None] | None = None) -> list[Outcome]:
    """Rounds until every search is done: ``play(tasks)`` runs and stores the games the
    searches wait for and returns every result known then. ``on_round(round, games)``."""
    rounds = 0
    while True:
        outcomes, waiting = [], {}
        for mission in missions:
            for p in players:
                try:
                    outcomes.append(calibrate_one(mission, p, settings, results))
                except Missing as m:
                    waiting.update((game_key(g), g) for g in m.games)
        if not waiting:
            return outcomes
        rounds += 1
        if on_round:
            on_round(rounds, len(waiting))
        results = play([Task(key, g) for key, g in waiting.items()])


def rewrite_file(path: Path, budgets: dict[int, dict[str, int]], targets: dict[int, int] | None) -> str:
    """The mission file's text with a new [budgets] table (and at_least line); everything
    else kept. OptionError when the file is not in the expected form."""
    from nochmal.missions.model import DIFFICULTIES, PLAYER_COUNTS

    text = path.read_text(encoding="utf-8")
    lines = []
    for p in PLAYER_COUNTS:
        row = ", ".join(f"{d} = {budgets[p][d]}" for d in DIFFICULTIES)
        lines.append(f"{p} = {{ {row} }}")
    new_block = "[budgets]\n" + "\n".join(lines) + "\n"
    text, n = re.subn(r"\[budgets\]\n(?:\d = \{[^\n]*\}\n)+", new_block, text)
    if n != 1:
        raise OptionError(f"{path}: cannot find the [budgets] table in the expected form")
    if targets is not None:
        row = ", ".join(f"{p} = {targets[p]}" for p in PLAYER_COUNTS)
        text, n = re.subn(r"at_least = \{[^\n]*\}", f"at_least = {{ {row} }}", text)
        if n != 1:
            raise OptionError(f"{path}: cannot find the at_least line in the expected form")
    return text
