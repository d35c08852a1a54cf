"""Clever 4ever commands (docs/clever.md): ``clever solo`` plays a seeded solo game with a
bot, ``clever replay`` checks a record step by step and draws the sheets."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from nochmal.cli.common import check_seed, console, emit_json, guarded
from nochmal.clever import CleverGame, CleverRecord, replay as replay_record
from nochmal.errors import NochmalError, OptionError

clever_app = typer.Typer(
    name="clever", no_args_is_help=True, add_completion=False,
    help="Clever 4ever: a seeded solo game with a bot, a record replayed and checked.")


def register(app: typer.Typer) -> None:
    app.add_typer(clever_app, name="clever")


@clever_app.command("solo")
@guarded
def solo(
    seed: int = typer.Option(1, "--seed", "-s", help="Dice seed; the same seed gives the same throws forever."),
    bot: str = typer.Option("greedy", "--bot", help="Bot that plays: random or greedy."),
    save: Optional[Path] = typer.Option(None, "--save", help="Write the game record (JSON) here."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
):
    """Play a seeded six-round solo game with a bot; print the sheet, the score and its rating.

    Example: nochmal clever solo --seed 7 --bot greedy --save game.json
    """
    check_seed(seed)
    from nochmal.bots.clever import clever_bot, play
    from nochmal.terminal.clever_view import draw_game

    try:
        agent = clever_bot(bot, seed)
    except NochmalError as exc:  # the only reason: an unknown name
        raise OptionError(f"--bot: {exc}") from None
    game = play(CleverGame(1), [agent], seed)
    record = CleverRecord.from_game(game, [bot], seed)
    if save:
        record.save(save)
    if as_json:
        emit_json({"seed": seed, "bot": bot, "score": game.scores()[0], "rating": game.rating(),
                   "steps": len(record.steps), "saved": str(save) if save else None})
        return
    console.print(draw_game(game), markup=False, highlight=False)
    if save:
        console.print(f"record written to {save}", markup=False, soft_wrap=True)


@clever_app.command("replay")
@guarded
def replay(
    record_file: Path = typer.Argument(..., help="A Clever 4ever record (JSON) written by --save."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
):
    """Replay a record, check every step and draw each seat's sheet.

    Every throw is checked against the seed and every action against the rules; a forged
    record ends with exit 1 naming its first bad step.

    Example: nochmal clever replay game.json
    """
    from nochmal.terminal.clever_view import draw_game

    record = CleverRecord.load(record_file)
    game = replay_record(record)
    if as_json:
        emit_json({"players": record.players, "scores": game.scores(), "over": game.is_terminal(),
                   "steps": len(record.steps), "verified": True})
        return
    for seat in range(game.n_players):
        console.print(draw_game(game, seat), markup=False, highlight=False)
    console.print(f"verified: {len(record.steps)} steps", markup=False)
