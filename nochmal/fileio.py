"""Atomic file writes: a reader never sees half a file, an interrupt never leaves one."""

from __future__ import annotations

import json
import os
import tomllib
import tempfile
from pathlib import Path
from typing import Callable

from nochmal.errors import NochmalError


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same folder and a rename."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and a rename."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise NochmalError(f"{path}: folder {folder} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise NochmalError(f"{path}: cannot write file ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):  # a directory, no permission, disk full: one clean error
            raise NochmalError(f"{path}: cannot write file ({exc.strerror or exc})") from None
        raise


# The largest input file any command reads (records, sheets, boards, missions, rolls): far
# above any real one, small enough that a wrong path (/dev/zero, a disk image) cannot exhaust
# memory before it is refused.
MAX_INPUT_BYTES = 8 * 1024 * 1024


def read_text_file(path: str | Path, error: Callable[[str], Exception],
                   max_bytes: int = MAX_INPUT_BYTES) -> str:
    """A UTF-8 text file's contents; raises ``error(reason)`` if it cannot be read.

    The one reader path for every text input: each caller wraps the reason in its own error
    type, naming the file its own way. At most ``max_bytes`` are read.
    """
    try:
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise error(f"cannot read file ({exc.strerror or exc})") from None
    if len(data) > max_bytes:
        raise error(f"file larger than {max_bytes} bytes")
    return decode_text(data, error)


def decode_text(data: bytes, error: Callable[[str], Exception]) -> str:
    """UTF-8 bytes as text (a leading byte-order mark is dropped); ``error(reason)`` if not."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"not a UTF-8 text file (byte {exc.start})") from None


def load_json_text(text: str, error: Callable[[str], Exception]):
    """Parsed JSON; ``error(reason)`` for broken JSON, nesting too deep or a huge number."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"broken JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise error("JSON nested too deeply") from None
    except ValueError as exc:  # an integer of thousands of digits (int max str digits)
        raise error(f"broken JSON: a number has too many digits") from None


def load_toml_text(text: str, error: Callable[[str], Exception]) -> dict:
    """Parsed TOML; ``error(reason)`` for broken TOML, nesting too deep or a huge number."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"not valid TOML: {exc}") from None
    except RecursionError:
        raise error("not valid TOML: nested too deeply") from None
    except ValueError as exc:  # an integer of thousands of digits (int max str digits)
        raise error("not valid TOML: a number has too many digits") from None
