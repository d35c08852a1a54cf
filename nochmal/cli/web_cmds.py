"""`nochmal serve`: the web app (nochmal/web) under uvicorn, on localhost unless told otherwise."""

from __future__ import annotations

import ipaddress
import os
import re
import socket
from pathlib import Path
from typing import Optional

import typer

from nochmal.cli.common import console, err_console, guarded
from nochmal.errors import ServeError, StorageError

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
    this machine's is one ServeError line (uvicorn itself logs it and exits with code 3)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise ServeError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise ServeError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def is_local(host: str) -> bool:
    if host in LOCAL_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def trusted_proxies(values: list[str]) -> list[str]:
    """The --trusted-proxy addresses or networks, checked (uvicorn takes them as text)."""
    for value in values:
        try:
            ipaddress.ip_network(value, strict=False)
        except ValueError:
            raise typer.BadParameter(f"{value!r} is not an IP address or network (e.g. 127.0.0.1, 10.0.0.0/8)",
                                     param_hint="'--trusted-proxy'") from None
    return values


def origins(values: list[str]) -> list[str]:
    """The --allow-origin values, each scheme://name[:port] as a browser sends it."""
    for value in values:
        if not re.fullmatch(r"https?://[^/\s]+/?", value):
            raise typer.BadParameter(f"{value!r} is not an origin such as https://nochmal.example.org",
                                     param_hint="'--allow-origin'")
    return values


def announced_url(host: str, port: int) -> str:
    """The URL to open from other devices: for a server on every interface the machine's
    local-network address (never http://0.0.0.0), else the bound address."""
    from nochmal.web.hosts import is_wildcard, lan_address

    if is_wildcard(host):
        host = lan_address() or "127.0.0.1"
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


@guarded
def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind; anything but localhost is reachable by "
                             "others. 0.0.0.0: every interface (phones on the same wifi open the printed address)."),
    port: int = typer.Option(8000, "--port", min=1, max=65535, help="TCP port."),
    data: Optional[Path] = typer.Option(None, "--data", help="Folder for games, uploaded records, puzzle leaderboards and results "
                                        "(default $NOCHMAL_DATA or ~/.local/share/nochmal)."),
    allow_host: list[str] = typer.Option([], "--allow-host", metavar="NAME",
                                         help="Also answer to this host name (a DNS name or mDNS name such as "
                                              "laptop.local, the name behind a reverse proxy); repeatable. Requests "
                                              "naming any other host are refused (DNS rebinding)."),
    allow_origin: list[str] = typer.Option([], "--allow-origin", metavar="ORIGIN", callback=origins,
                                           help="Also accept changes from pages of this origin "
                                                "(https://nochmal.example.org behind a TLS proxy); repeatable."),
    trusted_proxy: list[str] = typer.Option([], "--trusted-proxy", metavar="ADDRESS", callback=trusted_proxies,
                                            help="Read the client's address and scheme from X-Forwarded-For/-Proto "
                                                 "only on connections from this proxy (address or network); "
                                                 "repeatable. Without it those headers are ignored."),
    database: Optional[str] = typer.Option(None, "--database", metavar="URL", envvar="NOCHMAL_DATABASE",
                                           help="Keep the table rooms and online games in PostgreSQL at this URL "
                                                "(postgresql://USER:PASSWORD@HOST:PORT/NAME; $NOCHMAL_DATABASE), "
                                                "shared by several servers; default: SQLite in --data "
                                                "(docs/deploy.md)."),
):
    """Start the web app: puzzles, play against bots, replays and analysis, and the JSON API.

    Open the printed URL in a browser (phone or laptop); the API is documented at /docs. Ctrl-C stops the server.

    Example: nochmal serve --port 8080

    Phones on the same wifi: nochmal serve --host 0.0.0.0 (then open the printed address on the phones)

    What others can do with the server, its limits, and a reverse proxy with TLS: docs/security.md

    Several servers on one PostgreSQL database: nochmal serve --database postgresql://nochmal@db/nochmal (docs/deploy.md)
    """
    import uvicorn

    from nochmal.web.app import create_app
    from nochmal.web.hosts import Access, is_wildcard, machine_addresses
    from nochmal.web.rooms import RoomSettings

    folder = data if data is not None else default_data_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"--data {folder}: cannot create the folder ({exc.strerror or exc})") from None
    if not folder.is_dir():
        raise StorageError(f"--data {folder}: not a folder")
    sock = bind(host, port)  # before anything is printed: a taken port is an error, not a served URL
    if not is_local(host):
        err_console.print(f"warning: --host {host} makes the app reachable from other machines; "
                          "it has no login, anyone who can reach it can play and upload records, and anyone on the network with a room's code can open that room",
                          markup=False, soft_wrap=True)
    names = [host, *allow_host, *(machine_addresses() if is_wildcard(host) else ())]
    url = announced_url(host, port)
    try:
        app = create_app(folder, access=Access.build(names, allow_origin), public_url=None if is_local(host) else url,
                         room_settings=RoomSettings(database=database) if database else None)
    except BaseException:  # a damaged data folder: the bound port is given back before the error line
        sock.close()
        raise
    console.print(f"nochmal web app on {url}  (data in {folder}; Ctrl-C stops it)", markup=False, soft_wrap=True)
    # proxy headers only from a named proxy: uvicorn trusts them from 127.0.0.1 by default, and
    # then anyone could name their own address for the per-address limits (docs/security.md)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on",
                            proxy_headers=bool(trusted_proxy), forwarded_allow_ips=trusted_proxy or None)
    server = uvicorn.Server(config)
    app.state.stopping = lambda: server.should_exit  # open live streams end on Ctrl-C (nochmal/web/rooms/api.py)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    console.print("server stopped", markup=False)
