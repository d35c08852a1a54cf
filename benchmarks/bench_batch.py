"""The batch runner's own cost (nochmal/batch/runner.py): overhead per task and scaling.

- ``overhead``: N trivial tasks (they return at once) through the runner and the store; the
  wall time from the cluster being up to the last row committed, per task. The SQLite
  commit per row (the part the client pays) is timed alone too.
- ``scaling``: a CPU-bound campaign (each task spins a fixed pure-Python loop, no I/O) with
  1 and then 2 worker processes; the throughput ratio. Cluster start-up is left out of the
  rates (it is printed).
- ``window``: a long range of trivial tasks whose settings carry a board's TOML (as a
  ``batch bots`` campaign's do), stopped after ``--stop-after`` stored rows: the time to the
  first row (from the call, and after the cluster is up) and to the last, and the client's
  peak memory. The tasks are a lazy ``SeedTasks`` range as the CLI's; ``--eager`` gives the
  list of Task objects it replaced.
- ``resume``: a store already holding ``--tasks`` finished rows (written in one transaction
  here), then a run over those seeds and 100 more, stopped after ``--stop-after`` rows: the
  time to the first new row and the client's peak memory (what a resumed million-seed
  campaign costs before it runs anything).

Run niced and small on a shared machine, and note the load (``uptime``):

    nice -n 10 python benchmarks/bench_batch.py overhead --tasks 300
    nice -n 10 python benchmarks/bench_batch.py scaling --tasks 16 --spin 3000000
    nice -n 10 python benchmarks/bench_batch.py window --tasks 100000 --workers 2 [--eager]
    nice -n 10 python benchmarks/bench_batch.py resume --tasks 1000000 --workers 2 --stop-after 50
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

from nochmal.batch.runner import SeedTasks, Task, run_tasks
from nochmal.batch.store import OK, Store


def trivial(settings: dict, threads: int) -> dict:  # noqa: ARG001
    return {"seed": settings["seed"]}


def spin(settings: dict, threads: int) -> dict:  # noqa: ARG001
    """A fixed amount of pure-Python work (the same for every task)."""
    total = 0
    for i in range(settings["spin"]):
        total += i * i % 7
    return {"total": total}


def timed_run(fn, tasks: list[Task], workers: int, folder: Path, name: str) -> tuple[float, float]:
    """(seconds from cluster up to last row, seconds in all)."""
    marks: dict[str, float] = {}
    start = time.perf_counter()
    run_tasks(tasks, fn, folder / f"{name}.sqlite", "solve", {"bench": name}, workers=workers, threads=1,
              on_start=lambda *_: marks.setdefault("up", time.perf_counter()))
    end = time.perf_counter()
    return end - marks["up"], end - start


def overhead(args) -> None:
    tasks = [Task(f"seed={s}", {"seed": s}) for s in range(args.tasks)]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for workers in args.workers:
            run, total = timed_run(trivial, tasks, workers, folder, f"trivial{workers}")
            print(f"overhead: {args.tasks} trivial tasks, {workers} worker(s): {run:.2f} s after start-up "
                  f"({1000 * run / args.tasks:.2f} ms/task wall), start-up {total - run:.2f} s")
        store = Store.open(folder / "commits.sqlite", "solve", {"bench": "commits"})
        start = time.perf_counter()
        for s in range(args.tasks):
            store.record(f"seed={s}", {"seed": s}, OK, {"best": s}, None, 0.0, "local", 1)
        per = (time.perf_counter() - start) / args.tasks
        store.close()
        print(f"store: {1000 * per:.2f} ms per committed row ({args.tasks} rows)")


def scaling(args) -> None:
    tasks = [Task(f"seed={s}", {"seed": s, "spin": args.spin}) for s in range(args.tasks)]
    start = time.process_time()
    spin(tasks[0].settings, 1)
    print(f"one task in this process: {time.process_time() - start:.2f} CPU s")
    rates = {}
    with tempfile.TemporaryDirectory() as tmp:
        for workers in args.workers:
            run, total = timed_run(spin, tasks, workers, Path(tmp), f"spin{workers}")
            rates[workers] = args.tasks / run
            print(f"scaling: {args.tasks} tasks, {workers} worker(s): {run:.2f} s after start-up "
                  f"({rates[workers] * 60:.1f} tasks/min), start-up {total - run:.2f} s")
    if 1 in rates and 2 in rates:
        print(f"2 workers / 1 worker throughput: {rates[2] / rates[1]:.2f}x")


def window(args) -> None:
    board = (Path(__file__).resolve().parent.parent / "boards" / "classic.toml").read_text(encoding="utf-8")
    marks: dict[str, float] = {"call": time.perf_counter()}
    tasks = SeedTasks({"board_toml": board}, span=range(args.tasks))
    if args.eager:
        tasks = list(tasks)

    def progress(done: int, todo: int) -> None:  # noqa: ARG001
        marks.setdefault("first", time.perf_counter())
        if done >= args.stop_after:
            marks["last"] = time.perf_counter()
            raise KeyboardInterrupt  # (the runner cancels what is in flight and re-raises)

    with tempfile.TemporaryDirectory() as tmp:
        try:
            run_tasks(tasks, trivial, Path(tmp) / "window.sqlite", "solve", {"bench": "window"},
                      workers=args.workers[0], threads=1,
                      on_start=lambda *_: marks.setdefault("up", time.perf_counter()), progress=progress)
        except KeyboardInterrupt:
            pass
    last = marks.get("last", time.perf_counter())
    print(f"window: {args.tasks} {'eager' if args.eager else 'lazy'} tasks ({len(board)} characters of board each), "
          f"{args.workers[0]} worker(s): first row {marks['first'] - marks['call']:.2f} s after the call, "
          f"{marks['first'] - marks['up']:.2f} s after start-up, {min(args.stop_after, args.tasks)} rows "
          f"{last - marks['up']:.2f} s; client peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


def resume(args) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "resume.sqlite"
        store = Store.open(path, "solve", {"bench": "resume"})
        with store.con:  # one transaction: the rows a long earlier run would have left
            store.con.executemany("INSERT INTO tasks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                  ((SeedTasks.key_of(s), f'{{"seed":{s}}}', OK, f'{{"seed":{s}}}', None, 0.0,
                                    "local", 1, 0.0) for s in range(args.tasks)))
        store.close()
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        marks: dict[str, float] = {"call": time.perf_counter()}

        def progress(done: int, todo: int) -> None:  # noqa: ARG001
            marks.setdefault("first", time.perf_counter())
            if done >= args.stop_after:
                raise KeyboardInterrupt

        try:
            summary = run_tasks(SeedTasks({}, span=range(args.tasks + 100)), trivial, path, "solve",
                                {"bench": "resume"}, workers=args.workers[0], threads=1, progress=progress,
                                on_start=lambda *_: marks.setdefault("up", time.perf_counter()))
            print(f"resume: skipped {summary.skipped}, ran {summary.ok}")
        except KeyboardInterrupt:
            pass
    print(f"resume: {args.tasks} stored rows + 100 new, {args.workers[0]} worker(s): cluster up "
          f"{marks['up'] - marks['call']:.2f} s after the call, first new row {marks['first'] - marks['call']:.2f} s; "
          f"client peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB "
          f"({rss_before:.0f} MiB before the run)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["overhead", "scaling", "window", "resume"])
    ap.add_argument("--tasks", type=int, default=200)
    ap.add_argument("--spin", type=int, default=3_000_000, help="loop steps per task (scaling)")
    ap.add_argument("--workers", default="1,2", help="worker counts to run, e.g. 1,2 (window: the first)")
    ap.add_argument("--stop-after", type=int, default=5000, help="rows after which the window run stops")
    ap.add_argument("--eager", action="store_true", help="window: a list of Task objects, not a lazy SeedTasks")
    args = ap.parse_args()
    args.workers = [int(w) for w in args.workers.split(",")]
    print(f"load: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores")
    {"overhead": overhead, "scaling": scaling, "window": window, "resume": resume}[args.what](args)


if __name__ == "__main__":
    main()
