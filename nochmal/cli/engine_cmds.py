"""Engine commands: solo, replay, moves, score, rolls."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from nochmal.board import COLOUR_NAMES, COLOURS
from nochmal.cli.common import (board_arg, check_seed, console, emit_json, guarded, read_sheet_file,
                                refuse_impossible)
from nochmal.dice import seeded_rolls
from nochmal.errors import NochmalError, OptionError
from nochmal.game import rating
from nochmal.play import play_solo
from nochmal.record import GameRecord
from nochmal.rules import RuleSettings
from nochmal.seats import seat_name
from nochmal.sheetview import render_sheet


MAX_ROLLS_LISTED = 10_000  # 'rolls --count': far beyond any game, small enough to print at once


def register(app: typer.Typer) -> None:
    app.command("solo")(solo)
    app.command("replay")(replay)
    app.command("moves")(moves)
    app.command("score")(score)
    app.command("rolls")(rolls)


@guarded
def solo(
    seed: int = typer.Option(1, "--seed", "-s", help="Dice seed; the same seed gives the same 30 rolls forever."),
    bot: str = typer.Option("greedy", "--bot", help="Bot that plays: random, greedy, or a stronger bot (see nochmal bench)."),
    board: str = typer.Option("classic", "--board", "-b", help="Built-in board name or a board file."),
    save: Optional[Path] = typer.Option(None, "--save", help="Write the game record (JSON) here."),
    bridging: bool = typer.Option(False, "--bridging", help="Rule option: new crosses may connect through crossed cells."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
):
    """Play a seeded solo game (2+2 dice, 30 rolls) with a bot and print sheet and score.

    Example: nochmal solo --seed 7 --bot greedy --save game.json
    """
    check_seed(seed)
    b = board_arg(board)
    from nochmal.bots.registry import make_agent  # the bots load numpy: imported on use
    try:
        agent = make_agent(bot, seed)
    except NochmalError as exc:  # the only reason: an unknown name
        raise OptionError(f"--bot: {exc}") from None
    record = play_solo(b, agent, seed, RuleSettings(bridging=bridging))
    if save:
        record.save(save)
    game = record.verify()
    sheet = game.sheets[0]
    score_ = sheet.score()
    if as_json:
        emit_json({"seed": seed, "bot": bot, "board": b.name, "score": score_,
                   "breakdown": sheet.score_breakdown().to_dict(), "rating": rating(score_),
                   "sheet": sheet.text(), "rolls": len(record.rolls), "saved": str(save) if save else None})
        return
    console.print(render_sheet(sheet))
    console.print(f"seed {seed}, bot {bot}: {score_} points — {rating(score_)}")
    if save:
        console.print(f"record written to {save}", markup=False, soft_wrap=True)  # a long path stays whole


@guarded
def replay(
    record_file: Path = typer.Argument(..., help="A game record (JSON) written by --save."),
    verify: bool = typer.Option(False, "--verify", help="Check every roll against the seed, every move against the rules and the result."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    step: bool = typer.Option(False, "--step", help="Step through the game: enter = next turn, b = back, q = quit."),
    to: Optional[int] = typer.Option(None, "--to", help="Show the state after turn N (with --step: start there)."),
):
    """Replay a game record; with --verify, reject it at the first bad turn.

    Example: nochmal replay game.json --verify   (or: nochmal replay game.json --step --to 10)
    """
    record = GameRecord.load(record_file)
    from nochmal.table.stepper import game_factory, replayed
    from nochmal.terminal.replay import run_replay

    game = (record.verify(str(record_file), game_factory(record)) if verify
            else replayed(record, str(record_file)))
    if step or to is not None:
        run_replay(record, str(record_file), to, step, console, emit=emit_json if as_json else None)
        return
    if as_json:
        emit_json({"file": str(record_file), "verified": verify, "mode": record.mode, "turns": len(record.rolls),
                   "players": record.players,
                   "names": [seat_name(record.players, p) for p in range(len(record.players))],
                   "scores": game.scores(),
                   "winners": game.winners() if game.is_terminal() else None,
                   "sheets": [s.text() for s in game.sheets]})
        return
    claims = game.race_claims
    for p, sheet in enumerate(game.sheets):
        console.print(render_sheet(sheet, f"{seat_name(record.players, p)}: {sheet.score()} points",
                                   claimed_columns=claims.columns, claimed_colours=claims.colours))
    if verify:
        console.print(f"verified: {len(record.rolls)} turns, every roll and move legal, result matches")


@guarded
def moves(
    colour: str = typer.Option(..., "--colour", "-c", help="Colour letter: y g b r o."),
    count: int = typer.Option(..., "--count", "-n", help="Number of crosses, 1-5."),
    board: str = typer.Option("classic", "--board", "-b", help="Built-in board name or a board file."),
    sheet: Optional[Path] = typer.Option(None, "--sheet", help="Typed sheet (7 lines of 15, x = crossed); default empty."),
    bridging: bool = typer.Option(False, "--bridging", help="Rule option: new crosses may connect through crossed cells."),
    as_json: bool = typer.Option(False, "--json", help="Print the placements as JSON."),
    allow_impossible: bool = typer.Option(False, "--allow-impossible", help="List placements on a sheet no legal game can produce (warn instead of exit 1)."),
):
    """List every legal placement of COUNT crosses of COLOUR as cell lists.

    Example: nochmal moves --board classic --colour y --count 3
    """
    colour = colour.lower()
    if len(colour) != 1 or colour not in COLOURS:
        raise OptionError(f"--colour {colour!r}: use one of {' '.join(COLOURS)}")
    if not 1 <= count <= 5:
        raise OptionError(f"--count {count}: must be 1..5")
    b = board_arg(board)
    from nochmal.sheet import Sheet

    state = read_sheet_file(sheet, b) if sheet else Sheet.empty(b)
    if sheet:
        refuse_impossible(state, str(sheet), allow_impossible)
    placements = [b.cells_of(m) for m in state.placements(colour, count, bridging)]
    placements.sort()
    if as_json:
        emit_json({"board": b.name, "colour": colour, "count": count, "placements": placements})
        return
    console.print(f"{len(placements)} legal placement(s) of {count} {COLOUR_NAMES[colour]}:")
    for cells in placements:
        console.print("  " + " ".join(cells))


@guarded
def score(
    sheet: Path = typer.Argument(..., help="Typed sheet: 7 lines of 15, x = crossed; optional 'jokers_used: N'."),
    board: str = typer.Option("classic", "--board", "-b", help="Built-in board name or a board file."),
    as_json: bool = typer.Option(False, "--json", help="Print the breakdown as JSON."),
    allow_impossible: bool = typer.Option(False, "--allow-impossible", help="Score a sheet no legal game can produce (warn instead of exit 1)."),
):
    """Score a typed sheet with its breakdown (complete columns at first value unless listed in later_columns).

    Example: nochmal score --board classic mysheet.txt
    """
    b = board_arg(board)
    state = read_sheet_file(sheet, b)
    refuse_impossible(state, str(sheet), allow_impossible)
    bd = state.score_breakdown()
    if as_json:
        emit_json({"board": b.name, "sheet": state.text(), **bd.to_dict(),
                   "complete_columns": [b.column_name(c) for c in range(b.cols) if state.complete_columns() >> c & 1],
                   "complete_colours": [c for i, c in enumerate(COLOURS) if state.complete_colours() >> i & 1],
                   "stars_crossed": (state.crossed & b.star_mask).bit_count()})
        return
    console.print(render_sheet(state))


@guarded
def rolls(
    seed: int = typer.Option(..., "--seed", "-s", help="Dice seed."),
    solo_: bool = typer.Option(False, "--solo", help="Solo rolls (2 colour + 2 number dice)."),
    count: int = typer.Option(30, "--count", "-k", help="How many rolls."),
    as_json: bool = typer.Option(False, "--json", help="Print the rolls as JSON."),
):
    """Print the seeded rolls (x = colour joker, ? = number joker).

    Example: nochmal rolls --seed 7 --solo --count 5
    """
    check_seed(seed)
    if not 1 <= count <= MAX_ROLLS_LISTED:
        raise OptionError(f"--count {count}: must be 1..{MAX_ROLLS_LISTED}")
    seq = seeded_rolls(seed, count, 2 if solo_ else 3)
    if as_json:
        emit_json({"seed": seed, "solo": solo_, "rolls": [r.to_json() for r in seq]})
        return
    for i, r in enumerate(seq, 1):
        console.print(f"{i:>3}  colours {' '.join(r.colours)}   numbers {' '.join(r.numbers)}")
