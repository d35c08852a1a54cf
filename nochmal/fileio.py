"""Atomic file writes: a reader never sees half a file, an interrupt never leaves one.

The file gets the permissions a plain ``open(path, "w")`` would give it: an existing file
keeps its mode, a new one gets 0666 minus the umask (0644 usually), so records and
pictures can be shared; ``tempfile.mkstemp`` alone would leave them 0600. A symbolic link
is written through (its target gets the content); a device, FIFO or folder is refused, never
replaced by a file (write_target).
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
import tomllib
from pathlib import Path
from typing import Callable

from nochmal.errors import StorageError
from nochmal.i18n import N_, Message, say


def is_decimal(text: str) -> bool:
    """A non-negative decimal in ASCII digits: ``str.isdigit()`` alone also takes "²" and
    other digits that ``int()`` refuses (a traceback or a 500 where a refusal was meant)."""
    return text.isascii() and text.isdigit()


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same folder and a rename."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and a rename.

    ``path`` may be a symbolic link: the file it points to is written (the link stays a
    link). A path that names something other than a regular file (a device, a FIFO, a
    folder) is refused: a rename would replace it, /dev/full included, with a file."""
    given, path = path, write_target(path)
    folder = path.parent
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise StorageError(f"{given}: cannot write file ({exc.strerror or exc})") from None
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
        if isinstance(exc, OSError):  # no permission, disk full: one clean error
            raise StorageError(f"{given}: cannot write file ({exc.strerror or exc})") from None
        raise


def check_writable(path: str | Path) -> None:
    """Raise NochmalError now if ``atomic_write_*`` could not write ``path`` later: the
    folder is missing or not writable, or the path is not a regular file (write_target). It
    makes (and removes) the temporary file the write would make, so folders that refuse new
    files even to root (``/proc``) are found before a game, not after it; nothing is left
    behind."""
    given, path = path, write_target(path)
    folder = path.parent
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StorageError(f"{given}: cannot write file (no permission to write in {folder})")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise StorageError(f"{given}: cannot write file ({exc.strerror or exc})") from None
    os.close(fd)
    os.unlink(tmp)


def write_target(path: str | Path) -> Path:
    """The file an atomic write of ``path`` replaces: ``path`` itself, or for a symbolic link
    the file it points to (so the link survives). StorageError, naming ``path``, when its
    folder is missing or it exists as anything but a regular file."""
    path = Path(path)
    shown = str(path)
    if path.is_symlink():
        real = Path(os.path.realpath(path))
        shown = f"{path} (a link to {real})"
        path = real
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise StorageError(f"{shown}: folder {folder} does not exist")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return folder / path.name  # a new file
    except OSError as exc:  # a loop of links, a name too long, no permission
        raise StorageError(f"{shown}: cannot write file ({exc.strerror or exc})") from None
    if not stat.S_ISREG(mode):
        raise StorageError(f"{shown}: cannot write file (not a regular file: {_kind(mode)}); give a file path")
    return folder / path.name


def _kind(mode: int) -> str:
    """What a file that is not a regular one is, in words."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"


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


def decode_text(data: bytes, error: Callable[[Message], Exception]) -> str:
    """UTF-8 bytes as text (a leading byte-order mark is dropped); ``error(reason)`` if not
    (the reason a Message: ``str()`` is its English line)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(say("not a UTF-8 text file (byte %(byte)s)", byte=exc.start)) from None


def load_json_text(text: str, error: Callable[[Message], Exception]):
    """Parsed JSON; ``error(reason)`` for broken JSON, nesting too deep, a huge number or a
    string with a lone surrogate.

    A JSON string may carry an escaped lone surrogate (``"\\ud800"``); Python's JSON reader
    keeps it, but no UTF-8 writer can (a terminal, a response, a saved record, a database row),
    so it is refused here, where every JSON input comes in, naming where it stands."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(json_reason(exc)) from None
    except RecursionError:
        raise error(say("JSON nested too deeply")) from None
    except ValueError as exc:  # an integer of thousands of digits (int max str digits)
        raise error(say("broken JSON: a number has too many digits")) from None
    where = surrogate_field(data)
    if where is not None:
        raise error(say("%(where)s: text with a lone surrogate (not valid Unicode)", where=where))
    return data


# The reasons Python's JSON reader gives (json.decoder and its C scanner; the last two since
# Python 3.13), each a msgid in the same English words so that the catalogs say it: a player
# reads where the JSON breaks and why in the page's language (docs/web.md "Languages").
JSON_REASONS = frozenset((
    N_("Expecting value"), N_("Expecting property name enclosed in double quotes"), N_("Expecting ':' delimiter"),
    N_("Expecting ',' delimiter"), N_("Unterminated string starting at"), N_("Invalid control character at"),
    N_("Invalid \\escape"), N_("Invalid \\uXXXX escape"), N_("Extra data"),
    N_("Illegal trailing comma before end of object"), N_("Illegal trailing comma before end of array")))


def json_reason(exc: json.JSONDecodeError) -> Message:
    """Where and why ``exc`` found the text broken, as a Message: the reader's reason through
    JSON_REASONS, never its English as it is (a reason a later Python adds is left out, the
    place is said all the same)."""
    if exc.msg not in JSON_REASONS:
        return say("broken JSON at line %(line)s, column %(column)s", line=exc.lineno, column=exc.colno)
    return say("broken JSON at line %(line)s, column %(column)s: %(reason)s", line=exc.lineno, column=exc.colno,
               reason=say(exc.msg))


def surrogate_field(value, root: str = "the top level") -> str | None:
    """Where the first string (key or value) with a lone surrogate stands in parsed JSON, as a
    dotted path (``players.1``; ``root`` for the document itself), or None. Iterative: a
    document nested as deeply as the JSON reader allows must not overflow the stack here."""
    stack = [(value, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if not _encodable(item):
                return path or root
        elif isinstance(item, dict):
            for key, inner in reversed(item.items()):
                if not _encodable(key):
                    return path or root
                stack.append((inner, f"{path}.{key}" if path else key))
        elif isinstance(item, list):
            stack.extend((inner, f"{path}.{i}" if path else str(i)) for i, inner in reversed(list(enumerate(item))))
    return None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


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
