"""The ``nochmal`` command line (typer). Each command group lives in its own module and
registers itself here; exit codes: 0 success, 1 rule or input error, 2 usage error."""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(
    name="nochmal",
    help="Noch mal! (Encore!) toolkit: rules engine, bots, co-op missions and a proving planner.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# one module per command group; each defines register(app)
COMMAND_MODULES = [
    "nochmal.cli.engine_cmds",
    "nochmal.cli.mission_cmds",
    "nochmal.cli.solver_cmds",
    "nochmal.cli.bot_cmds",
    "nochmal.cli.play_cmds",
    "nochmal.cli.board_cmds",
    "nochmal.cli.web_cmds",
]

for _name in COMMAND_MODULES:
    importlib.import_module(_name).register(app)


def main() -> None:
    app()
