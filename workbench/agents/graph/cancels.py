"""A person's Cancel of a job that an agent's tool call started.

The jobs bar publishes `JobCancelRequested` when a person presses Cancel. While a tool call runs,
a `JobWatch` notes the jobs that call starts (a context variable marks the call: the registry
runs a synchronous tool in a thread that copies the context, and a job publishes `JobStarted`
from the thread that submits it) and which of them a person asked to cancel. The tool node
then stops the run instead of letting the agent go on as if the tool had merely failed.

The watch also sets core's `CURRENT_TOOL_CALL` to the call's id, so the `JobStarted` of every job
the call starts names the call (`tool_call_id`): the chat's card of that call shows the job's
progress. A field on the event, rather than an agent event, because a job's publisher (the job
runner, the HPC plugin's monitor) reaches the GUI through the bus, not through the agent's stream.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextvars import ContextVar, Token
from types import TracebackType

from workbench.core.events import CURRENT_TOOL_CALL, EventBus, JobCancelRequested, JobStarted
from workbench.core.jobs import JobRunner

USER_CANCELLED = "cancelled_by_user"  # ToolFinished.error_kind, transcript entries, run outcome


_WATCH: ContextVar[JobWatch | None] = ContextVar("workbench_tool_call_jobs", default=None)


class JobWatch:
    """Within the block: the jobs this tool call starts, and the ones a person cancelled."""

    def __init__(self, bus: EventBus, tool_call_id: str = "") -> None:
        self._bus = bus
        self.tool_call_id = tool_call_id
        self._call_token: Token[str] | None = None
        self._lock = threading.Lock()
        self._started: list[str] = []
        self._cancelled_by_person: set[str] = set()
        self._token: Token[JobWatch | None] | None = None
        self._unsubscribe: list[Callable[[], None]] = []

    def __enter__(self) -> JobWatch:
        self._token = _WATCH.set(self)
        self._call_token = CURRENT_TOOL_CALL.set(self.tool_call_id)
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
        if self._call_token is not None:
            CURRENT_TOOL_CALL.reset(self._call_token)
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
