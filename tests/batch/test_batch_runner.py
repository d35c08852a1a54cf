"""`nochmal batch`: the Dask runner and its resumable SQLite store.

The slow tests start real clusters: a LocalCluster of worker processes (the default) and a
`dask scheduler` with two `dask worker` processes on loopback, and interrupt a client with a
real SIGINT. Campaigns are tiny (4 rolls a seed: CP-SAT proves each in well under a second,
so the stored rows do not depend on the machine's load) and run on one CP-SAT thread.
"""

from __future__ import annotations

import json
import math
import os
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

import cloudpickle
import pytest
from hypothesis import given, settings
from hypothesis import strategies
from typer.testing import CliRunner

from nochmal.batch import report as report_module
from nochmal.batch.runner import SeedTasks, Task, run_tasks
from nochmal.batch.store import FAILED, OK, Store, StoreError, check_store
from nochmal.cli import app
from nochmal.rules import RuleSettings
from nochmal.solver.instance import Instance
from nochmal.solver.plan import Plan
from nochmal.solver.validate import validate

cli = CliRunner()
SEEDS = "1..6"
COUNT = 6
SOLVE_ARGS = ["--seeds", SEEDS, "--rolls-count", "4", "--time-limit", "20", "--threads", "1"]


def nochmal_cmd(*args: str) -> list[str]:
    """The installed console script (a subprocess gets real signals and its own cluster)."""
    script = Path(sys.executable).with_name("nochmal")
    if script.exists():
        return [str(script), *args]
    return [sys.executable, "-c", "from nochmal.cli import main; main()", *args]


def comparable(store_path: Path) -> list[tuple]:
    """The stored rows without what depends on timing or placement (seconds, worker)."""
    con = sqlite3.connect(store_path)
    try:
        rows = con.execute("SELECT key, settings, status, result, error FROM tasks ORDER BY key").fetchall()
    finally:
        con.close()
    out = []
    for key, settings, status, result, error in rows:
        data = json.loads(result) if result else None
        if data is not None:
            data.pop("solve_seconds")
            data["plan"].pop("wall_time")
            data["plan"].pop("note")
        out.append((key, json.loads(settings), status, data, error))
    return out


def check_plans(store_path: Path) -> None:
    """Every stored plan replays through the solver-free validator to its stored best."""
    st = Store.read(store_path)
    try:
        for row in st.rows():
            assert row.status == OK, row.error
            inst = Instance.from_seed(row.settings["seed"], "classic", RuleSettings(solo_rolls=4), 4)
            plan = validate(inst, Plan.from_json(row.result["plan"]))
            assert plan.total == row.result["best"]
            assert row.result["proven"] == (row.result["bound"] == row.result["best"])
    finally:
        st.close()


def run_cli(*args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run(nochmal_cmd(*args), capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def local_store(tmp_path_factory) -> Path:
    """The small campaign, uninterrupted, on the default local cluster (2 worker processes)."""
    path = tmp_path_factory.mktemp("local") / "local.sqlite"
    done = run_cli("batch", "solve", *SOLVE_ARGS, "--workers", "2", "--store", str(path), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ok"] == COUNT
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def dask_cluster(tmp_path):
    """`dask scheduler` and two `dask worker` processes on loopback; yields the address."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    procs = [subprocess.Popen([*dask, "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)]
    try:
        for _ in range(2):
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--no-dashboard",
                 "--local-directory", str(tmp_path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                cwd=tmp_path))
        from dask.distributed import Client

        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
        yield address
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()


def test_an_existing_cluster_stores_the_same_rows_as_the_local_runner(local_store, dask_cluster, tmp_path):
    remote = tmp_path / "remote.sqlite"
    done = run_cli("batch", "solve", *SOLVE_ARGS, "--scheduler", dask_cluster, "--store", str(remote), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["workers"] == 2
    assert len(comparable(local_store)) == COUNT
    assert comparable(remote) == comparable(local_store)
    check_plans(remote)
    con = sqlite3.connect(remote)
    workers = {w for (w,) in con.execute("SELECT worker FROM tasks")}
    con.close()
    assert all(w.startswith("tcp://127.0.0.1:") for w in workers)


def stored_count(path: Path) -> int:
    if not path.exists():
        return 0
    try:
        con = sqlite3.connect(path)
        try:
            return con.execute("SELECT count(*) FROM tasks").fetchone()[0]
        finally:
            con.close()
    except sqlite3.OperationalError:  # the tables are not made yet
        return 0


def test_a_campaign_interrupted_by_sigint_resumes_to_the_rows_of_an_uninterrupted_run(local_store, tmp_path):
    path = tmp_path / "resumed.sqlite"
    for _attempt in range(3):  # the interrupt must land while tasks remain (they take 0.03-3 s each)
        path.unlink(missing_ok=True)
        # one worker: the seeds run one after another, so Ctrl-C lands between them
        # SIGINT as in a terminal even when pytest runs in the background (where it is ignored
        # and children inherit that)
        proc = subprocess.Popen(nochmal_cmd("batch", "solve", *SOLVE_ARGS, "--workers", "1", "--store", str(path)),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                                start_new_session=True)
        deadline = time.monotonic() + 180
        while stored_count(path) < 1 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C in a terminal: the client and its workers
        _, err = proc.communicate(timeout=60)
        first = stored_count(path)
        if first < COUNT:
            break
    assert proc.returncode == 130, err
    assert "run the same command again to resume" in err
    assert "Traceback" not in err and "terminate called" not in err, err  # workers end quietly
    assert 1 <= first < COUNT, "the interrupt came too late to test anything"
    resumed = run_cli("batch", "solve", *SOLVE_ARGS, "--workers", "1", "--store", str(path), "--json")
    assert resumed.returncode == 0, resumed.stderr
    outcome = json.loads(resumed.stdout)
    assert (outcome["skipped"], outcome["ok"]) == (first, COUNT - first)
    assert comparable(path) == comparable(local_store)
    again = run_cli("batch", "solve", *SOLVE_ARGS, "--store", str(path), "--json")
    assert json.loads(again.stdout)["skipped"] == COUNT and json.loads(again.stdout)["ok"] == 0


def raise_on_two(settings: dict, threads: int) -> dict:
    """A task that fails for seed 2 and answers for the others."""
    if settings["seed"] == 2:
        raise ValueError("no luck with seed 2")
    return {"double": 2 * settings["seed"], "threads": threads}


def test_a_task_that_raises_is_stored_failed_with_its_message_and_the_others_finish(tmp_path):
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import tests/
    path = tmp_path / "failing.sqlite"
    tasks = [Task(f"seed={s}", {"kind": "test", "seed": s}) for s in range(1, 5)]
    try:
        summary = run_tasks(tasks, raise_on_two, path, "solve", {"kind": "test"}, workers=2, threads=1)
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    assert (summary.ok, summary.failed) == (3, 1)
    st = Store.read(path)
    rows = {r.key: r for r in st.rows()}
    st.close()
    assert rows["seed=2"].status == FAILED and rows["seed=2"].error == "ValueError: no luck with seed 2"
    assert rows["seed=2"].result is None
    for s in (1, 3, 4):
        assert rows[f"seed={s}"].status == OK and rows[f"seed={s}"].result == {"double": 2 * s, "threads": 1}
    # the same run again skips everything (failed included); --retry-failed would rerun seed 2 only
    assert run_tasks(tasks, raise_on_two, path, "solve", {"kind": "test"}).skipped == 4
    st = Store.read(path)
    assert set(st.done_keys(retry_failed=True)) == {"seed=1", "seed=3", "seed=4"}
    st.close()


def seed_back(settings: dict, threads: int) -> dict:  # noqa: ARG001
    return {"seed": settings["seed"]}


def test_a_long_range_is_submitted_in_windows_and_every_task_is_stored_once(tmp_path, monkeypatch):
    """A million seeds must not become one task graph: the runner keeps a window of tasks on
    the cluster and tops it up as results arrive; every task still runs once and is stored."""
    from distributed import Client

    from nochmal.batch import runner

    monkeypatch.setattr(runner, "submit_window", lambda threads: 8)
    chunks = []
    real_map = Client.map

    def counting_map(self, fn, *iterables, **kwargs):
        chunks.append(len(iterables[0]))
        return real_map(self, fn, *iterables, **kwargs)

    monkeypatch.setattr(Client, "map", counting_map)
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    tasks = [Task(f"seed={s}", {"seed": s}) for s in range(1, 51)]
    try:
        summary = run_tasks(tasks, seed_back, tmp_path / "w.sqlite", "solve", {"kind": "test"}, workers=2, threads=1)
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    assert (summary.ok, summary.failed) == (50, 0)
    assert sum(chunks) == 50 and max(chunks) <= 8 and len(chunks) > 50 // 8, chunks
    st = Store.read(tmp_path / "w.sqlite")
    assert sorted(r.result["seed"] for r in st.rows()) == list(range(1, 51))
    st.close()
    # resumed as a lazy seed range (lead seeds first, 3 listed twice): the 50 stored are skipped
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    try:
        summary = run_tasks(SeedTasks({}, [70, 3], range(1, 61)), seed_back, tmp_path / "w.sqlite", "solve",
                            {"kind": "test"}, workers=2, threads=1)
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    assert (summary.total, summary.skipped, summary.ok, summary.failed) == (61, 50, 11, 0)
    st = Store.read(tmp_path / "w.sqlite")
    assert sorted(r.result["seed"] for r in st.rows()) == list(range(1, 61)) + [70]
    st.close()


@settings(max_examples=200, deadline=None)
@given(lead=strategies.lists(strategies.integers(0, 40), max_size=8), first=strategies.integers(0, 30),
       size=strategies.integers(0, 20), probe=strategies.integers(-5, 60))
def test_seed_tasks_list_what_the_eager_list_would(lead, first, size, probe):
    """SeedTasks against the list it replaces (lead seeds, then the range, each seed once)."""
    campaign = {"kind": "test", "rolls": 4}
    span = range(first, first + size)
    eager = [Task(f"seed={s}", {**campaign, "seed": s}) for s in dict.fromkeys([*lead, *span])]
    lazy = SeedTasks(campaign, lead, span)
    assert list(lazy) == eager and len(lazy) == len(eager)
    keys = {t.key for t in eager}
    for key in (f"seed={probe}", f"seed=0{probe}", f"seed={probe}.0", "seed=", "seed=x", f"other={probe}", probe):
        assert (key in lazy) == (key in keys), key


@settings(max_examples=200, deadline=None)
@given(lead=strategies.lists(strategies.integers(0, 40), max_size=8), first=strategies.integers(0, 30),
       size=strategies.integers(0, 20),
       edits=strategies.lists(strategies.tuples(strategies.booleans(), strategies.integers(-3, 60),
                                                strategies.sampled_from(["seed={}", "seed=0{}", "x={}"])),
                              max_size=40))
def test_a_seed_key_set_holds_what_a_set_of_the_tasks_keys_would(lead, first, size, edits):
    """SeedKeySet (the runner's stored keys of a seed range) against a plain set filtered to
    the tasks' keys: the same membership and size after any adds and discards, and its
    missing tasks are the eager list's tasks not held, in order."""
    tasks = SeedTasks({"kind": "test"}, lead, range(first, first + size))
    eager = list(tasks)
    keys = {t.key for t in eager}
    compact, plain = tasks.key_set(), set()
    for add, seed, form in edits:
        key = form.format(seed)
        if add:
            compact.add(key)
            if key in keys:
                plain.add(key)
        else:
            compact.discard(key)
            plain.discard(key)
        assert len(compact) == len(plain)
    for task in eager:
        assert (task.key in compact) == (task.key in plain)
    assert "seed=x" not in compact and 7 not in compact
    assert list(compact.missing()) == [t for t in eager if t.key not in plain]


def test_a_million_seed_tasks_take_no_memory_until_reached():
    """The point of SeedTasks: a million-seed campaign is not a million Task objects in the
    client (the eager list took about 0.5 GB); the first window of tasks is made on demand."""
    import itertools
    import tracemalloc

    tracemalloc.start()
    try:
        tasks = SeedTasks({"kind": "test", "board": "x" * 1000}, [], range(1, 1_000_001))
        first = list(itertools.islice(iter(tasks), 256))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(tasks) == 1_000_000 and "seed=1000000" in tasks and "seed=1000001" not in tasks
    assert [t.settings["seed"] for t in first] == list(range(1, 257))
    assert peak < 1 << 20, peak


def die_once(settings: dict, threads: int) -> dict:
    """Seed 3 kills its worker process the first time it runs (as a crash or an OOM kill would)."""
    marker = Path(settings["marker"])
    if settings["seed"] == 3 and not marker.exists():
        marker.write_text("killed\n", encoding="utf-8")
        os._exit(1)
    return {"seed": settings["seed"]}


def test_a_killed_worker_costs_only_its_task_which_runs_again(tmp_path):
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    marker = tmp_path / "killed.txt"
    tasks = [Task(f"seed={s}", {"seed": s, "marker": str(marker)}) for s in range(1, 6)]
    try:
        summary = run_tasks(tasks, die_once, tmp_path / "k.sqlite", "solve", {"kind": "test"}, workers=2, threads=1)
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    assert marker.exists(), "no worker was killed"
    assert (summary.ok, summary.failed) == (5, 0)
    st = Store.read(tmp_path / "k.sqlite")
    assert [r.result for r in st.rows()] == [{"seed": s} for s in range(1, 6)]
    st.close()


def test_batch_bots_reports_the_figures_of_bench_bots(tmp_path):
    path = tmp_path / "bots.sqlite"
    args = ["--bots", "greedy,random", "--mode", "table", "--players", "2", "--seeds", "7..10"]
    done = run_cli("batch", "bots", *args, "--workers", "2", "--store", str(path))
    assert done.returncode == 0, done.stderr
    ours = json.loads(run_cli("batch", "report", str(path), "--json").stdout)["bench"]
    theirs = json.loads(run_cli("bench", "bots", *args, "--json").stdout)
    for a, b in zip(ours["bots"], theirs["bots"], strict=True):
        assert (a["bot"], a["games"], a["decisions"]) == (b["bot"], b["games"], b["decisions"])
        assert a["mean_score"] == pytest.approx(b["mean_score"]) and a["score_ci"] == pytest.approx(b["score_ci"])
        assert a["win_rate"] == pytest.approx(b["win_rate"]) and a["win_ci"] == pytest.approx(b["win_ci"])
    assert [(d["metric"], d["mean"], d["ci"]) for d in ours["paired"]] == pytest.approx(
        [(d["metric"], d["mean"], d["ci"]) for d in theirs["paired"]])


# --- bad input: one line, exit 1 or 2, nothing written -------------------------------------


@pytest.mark.parametrize("args, code, words", [
    (["--seeds", "5..1"], 2, "--seeds '5..1'"),
    (["--seeds", "a..b"], 2, "--seeds 'a..b'"),
    (["--seeds", "1..1000000000"], 2, "1000000000 seeds; at most 1,000,000"),  # refused before any list is built
    (["--seeds", "1..1000000000", "--daily", "2026-12-01..2026-12-02"], 2, "at most 1,000,000"),
    (["--seeds", "1..2", "--rolls-count", "31"], 2, "--rolls-count 31"),
    (["--seeds", "1..2", "--time-limit", "0"], 2, "--time-limit"),
    (["--seeds", "1..2", "--workers", "0"], 2, "--workers 0"),
    (["--seeds", "1..2", "--board", "nope"], 2, "--board"),
    (["--seeds", "1..2", "--scheduler", "tcp://127.0.0.1:9", "--workers", "2"], 2, "--workers"),
])
def test_bad_solve_options_are_one_line_and_write_nothing(tmp_path, args, code, words):
    store = tmp_path / "s.sqlite"
    result = cli.invoke(app, ["batch", "solve", *args, "--store", str(store)])
    assert result.exit_code == code, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], result.stderr
    assert not store.exists()


def test_an_unreachable_scheduler_fails_in_seconds_and_writes_nothing(tmp_path):
    """The connection gives up at the runner's own timeout (dask's error names it), not
    after dask's default or never: read from the error, not from a stopwatch."""
    from nochmal.batch.runner import CONNECT_TIMEOUT

    store = tmp_path / "s.sqlite"
    result = cli.invoke(app, ["batch", "solve", "--seeds", "1..2", "--scheduler", f"tcp://127.0.0.1:{free_port()}",
                              "--store", str(store)])
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: --scheduler tcp://127.0.0.1:") and "cannot connect" in result.stderr
    assert f"after {CONNECT_TIMEOUT:g} s" in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not store.exists()


def test_bad_bots_options(tmp_path):
    store = tmp_path / "b.sqlite"
    for args, words in ((["--bots", "greedy,nobody"], "unknown bot 'nobody'"),
                        (["--mode", "race"], "--mode 'race'"),
                        (["--seeds", "0..1000000"], "1000001 seeds; at most 1,000,000"),
                        (["--mode", "table", "--players", "5"], "--players 5"),
                        (["--mode", "table", "--players", "2", "--bots", "greedy,random,heuristic"], "do not fit")):
        result = cli.invoke(app, ["batch", "bots", "--store", str(store), *args])
        assert result.exit_code == 2 and words in result.stderr, (args, result.stderr)
    assert not store.exists()


def make_store(path: Path, kind: str = "solve", campaign: dict | None = None) -> Store:
    return Store.open(path, kind, campaign or {"board": "classic", "rolls_count": 4, "time_limit": 1.0})


def test_a_store_refuses_another_kind_version_campaign_or_a_foreign_file(tmp_path):
    campaign = {"board": "classic", "rolls_count": 4, "time_limit": 1.0}
    make_store(tmp_path / "s.sqlite").close()
    check_store(tmp_path / "s.sqlite", "solve", campaign)  # its own campaign is fine
    before = (tmp_path / "s.sqlite").read_bytes()
    with pytest.raises(StoreError, match="a 'solve' store, not a 'bots' one"):
        check_store(tmp_path / "s.sqlite", "bots", campaign)
    with pytest.raises(StoreError, match="another campaign's settings"):
        check_store(tmp_path / "s.sqlite", "solve", {**campaign, "time_limit": 2.0})
    con = sqlite3.connect(tmp_path / "s.sqlite")
    with con:
        con.execute("UPDATE meta SET value = '0' WHERE key = 'settings_version'")
    con.close()
    with pytest.raises(StoreError, match="settings version 0"):
        check_store(tmp_path / "s.sqlite", "solve", campaign)
    (tmp_path / "notes.txt").write_text("hello\n", encoding="utf-8")
    with pytest.raises(StoreError, match="not a nochmal batch store"):
        check_store(tmp_path / "notes.txt", "solve", campaign)
    other = tmp_path / "other.sqlite"
    con = sqlite3.connect(other)
    with con:
        con.execute("CREATE TABLE meta (key TEXT, value TEXT)")
    con.close()
    with pytest.raises(StoreError, match="not a nochmal batch store"):
        check_store(other, "solve", campaign)
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "hello\n"
    assert len(before) > 0
    result = cli.invoke(app, ["batch", "solve", "--seeds", "1..2", "--rolls-count", "4", "--time-limit", "2",
                              "--store", str(tmp_path / "s.sqlite")])
    assert result.exit_code == 1 and result.stderr.startswith("error: ") and "settings" in result.stderr


# --- the report: figures against a second computation -------------------------------------


def test_report_figures_and_histogram_match_the_stored_rows(tmp_path):
    path = tmp_path / "r.sqlite"
    st = make_store(path)
    bests = [12, 15, 15, 9, 20, 15, 11]
    for seed, best in enumerate(bests, 1):
        proven = seed % 3 != 0
        st.record(f"seed={seed}", {"seed": seed}, OK,
                  {"best": best, "bound": best if proven else best + 4, "proven": proven, "status": "x",
                   "solve_seconds": seed / 10, "plan": {}}, None, seed / 5, "w", 1)
    st.record("seed=99", {"seed": 99}, FAILED, None, "RuntimeError: out of luck", 0.5, "w", 1)
    st.close()
    result = cli.invoke(app, ["batch", "report", str(path), "--json", "--svg", str(tmp_path / "h.svg")])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["tasks"], data["ok"], data["failed"]) == (8, 7, 1)
    assert data["failures"] == [{"key": "seed=99", "error": "RuntimeError: out of luck"}]
    assert data["best"]["mean"] == pytest.approx(statistics.mean(bests))
    # 95 % CI half-width: t(6) = 2.447 times the standard error
    assert data["best"]["ci"] == pytest.approx(2.447 * statistics.stdev(bests) / math.sqrt(len(bests)))
    assert data["proven"]["count"] == 5 and data["proven"]["rate"] == pytest.approx(5 / 7)
    assert data["solve_seconds"]["max"] == pytest.approx(0.7)
    assert data["solve_seconds"]["p50"] == pytest.approx(0.4)
    svg = (tmp_path / "h.svg").read_text(encoding="utf-8")
    import re

    counts: dict[str, dict[int, int]] = {}
    for name, s, n in re.findall(r'data-series="([^"]+)" data-score="(-?\d+)" data-count="(\d+)"', svg):
        counts.setdefault(name, {})[int(s)] = int(n)
    proven_bests = [b for seed, b in enumerate(bests, 1) if seed % 3 != 0]
    assert counts == {report_module.BEST_SERIES: {b: bests.count(b) for b in set(bests)},
                      report_module.PROVEN_SERIES: {b: proven_bests.count(b) for b in set(proven_bests)}}
    # --json drops the raw scores but keeps their counts: every best score, and the proven ones
    assert "scores" not in data
    assert data["distribution"] == [{"score": b, "seeds": bests.count(b), "proven": proven_bests.count(b)}
                                    for b in sorted(set(bests))]
    assert sum(d["proven"] for d in data["distribution"]) == data["proven"]["count"]
    table = cli.invoke(app, ["batch", "report", str(path)], env={"COLUMNS": "200"})
    assert table.exit_code == 0 and "5 (71.4" in table.stdout and "failed seed=99" in table.stdout
    rows = {line.split("│")[1].strip(): line.split("│")[2].strip() for line in table.stdout.splitlines()
            if line.count("│") == 3}
    assert rows["seeds per best score (score:seeds)"] == "9:1, 11:1, 12:1, 15:3, 20:1"
    assert rows["proven seeds per score"] == "9:1, 11:1, 12:1, 15:1, 20:1"  # of the 15s, seeds 3 and 6 unproven


def test_percentiles_against_sorting():
    values = [5.0, 1.0, 3.0, 2.0, 4.0]
    assert report_module.percentile(values, 0.5) == 3.0
    assert report_module.percentile(values, 1.0) == 5.0
    assert report_module.percentile(values, 0.9) == pytest.approx(4.6)


def test_report_of_a_missing_or_foreign_file_is_one_line(tmp_path):
    (tmp_path / "x.txt").write_text("x", encoding="utf-8")
    for name in ("missing.sqlite", "x.txt"):
        result = cli.invoke(app, ["batch", "report", str(tmp_path / name)])
        assert result.exit_code == 1 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert not (tmp_path / "missing.sqlite").exists()


def test_report_of_a_calibrate_store_counts_games_per_mission(tmp_path):
    """A calibrate store (kind 'calibrate') once crashed the report with KeyError 'bots'."""
    path = tmp_path / "c.sqlite"
    st = Store.open(path, "calibrate", {"calibration": 1})
    games = [("lockstep", 2, 1, True, 40), ("lockstep", 2, 2, False, 31), ("lockstep", 3, 1, True, 55),
             ("star-hunt", 1, 1, False, 12)]
    for mission, players, seed, met, score in games:
        settings = {"mission": mission, "players": players, "bot": "greedy", "seed": seed, "budget": 16,
                    "target": None, "stop": True}
        st.record(f"{mission}/{players}p/seed={seed}", settings, OK,
                  {"met": met, "rolls": 16, "team_score": score}, None, 0.1, "w", 1)
    st.close()
    result = cli.invoke(app, ["batch", "report", str(path), "--json", "--svg", str(tmp_path / "h.svg")])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["kind"] == "calibrate"
    assert data["games"] == [{"mission": "lockstep", "players": 2, "games": 2, "met": 1},
                             {"mission": "lockstep", "players": 3, "games": 1, "met": 1},
                             {"mission": "star-hunt", "players": 1, "games": 1, "met": 0}]
    assert (tmp_path / "h.svg").read_text(encoding="utf-8").count('class="bar"') == 4
    table = cli.invoke(app, ["batch", "report", str(path)])
    assert table.exit_code == 0 and "star-hunt" in table.stdout, table.stderr


def test_report_optima_leaves_out_seeds_without_a_bound_and_the_file_loads(tmp_path):
    """A seed whose solve stopped before any bound (bound None) was written as "bound": null,
    a file nochmal/puzzles.py then refuses (ValueError when a solo game ends)."""
    from nochmal.puzzles import parse_optima

    path = tmp_path / "s.sqlite"
    campaign = {"board": "classic", "rolls_count": 30, "time_limit": 1.0}
    st = Store.open(path, "solve", campaign)
    for seed, best, bound, status in ((1, 30, None, "unknown"), (2, 40, 48, "feasible"), (3, 44, 44, "optimal")):
        st.record(f"seed={seed}", {**campaign, "seed": seed}, OK,
                  {"best": best, "bound": bound, "proven": bound == best, "status": status, "solve_seconds": 1.0,
                   "plan": {}}, None, 1.0, "w", 1)
    st.record("seed=4", {**campaign, "seed": 4}, FAILED, None, "RuntimeError: x", 1.0, "w", 1)
    st.close()
    out = tmp_path / "optima.json"
    result = cli.invoke(app, ["batch", "report", str(path), "--optima", str(out)])
    assert result.exit_code == 0, result.stderr
    assert "optima of 2 seed(s)" in result.stdout and "1 without a proven bound" in result.stdout
    settings, table = parse_optima(json.loads(out.read_text(encoding="utf-8")), str(out))
    assert settings == {"board": "classic", "rolls": 30, "time_limit": 1.0}
    assert {s: (o.best, o.bound, o.proven) for s, o in table.items()} == {2: (40, 48, False), 3: (44, 44, True)}


def proven_if_even(settings: dict, threads: int) -> dict:  # noqa: ARG001
    return {"seed": settings["seed"], "proven": settings["seed"] % 2 == 0, "prior": settings.get("prior")}


def test_retry_ok_runs_only_the_rows_it_picks_with_their_stored_result_as_prior(tmp_path):
    """retry_ok (``batch solve --retry-unproven``): the finished rows it holds true for run
    again, each handed its stored result; the others stay; the stored settings stay without it."""
    path = tmp_path / "r.sqlite"
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    try:
        first = run_tasks(SeedTasks({}, span=range(1, 7)), proven_if_even, path, "solve", {"kind": "test"},
                          workers=1, threads=1)
        again = run_tasks(SeedTasks({}, span=range(1, 7)), proven_if_even, path, "solve", {"kind": "test"},
                          workers=1, threads=1, retry_ok=lambda result: not result["proven"])
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    assert (first.ok, again.total, again.skipped, again.ok) == (6, 6, 3, 3)
    st = Store.read(path)
    rows = {r.settings["seed"]: r for r in st.rows()}
    st.close()
    for seed, row in rows.items():
        assert "prior" not in row.settings
        if seed % 2:  # retried: its prior is the first run's result (which had no prior)
            assert row.result["prior"] == {"seed": seed, "proven": False, "prior": None}
        else:
            assert row.result["prior"] is None


def test_a_retried_solve_keeps_the_better_plan_and_the_lower_bound():
    """solve_task with a prior (a stored unproven result): never a worse plan, never a higher
    bound than the prior's, proven exactly when they meet, the plan valid for the seed."""
    from nochmal.batch.tasks import solve_task

    settings = {"board": "classic", "rolls_count": 30, "time_limit": 1.0, "seed": 11}
    prior = solve_task(settings, 1)
    retried = solve_task({**settings, "time_limit": 0.2, "prior": prior}, 1)
    assert retried["best"] >= prior["best"] and retried["runs"] == 2
    if prior["bound"] is not None:
        assert retried["bound"] is not None and retried["bound"] <= prior["bound"]
    assert retried["proven"] == (retried["bound"] == retried["best"])
    inst = Instance.from_seed(11, "classic", RuleSettings(solo_rolls=30), 30)
    plan = validate(inst, Plan.from_json(retried["plan"]))
    assert (plan.total, plan.bound) == (retried["best"], retried["bound"])
    # a prior plan that is not this seed's is refused, never merged
    other = solve_task({**settings, "seed": 12, "time_limit": 0.2}, 1)
    with pytest.raises(Exception, match="seed=11"):
        solve_task({**settings, "time_limit": 0.2, "prior": other}, 1)
