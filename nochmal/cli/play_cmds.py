"""Commands for people at the table: play (humans and bots, co-op missions) and puzzle."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Optional

import typer

from nochmal.cli.common import board_arg, check_seed, console, emit_json, err_console, guarded
from nochmal.errors import OptionError
from nochmal.game import rating
from nochmal.puzzles import daily_seed
from nochmal.record import GameRecord
from nochmal.rules import MAX_SEED, RuleSettings
from nochmal.table.session import TableSession
from nochmal.table.setup import parse_seats
from nochmal.terminal.planner import planner_best
from nochmal.terminal.session import Session


MAX_PLANNER_SECONDS = 3600  # 'puzzle --planner-time': longer searches belong to 'nochmal solve'


def register(app: typer.Typer) -> None:
    app.command("play")(play)
    app.command("puzzle")(puzzle)


def _load_mission(id_or_path: str, difficulty: str):
    """The mission to play and a checked difficulty (nochmal.missions loads the graph
    measures, so it is imported only for a mission)."""
    from nochmal.missions.loader import load_mission
    from nochmal.missions.model import DIFFICULTIES

    if difficulty not in DIFFICULTIES:
        raise OptionError(f"--difficulty {difficulty!r}: use one of {', '.join(DIFFICULTIES)}")
    return load_mission(id_or_path)


def _mission_extra(mission, given: str, difficulty: str) -> dict:
    """The record's ``extra`` as nochmal.missions.coop.record_game reads it."""
    extra = {"mission": mission.id, "difficulty": difficulty}
    if Path(given).suffix or "/" in given:
        extra["mission_file"] = str(Path(given))
    return extra


@guarded
def play(
    seat: Optional[list[str]] = typer.Option(
        None, "--seat", help="One per seat, in turn order: human, human:NAME or a bot name (an unknown name lists the known ones). Default: one human."),
    board: Optional[str] = typer.Option(None, "--board", "-b", help="Built-in board name or a board file (default classic)."),
    seed: Optional[int] = typer.Option(None, "--seed", "-s", help="Dice seed (default: a random one, shown and saved)."),
    resume: Optional[Path] = typer.Option(None, "--resume", help="Continue a game saved with 'save FILE' or --save."),
    save: Optional[Path] = typer.Option(None, "--save", help="Write the game record here when the game ends or you quit."),
    mission: Optional[str] = typer.Option(None, "--mission", help="Play a co-op mission (id or mission file)."),
    difficulty: Optional[str] = typer.Option(None, "--difficulty", help="With --mission: easy, normal (the default) or hard."),
    bridging: bool = typer.Option(False, "--bridging", help="Rule option: new crosses may connect through crossed cells."),
    as_json: bool = typer.Option(False, "--json", help="Draw the game on stderr and print the result as JSON on stdout."),
):
    """Play at the terminal: 1-6 seats, each a human or a bot; humans type their choices.

    A choice is the dice plus the cells (b 4 G4 G5 H4 H5), the move notation (xb4 ...), a number from 'list', or pass; 'undo', 'hint', 'save FILE' and 'quit' also work.

    Example: nochmal play --seat human:Anna --seat human:Ben --seat greedy --seed 7
    """
    ui = err_console if as_json else console
    save_path = str(save) if save else None
    if resume is not None:
        if seat or board or seed is not None or mission or difficulty:
            raise OptionError("--resume continues the saved game with its own seats, board, seed and mission; "
                               "leave out --seat/--board/--seed/--mission/--difficulty")
        record = GameRecord.load(resume)
        session = Session.from_record(record, str(resume), console=ui, save_path=save_path)
    else:
        check_seed(seed)
        if difficulty is not None and not mission:
            raise OptionError("--difficulty sets a co-op mission's roll budget; it needs --mission")
        seats = parse_seats(list(seat) if seat else ["human"])
        b = board_arg(board or "classic")
        rules = RuleSettings(bridging=bridging)
        seed_ = seed if seed is not None else secrets.randbelow(1_000_000)
        if mission:
            if board:
                raise OptionError("--mission plays on the mission's own sheet; leave out --board")
            difficulty = difficulty or "normal"
            m = _load_mission(mission, difficulty)
            table = TableSession(board_arg(m.board), seats, seed_, rules, mission=m, difficulty=difficulty,
                                 extra=_mission_extra(m, mission, difficulty))
        else:
            table = TableSession(b, seats, seed_, rules)
        session = Session(table, console=ui, save_path=save_path)
    outcome = session.run()
    if as_json:
        data = session.result()
        data["outcome"] = outcome
        if session.table.mission is not None:
            data["mission"] = session.table.mission_outcome().to_dict()
        emit_json(data)


@guarded
def puzzle(
    seed: Optional[int] = typer.Option(None, "--seed", "-s", help=f"Puzzle seed, 0..{MAX_SEED}."),
    daily: bool = typer.Option(False, "--daily", help="Today's puzzle: seed = UTC date as YYYYMMDD (the default)."),
    open_: bool = typer.Option(False, "--open", help="Show all 30 rolls in advance (a perfect-information puzzle)."),
    board: str = typer.Option("classic", "--board", "-b", help="Built-in board name or a board file."),
    save: Optional[Path] = typer.Option(None, "--save", help="Write the game record here when it ends or you quit."),
    planner_time: float = typer.Option(10.0, "--planner-time", help="Seconds the planner may spend on the best score at the end (0: skip)."),
    as_json: bool = typer.Option(False, "--json", help="Draw the game on stderr and print the result as JSON on stdout."),
    submit: Optional[str] = typer.Option(None, "--submit", help="At the end, submit the game to this server's leaderboard (a URL; with --name)."),
    name: Optional[str] = typer.Option(None, "--name", help="With --submit: the name shown on the board."),
    token: Optional[str] = typer.Option(None, "--token", help="With --submit: the secret the first submission under this name printed."),
):
    """A seeded solo puzzle: 30 rolls of 2 colour and 2 number dice, you choose every move.

    At the end: your score, the rulebook's rating and what the planner finds for this seed within --planner-time seconds: the best score possible when it can prove it, else its best play and the bound no play can beat; a seed whose optimum the shipped table proves (nochmal/data/puzzle_optima.json: the daily seeds of 2026-12-01 through 2027-12-31 and the seeds 1..100) is answered at once. The daily seed is the UTC date as YYYYMMDD.

    With --submit URL --name NAME the finished game goes to that server's leaderboard of the seed (the server replays it first; an open game is ranked on the open board).

    Example: nochmal puzzle --daily --open
    """
    if (submit is None) != (name is None):
        raise OptionError("--submit URL and --name NAME go together")
    if seed is not None and daily:
        raise OptionError("give either --seed or --daily, not both")
    if not 0 <= planner_time <= MAX_PLANNER_SECONDS:  # also refuses nan
        raise OptionError(f"--planner-time {planner_time:g}: must be 0..{MAX_PLANNER_SECONDS} seconds (0 skips the planner)")
    check_seed(seed)
    is_daily = seed is None
    seed_ = daily_seed() if is_daily else seed
    b = board_arg(board)
    ui = err_console if as_json else console
    table = TableSession(b, ["human"], seed_, RuleSettings(), open_rolls=open_, extra={"puzzle": True, "open": open_})
    session = Session(table, console=ui, save_path=str(save) if save else None)
    outcome = session.run()
    score = session.game.sheets[0].score()
    planner = None
    if outcome == "over" and planner_time > 0:
        with err_console.status(f"the planner looks for the best play of seed {seed_} "
                                f"(up to {planner_time:g} s; Ctrl-C stops it)"):
            planner = planner_best(b, seed_, table.rules, planner_time)
        if planner is None:
            ui.print("(the planner is not available for this game)", highlight=False, soft_wrap=True)
        elif planner["proven"]:
            how = "the planner's proof, shipped with nochmal" if planner["source"] == "table" else "proven by the planner"
            ui.print(f"best possible score for seed {seed_}: {planner['score']} ({how})", highlight=False, soft_wrap=True)
        else:
            bound = f"; no play can beat {planner['bound']}" if planner["bound"] is not None else ""
            found = (f"the planner was interrupted after {planner['elapsed']:g} s; it had found {planner['score']} points"
                     if planner["interrupted"] else f"the planner found {planner['score']} points in {planner['elapsed']:g} s")
            ui.print(f"{found}{bound} "
                     f"(not proven best; a longer search: nochmal solve --seed {seed_} --time-limit 300)", highlight=False, soft_wrap=True)
    submitted = None
    if submit is not None and outcome == "over":
        from nochmal.cli.leaderboard_cmds import report, submit_record

        submitted = submit_record(submit, table.record().to_json(), name, token)
        ui.print(report(submitted), highlight=False, soft_wrap=True, markup=False)
    elif submit is not None:
        ui.print("not submitted: a leaderboard ranks finished puzzles", highlight=False, soft_wrap=True, markup=False)
    if as_json:
        data = session.result()
        data.update({"submitted": submitted} if submit is not None else {})
        data.update({"outcome": outcome, "daily": is_daily, "open": open_, "score": score,
                     "rating": rating(score),
                     "best": planner["score"] if planner and planner["proven"] else None,
                     "planner": planner})
        emit_json(data)
