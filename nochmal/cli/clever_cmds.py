"""Clever 4ever commands (docs/clever.md): ``clever solo`` plays a seeded solo game with a
bot, ``clever replay`` checks a record step by step and draws the sheets."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from nochmal.cli.common import check_seed, console, emit_json, guarded
from nochmal.clever import CleverGame, CleverRecord, replay as replay_record
from nochmal.errors import NochmalError, OptionError
from nochmal.fileio import check_writable

clever_app = typer.Typer(
    name="clever", no_args_is_help=True, add_completion=False,
    help="Clever 4ever: a seeded solo game with a bot, a record replayed and checked.")


def register(app: typer.Typer) -> None:
    app.add_typer(clever_app, name="clever")


@clever_app.command("solo")
@guarded
def solo(
    seed: int = typer.Option(1, "--seed", "-s", help="Dice seed; the same seed gives the same throws forever."),
    bot: str = typer.Option("greedy", "--bot", help="Bot that plays: random, greedy or rollout (the search)."),
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


@clever_app.command("play")
@guarded
def play_table(
    seat: list[str] = typer.Option(..., "--seat", help="One per seat, in turn order: human, human:NAME, random, greedy or rollout (1-4 seats)."),
    seed: int = typer.Option(1, "--seed", "-s", help="Dice seed; the same seed gives the same throws forever."),
    save: Optional[Path] = typer.Option(None, "--save", help="Write the game record (JSON) here at the end."),
):
    """Play Clever 4ever at the terminal: humans type actions, bots move, the sheet is drawn
    before each of a human's decisions ('help' for the notation, 'legal' for a numbered list).

    Example: nochmal clever play --seat human --seat greedy --seed 7 --save game.json
    """
    check_seed(seed)
    from nochmal.bots.clever import clever_bot
    from nochmal.play import play_game
    from nochmal.terminal.clever_prompt import HumanCleverAgent, announce
    from nochmal.terminal.clever_view import draw_game
    from nochmal.terminal.reader import default_reader

    if not 1 <= len(seat) <= 4:
        raise OptionError(f"--seat: {len(seat)} seats; Clever 4ever is for 1 to 4 players")
    if save:
        check_writable(save)
    read = default_reader(console)

    def say(text: str) -> None:
        console.print(text, markup=False, highlight=False)

    agents, names, humans = [], [], set()
    for k, spec in enumerate(seat):
        if spec == "human" or spec.startswith("human:"):
            name = spec.partition(":")[2].strip() or f"player {k + 1}"
            agents.append(HumanCleverAgent(name, say, read))
            humans.add(k)
        else:
            try:
                agents.append(clever_bot(spec, seed * 10 + k))
            except NochmalError as exc:  # the only reason: an unknown name
                raise OptionError(f"--seat {spec!r}: {exc}; or human, human:NAME") from None
            name = spec
        names.append(name)
    game = play_game(CleverGame(len(seat)), agents, seed, lambda g: announce(g, names, humans, say))
    for k in range(game.n_players):
        say(f"{names[k]}:\n{draw_game(game, k)}")
    scores = game.scores()
    say("scores: " + ", ".join(f"{n} {p}" for n, p in zip(names, scores)) +
        (f" ({game.rating()})" if game.solo else f"; won: {', '.join(names[w] for w in game.winners())}"))
    if save:
        CleverRecord.from_game(game, names, seed).save(save)
        say(f"record written to {save}")


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
