"""A real PostgreSQL server for the tests: Debian's `postgresql` package (the README's test
command installs it), a throw-away cluster made with ``initdb`` in a temporary folder and
started with ``pg_ctl``, listening only on a Unix socket in that folder (no port to race for
between the xdist workers). PostgreSQL refuses to run as root: as root the cluster belongs to
the package's ``postgres`` user and its programmes run through ``runuser``.

Durability is switched off (fsync, synchronous_commit): the tests check what the stores commit
and read back, not the disk; a crash of the test server loses nothing a test needs.

Tests that need the database never skip: a missing package fails them with the command to run."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest

MISSING = ("PostgreSQL's server programmes (initdb, pg_ctl) were not found: "
           "apt-get install -y postgresql (see the README's test command)")


def bin_dir() -> Path | None:
    """The folder of initdb and pg_ctl: pg_config's answer, else Debian's versioned folders
    (newest first), else the PATH."""
    candidates = []
    if shutil.which("pg_config"):
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True)
        if out.returncode == 0:
            candidates.append(Path(out.stdout.strip()))
    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                                           key=lambda p: int(Path(p).parent.name) if Path(p).parent.name.isdigit() else 0,
                                           reverse=True)]
    if shutil.which("initdb"):
        candidates.append(Path(shutil.which("initdb")).resolve().parent)
    for folder in candidates:
        if (folder / "initdb").exists() and (folder / "pg_ctl").exists():
            return folder
    return None


OWNER = "owner.pid"  # in a cluster's folder: the process that made it (a test worker, a benchmark)


def stop_orphans() -> list[Path]:
    """The clusters of runs that died (killed before their fixture stopped them: SIGKILL, a
    hang guard) stopped and removed: a folder whose owner process is gone. Clusters of live
    runs (other workers, other sessions) are left alone, and so are folders without an owner
    file (made before it existed: look at them by hand). The folders removed."""
    removed = []
    for folder in map(Path, glob.glob("/tmp/nochmal-pg-*")):
        try:
            owner = int((folder / OWNER).read_text())
        except (OSError, ValueError):
            continue
        if _alive(owner):
            continue
        pg_ctl = (bin_dir() or Path("/nonexistent")) / "pg_ctl"
        if (folder / "data" / "postmaster.pid").exists() and pg_ctl.exists():
            cmd = [str(pg_ctl), "-D", str(folder / "data"), "-m", "immediate", "-w", "stop"]
            if os.geteuid() == 0:
                cmd = ["runuser", "-u", "postgres", "--", *cmd]
            subprocess.run(cmd, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's: alive
        return True
    return True


class PostgresCluster:
    """One cluster in its own folder; ``url(db)`` names a database on it, ``new_database()``
    makes an empty one (a few tens of ms) and returns its URL."""

    def __init__(self):
        self.bin = bin_dir()
        if self.bin is None:
            pytest.fail(MISSING, pytrace=False)
        self.as_root = os.geteuid() == 0
        self.user = "postgres" if self.as_root else None
        # in /tmp, not $TMPDIR: a Unix socket's path is limited to ~100 bytes, and the postgres
        # user must reach the folder (a root's private $TMPDIR would hide it)
        stop_orphans()
        self.folder = Path(tempfile.mkdtemp(prefix="nochmal-pg-", dir="/tmp" if os.path.isdir("/tmp") else None))
        (self.folder / OWNER).write_text(str(os.getpid()))
        self.data = self.folder / "data"
        if self.as_root:
            shutil.chown(self.folder, user="postgres")
        self.superuser = "nochmal"

    def _run(self, *args: str) -> subprocess.CompletedProcess:
        cmd = [str(self.bin / args[0]), *args[1:]]
        if self.as_root:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            log = self.folder / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{' '.join(cmd)} failed ({out.returncode}):\n{out.stdout}\n{out.stderr}\n{tail}")
        return out

    def start(self) -> "PostgresCluster":
        self._run("initdb", "-D", str(self.data), "-U", self.superuser, "--auth=trust",
                  "--encoding=UTF8", "--locale=C", "--no-sync")
        self.resume()
        return self

    def resume(self) -> None:
        """The server (again) on the cluster's folder."""
        options = (f"-c listen_addresses='' -c unix_socket_directories='{self.folder}' "
                   "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                   "-c max_connections=200")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.folder / "server.log"),
                  "-o", options, "-w", "start")

    def halt(self) -> None:
        """The server stopped, its commits kept (a fast shutdown: the clients' connections cut)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        """A libpq URL for ``database`` over the cluster's socket."""
        return f"postgresql://{self.superuser}@/{database}?host={quote(str(self.folder), safe='')}"

    def new_database(self, prefix: str = "t") -> str:
        """An empty database of its own; its URL."""
        import psycopg

        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
        return self.url(name)

    def __enter__(self) -> "PostgresCluster":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
