"""Atomic file writes: a reader never sees half a file, an interrupt never leaves one.

The file gets the permissions a plain ``open(path, "w")`` would give it: an existing file
keeps its mode, a new one gets 0666 minus the umask (0644 usually), so records and
pictures can be shared; ``tempfile.mkstemp`` alone would leave them 0600.
"""

from __future__ import annotations

import os
import stat
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
        os.fchmod(fd, _mode_for(path))
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


def check_writable(path: str | Path) -> None:
    """Raise NochmalError now if ``atomic_write_*`` could not write ``path`` later: the
    folder is missing or not writable, or the path is a folder. Nothing is created."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise NochmalError(f"{path}: folder {folder} does not exist")
    if path.is_dir():
        raise NochmalError(f"{path}: cannot write file (Is a directory)")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise NochmalError(f"{path}: cannot write file (no permission to write in {folder})")


def _mode_for(path: Path) -> int:
    """The mode ``open(path, "w")`` would leave: the existing file's, else 0666 minus the umask."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process umask, read without changing it (Linux /proc), else by setting it back."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # a short window in which another thread's new file gets 022
    os.umask(mask)
    return mask


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
