"""Atomic file writes: a reader never sees half a file, an interrupt never leaves one."""

from __future__ import annotations

import os
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


def read_text_file(path: str | Path, error: Callable[[str], Exception]) -> str:
    """A UTF-8 text file's contents; raises ``error(reason)`` if it cannot be read.

    Each caller wraps the reason in its own error type, naming the file its own way.
    """
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"cannot read file ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise error(f"not a UTF-8 text file (byte {exc.start})") from None
