"""Table rooms under load (docs/rooms.md): propagation, status time, and a kill-and-restart count.

Prints figures, asserts nothing. Three parts, each bounded in count and time:

1. **Propagation**: a real server process on loopback; ``--rooms`` rooms (lockstep, 4
   players) with 4 clients each. Every client holds its room's event stream open and
   taps its own sheet ``--edits`` times (``PATCH .../sheet``, the tap the room page sends: one
   cell more each time, a random pause of ``--pause-min``..``--pause-max`` seconds between
   taps: a player crossing cells after a roll), all rooms at once, after a warm-up (every
   room's status computed once, so the status child process has started; one dice entry, so
   the advice child has too). For every acknowledged tap and every OTHER client of the room:
   the time from sending the tap to that client receiving the ``sheet`` event. Meanwhile a
   phone of each room enters the roll's dice ``--dice`` times (``PUT .../dice``, twice the
   taps' pauses apart): the time from sending it until EVERY phone of the room has the
   ``dice`` event with the advice (docs/rooms.md, this roll's advice). Also the round trips
   and the server times of the PATCH, the dice PUT and ``GET /api/rooms/{id}`` (the app's
   ``Server-Timing`` header) under that load. ``--servers N --database URL``: N server
   processes on one PostgreSQL database (docs/rooms.md, Several servers), phone c of room i
   on server (i + c) mod N; the taps seen on another server than the one they were made
   through are summarised apart, and the taps acknowledged per second printed. The phones
   (benchmarks/room_phones.py, ``--phones lean`` by default, ``httpx`` the first ones) stand
   for phones elsewhere; their CPU here is the benchmark's. Between the first tap and the
   last one's events, the CPU per edit of every process on one line ("CPU ms per edit:
   key=ms ..."): the servers, their children (the status and advice workers), PostgreSQL
   (the postmaster and its children; only with ``--database auto``, else "not-counted"), the
   phones, and the rest of the machine (from /proc/stat: another user's work, the kernel).
2. **Room status**, in this process (what the server's status child runs): a 4-seat room
   of each shipped mission (``--missions``: some), after its empty room's status (untimed,
   as the server computes it at creation; it pays the imports too); after each single-seat
   edit, the quick status (what GET answers at once), the full status with the per-sheet
   caches warm (only the edited sheet is new), and a cold full status (every cache cleared).
   Each mission draws its own edits (seeded by ``--seed`` and its id). ``--detail`` prints
   every edit's time and split; ``--answers FILE`` writes every full status's figures, and
   ``--compare OLD NEW`` checks two such files (an old and a new tree: equal, or inside the
   old bounds).
3. **Kill and restart**: a server process, 4 seats writing edits as fast as they are
   answered (taps of one cell each), SIGKILL after ``--kill-after`` seconds, restart on the
   same data folder; edits acknowledged vs edits found.

``--pg-sweep``: part 1 on PostgreSQL, 1 server against 2 (one write lock / a lock per room)
at several tap rates; the highest rate each holds within ``--p95`` and the ratios
(``pg_sweep``). ``--database auto`` starts a throw-away cluster for the run; ``--json`` adds
one line ``JSON {...}`` a script parses.

Usage:  nice -n 10 python benchmarks/bench_rooms.py [--rooms 20] [--edits 12] [--dice 4] [--kill-after 2]
        [--servers 2 --database postgresql://...]
        nice -n 10 python benchmarks/bench_rooms.py --pg-sweep --database auto --edits 8 --json
            [--pauses 0.3:1.2,0.2:0.8,0.15:0.6,0.12:0.48,0.1:0.4] [--phones httpx]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from rooms_support import free_port, stop, wait_up  # noqa: E402  (the tests' own: a port, up, stopped)
from servers_support import shared_server  # noqa: E402  (a server process, on SQLite or a shared database)
from room_phones import PHONES, run_phones  # noqa: E402  (part 1's phones)

CELLS = [f"{c}{r}" for c in "HGIJFKE" for r in range(1, 8)]  # a growing sheet: column H first


def pct(values: list[float], q: float) -> float:
    if not values:  # (e.g. no cold status with fewer than 4 edits)
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(values: list[float], unit: str = "ms") -> str:
    if not values:
        return "no samples"
    return (f"n={len(values)}  p50 {pct(values, 0.5):.1f} {unit}  p95 {pct(values, 0.95):.1f} {unit}  "
            f"max {max(values):.1f} {unit}")


def start_server(data_dir: Path, port: int) -> subprocess.Popen:
    """The web app as `nochmal serve` builds it, without the room-creation rate limit and the
    per-address stream cap (every simulated phone comes from 127.0.0.1): one server on SQLite."""
    return shared_server(data_dir, port)


def stop_server(proc: subprocess.Popen) -> None:
    """Ctrl-C, as a person stops it; killed if it has not stopped within 30 s."""
    stop(proc, 30)


def cpu_split(servers: list[int], phones: list[int], postmaster: int | None) -> dict[str, float]:
    """CPU seconds so far (Linux /proc, user + system) of the servers, their children (the
    status and advice workers), PostgreSQL (the postmaster and its children: None, not
    counted), the phones' processes, and everything else on the machine."""
    table = {}  # pid -> (parent, its CPU and its waited-for children's)
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # (gone meanwhile)
            continue
        table[int(stat.parent.name)] = (int(fields[1]), sum(map(int, fields[11:15])) / os.sysconf("SC_CLK_TCK"))
    kids: dict[int, list[int]] = {}
    for pid, (parent, _) in table.items():
        kids.setdefault(parent, []).append(pid)

    def tree(pid: int) -> float:
        return table.get(pid, (0, 0.0))[1] + sum(tree(k) for k in kids.get(pid, ()))

    out = {"servers": sum(table.get(p, (0, 0.0))[1] for p in servers),
           "server_children": sum(tree(k) for p in servers for k in kids.get(p, ())),
           "postgresql": tree(postmaster) if postmaster else None,
           "phones": sum(tree(p) for p in phones)}
    busy = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    total = (sum(busy) - busy[3] - busy[4]) / os.sysconf("SC_CLK_TCK")  # all but idle and iowait
    out["rest"] = total - sum(v for v in out.values() if v is not None)
    return out


def cpu_line(per_edit: dict) -> str:
    """The CPU split per edit on one line (a script may parse it: ``key=ms`` pairs)."""
    return "CPU ms per edit: " + " ".join(f"{key}={'not-counted' if value is None else f'{value:.2f}'}"
                                          for key, value in per_edit.items())


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --- 1. propagation: the phones in benchmarks/room_phones.py ---------------------------------------


# --- 2. status time -------------------------------------------------------------------------------
STATUS_CACHES = ("missions.", "impossible.")  # what a full status remembers (the board's layout ids stay)


def clear_caches() -> list:
    """Clear every cache the full status keeps between calls (nochmal/cache.py: the caches and
    the memos registered under STATUS_CACHES); returns the caches' contents, for
    :func:`restore_caches` (the warm series goes on as a server's status child would, which
    never clears them: measured right after a clear, the next warm edits lost the sheets'
    earlier states and took 2-3x as long). The memos are only cleared, as they always were."""
    from nochmal import cache, impossible  # noqa: F401 (imported: their caches register)
    from nochmal.missions import objectives, split  # noqa: F401
    from nochmal.missions.measures import fits, pair_bounds, rolls  # noqa: F401

    saved = []  # (a shallow copy: the entries are never changed in place)
    for prefix in STATUS_CACHES:
        saved.extend((c, c.snapshot()) for c in cache.caches(prefix).values())
        cache.clear_caches(prefix)
    return saved


def restore_caches(saved: list) -> None:
    """Put back what :func:`clear_caches` cleared (the cold status's own entries go)."""
    for cache, contents in saved:
        cache.clear()
        cache.update(contents)


def figures(doc: dict) -> dict:
    """The answers of a full status (what a faster path must not change): state, per objective
    and sheet the fewest-crosses interval, the split's rolls interval, the score bounds."""
    team = doc.get("team") or {}
    split = team.get("split") or {}
    return {"state": doc["state"],
            "crosses": [[None if c is None else [c["lower"], c["upper"]] for c in o["fewest_crosses"]]
                        for o in doc["objectives"]],
            "split": [split.get("rolls_lower"), split.get("rolls_upper")],
            "score_bounds": [b["best_reachable"] for b in team.get("score_bounds", [])]}


def compare_answers(old_file: str, new_file: str) -> None:
    """Old vs new answers (files written by --answers in two trees): equal, or new inside old's
    bounds (tighter), or different (a wrong answer in one of them)."""
    import json

    try:
        old, new = json.loads(Path(old_file).read_text()), json.loads(Path(new_file).read_text())
    except (OSError, ValueError) as exc:
        raise SystemExit(f"error: --compare: cannot read an answers file: {exc}")

    def inside(a, b) -> bool:  # interval b within interval a
        return a is not None and b is not None and a[0] is not None and a[0] <= b[0] <= b[1] <= a[1]

    equal = tighter = 0
    for key in sorted(old.keys() & new.keys()):
        o, n = old[key], new[key]
        pairs = [(a, b) for ro, rn in zip(o["crosses"], n["crosses"]) for a, b in zip(ro, rn)] + [(o["split"], n["split"])]
        if o == n:
            equal += 1
        elif all(a == b or inside(a, b) for a, b in pairs) and o["score_bounds"] == n["score_bounds"] and \
                (o["state"] == n["state"] or (o["split"] != n["split"] and n["state"] == "lost")):
            tighter += 1
            print(f"  tighter {key}: split {o['split']} -> {n['split']}, state {o['state']} -> {n['state']}")
        else:
            print(f"  DIFFERENT {key}: {o} -> {n}")
    print(f"{len(old.keys() & new.keys())} statuses: {equal} equal, {tighter} tighter (inside the old bounds), "
          f"{len(old.keys() & new.keys()) - equal - tighter} different")


def status_times(edits: int, seed: int, only: list[str] | None = None, detail: bool = False,
                 answers: str | None = None) -> None:
    from nochmal.missions.loader import builtin_missions
    from nochmal.web.rooms.model import RoomSpec, SheetState
    from nochmal.web.rooms.status import full_status, quick_status
    from nochmal.web.rooms.store import Room, Seat
    from nochmal.board import load_board
    from ortools.sat.python import cp_model  # noqa: F401  (imported once in the status child's life, untimed:
    # a room's first status no longer always runs CP-SAT, and its first tap would pay the import)
    from nochmal.web.rooms import status

    if hasattr(status, "preload_searches"):  # what the status child does at its start (older trees: not)
        status.preload_searches()

    board = load_board("classic")
    print(f"{'mission':14} {'quick (GET) ms':>22} {'full, warm caches ms':>26} {'full, cold ms':>22}")
    found: dict[str, dict] = {}
    for mission in builtin_missions():
        if only and mission.id not in only:
            continue
        rng = random.Random(f"{seed}-{mission.id}")  # each mission's own edits, whichever missions run
        spec = RoomSpec("mission", "classic", 4, mission.id, "normal")
        # untimed: the new room's own status (4 empty sheets), as the server computes it when the
        # room is created; it also pays the imports (OR-Tools, numpy, networkx) that the status
        # child process pays once in its life
        full_status(Room("bench", spec, 10, 0, 0.0, 0.0, tuple(Seat(s, f"P{s}", SheetState(0), 0) for s in range(4))))
        states = [0] * 4
        anchored = [board.start_mask] * 4
        quick, warm, cold = [], [], []
        for k in range(edits):
            seat = k % 4
            for _ in range(3):  # three legal crosses on this seat's sheet
                open_anchored = [b for b in range(board.n_cells)
                                 if anchored[seat] >> b & 1 and not states[seat] >> b & 1]
                bit = rng.choice(open_anchored)
                states[seat] |= 1 << bit
                anchored[seat] |= board.neighbour_mask[bit]
            room = Room("bench", spec, 10 + k, k, 0.0, 0.0,
                        tuple(Seat(s, f"P{s}", SheetState(states[s]), k) for s in range(4)))
            t = time.perf_counter()
            quick_status(room)
            quick.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            doc = full_status(room)
            warm.append((time.perf_counter() - t) * 1000)
            found[f"{mission.id}/{k + 1}"] = figures(doc)
            if detail:
                team = (doc.get("team") or {}).get("split") or {}
                print(f"  {mission.id} edit {k + 1}: {warm[-1]:.1f} ms; split rolls {team.get('rolls_lower')}.."
                      f"{team.get('rolls_upper')} ({team.get('method')})")
            if k % 4 == 3:
                saved = clear_caches()
                t = time.perf_counter()
                full_status(room)
                cold.append((time.perf_counter() - t) * 1000)
                restore_caches(saved)
        print(f"{mission.id:14} {pct(quick, 0.5):9.1f} / {pct(quick, 0.95):6.1f} p95 "
              f"{pct(warm, 0.5):11.1f} / {pct(warm, 0.95):7.1f} p95 {pct(cold, 0.5):9.1f} / {pct(cold, 0.95):7.1f} p95")
    if answers:
        import json

        Path(answers).write_text(json.dumps(found, indent=1))


# --- 3. kill and restart ---------------------------------------------------------------------------
async def kill_and_restart(kill_after: float) -> tuple[int, int, int]:
    """(edits acknowledged, of those found after the restart, unanswered edits found too)."""
    data = Path(tempfile.mkdtemp(prefix="bench-rooms-"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = start_server(data, port)
    wait_up(url)
    acked = [-1] * 4
    async with httpx.AsyncClient(base_url=url, timeout=5) as http:
        code = (await http.post("/api/rooms", json={"mode": "competitive", "players": 4})).json()["id"]
        tokens = [(await http.post(f"/api/rooms/{code}/seats", json={"name": f"P{k}"})).json()["seat_token"]
                  for k in range(4)]
        cells = [f"{c}{r}" for r in range(1, 8) for c in "ABCDEFGHIJKLMNO"]

        async def writer(seat: int) -> None:
            seen = 0  # the seat's sheet version the phone shows
            for k in range(len(cells)):
                try:  # a tap as the room page sends it: one cell more
                    res = await http.patch(f"/api/rooms/{code}/seats/{seat}/sheet",
                                           json={"cross": [cells[k]], "version": seen},
                                           headers={"Authorization": f"Bearer {tokens[seat]}"})
                except httpx.HTTPError:
                    return
                if res.status_code != 200:
                    return
                seen = res.json()["sheet_version"]
                acked[seat] = k

        tasks = [asyncio.create_task(writer(s)) for s in range(4)]
        await asyncio.sleep(kill_after)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        await asyncio.gather(*tasks, return_exceptions=True)
    proc = start_server(data, port)
    try:
        wait_up(url)
        room = httpx.get(f"{url}/api/rooms/{code}").json()
        found_acked = extra = 0
        for seat in range(4):
            held = len(room["seats"][seat]["cells"]) - 1
            found_acked += min(held, acked[seat]) + 1
            extra += max(0, held - acked[seat])
        return sum(a + 1 for a in acked), found_acked, extra
    finally:
        stop_server(proc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=20, help="rooms of 4 clients each (default 20)")
    parser.add_argument("--edits", type=int, default=12, help="taps per client (default 12)")
    parser.add_argument("--dice", type=int, default=4, help="dice entries per room (default 4; 0: none)")
    parser.add_argument("--limit", type=float, default=120.0, help="time limit of the load part, seconds")
    parser.add_argument("--status-edits", type=int, default=8, help="edits per mission in the status part")
    parser.add_argument("--kill-after", type=float, default=2.0, help="seconds of edits before the SIGKILL")
    parser.add_argument("--pause-min", type=float, default=1.0, help="least pause between a client's taps, s")
    parser.add_argument("--pause-max", type=float, default=4.0, help="longest pause between a client's taps, s")
    parser.add_argument("--client-procs", type=int, default=4, help="processes the clients run in (default 4)")
    parser.add_argument("--phones", choices=sorted(PHONES), default="lean", help="part 1: the simulated phones "
                        "(benchmarks/room_phones.py; default lean, httpx: the first ones)")
    parser.add_argument("--parts", default="123", help="which parts to run (default 123)")
    parser.add_argument("--missions", default="", help="part 2: only these missions (comma-separated ids)")
    parser.add_argument("--detail", action="store_true", help="part 2: print every edit's time and split")
    parser.add_argument("--answers", metavar="FILE", help="part 2: write every full status's figures to FILE (JSON)")
    parser.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"),
                        help="only compare two --answers files (e.g. of an old and a new tree) and exit")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--servers", type=int, default=1, help="part 1: server processes (more than 1: --database)")
    parser.add_argument("--database", help="part 1: a postgresql:// URL the servers share (auto: a throw-away "
                        "cluster, tests/pg_support.py)")
    parser.add_argument("--pg-sweep", action="store_true", help="part 1 on PostgreSQL: 1 server, 2 servers with one "
                        "write lock, 2 with a lock per room, at each of --pauses (needs --database)")
    parser.add_argument("--pauses", default="0.5:2,0.25:1,0.12:0.5", help="--pg-sweep: tap pauses MIN:MAX, comma-separated")
    parser.add_argument("--p95", type=float, default=500.0, help="--pg-sweep: the p95 bound of a tap reaching the "
                        "other phones, ms (default 500)")
    parser.add_argument("--json", action="store_true", help="part 1 / --pg-sweep: also one line 'JSON {...}' of figures")
    args = parser.parse_args()
    if args.compare:
        compare_answers(*args.compare)
        return
    for name in ("rooms", "edits", "status_edits"):
        if getattr(args, name) < 1:
            raise SystemExit(f"error: --{name.replace('_', '-')} must be at least 1")
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1/5/15 min), "
          f"{os.cpu_count()} cores, python {sys.version.split()[0]}")

    cluster = None
    if args.database == "auto":
        args.database, cluster = throwaway_database()
        args.pg_pid = int((cluster.data / "postmaster.pid").read_text().split()[0])  # its CPU counted
    try:
        if args.pg_sweep:
            out = pg_sweep(args)
            if args.json:
                print("JSON " + json.dumps(out[0], separators=(",", ":")))
            return
        if "1" in args.parts:
            fig = load_part(args)
            if args.json:
                print("JSON " + json.dumps(fig, separators=(",", ":")))
    finally:
        if cluster is not None:
            cluster.stop()
    if "2" in args.parts:
        print(f"\n2. room status of a 4-seat room, {args.status_edits} single-seat edits per mission (p50 / p95)")
        status_times(args.status_edits, args.seed, [m for m in args.missions.split(",") if m], args.detail, args.answers)
    if "3" in args.parts:
        print(f"\n3. kill and restart after {args.kill_after:g} s of edits from 4 seats")
        acked, found, extra = asyncio.run(kill_and_restart(args.kill_after))
        print(f"  edits acknowledged {acked}, found after the restart {found} (unanswered edits also stored: {extra})")


def load_part(args, quiet: bool = False) -> dict:
    """Part 1 once; its figures (``--json``: also printed as one JSON line)."""
    if not quiet:
        print(f"\n1. propagation: {args.rooms} rooms x 4 clients, {args.edits} taps each "
              f"({args.pause_min:g}-{args.pause_max:g} s apart) and {args.dice} dice entries per room (twice as far "
              f"apart), loopback, clients in {args.client_procs} process(es)")
    data = Path(tempfile.mkdtemp(prefix="bench-rooms-"))
    ports = [free_port() for _ in range(args.servers)]
    # on a database (one server too): one data folder and one database, the live updates through
    # it (docs/rooms.md, Several servers); else one server on SQLite
    procs = [shared_server(data, port, args.database) for port in ports] if args.database else \
        [start_server(data, ports[0])]
    cpu = {}
    try:
        for port in ports:
            wait_up(f"http://127.0.0.1:{port}")
        r = run_phones(",".join(f"http://127.0.0.1:{port}" for port in ports), args,
                       lambda step, phones: cpu.__setitem__(step, cpu_split([p.pid for p in procs], phones,
                                                                            getattr(args, "pg_pid", None))))
    finally:
        for proc in procs:
            stop_server(proc)
    per_edit = {key: None if cpu["ready"][key] is None else
                round((cpu["done"][key] - cpu["ready"][key]) / max(1, r["edits"]) * 1000, 2) for key in cpu["ready"]}
    figures_ = {"servers": args.servers, "database": "postgresql" if args.database else "sqlite",
                "write_lock": "one" if os.environ.get(ONE_LOCK_ENV) == "1" else "per room",
                "pause": [args.pause_min, args.pause_max], "edits": r["edits"], "elapsed_s": round(r["elapsed"], 2),
                "taps_per_s": round(r["edits"] / r["elapsed"], 2), "missing": r["missing"], "errors": len(r["errors"]),
                "p50_ms": round(pct(r["delays"], 0.5), 1), "p95_ms": round(pct(r["delays"], 0.95), 1),
                "cross_p95_ms": round(pct(r["cross"], 0.95), 1) if r["cross"] else None,
                "patch_server_p95_ms": round(pct(r["put_server"], 0.95), 1),
                "server_cpu_ms_per_edit": per_edit["servers"], "cpu_ms_per_edit": per_edit, "phones": args.phones,
                "load_1min": round(os.getloadavg()[0], 2)}
    if quiet:
        return figures_
    print(f"  {r['edits']} edits acknowledged in {r['elapsed']:.1f} s; deliveries to the other 3 clients missing: "
          f"{r['missing']}; client errors: {len(r['errors'])} {sorted(set(r['errors']))}")
    print("  " + cpu_line(per_edit))
    print(f"  tap -> other phones:   {summary(r['delays'])}")
    if args.servers > 1:
        print(f"  ... on another server: {summary(r['cross'])}")
        print(f"  taps acknowledged per second: {r['edits'] / r['elapsed']:.1f}")
    print(f"  tap round trip:        {summary(r['taps'])}")
    print(f"  PATCH sheet server time: {summary(r['put_server'])}")
    print(f"  GET room server time:  {summary(r['get_server'])}")
    print(f"  {r['dice']} dice entries acknowledged; entries some phone missed: {r['dice_missing']}")
    print(f"  dice -> advice on every phone of the room: {summary(r['advice'])}")
    print(f"  PUT dice round trip:   {summary(r['dice_answers'])}")
    print(f"  PUT dice server time:  {summary(r['dice_server'])}")
    return figures_


ONE_LOCK_ENV = "NOCHMAL_PG_ONE_WRITE_LOCK"  # the servers' writes under one lock, as before the per-room locks (store_pg.py)
PG_SETUPS = (("1 server", 1, False), ("2 servers, one write lock", 2, True), ("2 servers, a lock per room", 2, False))


def pg_sweep(args) -> list[dict]:
    """``--pg-sweep``: part 1 on PostgreSQL for each setup of PG_SETUPS at each pause of
    ``--pauses`` (shorter pauses: more taps a second), the setups alternated within each
    pause, so a load that drifts over the run touches them alike; a line per run, then
    for each setup the highest tap rate whose p95 (tap -> other phones, status included)
    stayed within ``--p95``, and the ratios to one server."""
    import copy

    runs = []
    pauses = [tuple(float(x) for x in item.split(":")) for item in args.pauses.split(",")]
    print(f"\nPostgreSQL sweep: {args.rooms} rooms x 4 phones, {args.edits} taps each, pauses {args.pauses} s, "
          f"p95 bound {args.p95:g} ms")
    for low, high in pauses:
        for name, servers, one_lock in PG_SETUPS:
            run = copy.copy(args)
            run.servers, run.pause_min, run.pause_max, run.dice = servers, low, high, 0
            os.environ[ONE_LOCK_ENV] = "1" if one_lock else "0"
            fig = {"setup": name, **load_part(run, quiet=True)}
            runs.append(fig)
            print(f"  {name:28} pause {low:g}-{high:g} s: {fig['taps_per_s']:6.1f} taps/s  p95 {fig['p95_ms']:7.1f} ms  "
                  f"across servers p95 {fig['cross_p95_ms']}  missing {fig['missing']}  load {fig['load_1min']}; "
                  f"{cpu_line(fig['cpu_ms_per_edit'])}", flush=True)
    os.environ.pop(ONE_LOCK_ENV, None)
    best = {}
    for name, _, _ in PG_SETUPS:
        within = [r["taps_per_s"] for r in runs if r["setup"] == name and r["p95_ms"] <= args.p95 and not r["missing"]]
        best[name] = max(within) if within else None
    one = best[PG_SETUPS[0][0]]
    print(f"  highest tap rate with p95 <= {args.p95:g} ms: " +
          "; ".join(f"{name} {rate if rate is not None else '-'}" for name, rate in best.items()))
    ratios = {name: round(rate / one, 2) if rate and one else None for name, rate in best.items()}
    print("  ratio to 1 server: " + "; ".join(f"{name} {ratio if ratio is not None else '-'}"
                                             for name, ratio in ratios.items()))
    return [{"runs": runs, "best_taps_per_s": best, "ratio_to_one_server": ratios, "p95_bound_ms": args.p95}]


def throwaway_database():
    """``--database auto``: a PostgreSQL cluster of the tests' kind (tests/pg_support.py: a
    temporary folder, a Unix socket, fsync off) for this run; (its URL, the cluster to stop)."""
    from pg_support import PostgresCluster

    cluster = PostgresCluster().start()
    return cluster.new_database("bench"), cluster


if __name__ == "__main__":
    main()
