"""Option values converted without loading pydantic, when the value is plainly valid.

typer 0.2x converts every option and argument value through a pydantic TypeAdapter: the
first conversion imports pydantic (about 50 ms, a third of a light command's start-up;
benchmarks/RESULTS.md "Command-line start-up"). This module gives the common parameters
(int, float, str, Path and lists of them, no custom parser) a runtime converter that
handles the values no converter could read otherwise: a decimal integer or number inside
the option's range, a text, a path. Anything else, every error included, goes to typer's
own converter, so messages and edge cases stay typer's. tests/cli/test_cli_startup.py checks
the values against typer's converter and that the light commands do not import pydantic.

With a typer that lacks this machinery (older versions convert through click) nothing is
changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args, get_origin

from typer import BadParameter

# typer 0.2x has no public hook for this: it converts every value through a pydantic
# TypeAdapter (a ``parser=`` too), and its click is a private copy (typer._click) whose
# ParamType it never asks; so the runtime converter typer itself uses is the one replaced.
try:  # typer 0.2x: runtime conversion through pydantic (typer/_coercion.py)
    from typer._coercion import RuntimeParam, build_runtime_param
    from typer._param_types import coerce_cli_path
except ImportError:  # pragma: no cover - other typers convert through click
    RuntimeParam = None

# values whose meaning no converter can doubt: no sign, spaces, underscores or exponent
_INT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")
_FLOAT = re.compile(r"-?[0-9]{1,15}(?:\.[0-9]{1,15})?")
_MISS = object()  # "not plainly valid": typer's converter decides


def _plain(annotation: Any, info: Any, value: Any) -> Any:
    """``value`` converted as typer would, or _MISS when it is not plainly valid."""
    if annotation is str:
        return value if isinstance(value, str) else _MISS
    if annotation is bool:  # a flag's value (typer converts even --help's)
        return value if isinstance(value, bool) else _MISS
    if annotation is int or annotation is float:
        if isinstance(value, bool):
            return _MISS
        if isinstance(value, annotation):
            number = value
        elif isinstance(value, str) and (_INT if annotation is int else _FLOAT).fullmatch(value):
            number = annotation(value)
        else:
            return _MISS
        if info.min is not None and number < info.min or info.max is not None and number > info.max:
            return _MISS  # out of range: typer says so (or clamps)
        return number
    return _MISS


@dataclass(frozen=True)
class _LightRuntimeParam(RuntimeParam or object):
    """typer's RuntimeParam contract; plainly valid values never touch pydantic."""

    def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
        annotation, info = self.annotation, self.parameter_info
        if get_origin(annotation) is list:
            if isinstance(value, (list, tuple)):
                (item_type,) = get_args(annotation)
                items = [self._one(item_type, info, item, param, ctx) for item in value]
                if _MISS not in items:
                    return items
        else:
            done = self._one(annotation, info, value, param, ctx)
            if done is not _MISS:
                return done
        return build_runtime_param(param.type_descriptor)._coerce_value(value, param=param, ctx=ctx)

    @staticmethod
    def _one(annotation: Any, info: Any, value: Any, param: Any, ctx: Any) -> Any:
        if annotation is Path:
            if not isinstance(value, (str, Path)) or value == "":
                return _MISS  # ('' is '.' to pydantic but named '' in typer's messages)
            # typer's own path checks (exists, dir_okay, ...) on a Path made as pydantic makes it
            try:
                return coerce_cli_path(Path(value), info, path_type=info.path_type or Path, param=param, ctx=ctx)
            except BadParameter:
                raise
            except Exception:  # e.g. a NUL byte: typer's converter words the error
                return _MISS
        return _plain(annotation, info, value)


def _handled(param: Any) -> bool:
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None or descriptor.file_annotation is not None or descriptor.parameter_info.parser is not None:
        return False
    annotation = descriptor.annotation
    if get_origin(annotation) is list:
        args = get_args(annotation)
        annotation = args[0] if len(args) == 1 else None
    if annotation is Path:
        return descriptor.parameter_info.path_type in (None, Path)
    return annotation in (str, int, float, bool)


def light_coercion(command: Any, context_of: Any) -> None:
    """Give ``command``'s parameters (its help option too: ``context_of(command)`` makes the
    context that asks for it), and its subcommands', the light converter."""
    if RuntimeParam is None:
        return
    help_option = command.get_help_option(context_of(command))
    for param in [*getattr(command, "params", ()), *([help_option] if help_option is not None else [])]:
        if getattr(param, "_runtime_param", _MISS) is None and _handled(param):
            param._runtime_param = _LightRuntimeParam(param.type_descriptor.parameter_info,
                                                      param.type_descriptor.annotation)
    for sub in getattr(command, "commands", {}).values():
        light_coercion(sub, context_of)
