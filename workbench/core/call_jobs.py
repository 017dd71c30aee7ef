"""The jobs one tool call starts, noted while the call runs, so that whoever ran the call can
cancel them when the call is given up. The agent's tool node (a person's Cancel, a stopped run)
and the MCP server (progress to the client, a cancelled request) each say which `JobStarted` is
their call's and what else they listen to."""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import TracebackType
from typing import Self

from workbench.core.events import EventBus, JobStarted
from workbench.core.jobs import JobRunner


class ToolCallJobs:
    """Within the block: the ids of the jobs the call started, in order (bus events arrive in
    the publishing threads, hence the lock)."""

    def __init__(self, bus: EventBus) -> None:
        self._bus = bus
        self._lock = threading.Lock()
        self._started: list[str] = []
        self._unsubscribe: list[Callable[[], None]] = []

    def __enter__(self) -> Self:
        self._unsubscribe = [self._bus.subscribe(JobStarted, self._on_started), *self._listen()]
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()

    def _is_ours(self, event: JobStarted) -> bool:
        """Whether the call this block watches started the job."""
        raise NotImplementedError

    def _listen(self) -> list[Callable[[], None]]:
        """Subscriptions besides `JobStarted`, each as the unsubscribe the bus returned."""
        return []

    def _on_started(self, event: JobStarted) -> None:
        if self._is_ours(event):
            with self._lock:
                self._started.append(event.job_id)

    @property
    def started(self) -> list[str]:
        with self._lock:
            return list(self._started)

    def cancel_jobs(self, jobs: JobRunner) -> None:
        """Cancel what the call started and still runs."""
        for job_id in self.started:
            job = jobs.get(job_id)
            if job is not None:
                job.cancel()  # returns at once; a finished job ignores it
