"""Background jobs of the web app: the planner's solve and the analysis of a record (solo, or
one seat of a competitive record).

Each job runs in its own process (multiprocessing, forked from a fork server that has the
planner imported), so it can be stopped at any
moment without touching the server: cancelled by the user, killed at the time cap, or
stopped when nobody has asked for it for ``abandon_after`` seconds (the page polls its job
every second; a closed tab stops polling, and the job is stopped). The child sends progress
events (best score and bound as CP-SAT improves them, solves done) and the result as plain
JSON through a queue. At most ``max_running`` jobs run at once; the rest wait in order, at most
``max_waiting`` of them (then 503). The child stops CP-SAT by work done exactly when the
process that submitted the job does (missions/cpsolver.py ``by_work``; tests set it): the
fork server keeps the environment of its start, so the setting travels with the job.
Jobs live in memory only: a restarted server has none (the pages start them again).
"""

from __future__ import annotations

import multiprocessing
import os
import queue as queue_mod
import threading
import time
from dataclasses import dataclass, field

from nochmal.errors import NochmalError
from nochmal.i18n import Message, said, say
from nochmal.missions.cpsolver import BY_WORK, by_work
from nochmal.web.errors import WebError
from nochmal.web.games import check_id, new_id

QUEUED, RUNNING, DONE, FAILED, CANCELLED, TIMED_OUT, ABANDONED = (
    "queued", "running", "done", "failed", "cancelled", "timed out", "abandoned")
FINAL = (DONE, FAILED, CANCELLED, TIMED_OUT, ABANDONED)
KINDS = ("solve", "analyse")


@dataclass
class Job:
    id: str
    kind: str
    params: dict
    time_cap: float
    state: str = QUEUED
    progress: dict = field(default_factory=dict)
    result: dict | None = None
    error: Message | str | None = None  # said in the language of whoever reads it (to_json)
    created: float = field(default_factory=time.monotonic)
    started: float | None = None
    finished: float | None = None
    last_seen: float = field(default_factory=time.monotonic)
    stop_reason: str | None = None  # set by cancel / cap / abandon; the runner obeys it

    def to_json(self, lang: str = "en") -> dict:
        now = time.monotonic()
        elapsed = None
        if self.started is not None:
            elapsed = round((self.finished or now) - self.started, 2)
        return {"id": self.id, "kind": self.kind, "state": self.state, "done": self.state in FINAL,
                "elapsed": elapsed, "time_cap": self.time_cap, "progress": dict(self.progress),
                "result": self.result, "error": None if self.error is None else said(self.error, lang)}


def _child(kind: str, params: dict, out, work: bool = False) -> None:
    """The job's process: run the planner, stream progress, put the result (plain JSON);
    ``work``: its solvers stop by work done (the submitting process's ``by_work``)."""
    if work:
        os.environ[BY_WORK] = "1"
    try:
        if kind == "solve":
            from nochmal.board import load_board
            from nochmal.rules import RuleSettings
            from nochmal.solver.cpsat import solve
            from nochmal.solver.instance import Instance

            count = params["count"]
            if params.get("rolls") is not None:
                inst = Instance.from_rolls_json(params["rolls"], "rolls", load_board(params["board"]))
            else:
                inst = Instance.from_seed(params["seed"], load_board(params["board"]), RuleSettings(solo_rolls=count),
                                          count)

            def progress(ev) -> None:
                out.put(("progress", {"best": ev.objective, "bound": ev.bound, "seconds": round(ev.elapsed, 2)}))

            plan = solve(inst, time_limit=params["time_limit"], workers=params.get("workers", 2), progress=progress)
            data = plan.to_json()
            data["instance"] = inst.to_json()  # as `nochmal solve --json`
            out.put(("result", data))
        elif kind == "analyse":
            from nochmal.record import GameRecord
            from nochmal.solver.analyse import analyse

            record = GameRecord.from_json(params["record"], "record")
            total = len(record.rolls)
            done = []

            def on_solve(roll: int, plan) -> None:
                done.append(roll)
                out.put(("progress", {"solves_done": len(done), "solves_total": total,
                                      "best": getattr(plan, "total", None), "bound": getattr(plan, "bound", None)}))

            if record.needs_mission:  # the team's fewest rolls to win, roll by roll (nochmal analyse on it)
                from nochmal.solver.analyse import analyse_coop

                result = analyse_coop(record, time_limit=params["time_limit"], workers=params.get("workers", 2),
                                      on_solve=on_solve)
            elif params.get("seat") is None:
                result = analyse(record, time_limit=params["time_limit"], workers=params.get("workers", 2),
                                 on_solve=on_solve)
            else:  # one seat of a competitive record (nochmal analyse --seat N)
                from nochmal.solver.race import analyse_seat

                result = analyse_seat(record, params["seat"], time_limit=params["time_limit"],
                                      workers=params.get("workers", 2), on_solve=on_solve)
            out.put(("result", result.to_json()))
        else:  # pragma: no cover - the manager only submits known kinds
            out.put(("error", f"unknown job kind {kind!r}"))
    except Exception as exc:  # the child reports every failure as one line
        if isinstance(exc, NochmalError) and isinstance(exc.message, Message):  # said in the parent, for its reader
            out.put(("error", exc.message))
        else:
            out.put(("error", f"{type(exc).__name__}: {exc}" if not str(exc) else str(exc)))


PRELOAD = ["nochmal.solver.cpsat", "nochmal.solver.analyse", "nochmal.solver.race", "nochmal.record"]


def job_context():
    """A fork server that has imported the planner once (OR-Tools takes seconds to import):
    each job is then a fork of it, started in milliseconds, and never a fork of the
    multi-threaded web server. Spawn where there is no fork server (not POSIX)."""
    try:
        ctx = multiprocessing.get_context("forkserver")
    except ValueError:
        return multiprocessing.get_context("spawn")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx


class JobManager:
    """Submit, poll, cancel; a reaper stops jobs past their cap or without a poll."""

    def __init__(self, max_running: int = 1, time_cap: float = 120.0, abandon_after: float = 30.0,
                 keep: int = 200, max_waiting: int = 16):
        self.time_cap = time_cap
        self.max_waiting = max_waiting  # queued jobs at most: each is a thread, and a client may loop
        self.abandon_after = abandon_after
        self.keep = keep
        self.jobs: dict[str, Job] = {}
        self.lock = threading.Lock()
        self.slots = threading.Semaphore(max_running)
        self.ctx = job_context()
        self.closed = threading.Event()
        self.reaper = threading.Thread(target=self._reap, name="nochmal-job-reaper", daemon=True)
        self.reaper.start()

    # --- the API's verbs -------------------------------------------------------------------
    def submit(self, kind: str, params: dict, time_cap: float | None = None) -> Job:
        """Queue a job; ``time_cap`` (default the manager's) bounds its running time."""
        if kind not in KINDS:
            raise WebError(f"unknown job kind {kind!r}; kinds: {', '.join(KINDS)}", "kind")
        job = Job(new_id(), kind, params, time_cap if time_cap is not None else self.time_cap)
        with self.lock:
            waiting = sum(j.state == QUEUED and not j.stop_reason for j in self.jobs.values())
            if waiting >= self.max_waiting:
                raise WebError(say("the planner is busy: %(waiting)s jobs wait already; try again in a minute",
                                   waiting=waiting), "job", 503)
            self.jobs[job.id] = job
            finished = [j for j in self.jobs.values() if j.state in FINAL]
            for old in finished[: max(0, len(self.jobs) - self.keep)]:
                self.jobs.pop(old.id, None)
        threading.Thread(target=self._run, args=(job,), name=f"nochmal-job-{job.id[:6]}", daemon=True).start()
        return job

    def get(self, job_id: str) -> Job:
        check_id(job_id, "job")
        with self.lock:
            job = self.jobs.get(job_id)
        if job is None:
            raise WebError(say("no job %(id)s (jobs are kept in memory only)", id=repr(job_id)), "job", 404)
        job.last_seen = time.monotonic()
        return job

    def cancel(self, job_id: str) -> Job:
        job = self.get(job_id)
        if job.state not in FINAL:
            job.stop_reason = job.stop_reason or CANCELLED
        return job

    @staticmethod
    def grace(job: Job) -> float:
        """Seconds past the cap before a job is killed: the process start and the model
        building come on top of the solver's own time limit (which is at most the cap)."""
        return 10.0 + 0.25 * job.time_cap

    def shutdown(self) -> None:
        self.closed.set()
        with self.lock:
            for job in self.jobs.values():
                if job.state not in FINAL:
                    job.stop_reason = job.stop_reason or CANCELLED

    # --- running ---------------------------------------------------------------------------
    def _reap(self) -> None:
        while not self.closed.wait(0.5):
            now = time.monotonic()
            with self.lock:
                jobs = list(self.jobs.values())
            for job in jobs:
                if job.state in FINAL or job.stop_reason:
                    continue
                if now - job.last_seen > self.abandon_after:
                    job.stop_reason = ABANDONED
                elif job.started is not None and now - job.started > job.time_cap + self.grace(job):
                    job.stop_reason = TIMED_OUT

    def _finish(self, job: Job, state: str, error: Message | str | None = None) -> None:
        job.state = state
        job.error = error
        job.finished = time.monotonic()

    def _run(self, job: Job) -> None:
        while not self.slots.acquire(timeout=0.2):
            if job.stop_reason:
                self._finish(job, job.stop_reason)
                return
        try:
            if job.stop_reason:
                self._finish(job, job.stop_reason)
                return
            out = self.ctx.Queue()
            proc = self.ctx.Process(target=_child, args=(job.kind, job.params, out, by_work()), daemon=True)
            job.state, job.started = RUNNING, time.monotonic()
            proc.start()
            try:
                self._pump(job, proc, out)
            finally:
                if proc.is_alive():
                    proc.terminate()
                    proc.join(2)
                    if proc.is_alive():
                        proc.kill()
                        proc.join(2)
                out.close()
        finally:
            self.slots.release()

    def _pump(self, job: Job, proc, out) -> None:
        while True:
            if job.stop_reason:
                self._finish(job, job.stop_reason, stop_text(job))
                return
            try:
                kind, payload = out.get(timeout=0.2)
            except queue_mod.Empty:
                if not proc.is_alive():
                    try:  # the last message may have arrived just as the process ended
                        kind, payload = out.get(timeout=0.5)
                    except queue_mod.Empty:
                        self._finish(job, FAILED, say("the job's process ended without a result (exit code %(code)s)",
                                                                     code=proc.exitcode))
                        return
                else:
                    continue
            if kind == "progress":
                job.progress.update({k: v for k, v in payload.items() if v is not None})
            elif kind == "result":
                job.result = payload
                self._finish(job, DONE)
                return
            else:
                self._finish(job, FAILED, payload)
                return


def stop_text(job: Job) -> Message:
    """Why a job stopped, for its page (in the page's language: Job.to_json)."""
    if job.stop_reason == TIMED_OUT:
        return say("stopped: over the time cap of %(cap)s s", cap=format(job.time_cap, "g"))
    if job.stop_reason == ABANDONED:
        return say("stopped: nobody asked for this job any more (the page was closed)")
    return say("cancelled")
