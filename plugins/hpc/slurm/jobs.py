"""What the app knows of a Slurm job: its state, one queue row, and a job the app follows."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class JobState(StrEnum):
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    COMPLETING = "COMPLETING"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"
    TIMEOUT = "TIMEOUT"
    OUT_OF_MEMORY = "OUT_OF_MEMORY"
    NODE_FAIL = "NODE_FAIL"
    PREEMPTED = "PREEMPTED"
    SUSPENDED = "SUSPENDED"
    UNKNOWN = "UNKNOWN"

    @property
    def finished(self) -> bool:
        """True once the job will not run any more (UNKNOWN is not: it may come back)."""
        return self in _FINISHED

    @classmethod
    def parse(cls, text: str) -> JobState:
        """A state as squeue, scontrol or sacct print it ("CANCELLED by 0", "CD", "BOOT_FAIL")."""
        word = text.strip().split(" ", 1)[0].rstrip("+").upper()
        if word in cls.__members__:
            return cls[word]
        return _ALIASES.get(word, cls.UNKNOWN)


_FINISHED = frozenset(
    {
        JobState.COMPLETED,
        JobState.FAILED,
        JobState.CANCELLED,
        JobState.TIMEOUT,
        JobState.OUT_OF_MEMORY,
        JobState.NODE_FAIL,
        JobState.PREEMPTED,
    }
)

# Slurm states (long and compact forms) that the app folds into its own few.
_ALIASES: dict[str, JobState] = {
    "PD": JobState.PENDING,
    "R": JobState.RUNNING,
    "CG": JobState.COMPLETING,
    "CD": JobState.COMPLETED,
    "F": JobState.FAILED,
    "CA": JobState.CANCELLED,
    "TO": JobState.TIMEOUT,
    "OOM": JobState.OUT_OF_MEMORY,
    "NF": JobState.NODE_FAIL,
    "PR": JobState.PREEMPTED,
    "S": JobState.SUSPENDED,
    "ST": JobState.SUSPENDED,
    "STOPPED": JobState.SUSPENDED,
    "DEADLINE": JobState.TIMEOUT,
    "DL": JobState.TIMEOUT,
    "BOOT_FAIL": JobState.NODE_FAIL,
    "BF": JobState.NODE_FAIL,
    "CONFIGURING": JobState.PENDING,
    "CF": JobState.PENDING,
    "REQUEUED": JobState.PENDING,
    "REQUEUE_HOLD": JobState.PENDING,
    "REQUEUE_FED": JobState.PENDING,
    "RESV_DEL_HOLD": JobState.PENDING,
    "RESIZING": JobState.RUNNING,
    "SIGNALING": JobState.RUNNING,
    "STAGE_OUT": JobState.COMPLETING,
    "SPECIAL_EXIT": JobState.FAILED,
    "REVOKED": JobState.CANCELLED,
}


@dataclass(frozen=True)
class JobRow:
    """One line of the queue: a job, or one task of an array ("123_2")."""

    host: str
    job_id: str
    array_job_id: str
    array_task: str | None
    name: str
    user: str
    state: JobState
    reason: str = ""
    elapsed: str = ""
    time_limit: str = ""
    nodes: str = ""
    exit_code: str | None = None

    @property
    def base_id(self) -> str:
        """The id the job was submitted as (an array's id for each of its tasks)."""
        return self.array_job_id or self.job_id.split("_", 1)[0]

    def to_dict(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "job_id": self.job_id,
            "array_job_id": self.array_job_id,
            "array_task": self.array_task,
            "name": self.name,
            "user": self.user,
            "state": self.state.value,
            "reason": self.reason,
            "elapsed": self.elapsed,
            "time_limit": self.time_limit,
            "nodes": self.nodes,
            "exit_code": self.exit_code,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JobRow:
        return cls(
            host=str(data["host"]),
            job_id=str(data["job_id"]),
            array_job_id=str(data.get("array_job_id", "")),
            array_task=None if data.get("array_task") is None else str(data["array_task"]),
            name=str(data.get("name", "")),
            user=str(data.get("user", "")),
            state=JobState.parse(str(data.get("state", "UNKNOWN"))),
            reason=str(data.get("reason", "")),
            elapsed=str(data.get("elapsed", "")),
            time_limit=str(data.get("time_limit", "")),
            nodes=str(data.get("nodes", "")),
            exit_code=None if data.get("exit_code") is None else str(data["exit_code"]),
        )


@dataclass(frozen=True)
class TrackedJob:
    """A job the app follows, as last seen; kept in the workspace store (runs of kind slurm_job).

    `unreachable` says the last poll could not reach the host or its controller: the state shown
    is the last one seen, not a verdict. `seen` is when Slurm last answered for the job (0: never
    from here), `updated` when the app last tried. An array's `tasks` hold one row per task.
    """

    host: str
    job_id: str
    name: str = ""
    state: JobState = JobState.PENDING
    reason: str = ""
    exit_code: str | None = None
    elapsed: str = ""
    log_path: str = ""
    outputs_dir: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    updated: float = 0.0
    seen: float = 0.0
    unreachable: bool = False
    error: str = ""
    tasks: tuple[JobRow, ...] = ()
    run_id: int = 0

    @property
    def finished(self) -> bool:
        return self.state.finished

    def observed(self) -> tuple[object, ...]:
        """What a watcher would call a change (not the elapsed clock, nor the poll time)."""
        return (
            self.state,
            self.reason,
            self.exit_code,
            self.unreachable,
            tuple((task.job_id, task.state, task.exit_code) for task in self.tasks),
        )

    def last_seen(self, now: float | None = None) -> str:
        """'RUNNING 42 s ago (05:40:12 UTC)': the state and how old it is, for messages."""
        if not self.seen:
            return f"{self.state}, as tracked, but Slurm has not answered for it from here yet"
        age = max(0, int((time.time() if now is None else now) - self.seen))
        at = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(self.seen))
        return f"{self.state} as of {_duration(age)} ago ({at})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "job_id": self.job_id,
            "name": self.name,
            "state": self.state.value,
            "reason": self.reason,
            "exit_code": self.exit_code,
            "elapsed": self.elapsed,
            "log_path": self.log_path,
            "outputs_dir": self.outputs_dir,
            "meta": self.meta,
            "updated": self.updated,
            "seen": self.seen,
            "unreachable": self.unreachable,
            "error": self.error,
            "tasks": [task.to_dict() for task in self.tasks],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], run_id: int = 0) -> TrackedJob:
        return cls(
            host=str(data["host"]),
            job_id=str(data["job_id"]),
            name=str(data.get("name", "")),
            state=JobState.parse(str(data.get("state", "UNKNOWN"))),
            reason=str(data.get("reason", "")),
            exit_code=None if data.get("exit_code") is None else str(data["exit_code"]),
            elapsed=str(data.get("elapsed", "")),
            log_path=str(data.get("log_path", "")),
            outputs_dir=str(data.get("outputs_dir", "")),
            meta=dict(data.get("meta") or {}),
            updated=float(data.get("updated", 0.0)),
            seen=float(data.get("seen", 0.0)),
            unreachable=bool(data.get("unreachable", False)),
            error=str(data.get("error", "")),
            tasks=tuple(JobRow.from_dict(task) for task in data.get("tasks") or []),
            run_id=run_id,
        )


def _duration(seconds: int) -> str:
    """42 s, 3 min 5 s, 2 h 4 min, 3 d 2 h."""
    units = (("d", 86400), ("h", 3600), ("min", 60), ("s", 1))
    parts: list[str] = []
    for name, size in units:
        if seconds >= size or (name == "s" and not parts):
            parts.append(f"{seconds // size} {name}")
            seconds %= size
        if len(parts) == 2:
            break
    return " ".join(parts)
