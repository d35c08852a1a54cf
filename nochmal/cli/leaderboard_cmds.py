"""`nochmal leaderboard`: submit a finished puzzle to a server's leaderboard, and look after the
boards of a data folder (list, remove: the moderation of docs/web.md "Leaderboards")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from nochmal.cli.common import console, emit_json, err_console, guarded
from nochmal.errors import OptionError, StorageError

SUBMIT_TIMEOUT = 60.0  # seconds: the server replays the record before it answers

group = typer.Typer(help="Puzzle leaderboards: submit a finished puzzle, list or remove entries of a data folder.",
                    no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(group, name="leaderboard")


def submit_record(url: str, record: dict, name: str, token: str | None = None) -> dict:
    """POST a finished puzzle's record to ``url``'s leaderboard of its seed; the server's
    answer (docs/web.md "Leaderboards"). A refusal or an unreachable server is one line and
    exit 1 (typer.Exit). urllib is imported here: it brings ssl, which the other commands'
    start-up does without (tests/cli/test_cli_startup.py)."""
    import urllib.error
    import urllib.request

    seed = record.get("seed")
    target = url.rstrip("/") + f"/api/puzzles/{seed}/leaderboard"
    body = json.dumps({"name": name, "record": record, "token": token}).encode()
    request = urllib.request.Request(target, body, {"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=SUBMIT_TIMEOUT) as resp:
            return json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        try:
            reason = json.loads(exc.read()).get("error") or exc.reason
        except ValueError:
            reason = exc.reason
        _fail(f"the leaderboard refused the game ({exc.code}): {reason}")
    except (urllib.error.URLError, OSError, ValueError) as exc:
        _fail(f"cannot reach {target}: {getattr(exc, 'reason', exc)}")


def _fail(line: str) -> None:
    err_console.print(f"error: {line}", markup=False, soft_wrap=True)
    raise typer.Exit(1)


def report(answer: dict) -> str:
    """The answer in one line for people."""
    e, top = answer["entry"], answer["leaderboard"]
    where = "open leaderboard" if top["open"] else "leaderboard"
    if answer["stored"]:
        line = f"verified and ranked: {e['name']} #{e['rank']} of {top['count']} on the {where} of seed {top['seed']} ({e['score']} points)"
    else:
        line = f"{e['name']}'s earlier game stays: it ranks higher (#{e['rank']}, {e['score']} points)"
    if answer.get("token"):
        line += f"; a better game under this name later needs --token {answer['token']}"
    return line


@group.command("submit")
@guarded
def submit(
    record_file: Path = typer.Argument(..., help="A finished puzzle's record (nochmal puzzle --save FILE)."),
    url: str = typer.Option(..., "--url", help="The server, e.g. http://127.0.0.1:8000"),
    name: str = typer.Option(..., "--name", help="The name shown on the leaderboard (at most 40 characters)."),
    token: Optional[str] = typer.Option(None, "--token", help="The secret the first submission under this name printed."),
    as_json: bool = typer.Option(False, "--json", help="Print the server's answer as JSON."),
):
    """Submit a finished puzzle to a server's leaderboard; the server replays the record first.

    Example: nochmal leaderboard submit game.json --url http://127.0.0.1:8000 --name Anna
    """
    from nochmal.record import GameRecord

    record = GameRecord.load(record_file)  # a broken file is this machine's error line, before the network
    answer = submit_record(url, record.to_json(), name, token)
    if as_json:
        emit_json(answer)
    else:
        console.print(report(answer), markup=False, soft_wrap=True)


def _store(data: Optional[Path], database: Optional[str]):
    """The server's leaderboards: its PostgreSQL database (--database, as nochmal serve got it)
    or its data folder's SQLite file."""
    from nochmal.web.leaderboards import DB_NAME, open_store

    if (data is None) == (database is None):
        raise OptionError("give the server's --data folder or its --database URL (one of them)")
    if database is not None:
        return open_store(None, database)
    if not (data / DB_NAME).is_file():
        raise StorageError(f"--data {data}: no leaderboards here ({DB_NAME} is missing)")
    return open_store(data)


DATA_HELP = "The data folder of nochmal serve (its leaderboards.sqlite3)."
DATABASE_HELP = "Or the PostgreSQL URL nochmal serve got with --database."


@group.command("list")
@guarded
def list_entries(
    seed: Optional[int] = typer.Argument(None, help="One puzzle seed (default: every seed)."),
    data: Optional[Path] = typer.Option(None, "--data", help=DATA_HELP),
    database: Optional[str] = typer.Option(None, "--database", metavar="URL", envvar="NOCHMAL_DATABASE", help=DATABASE_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the entries as JSON."),
):
    """List the entries of a data folder's leaderboards, best first per leaderboard (closed, then open).

    Example: nochmal leaderboard list 20261204 --data ~/.local/share/nochmal
    """
    entries = _store(data, database).entries(seed)
    if as_json:
        emit_json({"entries": [{"id": e.id, "seed": e.seed, "open": e.open, "name": e.name, "score": e.score,
                                "jokers": e.jokers, "submitted": e.submitted} for e in entries]})
        return
    for e in entries:
        console.print(f"{e.seed} {'open' if e.open else 'closed'} {e.score:4d} {e.jokers} jokers  {e.name}",
                      markup=False, soft_wrap=True)
    if not entries:
        console.print("no entries", markup=False)


@group.command("remove")
@guarded
def remove(
    seed: int = typer.Argument(..., help="The puzzle seed."),
    name: str = typer.Argument(..., help="The entry's name (any case)."),
    data: Optional[Path] = typer.Option(None, "--data", help=DATA_HELP),
    database: Optional[str] = typer.Option(None, "--database", metavar="URL", envvar="NOCHMAL_DATABASE", help=DATABASE_HELP),
    open_: Optional[bool] = typer.Option(None, "--open/--closed", help="Only the open or the closed leaderboard (default: both)."),
):
    """Remove a name's entry from a seed's leaderboard (moderation; a running server sees it at once).

    Example: nochmal leaderboard remove 20261204 'Rude Name' --data ~/.local/share/nochmal
    """
    gone = _store(data, database).remove(seed, name, open_)
    if not gone:
        _fail(f"no entry named {name!r} on the leaderboard of seed {seed}")
    console.print(f"removed {gone} entr{'y' if gone == 1 else 'ies'} of {name!r} (seed {seed})", markup=False)
