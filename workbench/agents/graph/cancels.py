"""A person's Cancel of a job that an agent's tool call started.

The jobs bar publishes `JobCancelRequested` when a person presses Cancel. While a tool call runs,
a `JobWatch` notes the jobs that call starts (a context variable marks the call: the registry
runs a synchronous tool in a thread that copies the context, and a job publishes `JobStarted`
from the thread that submits it) and which of them a person asked to cancel. The tool node
then stops the run instead of letting the agent go on as if the tool had merely failed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextvars import ContextVar, Token
from types import TracebackType

from workbench.core.events import Event, EventBus, JobStarted
from workbench.core.jobs import JobRunner

USER_CANCELLED = "cancelled_by_user"  # ToolFinished.error_kind, transcript entries, run outcome


class JobCancelRequested(Event):
    """A person asked to cancel job `job_id` (the jobs bar's Cancel button)."""

    source: str = "person"
    job_id: str


_WATCH: ContextVar[JobWatch | None] = ContextVar("workbench_tool_call_jobs", default=None)


class JobWatch:
    """Within the block: the jobs this tool call starts, and the ones a person cancelled."""

    def __init__(self, bus: EventBus) -> None:
        self._bus = bus
        self._lock = threading.Lock()
        self._started: list[str] = []
        self._cancelled_by_person: set[str] = set()
        self._token: Token[JobWatch | None] | None = None
        self._unsubscribe: list[Callable[[], None]] = []

    def __enter__(self) -> JobWatch:
        self._token = _WATCH.set(self)
        self._unsubscribe = [
            self._bus.subscribe(JobStarted, self._on_started),
            self._bus.subscribe(JobCancelRequested, self._on_cancel_requested),
        ]
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        if self._token is not None:
            _WATCH.reset(self._token)

    def _on_started(self, event: JobStarted) -> None:
        # delivered in the publishing thread: its context tells whose call submitted the job
        if _WATCH.get() is self:
            with self._lock:
                self._started.append(event.job_id)

    def _on_cancel_requested(self, event: JobCancelRequested) -> None:
        with self._lock:
            if event.job_id in self._started:
                self._cancelled_by_person.add(event.job_id)

    @property
    def started(self) -> list[str]:
        with self._lock:
            return list(self._started)

    @property
    def cancelled_by_person(self) -> bool:
        """A person pressed Cancel on one of this call's jobs."""
        with self._lock:
            return bool(self._cancelled_by_person)

    def cancel_jobs(self, jobs: JobRunner) -> None:
        """Cancel what this call started and still runs (the run itself was stopped)."""
        for job_id in self.started:
            job = jobs.get(job_id)
            if job is not None:
                job.cancel()  # returns at once; a finished job ignores it


def user_cancelled_text(tool: str) -> str:
    """What the model hears instead of the tool's own failure (which invites a rerun)."""
    return (
        f"The user cancelled this {tool} call (Cancel in the jobs bar), which also stopped the "
        "run; nothing it would have produced was kept. Do not call it again and do not go on "
        "with the task: wait for the user's next message."
    )


def not_run_text(tool: str) -> str:
    """The answer to a call of the same reply that came after the cancelled one."""
    return f"Not run: the user stopped the run by cancelling {tool} before this call."
