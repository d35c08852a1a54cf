"""The planner tests' shared pieces: small boards, random rolls, and the exhaustive optimum
through the engine's own legal moves (an oracle that knows nothing of the planner): the best
solo score, and the fewest rolls a team needs (tests/planner/test_planner_team*.py)."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time

import pytest

from nochmal.board import Board
from nochmal.dice import Roll, seeded_roll
from nochmal.game import Game
from nochmal.missions.coop import coop_game, mission_result
from nochmal.missions.model import Mission, Objective
from nochmal.move import Move
from nochmal.sheet import Sheet
from nochmal.solver.instance import Instance
from nochmal.solver.team import INFEASIBLE, OPTIMAL, plan_team, validate_team_plan
from nochmal.solver.validate import new_game

from missions_support import mission_toml

SMALL = Board.from_grid(["yYbbg", "ygBrr", "oGgrO", "oobRy"], strict=False, jokers=2)


def exhaustive_best(instance: Instance) -> int:
    """Best final score over every sequence of legal moves (engine's legal_moves), memoised
    on the sheet state; knows nothing of the planner."""
    memo: dict = {}

    def best(game: Game, t: int) -> int:
        if t == len(instance.rolls):
            assert game.is_terminal()
            return game.sheets[0].score()
        key = (t, game.sheets[0])
        if key in memo:
            return memo[key]
        game.apply_roll(instance.rolls[t])
        value = None
        for move in game.legal_moves():
            child = game.clone()
            child.apply_move(move)
            v = best(child, t + 1)
            value = v if value is None else max(value, v)
        memo[key] = value
        return value

    return best(new_game(instance), 0)


def random_rolls(rng: random.Random, n: int, joker_weight: float = 1.0) -> list[Roll]:
    cols = "ygbrox"
    nums = "12345?"
    return [Roll(tuple(rng.choice(cols) for _ in range(2)), tuple(rng.choice(nums) for _ in range(2)))
            for _ in range(n)]


def small_instance(seed: int, rolls: int = 6, start: Sheet | None = None) -> Instance:
    """``rolls`` random rolls (seeded) on the small board, from ``start`` or an empty sheet."""
    return Instance(SMALL, random_rolls(random.Random(seed), rolls), start=start)


# --- team planning (solver/team.py) ------------------------------------------------
TINY = Board.from_grid(["ygbyr", "ggBro", "obbrO"], name="tiny", jokers=2)


def team_mission(objectives: list[Objective], budget: int, board=TINY) -> Mission:
    """A test mission with the same budget at every size and difficulty."""
    budgets = tuple((p, (("easy", budget), ("normal", budget), ("hard", budget))) for p in (1, 2, 3, 4))
    return Mission("t", "test", "user", "test mission", tuple(objectives), budgets, board=board)


def sheets_key(game) -> tuple:
    """What the exhaustive search tells positions apart by: every sheet's crosses and jokers."""
    return tuple((s.crossed, s.jokers_used) for s in game.sheets)


def exhaustive_fewest(mission: Mission, players: int, rolls: list[Roll],
                      prefix: list[list[Move]] = ()) -> int | None:
    """The first roll after which some joint play has won, or None (budget spent); with
    ``prefix``, the play of the first rolls is those moves (per roll per player)."""
    start = coop_game(mission, "normal", players)
    for t, row in enumerate(prefix):
        start.apply_roll(rolls[t])
        while start.current_player() >= 0:
            start.apply_move(row[start.current_player()])
        if start.is_terminal():
            return mission_result(mission, start).won_on
    frontier = {sheets_key(start): start}
    for t in range(len(prefix), start.roll_limit):
        nxt = {}
        for game in frontier.values():
            g = game.clone()
            g.apply_roll(rolls[t])
            stack = [g]
            while stack:
                cur = stack.pop()
                if cur.current_player() < 0:
                    key = sheets_key(cur)
                    if key in nxt:  # reached by other moves: the same sheets, judged once
                        continue
                    if mission_result(mission, cur).won:
                        return t + 1
                    nxt[key] = cur
                    continue
                for move in cur.legal_moves():
                    child = cur.clone()
                    child.apply_move(move)
                    stack.append(child)
        frontier = nxt
    return None


def team_rolls(seed: int, players: int, count: int) -> list[Roll]:
    return [seeded_roll(seed, i, 2 if players == 1 else 3) for i in range(count)]


def check_team_plan(mission: Mission, players: int, rolls: list[Roll]):
    """plan_team's fewest rolls (proven) equal to the exhaustive search's, its plan winning on them."""
    expected = exhaustive_fewest(mission, players, rolls)
    plan = plan_team(mission, players, rolls=rolls, difficulty="normal", time_limit=30)
    if expected is None:
        assert plan.status == INFEASIBLE
        assert plan.rolls_needed is None
    else:
        assert plan.status == OPTIMAL
        assert plan.rolls_needed == expected
        assert validate_team_plan(mission, "normal", rolls, plan.moves) == expected
    return plan


TEAM_CASES = [
    ([Objective("cells", "team", cells=("B2", "E1"))], 4),
    ([Objective("cells", "each", cells=("B2", "D1"))], 5),
    ([Objective("cells", "any", cells=("A3", "E2"))], 4),
    ([Objective("columns", "team", columns=(0, 4))], 5),
    ([Objective("colours", "any", count=1)], 4),
    ([Objective("stars", "each", count=1)], 4),
    ([Objective("score", "team", at_least=tuple((p, 3) for p in (1, 2, 3, 4)))], 4),
    ([Objective("cells", "team", cells=("A1", "E3")),
      Objective("jokers_left", "each", at_least=tuple((p, 2) for p in (1, 2, 3, 4)))], 5),
]


# seeds per case for two players (budget 4, so the active/passive flow of roll 4 is in play);
# chosen to keep the exhaustive oracle quick, with wins and proven failures among them
TWO_PLAYER_SEEDS = {0: (1, 2), 1: (4, 5), 2: (8,), 3: (10,), 4: (13,), 5: (16,), 6: (19, 20), 7: (23,)}


def case_instances(case: int, players: int, one_player_seeds: int = 2) -> list[tuple[Mission, list[Roll]]]:
    """TEAM_CASES[case] as (mission, rolls) to check: one player on the case's budget and seeds
    3·case+1.., two players on a budget of 4 (roll 4's active/passive flow in play) and the
    case's TWO_PLAYER_SEEDS."""
    objectives, budget = TEAM_CASES[case]
    if players == 2:
        budget, seeds = 4, TWO_PLAYER_SEEDS[case]
    else:
        seeds = range(3 * case + 1, 3 * case + 1 + one_player_seeds)
    mission = team_mission(objectives, budget)
    return [(mission, team_rolls(seed, players, budget)) for seed in seeds]


def near_h_toml(budget: int) -> str:
    """A classic-board mission file: cross H4 and I4, next to the start column, in ``budget`` rolls."""
    return mission_toml(id="near-h", name="Near H", description="Cross two cells next to column H.",
                        cells=("H4", "I4"), budgets=(budget, budget, budget))


def interrupted_run(args: list[str], cwd, after: float, first: str) -> tuple[int, str, str]:
    """Run the CLI in a subprocess, send SIGINT ``after`` seconds after its first progress line on
    stderr (which must start with ``first``: the watch is on; a fixed sleep from the start raced
    the start-up on a loaded machine): (exit code, stdout, stderr). The delay only puts the press
    among the solves; what it stopped is read from the output, never from a stopwatch."""
    cmd = [sys.executable, "-c", "from nochmal.cli import app; app()", *args]
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    assert line.startswith(first), line + proc.stderr.read()
    time.sleep(after)
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail(f"nochmal {args[0]} hung after Ctrl-C")
    return proc.returncode, out, line + err
