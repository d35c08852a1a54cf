"""`nochmal serve`: the web app (nochmal/web) under uvicorn, on localhost unless told otherwise."""

from __future__ import annotations

import ipaddress
import os
import socket
from pathlib import Path
from typing import Optional

import typer

from nochmal.cli.common import console, err_console, guarded
from nochmal.errors import NochmalError

LOCAL_HOSTS = ("localhost",)


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)


def default_data_dir() -> Path:
    """Where games, uploaded records and jobs are kept: $NOCHMAL_DATA, else the user's
    data folder ($XDG_DATA_HOME or ~/.local/share) / nochmal."""
    if os.environ.get("NOCHMAL_DATA"):
        return Path(os.environ["NOCHMAL_DATA"])
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "nochmal"


def bind(host: str, port: int) -> socket.socket:
    """A listening address for uvicorn, bound here: a port in use or an address that is not
    this machine's is one NochmalError line (uvicorn itself logs it and exits with code 3)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise NochmalError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise NochmalError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def is_local(host: str) -> bool:
    if host in LOCAL_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@guarded
def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind; anything but localhost is reachable by others."),
    port: int = typer.Option(8000, "--port", min=1, max=65535, help="TCP port."),
    data: Optional[Path] = typer.Option(None, "--data", help="Folder for games, uploaded records and results "
                                        "(default $NOCHMAL_DATA or ~/.local/share/nochmal)."),
):
    """Start the web app: puzzles, play against bots, replays and analysis, and the JSON API.

    Open the printed URL in a browser (phone or laptop); the API is documented at /docs.
    Ctrl-C stops the server.

    Example: nochmal serve --port 8080
    """
    import uvicorn

    from nochmal.web.app import create_app

    folder = data if data is not None else default_data_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise NochmalError(f"--data {folder}: cannot create the folder ({exc.strerror or exc})") from None
    if not folder.is_dir():
        raise NochmalError(f"--data {folder}: not a folder")
    sock = bind(host, port)  # before anything is printed: a taken port is an error, not a served URL
    if not is_local(host):
        err_console.print(f"warning: --host {host} makes the app reachable from other machines; "
                          "it has no login, anyone who can reach it can play and upload records, and anyone on the network with a room's code can open that room",
                          markup=False, soft_wrap=True)
    app = create_app(folder)
    shown = f"[{host}]" if ":" in host else host
    console.print(f"nochmal web app on http://{shown}:{port}/  (data in {folder}; Ctrl-C stops it)",
                  markup=False, soft_wrap=True)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    console.print("server stopped", markup=False)
