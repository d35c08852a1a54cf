"""The batch runner: independent tasks on Dask (``dask.distributed``), each result stored
the moment it reaches the client.

By default a LocalCluster of worker processes, one task at a time each (``workers``,
default one per core); with ``scheduler`` (``tcp://HOST:8786``) the same run goes to an
existing cluster (``dask scheduler`` and ``dask worker`` started by the user, docs/batch.md).

A task that raises comes back as a failed row with its message (caught on the worker, so
the others go on); a task whose worker died more often than Dask allows (KilledWorker) is
stored failed too. Ctrl-C or a killed client loses only the tasks in flight: every row is
committed when it arrives (nochmal/batch/store.py), and the next run skips stored keys.
"""

from __future__ import annotations

import itertools
import logging
import os
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Sequence

from pathlib import Path

from nochmal.batch.store import FAILED, OK, Store, check_store
from nochmal.errors import NochmalError, OptionError

CONNECT_TIMEOUT = 5.0  # seconds: an unreachable scheduler is an error, never a hang
WINDOW_PER_THREAD = 64  # tasks on the cluster at once per worker thread (at least WINDOW_MIN)
WINDOW_MIN = 256


def submit_window(threads: int) -> int:
    """How many tasks a run keeps on the cluster at once: enough that no worker waits for the
    client between tasks, few enough that the task graph stays small for any seed range."""
    return max(WINDOW_MIN, WINDOW_PER_THREAD * threads)


class SchedulerError(NochmalError):
    """The scheduler given cannot be reached."""


class MissingDaskError(NochmalError):
    """Dask is not installed: it is the ``batch`` extra (pyproject.toml), not in the default install."""


@dataclass(frozen=True)
class Task:
    """One independent unit: its store key and its settings (plain data, seed included)."""

    key: str
    settings: dict


class SeedTasks:
    """The tasks of a seed campaign, one per seed (key ``seed=N``, settings the campaign plus
    the seed), made only as the run reaches them: a million seeds never sit in the client as
    a million Task objects (about 0.5 GB). The ``lead`` seeds come first, in their order, then
    ``span``; a seed is listed once, where it first appears (so keys are unique)."""

    def __init__(self, campaign: dict, lead: Iterable[int] = (), span: range = range(0)):
        self.campaign = campaign
        self.lead = tuple(dict.fromkeys(lead))
        self.span = span
        self._lead_set = frozenset(self.lead)
        self._len = len(self.lead) + len(span) - sum(1 for s in self.lead if s in span)

    @staticmethod
    def key_of(seed: int) -> str:
        return f"seed={seed}"

    def __len__(self) -> int:
        return self._len

    def task_of(self, seed: int) -> Task:
        return Task(self.key_of(seed), {**self.campaign, "seed": seed})

    def __iter__(self) -> Iterator[Task]:
        for seed in self.lead:
            yield self.task_of(seed)
        for seed in self.span:
            if seed not in self._lead_set:
                yield self.task_of(seed)

    def seed_of(self, key: object) -> int | None:
        """The seed whose key ``key`` is, when it is one of these tasks' keys; else None."""
        if not isinstance(key, str) or not key.startswith("seed="):
            return None
        try:
            seed = int(key[len("seed="):])
        except ValueError:
            return None
        return seed if self.key_of(seed) == key and (seed in self._lead_set or seed in self.span) else None

    def __contains__(self, key: object) -> bool:
        """Is ``key`` one of these tasks' keys (a stored key: to count what is skipped)?"""
        return self.seed_of(key) is not None

    def key_set(self) -> "SeedKeySet":
        """An empty set of these tasks' keys, one byte per seed: a resumed run of a million
        stored seeds held them as strings at a client peak of 158 MiB, 66 MiB this way
        (benchmarks/bench_batch.py resume, benchmarks/RESULTS.md)."""
        return SeedKeySet(self)


class SeedKeySet:
    """Keys of one SeedTasks (set-like: add, discard, in, len): a byte per seed of the span,
    a small set for lead seeds outside it. Keys that are not the tasks' are never held."""

    def __init__(self, tasks: SeedTasks):
        self._tasks = tasks
        self._span = bytearray(len(tasks.span))
        self._others: set[int] = set()
        self._len = 0

    def _slot(self, key: object) -> tuple[int, int] | None:
        seed = self._tasks.seed_of(key)
        if seed is None:
            return None
        return (self._tasks.span.index(seed), seed) if seed in self._tasks.span else (-1, seed)

    def __contains__(self, key: object) -> bool:
        slot = self._slot(key)
        if slot is None:
            return False
        index, seed = slot
        return bool(self._span[index]) if index >= 0 else seed in self._others

    def _set(self, key: object, value: int) -> None:
        slot = self._slot(key)
        if slot is None:
            return
        index, seed = slot
        if index >= 0:
            self._len += value - self._span[index]
            self._span[index] = value
        elif value and seed not in self._others:
            self._others.add(seed)
            self._len += 1
        elif not value and seed in self._others:
            self._others.discard(seed)
            self._len -= 1

    def add(self, key: str) -> None:
        self._set(key, 1)

    def discard(self, key: str) -> None:
        self._set(key, 0)

    def __len__(self) -> int:
        return self._len

    def missing(self) -> Iterator[Task]:
        """The tasks whose keys are not held, in the tasks' order; a run of held span seeds is
        stepped over in one search (a resumed million-seed run reaches its first new seed at once)."""
        tasks = self._tasks
        for seed in tasks.lead:
            held = self._span[tasks.span.index(seed)] if seed in tasks.span else seed in self._others
            if not held:
                yield tasks.task_of(seed)
        index = self._span.find(0)
        while index >= 0:
            seed = tasks.span[index]
            if seed not in tasks._lead_set:
                yield tasks.task_of(seed)
            index = self._span.find(0, index + 1)


@dataclass
class RunSummary:
    total: int  # tasks asked for
    skipped: int  # already in the store
    ok: int  # finished in this run
    failed: int
    seconds: float  # wall clock of this run (cluster start included)
    workers: int
    threads: int  # CP-SAT threads per task


def execute(fn: Callable[[dict, int], dict], settings: dict, threads: int) -> dict:
    """Run one task on a worker: its result or its error, the seconds it took, where it ran."""
    from distributed import get_worker

    start = time.perf_counter()
    try:
        result, status, error = fn(settings, threads), OK, None
    except Exception as exc:  # a failing task is a result too (a failed row); the rest go on
        result, status, error = None, FAILED, f"{type(exc).__name__}: {exc}"
    try:
        worker = get_worker().address
    except ValueError:  # not on a worker (a direct call)
        worker = "local"
    return {"status": status, "result": result, "error": error,
            "seconds": time.perf_counter() - start, "worker": worker}


def default_threads(workers: int) -> int:
    """CP-SAT threads per task so that ``workers`` tasks at once fill this machine's cores."""
    return max(1, (os.cpu_count() or 1) // workers)


@contextmanager
def _workers_ignore_sigint():
    """Worker processes started inside inherit an ignored SIGINT: Ctrl-C in a terminal
    reaches the whole process group, and only the client should act on it (it cancels and
    closes the cluster); a worker would print a traceback as it dies."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


# The most worker processes (a local cluster) or CP-SAT threads (nochmal solve, analyse,
# batch --threads) a run may ask for: more than the machine's cores only slows a run down,
# each local worker is a process of its own (Python, OR-Tools and the bots: about 100 MB),
# and 64 is the core count of a large workstation (the benchmarks ran on 2 cores); a typo
# such as --workers 100000 is refused at once instead of starting processes until memory
# runs out. A bigger cluster is a Dask scheduler with its own workers (--scheduler).
MAX_WORKERS = 64


def check_workers(workers: int | None, option: str = "--workers") -> None:
    """``--workers`` sizes the local cluster (or a solve's threads): 1..MAX_WORKERS (0 must
    not mean "every core")."""
    if workers is not None and not 1 <= workers <= MAX_WORKERS:
        raise OptionError(f"{option} {workers}: must be 1..{MAX_WORKERS}")


def connect(scheduler: str | None, workers: int | None):
    """(client, cluster or None, worker count). An unreachable scheduler: SchedulerError
    after CONNECT_TIMEOUT seconds."""
    try:
        import dask
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise MissingDaskError("batch and bench run on Dask, which is not installed: "
                               "pip install -e '.[batch]' (or pip install 'nochmal[batch]')") from None

    check_workers(workers)
    if scheduler is None:
        count = workers or os.cpu_count() or 1
        # every task goes to a worker at once (no queue on the scheduler): a worker starts its
        # next task without a round trip to the scheduler, which halves the cost of short tasks
        # (benchmarks/RESULTS.md, "Batch runner"); work stealing still balances long ones
        # dashboard_address None still serves on 8787 and warns when that port is taken
        # (dask/distributed#8136): a random local port instead, never a warning
        with dask.config.set({"distributed.scheduler.worker-saturation": float("inf")}), _workers_ignore_sigint():
            cluster = LocalCluster(n_workers=count, threads_per_worker=1, processes=True,
                                   dashboard_address="127.0.0.1:0", silence_logs=logging.CRITICAL)
        return Client(cluster), cluster, count
    if workers is not None:
        raise OptionError("--workers sizes the local cluster; with --scheduler start as many `dask worker`s as you like")
    try:
        client = Client(scheduler, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        raise SchedulerError(f"--scheduler {scheduler}: cannot connect ({' '.join(str(exc).split()) or type(exc).__name__})") from None
    count = sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values())
    return client, None, count


class Cluster:
    """A connection to Dask kept open over several ``run_tasks`` calls (a driver that
    decides the next tasks from the last results, as the mission calibration does), so the
    local cluster starts once. Opened on first use: a run with nothing to do starts nothing."""

    def __init__(self, scheduler: str | None = None, workers: int | None = None):
        self.scheduler, self.workers = scheduler, workers
        self.client = self._cluster = None
        self.count = 0

    def connect(self):
        if self.client is None:
            self.client, self._cluster, self.count = connect(self.scheduler, self.workers)
        return self.client, self.count

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
        if self._cluster is not None:
            self._cluster.close()
        self.client = self._cluster = None

    def __enter__(self) -> "Cluster":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def run_tasks(tasks: Sequence[Task] | SeedTasks, fn: Callable[[dict, int], dict], store_path: Path, kind: str,
              campaign: dict, *, workers: int | None = None, scheduler: str | None = None,
              threads: int | None = None, retry_failed: bool = False,
              retry_ok: Callable[[dict], bool] | None = None,
              progress: Callable[[int, int], None] | None = None,
              on_start: Callable[[int, int, int], None] | None = None,
              cluster: Cluster | None = None) -> RunSummary:
    """Run the tasks not yet stored in ``store_path`` and store each as it finishes.

    The store is checked first and created only once the cluster is up, so a refused
    store or an unreachable scheduler writes nothing. ``progress(done, todo)`` after each
    stored row; ``on_start(todo, workers, threads)`` once the cluster is up. Ctrl-C
    (KeyboardInterrupt) cancels what is in flight and re-raises; what was stored stays.
    With ``cluster`` the run uses (and leaves open) that connection instead of its own.
    ``retry_ok(result)``: a finished row it holds true for runs again, its stored result
    passed to the task as ``settings["prior"]`` (the row keeps its settings without it).
    """
    start = time.perf_counter()
    if isinstance(tasks, SeedTasks):
        keys = tasks  # unique by construction; ``in`` without a set of every key
    else:
        keys = {t.key for t in tasks}
        if len(keys) != len(tasks):
            raise OptionError("task keys must be unique")
    check_store(store_path, kind, campaign)
    # the stored keys among these tasks' (a store may hold keys of other ranges)
    done_keys = tasks.key_set() if isinstance(tasks, SeedTasks) else set()
    priors: dict[str, dict] = {}  # key -> the stored result a retried task starts from
    if store_path.exists():
        existing = Store.read(store_path)
        compact = isinstance(done_keys, SeedKeySet)  # it drops other ranges' keys itself
        for key in existing.done_keys(retry_failed):
            if compact or key in keys:
                done_keys.add(key)
        if retry_ok is not None:
            priors = {key: result for key, result in existing.ok_results() if key in keys and retry_ok(result)}
            for key in priors:
                done_keys.discard(key)
        existing.close()
    skipped = len(done_keys)
    todo_count = len(tasks) - skipped
    summary = RunSummary(len(tasks), skipped, 0, 0, 0.0, 0, 0)
    if not todo_count:
        summary.seconds = time.perf_counter() - start
        return summary
    own = cluster is None
    if own:
        cluster = Cluster(scheduler, workers)
    client, count = cluster.connect()
    scheduler = cluster.scheduler
    summary.workers = count
    summary.threads = threads or (default_threads(count) if scheduler is None else 1)
    pending = set()
    store = None
    try:
        from dask.distributed import as_completed

        store = Store.open(store_path, kind, campaign)

        if on_start:
            on_start(todo_count, count, summary.threads)
        # a window of tasks on the cluster at once, submitted in chunks (one map call per chunk:
        # a submit per task costs a round trip to the client's loop); a million seeds never
        # become one task graph of every task's settings at once
        window = submit_window(count)
        queue = done_keys.missing() if isinstance(done_keys, SeedKeySet) else \
            (t for t in tasks if t.key not in done_keys)
        by_key: dict[str, Task] = {}

        def submit(n: int) -> list:
            chunk = list(itertools.islice(queue, n))
            if not chunk:
                return []
            sent = [{**t.settings, "prior": priors[t.key]} if t.key in priors else t.settings for t in chunk]
            new = client.map(execute, [fn] * len(chunk), sent,
                             [summary.threads] * len(chunk), pure=False)
            by_key.update((future.key, task) for future, task in zip(new, chunk))
            pending.update(new)
            return new

        # results are gathered in the background, in batches: no round trip per task
        results = as_completed(submit(window), with_results=True, raise_errors=False)
        for future, out in results:
            pending.discard(future)
            task = by_key.pop(future.key)
            if len(pending) <= window // 2:
                results.update(submit(window - len(pending)))
            if not isinstance(out, dict):  # KilledWorker, a task that cannot be unpickled, ...
                exc = out[1] if isinstance(out, tuple) else out  # (type, exception, traceback)
                out = {"status": FAILED, "result": None, "error": f"{type(exc).__name__}: {exc}",
                       "seconds": 0.0, "worker": "?"}
            future.release()
            store.record(task.key, task.settings, out["status"], out["result"], out["error"],
                         out["seconds"], out["worker"], summary.threads)
            if out["status"] == OK:
                summary.ok += 1
            else:
                summary.failed += 1
            if progress:
                progress(summary.ok + summary.failed, todo_count)
    finally:
        if pending:
            client.cancel(list(pending))  # nothing left in flight on the cluster after us
        if own:
            cluster.close()
        if store is not None:
            store.close()
    summary.seconds = time.perf_counter() - start
    return summary
