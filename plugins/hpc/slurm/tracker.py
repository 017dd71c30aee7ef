"""Following Slurm jobs: kept in the workspace store, polled with one squeue per host.

A tracked job is a run of kind "slurm_job" in the store, so a restarted app (or another process
on the same workspace) follows the same jobs. A poll that cannot reach a host, or whose controller
does not answer (slurmctld restarting), keeps every job's last state and marks it unreachable;
only Slurm itself ever makes a job FAILED.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any, NamedTuple

from workbench.core.events import Event
from workbench.core.store import Store
from workbench_plugins.hpc.remote import RemoteCommandFailed, RemoteShell
from workbench_plugins.hpc.slurm.client import SlurmClient, SlurmError, group_by_job
from workbench_plugins.hpc.slurm.events import SlurmJobsUpdated
from workbench_plugins.hpc.slurm.jobs import JobRow, JobState, TrackedJob
from workbench_plugins.hpc.slurm.script import expand_output_pattern
from workbench_plugins.hpc.ssh.errors import SshFailure

log = logging.getLogger(__name__)

RUN_KIND = "slurm_job"
# Polls in a row in which no Slurm command knew a job, before it is shown UNKNOWN.
MISSES_BEFORE_UNKNOWN = 3
# What a poll survives without a verdict on the jobs: a lost connection, a controller restarting.
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (
    SshFailure,
    SlurmError,
    RemoteCommandFailed,
    OSError,
    EOFError,
)
_ACTIVE_ORDER = (
    JobState.RUNNING,
    JobState.COMPLETING,
    JobState.SUSPENDED,
    JobState.PENDING,
    JobState.UNKNOWN,
)


class Summary(NamedTuple):
    state: JobState
    reason: str
    exit_code: str | None
    elapsed: str
    name: str


def _seconds(elapsed: str) -> int:
    """'1-02:03:04', '02:03:04', '3:04' (as squeue prints them) -> seconds; 0 when unreadable."""
    days, _, clock = elapsed.rpartition("-")
    try:
        total = 0
        for part in clock.split(":"):
            total = total * 60 + int(part)
        return total + int(days or 0) * 86400
    except ValueError:
        return 0


def summarize(tasks: list[JobRow]) -> Summary:
    """One state for a job or an array: still going while any task is; once all ended,
    COMPLETED only if every task did, else FAILED with the exit code of the first task that
    failed, else the first task that did not complete."""
    name = tasks[0].name
    elapsed = max((task.elapsed for task in tasks), key=_seconds, default="")
    active = [task for task in tasks if not task.state.finished]
    if active:
        for state in _ACTIVE_ORDER:
            for task in active:
                if task.state is state:
                    return Summary(state, task.reason, None, elapsed, name)
    bad = [task for task in tasks if task.state is not JobState.COMPLETED]
    if not bad:
        return Summary(JobState.COMPLETED, "", "0:0", elapsed, name)
    # a task that FAILED outranks one cancelled or timed out: its exit code is the news
    first = next((task for task in bad if task.state is JobState.FAILED), bad[0])
    return Summary(first.state, first.reason, first.exit_code, elapsed, name)


class JobTracker:
    """Tracked jobs of one workspace; safe to use from several threads."""

    def __init__(
        self,
        store: Store,
        shells: Callable[[str], RemoteShell],
        publish: Callable[[Event], None] | None = None,
    ) -> None:
        self.store = store
        self.shells = shells
        self.publish = publish
        self._lock = threading.RLock()
        self._jobs: dict[tuple[str, str], TrackedJob] = {}
        self._misses: dict[tuple[str, str], int] = {}
        self._last_run_id = 0
        self._load()

    # -- the store --------------------------------------------------------------------------------
    def _load(self) -> None:
        """Pick up jobs tracked since the last look (by this process or another one)."""
        rows = self.store.query(
            "SELECT id, meta FROM runs WHERE kind = ? AND id > ? ORDER BY id",
            (RUN_KIND, self._last_run_id),
        )
        with self._lock:
            for row in rows:
                job = TrackedJob.from_dict(json.loads(row["meta"]), run_id=int(row["id"]))
                self._jobs.setdefault((job.host, job.job_id), job)
                self._last_run_id = max(self._last_run_id, int(row["id"]))

    def _save(self, job: TrackedJob) -> None:
        if job.finished:
            self.store.finish_run(job.run_id, job.state.value.lower(), job.to_dict())
        else:
            self.store.update_run(job.run_id, "running", job.to_dict())

    # -- what is tracked --------------------------------------------------------------------------
    def track(
        self, host: str, job_id: str, meta: dict[str, Any] | None = None, **fields: str
    ) -> TrackedJob:
        """Follow a job from now on (and after a restart). `meta` may hold name, log_path and
        outputs_dir (or give them as keywords); the rest is kept for whoever tracked it.
        Tracking a job again returns the job as already tracked."""
        job_id = str(job_id).strip()
        self._load()
        with self._lock:
            known = self._jobs.get((host, job_id))
            if known is not None:
                return known
            meta = dict(meta or {})
            values = {key: str(fields.get(key, meta.get(key, ""))) for key in _FIELDS_FROM_META}
            job = TrackedJob(
                host=host,
                job_id=job_id,
                name=values["name"],
                log_path=expand_output_pattern(values["log_path"], job_id),
                outputs_dir=values["outputs_dir"],
                meta=meta,
                updated=time.time(),
            )
            run_id = self.store.start_run(RUN_KIND, job.to_dict())
            job = replace(job, run_id=run_id)
            self._jobs[(host, job_id)] = job
            self._last_run_id = max(self._last_run_id, run_id)
            return job

    def get(self, host: str, job_id: str) -> TrackedJob | None:
        with self._lock:
            return self._jobs.get((host, str(job_id)))

    def tracked(self, active_only: bool = False) -> list[TrackedJob]:
        self._load()
        with self._lock:
            jobs = sorted(self._jobs.values(), key=lambda job: job.run_id)
        return [job for job in jobs if not (active_only and job.finished)]

    # -- polling ----------------------------------------------------------------------------------
    def poll(self, hosts: Iterable[str] | None = None, timeout: float = 60.0) -> list[TrackedJob]:
        """Ask each host (or the given ones) once about all its active jobs; return them as now.
        `timeout` bounds each Slurm command (a controller that is down keeps squeue retrying).

        Publishes SlurmJobsUpdated when there was anything to ask about.
        """
        wanted = None if hosts is None else set(hosts)
        by_host: dict[str, list[TrackedJob]] = {}
        for job in self.tracked(active_only=True):
            if wanted is None or job.host in wanted:
                by_host.setdefault(job.host, []).append(job)
        polled: list[TrackedJob] = []
        seen_rows: list[JobRow] = []
        unreachable: list[str] = []
        for host, jobs in by_host.items():
            try:
                rows = SlurmClient(self.shells(host)).states((j.job_id for j in jobs), timeout)
            except TRANSIENT_ERRORS as error:
                log.info("polling %s failed, keeping the last states: %s", host, error)
                unreachable.append(host)
                polled.extend(self._mark_unreachable(jobs, str(error)))
                continue
            seen_rows.extend(rows.values())
            by_job = group_by_job(rows)
            with self.store.transaction():  # one write for the whole host, however many jobs
                polled.extend(self._apply(job, _tasks_of(job.job_id, rows, by_job)) for job in jobs)
        if polled and self.publish is not None:
            self.publish(
                SlurmJobsUpdated(
                    jobs=tuple(polled), rows=tuple(seen_rows), unreachable_hosts=tuple(unreachable)
                )
            )
        return polled

    def _mark_unreachable(self, jobs: list[TrackedJob], error: str) -> list[TrackedJob]:
        marked = []
        with self.store.transaction():
            for job in jobs:
                current = replace(job, unreachable=True, error=error, updated=time.time())
                self._store_job(current)
                marked.append(current)
        return marked

    def _apply(self, job: TrackedJob, tasks: list[JobRow]) -> TrackedJob:
        key = (job.host, job.job_id)
        now = time.time()
        if not tasks:  # Slurm answered, but not for this job: its state stays as last seen
            misses = self._misses.get(key, 0) + 1
            self._misses[key] = misses
            state = JobState.UNKNOWN if misses >= MISSES_BEFORE_UNKNOWN else job.state
            current = replace(
                job,
                state=state,
                unreachable=False,
                error=f"Slurm on {job.host} does not know job {job.job_id} (any more)",
                updated=now,
            )
        else:
            self._misses.pop(key, None)
            summary = summarize(tasks)
            current = replace(
                job,
                name=job.name or summary.name,
                state=summary.state,
                reason=summary.reason,
                exit_code=summary.exit_code,
                elapsed=summary.elapsed,
                unreachable=False,
                error="",
                tasks=tuple(tasks) if any(task.array_task is not None for task in tasks) else (),
                updated=now,
                seen=now,
            )
        self._store_job(current)
        return current

    def _store_job(self, job: TrackedJob) -> None:
        """Keep `job` as now; write it to the store only when what it shows changed (a running
        job's clock alone is not worth a write per poll)."""
        with self._lock:
            before = self._jobs.get((job.host, job.job_id))
            self._jobs[(job.host, job.job_id)] = job
        if before is None or before.observed() != job.observed() or before.name != job.name:
            self._save(job)

    # -- waiting ----------------------------------------------------------------------------------
    def wait(
        self,
        host: str,
        job_id: str,
        interval: float = 10.0,
        max_checks: int = 360,
        on_update: Callable[[TrackedJob], None] | None = None,
        cancelled: threading.Event | None = None,
    ) -> TrackedJob:
        """Poll until the job has finished, `max_checks` polls were made, or `cancelled` is set;
        return the job as last seen. `on_update` gets the job each time what it shows changed.

        A dropped connection or a restarting controller only costs a check: the next poll
        reconnects (the SSH pool does) and asks again.
        """
        job = self.get(host, job_id) or self.track(host, job_id)
        last_seen: tuple[object, ...] | None = None
        for check in range(max_checks):
            if job.finished or (cancelled is not None and cancelled.is_set()):
                break
            if check:
                if cancelled is not None:
                    if cancelled.wait(interval):
                        break
                else:
                    time.sleep(interval)
            self.poll([host])
            job = self.get(host, job.job_id) or job
            if on_update is not None and job.observed() != last_seen:
                last_seen = job.observed()
                on_update(job)
        return job


_FIELDS_FROM_META = ("name", "log_path", "outputs_dir")


def _tasks_of(
    job_id: str, rows: dict[str, JobRow], by_job: dict[str, list[JobRow]]
) -> list[JobRow]:
    if "_" in job_id:  # one task of an array, tracked on its own
        return [rows[job_id]] if job_id in rows else []
    return by_job.get(job_id, [])
