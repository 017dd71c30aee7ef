"""What the queue view shows, read over SSH on a worker thread (no Qt here).

One `poll` is one pass over the hosts: the host's queue (one squeue), the states of the jobs this
view follows that squeue no longer lists (finished jobs: the client falls back to scontrol and
sacct), the partitions once per host (for the submit form), and the next piece of the selected
job's log. A host that fails is reported in words and the others go on.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from workbench_plugins.hpc.remote import RemoteCommandFailed, RemoteShell
from workbench_plugins.hpc.slurm.client import SlurmClient
from workbench_plugins.hpc.slurm.jobs import JobRow, TrackedJob
from workbench_plugins.hpc.ssh.errors import SshFailure

STDOUT_FIELD = re.compile(r"(?:^|\s)StdOut=(\S+)")
LOG_CHUNK_BYTES = 256_000  # one poll's worth of log; the next poll reads on from there


@dataclass(frozen=True)
class HostProblem:
    host: str
    summary: str  # human words, shown in the view
    detail: str  # what exactly failed, in the tooltip
    # the SSH refusal itself: an UnknownHostKey lets the view offer to trust the host
    failure: SshFailure | None = field(default=None, compare=False)


@dataclass(frozen=True)
class LogChunk:
    host: str
    job_id: str
    path: str
    text: str
    offset: int  # where the next read starts
    problem: str = ""


@dataclass(frozen=True)
class LogRequest:
    host: str
    job_id: str
    offset: int


@dataclass(frozen=True)
class QueueSnapshot:
    rows: tuple[JobRow, ...]
    users: dict[str, str]  # host -> the remote user ("mine")
    partitions: dict[str, list[str]]
    problems: tuple[HostProblem, ...] = ()
    log: LogChunk | None = None


def describe_problem(host: str, error: BaseException) -> HostProblem:
    """A failed poll in words a person can act on; the exception's own text in the detail."""
    if isinstance(error, SshFailure):
        text = str(error)
        advice = f" {error.advice}" if error.advice and error.advice not in text else ""
        return HostProblem(host, f"{host}: {text}", f"{error.kind}: {text}{advice}", error)
    if isinstance(error, RemoteCommandFailed):
        return HostProblem(host, f"{host}: Slurm did not answer as expected.", str(error))
    summary = f"{host}: the queue could not be read ({type(error).__name__})."
    return HostProblem(host, summary, f"{type(error).__name__}: {error}")


def newer(known: JobRow, update: JobRow) -> JobRow:
    """A listed row with a tracker's news (state, reason, time, exit code) and its own rest."""
    return replace(
        known,
        state=update.state,
        reason=update.reason,
        elapsed=update.elapsed or known.elapsed,
        exit_code=update.exit_code or known.exit_code,
    )


def tracked_rows(job: TrackedJob, user: str = "") -> list[JobRow]:
    """A tracked job as queue rows: its tasks for an array, else one row."""
    if job.tasks:
        return list(job.tasks)
    row = JobRow(
        host=job.host,
        job_id=job.job_id,
        array_job_id="",
        array_task=None,
        name=job.name,
        user=user,
        state=job.state,
        reason=job.reason,
        elapsed=job.elapsed,
        exit_code=job.exit_code,
    )
    return [row]


@dataclass
class QueueSource:
    """Reads the queues; `poll` blocks (SSH) and runs on the view's worker thread only.

    `tracked` lists the jobs the app follows (the job tracker's): they stay listed after squeue
    forgot them, with their last state, as do the jobs submitted from the view (`follow`).
    """

    shells: Callable[[str], RemoteShell]
    tracked: Callable[[], Sequence[TrackedJob]] = list
    _finished: dict[tuple[str, str], list[JobRow]] = field(default_factory=dict)
    _followed: dict[str, set[str]] = field(default_factory=dict)
    _log_paths: dict[tuple[str, str], str] = field(default_factory=dict)
    _users: dict[str, str] = field(default_factory=dict)
    _partitions: dict[str, list[str]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def follow(self, host: str, job_id: str, log_path: str = "") -> None:
        """Keep listing this job after squeue forgot it (a job submitted or tracked here)."""
        with self._lock:
            self._followed.setdefault(host, set()).add(job_id)
            if log_path:
                self._log_paths[(host, job_id)] = log_path

    def client(self, host: str) -> SlurmClient:
        return SlurmClient(self.shells(host))

    def poll(self, hosts: Sequence[str], log: LogRequest | None = None) -> QueueSnapshot:
        rows: list[JobRow] = []
        problems: list[HostProblem] = []
        for host in hosts:
            try:
                rows += self._poll_host(host)
            except Exception as error:  # every failure is said in the view; polling goes on
                problems.append(describe_problem(host, error))
        chunk = self._read_log(log) if log is not None else None
        with self._lock:
            users, partitions = dict(self._users), dict(self._partitions)
        return QueueSnapshot(tuple(rows), users, partitions, tuple(problems), chunk)

    def _poll_host(self, host: str) -> list[JobRow]:
        """One squeue for the queue; the followed jobs it no longer lists: their final rows
        when known, else one states() call (scontrol, sacct) for all of them."""
        client = self.client(host)
        if host not in self._users:
            self._learn_host(host, client)
        rows = client.queue(None)
        listed = {row.job_id for row in rows} | {row.base_id for row in rows}
        user = self._users.get(host, "")
        tracked = [job for job in self.tracked() if job.host == host]
        for job in tracked:
            if job.finished:
                self._finished.setdefault((host, job.job_id), tracked_rows(job, user))
        with self._lock:
            followed = self._followed.get(host, set()) | {job.job_id for job in tracked}
        gone = followed - listed
        unknown = sorted(job_id for job_id in gone if (host, job_id) not in self._finished)
        if unknown:
            for row in client.states(unknown).values():
                if row.state.finished:
                    self._finished.setdefault((host, row.base_id), []).append(row)
                else:
                    rows.append(row)
        for job_id in sorted(gone):
            rows += self._finished.get((host, job_id), [])
        return rows

    def _learn_host(self, host: str, client: SlurmClient) -> None:
        """Who "mine" is on this host and its partitions: asked once per host."""
        user = client.shell.run(["id", "-un"], timeout=20).check("id -un").stdout.strip()
        partitions = client.partitions()
        with self._lock:
            self._users[host] = user
            self._partitions[host] = partitions

    def partitions(self, host: str) -> list[str]:
        with self._lock:
            return list(self._partitions.get(host, []))

    # -- the log of the selected job ------------------------------------------------------------
    def log_path(self, host: str, job_id: str) -> str:
        """Where the job writes its output (scontrol's StdOut), remembered once known."""
        with self._lock:
            known = self._log_paths.get((host, job_id))
        if known:
            return known
        for job in self.tracked():
            if (job.host, job.job_id) == (host, job_id) and job.log_path:
                return job.log_path
        shell = self.shells(host)
        shown = shell.run(["scontrol", "show", "job", "-o", job_id], timeout=30)
        found = STDOUT_FIELD.search(shown.stdout) if shown.ok else None
        if found is None:
            return ""
        path = found.group(1)
        with self._lock:
            self._log_paths[(host, job_id)] = path
        return path

    def _read_log(self, request: LogRequest) -> LogChunk:
        host, job_id = request.host, request.job_id
        try:
            path = self.log_path(host, job_id)
            if not path:
                why = "Slurm no longer knows where this job wrote its output."
                return LogChunk(host, job_id, "", "", request.offset, why)
            text, offset = self.client(host).tail(path, request.offset)
            return LogChunk(host, job_id, path, text, offset)
        except Exception as error:  # the log pane says it; the table goes on
            problem = describe_problem(host, error)
            return LogChunk(host, job_id, "", "", request.offset, problem.summary)
