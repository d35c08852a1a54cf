"""Per-seat analysis of competitive records (solver/race.py): the CP-SAT best against an
exhaustive search written here from the rules text (docs/rules.md §4), and the race
validator (solver/validate.py, replay_race) against plans that break the dice flow."""

from __future__ import annotations

import pytest

from nochmal.agents import GreedyAgent, RandomAgent
from nochmal.board import COLOURS, load_board
from nochmal.dice import Roll
from nochmal.game import Game, Mode
from nochmal.move import PASS, Move
from nochmal.play import play_game
from nochmal.record import GameRecord
from nochmal.solver.plan import OPTIMAL, Plan, Step
from nochmal.solver.race import analyse_seat, race_instance, solve_race
from nochmal.solver.validate import PlanValidationError, validate_race

from planner_support import SMALL

# the proofs asserted here come from CP-SAT's deterministic limits (tests/conftest.py cpsat_by_work)
pytestmark = pytest.mark.usefixtures("cpsat_by_work")


def short_record(seed: int, players: int, rolls: int, board=SMALL) -> GameRecord:
    """A seeded competitive game of at most ``rolls`` rolls, bots alternating greedy/random."""
    agents = [GreedyAgent() if p % 2 else RandomAgent(seed * 10 + p) for p in range(players)]
    game = play_game(Game(board, players, mode=Mode.COMPETITIVE, roll_limit=rolls), agents, seed)
    return GameRecord.from_game(game, [a.name for a in agents], seed)


def oracle_best(record: GameRecord, seat: int, race: bool = True, end: bool = True, ties_first: bool = True,
                after: int = 0) -> int:
    """The seat's best final score by exhaustive search, from the rules text alone: the dice
    open to it (all six in rolls 1-3 and as the active player; as a passive player what the
    active player's recorded pick left, all six after a pass), first values for a column or
    colour completed no later than the roll in which another player first completed it, and
    the end after the roll of its second colour or the record's last roll; from the sheet
    the seat had after ``after`` recorded rolls. ``race`` False:
    first values always; ``end`` False: no early end; ``ties_first`` False: the later value
    for a completion in the same roll as another player's (these only show the cases matter)."""
    board = record.board
    n = len(record.players)
    rolls = record.rolls
    game = record.new_game()  # only to read the others' sheets after each recorded roll
    open_dice, col_taken, colour_taken = [], {}, {}
    start = game.sheets[seat]
    for t, (roll, moves) in enumerate(rolls):
        if t == after:
            start = game.sheets[seat]
        active = t % n
        dice = roll
        if t >= 3 and active != seat:
            pick = dict(moves)[active]
            if not pick.is_pass:
                cols, nums = list(roll.colours), list(roll.numbers)
                cols.remove(pick.colour_face)
                nums.remove(pick.number_face)
                dice = Roll(tuple(cols), tuple(nums))
        open_dice.append(dice)
        game.apply_roll(roll)
        for _, move in moves:
            game.apply_move(move)
        for p, sheet in enumerate(game.sheets):
            if p != seat:
                for c in range(board.cols):
                    if sheet.complete_columns() >> c & 1:
                        col_taken.setdefault(c, t)
                for i in range(len(COLOURS)):
                    if sheet.complete_colours() >> i & 1:
                        colour_taken.setdefault(i, t)
    memo: dict = {}

    def award(sheet, t):
        new_cols = sheet.complete_columns() & ~(sheet.cols_upper | sheet.cols_lower)
        new_colours = sheet.complete_colours() & ~(sheet.colours_upper | sheet.colours_lower)
        def late(taken):
            return race and (taken < t or not ties_first and taken == t)

        late_cols = sum(1 << c for c in range(board.cols) if new_cols >> c & 1 and late(col_taken.get(c, t + 1)))
        late_colours = sum(1 << i for i in range(5) if new_colours >> i & 1 and late(colour_taken.get(i, t + 1)))
        return sheet.award(new_cols & ~late_cols, late_cols, new_colours & ~late_colours, late_colours)

    def best(t, sheet):
        if t == len(rolls) or end and (sheet.colours_upper | sheet.colours_lower).bit_count() >= 2:
            return sheet.score()
        key = (t, sheet.crossed, sheet.jokers_used, sheet.cols_upper, sheet.cols_lower, sheet.colours_upper,
               sheet.colours_lower)
        if key not in memo:
            options = [sheet]
            for pick in open_dice[t].choices(sheet.jokers_left):
                options += [sheet.cross(mask, pick.cost) for mask in sheet.placements(pick.colour, pick.count)]
            memo[key] = max(best(t + 1, award(s, t)) for s in options)
        return memo[key]

    return best(after, start)


# (seed, players, rolls): picked so that the others' completions, the same-roll tie and the
# early end all change some seat's best (test_race_oracle_cases_exercise_the_race)
CASES = [(7, 3, 5), (8, 3, 5), (10, 3, 5), (10, 2, 5), (25, 3, 5), (29, 2, 5), (17, 2, 5), (6, 2, 3),
         (1, 3, 4), (12, 2, 5)]


@pytest.mark.parametrize("seed,players,rolls", CASES)
def test_race_best_matches_exhaustive_oracle(seed, players, rolls):
    record = short_record(seed, players, rolls)
    for seat in range(players):
        plan = solve_race(race_instance(record, seat), time_limit=30, workers=2)
        assert plan.status == OPTIMAL
        assert plan.total == oracle_best(record, seat), (seed, seat)
        validate_race(record, seat, plan)


@pytest.mark.parametrize("seed,players,rolls", CASES[:5])
def test_race_best_from_mid_game_matches_oracle(seed, players, rolls):
    """From the sheet each seat had after 1..R-1 recorded rolls (completed columns and
    colours already scored, some at the later value)."""
    record = short_record(seed, players, rolls)
    for seat in range(players):
        for after in range(1, len(record.rolls)):
            plan = solve_race(race_instance(record, seat, after), time_limit=30, workers=2)
            assert plan.status == OPTIMAL
            assert plan.total == oracle_best(record, seat, after=after), (seed, seat, after)


def test_race_oracle_cases_exercise_the_race():
    """The oracle cases must contain what the model has to get right: seats whose best
    changes when the others' completions are ignored, and seats whose best changes without
    the early end on a second colour."""
    race, end, ties = 0, 0, 0
    for seed, players, rolls in CASES:
        record = short_record(seed, players, rolls)
        for seat in range(players):
            best = oracle_best(record, seat)
            race += oracle_best(record, seat, race=False) != best
            end += oracle_best(record, seat, end=False) != best
            ties += oracle_best(record, seat, ties_first=False) != best
    assert race >= 2 and end >= 2 and ties >= 1, (race, end, ties)


# --- the validator ------------------------------------------------------------------------------
def blue_taken_record() -> GameRecord:
    """Classic board, 2 players, 4 rolls, no seed: everybody passes rolls 1-3; on roll 4
    player 2 is active and takes the blue die and the 2 (b2 H4 H5), player 1 passes."""
    board = load_board("classic")
    game = Game(board, 2, mode=Mode.COMPETITIVE, roll_limit=4)
    roll = Roll(("y", "b", "g"), ("1", "2", "3"))
    for t in range(4):
        game.apply_roll(roll)
        if t < 3:
            game.apply_move(PASS)
            game.apply_move(PASS)
        else:
            game.apply_move(Move.parse("b2 H4 H5"))
            game.apply_move(PASS)
    return GameRecord.from_game(game, ["human:A", "human:B"], None)


def test_validator_rejects_a_die_the_active_player_took():
    record = blue_taken_record()
    board = record.board
    dice = record.rolls[0][0].text()
    passes = [Step(n, dice) for n in (1, 2, 3)]  # steps are numbered by the game's roll, from 1
    taken = Step(4, dice, "b", "2", "b", 2, 0, ["H4", "H5"])  # the blue die went to player 2
    with pytest.raises(PlanValidationError, match="roll 4: illegal move .*no colour die 'b'"):
        validate_race(record, 0, Plan(passes + [taken], 0, {}, first_roll=1))
    # the same cells on roll 3, when all six dice are open to everybody, are fine
    early = [Step(1, dice), Step(2, dice), Step(3, dice, "b", "2", "b", 2, 0, ["H4", "H5"]), Step(4, dice)]
    game = Game(board, 1, mode=Mode.SOLO)
    bd = game.sheets[0].cross(board.mask_of(["H4", "H5"])).score_breakdown().to_dict()
    validate_race(record, 0, Plan(early, bd["total"], bd, first_roll=1))
    # seat 2 was the active player on roll 4: the blue die was open to it
    assert validate_race(record, 1, Plan(passes + [taken], bd["total"], bd, first_roll=1)).total == bd["total"]
    # a step numbered for another roll is refused
    with pytest.raises(PlanValidationError, match="roll 1: the plan's step is for roll 0"):
        validate_race(record, 0, Plan([Step(0, dice)] + early[1:], bd["total"], bd, first_roll=1))


def test_model_keeps_to_the_open_dice():
    # seat 1 on roll 4 may take only y/g with 1/3; its best uses roll 3 for b2 H4 H5 or
    # the like, and the model's plan passes the validator
    record = blue_taken_record()
    inst = race_instance(record, 0)
    assert inst.open[3] == Roll(("y", "g"), ("1", "3"))
    assert race_instance(record, 1).open[3] == record.rolls[3][0]
    plan = solve_race(inst, time_limit=20)
    assert plan.status == OPTIMAL and plan.total == oracle_best(record, 0)


def test_actual_move_equal_to_best_loses_nothing():
    record = short_record(2, 2, 4)
    result = analyse_seat(record, 1, time_limit=10)
    assert len(result.losses) == len(record.rolls)
    assert sum(r.loss for r in result.losses) == result.optimum - result.actual_score
    for r in result.losses:
        assert r.proven and r.loss >= 0
        if r.actual == r.best:
            assert r.loss == 0
    assert result.optimum == oracle_best(record, 1)


# --- the command ----------------------------------------------------------------------------------
def test_cli_analyse_competitive_seat_json_and_table(tmp_path):
    import json

    from typer.testing import CliRunner

    from nochmal.cli import app

    record = short_record(7, 3, 5)
    path = tmp_path / "race.json"
    record.save(path)
    runner = CliRunner()
    res = runner.invoke(app, ["analyse", str(path), "--seat", "2", "--json", "--time-limit", "20"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert [s["seat"] for s in data["seats"]] == [2] and not data["interrupted"]
    seat = data["seats"][0]
    assert seat["optimum"] == oracle_best(record, 1) and seat["optimum_proven"]
    assert seat["actual_score"] == record.result["scores"][1]
    assert sum(r["loss"] for r in seat["losses"]) == seat["optimum"] - seat["actual_score"]
    assert len(seat["open_dice"]) == len(record.rolls)
    res = runner.invoke(app, ["analyse", str(path), "--time-limit", "20"])
    assert res.exit_code == 0, res.output
    for s in (1, 2, 3):
        assert f"seat {s} (" in res.stdout
    assert "best possible with these dice and the others' moves" in res.stdout
    res = runner.invoke(app, ["analyse", str(path), "--seat", "4"])
    assert res.exit_code == 2 and "seats 1..3" in res.output
    res = runner.invoke(app, ["analyse", str(path), "--best-only", "--json", "--time-limit", "20"])
    assert res.exit_code == 0, res.output
    assert all(s["losses"] == [] and s["optimum_proven"] for s in json.loads(res.stdout)["seats"])


def test_cli_analyse_ctrl_c_between_two_seats_prints_the_seats_done(tmp_path, monkeypatch):
    """Ctrl-C after seat 1's analysis returned and before seat 2's began: seat 2 never starts,
    seat 1's table is printed, the output says interrupted, exit 130 (not a bare
    KeyboardInterrupt without tables)."""
    import os
    import signal

    from typer.testing import CliRunner

    import nochmal.solver.race as race
    from nochmal.cli import app

    record = short_record(7, 3, 3)
    path = tmp_path / "race.json"
    record.save(path)
    real, calls = race.analyse_seat, []

    def analyse_then_ctrl_c(rec, seat, **kw):
        calls.append(seat)
        result = real(rec, seat, **kw)
        os.kill(os.getpid(), signal.SIGINT)  # the press lands between the two seats
        return result

    monkeypatch.setattr(race, "analyse_seat", analyse_then_ctrl_c)
    res = CliRunner().invoke(app, ["analyse", str(path), "--time-limit", "20"])
    assert res.exit_code == 130, res.output
    assert calls == [0]
    assert "seat 1 (" in res.stdout and "seat 2 (" not in res.stdout
    assert "interrupted: the seats and rolls above are the ones done" in res.stdout


def test_cli_analyse_competitive_ctrl_c_prints_the_rolls_done(tmp_path):
    """A real SIGINT to the command: exit 130, the seat's rolls solved so far in the JSON,
    marked interrupted, each still a proper loss interval; the other seats not started."""
    import json
    import signal
    import subprocess
    import sys

    from nochmal.play import play_competitive

    board = load_board("classic")
    record = play_competitive(board, [GreedyAgent(), GreedyAgent()], 3)
    path = tmp_path / "race.json"
    record.save(path)
    cmd = [sys.executable, "-c", "from nochmal.cli import app; app()", "analyse", str(path), "--json",
           "--time-limit", "30"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = ""
    while "done:" not in seen:  # the first roll solved (its progress line), however fast the machine
        line = proc.stderr.readline()
        if not line:
            break
        seen += line
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    err = seen + err
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    data = json.loads(out)
    assert data["interrupted"] is True
    assert [s["seat"] for s in data["seats"]] == [1]
    seat = data["seats"][0]
    assert seat["interrupted"] and seat["losses"]
    assert seat["losses"][-1]["roll"] == len(record.rolls)  # solved backwards from the last roll
    for r in seat["losses"]:
        assert r["loss_low"] <= r["loss"] and (r["loss_high"] is None or r["loss"] <= r["loss_high"])


def test_tiny_time_limit_on_a_30_roll_record_gives_intervals():
    """Every solve cut short: the analysis still finishes, no roll is called proven unless
    its figure is, and every interval contains its loss."""
    from nochmal.play import play_competitive

    record = play_competitive(load_board("classic"), [GreedyAgent(), GreedyAgent()], 3)
    result = analyse_seat(record, 0, time_limit=0.2)
    assert len(result.losses) == len(record.rolls) and not result.interrupted
    assert not result.optimum_proven
    for r in result.losses:
        assert r.loss_low <= r.loss and (r.loss_high is None or r.loss <= r.loss_high)
        if r.proven:
            assert r.loss_low == r.loss == r.loss_high
    early = result.losses[0]
    assert not early.proven  # roll 1 of 30 is never proven in 0.2 s


def test_a_solve_without_bound_is_bounded_by_the_board_maximum(monkeypatch):
    """A roll whose solve proved no bound reads 'in 0..(max score - next value)', as the
    solo analysis does, never an open '0..?'."""
    import dataclasses

    from nochmal.sheet import max_score
    from nochmal.solver import race
    from nochmal.solver.plan import UNKNOWN

    real = race.solve_race

    def no_bound(*args, **kwargs):
        return dataclasses.replace(real(*args, **kwargs), bound=None, status=UNKNOWN)

    monkeypatch.setattr(race, "solve_race", no_bound)
    record = short_record(2, 2, 4)
    result = analyse_seat(record, 1, time_limit=5)
    ceiling = max_score(record.board)
    assert result.optimum_bound == ceiling and not result.optimum_proven
    assert len(result.losses) == len(record.rolls)
    for r in result.losses:
        # every later value is at least the actual score, so ceiling - actual caps the interval
        assert r.loss_high is not None and r.loss_low <= r.loss <= r.loss_high <= ceiling - result.actual_score
        assert not r.proven
    last = result.losses[-1]  # the last roll: the next value is the actual score
    assert last.loss_high == ceiling - result.actual_score


def test_a_lifted_value_lifts_the_next_roll_only_through_its_own_plan(monkeypatch):
    """Issue 20 (loss 3 outside 3..0 under load): the forward pass lifts V(t+1) to V(t)
    when the plan behind V(t) starts with the recorded move. V(t) itself may have been
    lifted by the plan from t-1, whose move on roll t is not the recorded one; that plan
    must then stand for roll t, or V(t+1) is lifted above its proven bound. Deterministic:
    one worker, and the solve for roll 2 is cut short by hand (CP-SAT's proven bound, no
    solution: the hint, the recorded move plus the plan for roll 3, is kept)."""
    import dataclasses

    import nochmal.solver.race as race

    record, seat = short_record(2, 3, 6), 2
    T = len(race_instance(record, seat).rolls)
    real_run = race.run_model

    def roll_2_cut_short(pm, *args):
        run = real_run(pm, *args)
        if len(pm.candidates) == T - 1:  # the instance from before roll 2
            assert run.optimal
            return dataclasses.replace(run, chosen=[None] * len(pm.x), objective=None, optimal=False)
        return run

    monkeypatch.setattr(race, "run_model", roll_2_cut_short)
    plans = {}
    result = analyse_seat(record, seat, time_limit=20, workers=1,
                          on_solve=lambda roll, plan: plans.__setitem__(roll, plan))
    moves = race_instance(record, seat).moves
    # the case: the plan from roll 1 starts with the recorded move, then leaves the record,
    # and is worth more than the proven best from roll 3 (the kept hint for roll 2 is worth that)
    assert plans[1].steps[0].move() == moves[0] and plans[1].steps[1].move() != moves[1]
    assert plans[1].total > plans[3].bound == plans[2].total and "the hint" in plans[2].note
    best = [oracle_best(record, seat, after=t) for t in range(T)] + [result.actual_score]
    assert result.optimum == best[0]
    assert all(r.loss_low <= r.loss <= r.loss_high for r in result.losses), result.losses
    for t, r in enumerate(result.losses):
        assert r.proven and r.loss == best[t] - best[t + 1], r
