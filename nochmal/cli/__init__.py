"""The ``nochmal`` command line (typer). Each command group lives in its own module and
registers itself here; exit codes: 0 success, 1 rule or input error, 2 usage error (a
bad option or option value). Every error is one line on stderr, ``error: ...``.

Command modules import the heavy parts (OR-Tools, the graph measures, the bots' numpy)
inside the commands that need them, and the ``nochmal`` script loads only the module of the
command it runs (``app_for``; ``app`` is the whole app): ``tests/cli/test_cli_startup.py``
keeps it so.
"""

from __future__ import annotations

import importlib
import sys

import typer
from typer.core import TyperGroup

from nochmal.fileio import surrogate_field


class OneLineErrors(TyperGroup):
    """Click's usage errors (an unknown option, ``--count abc``, a missing argument) as one
    line on stderr and exit 2, like the commands' own errors (``nochmal.cli.common.guarded``),
    instead of a usage block and a framed box that wraps at the terminal width."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        plain_help(self)
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        args = sys.argv[1:] if args is None else list(args)
        bad = not_utf8_argument(args)
        if bad is not None:
            typer.echo(f"error: {bad}: not valid UTF-8 text (names, values and file names must be UTF-8)", err=True)
            sys.exit(2)
        if bare_group(self, args):  # 'nochmal', 'nochmal board': the group's help, exit 0
            args = [*args, "--help"]
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except typer.TyperException as exc:
            # typer exports only the base of its click errors (TyperException: exit_code,
            # format_message); a usage error is one that carries the context it arose in
            ctx = getattr(exc, "ctx", None)
            message = " ".join(exc.format_message().split())
            if ctx is not None:
                message = f"{message.rstrip('.')}; see: {ctx.command_path} --help"
            typer.echo(f"error: {message}", err=True)
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.echo("aborted", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


def bare_group(command, args: list[str]) -> bool:
    """Whether ``args`` name a group (``nochmal``, ``nochmal board``) and nothing more, where
    the group shows its help (``no_args_is_help``). Such a call is run as the group's
    ``--help``: typer signals it by an error class it does not export, printed through rich."""
    for name in args:
        command = getattr(command, "commands", {}).get(name)
        if command is None:
            return False
    return bool(getattr(command, "commands", None)) and getattr(command, "no_args_is_help", False)


def not_utf8_argument(args: list[str]) -> str | None:
    """The first argument that is not UTF-8 text, with its option (``--seat 'human:\\udced'``),
    or None. Python hands bytes that are not UTF-8 over as lone surrogates (surrogateescape):
    such a name printed on a UTF-8 stream is a traceback, and saved in a record one that
    ``nochmal replay`` refuses. Refused here, before any command runs, for every command and
    option at once, by the check the JSON readers use (nochmal/fileio.py)."""
    where = surrogate_field(list(args))
    if where is None:
        return None
    i = int(where)
    before = str(args[i - 1]) if i else ""
    option = f"{before} " if before.startswith("-") and not args[i].startswith("-") else ""
    return f"{option}{args[i]!r}"


def plain_help(command) -> None:
    """Help and usage lines as people read them, for ``command`` and its subcommands:
    flags without a value placeholder (typer 0.2x prints ``--json <bool>``) and arguments
    in upper case (``RECORD_FILE``, ``[SHEET]...``; typer 0.2x prints ``{record_file}``)."""
    if getattr(command, "_plain_help", False):
        return
    command._plain_help = True
    help_option = command.get_help_option(typer.Context(command))
    for param in [*command.params, *([help_option] if help_option is not None else [])]:
        if getattr(param, "is_flag", False):
            param.metavar = ""
        elif param.param_type_name == "argument":
            if param.metavar is None:
                param.metavar = param.name.upper()
            param.get_usage_pieces = _usage_of(param)
    for sub in getattr(command, "commands", {}).values():
        plain_help(sub)


def _usage_of(argument):
    def pieces(ctx) -> list[str]:
        name = argument.metavar if argument.required else f"[{argument.metavar}]"
        return [name + ("..." if argument.nargs != 1 and not name.endswith("...") else "")]

    return pieces


def new_app() -> typer.Typer:
    """The ``nochmal`` app, no command registered yet."""
    app = typer.Typer(
        cls=OneLineErrors,
        name="nochmal",
        help="Noch mal! (Encore!) toolkit: rules engine, bots, co-op missions and a proving planner.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    app.callback()(_options)
    return app


def _version(value: bool) -> None:
    """``nochmal --version``: the package's version and which Dreyfus-Wagner programme the
    fewest-crosses figures run (compiled, or numpy without a C compiler: docs/architecture.md)."""
    if not value:
        return
    from importlib.metadata import version

    from nochmal.missions.measures.steiner import programme_name

    typer.echo(f"nochmal {version('nochmal')}\nfewest crosses: {programme_name()}")
    raise typer.Exit()


def _options(version: bool = typer.Option(False, "--version", is_eager=True, callback=_version,
                                           help="Print the version and the fewest-crosses programme in use, then exit.")):
    """Noch mal! (Encore!) toolkit: rules engine, bots, co-op missions and a proving planner."""


# one module per command group; each defines register(app), registering these top-level
# commands and groups (tests/cli/test_cli_startup.py checks the names against the modules)
COMMAND_MODULES = {
    "nochmal.cli.engine_cmds": ("solo", "replay", "moves", "score", "rolls"),
    "nochmal.cli.mission_cmds": ("mission",),
    "nochmal.cli.solver_cmds": ("solve", "analyse"),
    "nochmal.cli.bot_cmds": ("hint", "bench"),
    "nochmal.cli.play_cmds": ("play", "puzzle"),
    "nochmal.cli.board_cmds": ("board", "render"),
    "nochmal.cli.web_cmds": ("serve",),
    "nochmal.cli.leaderboard_cmds": ("leaderboard",),
    "nochmal.cli.batch_cmds": ("batch",),
    "nochmal.cli.clever_cmds": ("clever",),
}
_MODULE_OF = {name: module for module, names in COMMAND_MODULES.items() for name in names}


def build_app(modules=COMMAND_MODULES) -> typer.Typer:
    app = new_app()
    for module in modules:
        importlib.import_module(module).register(app)
    return app


def __getattr__(name: str):
    """``nochmal.cli.app``: the whole app, built on first use (PEP 562), so that importing
    nochmal.cli.common and friends does not load every command module."""
    if name == "app":
        globals()["app"] = built = build_app()
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def app_for(args: list[str]) -> typer.Typer:
    """The app to run ``args`` with: only the module of the command named first (start-up
    time: the other command modules and their parameters are never loaded), else all."""
    module = _MODULE_OF.get(args[0]) if args else None
    if module is not None:
        partial = build_app([module])
        # typer turns an app of one command into that command: keep the group
        if partial.registered_groups or len(partial.registered_commands) > 1:
            return partial
    return __getattr__("app")


def main() -> None:
    tolerant_streams()
    app_for(sys.argv[1:])()


def tolerant_streams() -> None:
    """Bytes that are not UTF-8, typed at a prompt (``nochmal play``), never end in a traceback:
    stdin keeps them as surrogate escapes and stdout prints such text as backslash escapes, as
    Python does in the C locale and on stderr always (in a UTF-8 locale both streams are
    strict). The game then answers "not understood", as for any other bad choice."""
    for stream, errors in ((sys.stdin, "surrogateescape"), (sys.stdout, "backslashreplace")):
        try:
            stream.reconfigure(errors=errors)
        except (AttributeError, ValueError):  # not a text file of the interpreter's own (replaced, closed)
            pass
