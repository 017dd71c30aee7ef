"""add_document as a job on the app's bus, like every long tool: started, progress through each
file's steps, finished; a person's Cancel (the jobs bar's or a view's: JobCancelRequested) stops
it at the next step, leaving the file being read as the index had it."""

from __future__ import annotations

import threading
import time
import uuid
from types import TracebackType

from workbench.core.events import JobCancelRequested, JobFinished, JobProgress, JobStarted
from workbench.core.tools import ToolContext
from workbench_plugins.retrieval.index.adding import IndexingCancelled, Watch

REPORT_EVERY = 0.01  # a progress event per percent (a 20 MB file has thousands of steps)
REPORT_AFTER_S = 1.0  # or after this long without one, so a slow step still shows life


class IndexingJob:
    def __init__(self, context: ToolContext, title: str) -> None:
        self.bus = context.app.bus
        self.job_id = f"retrieval:add:{uuid.uuid4().hex[:8]}"
        self.title = title
        self.cancel = threading.Event()
        self.reported = -1.0
        self.reported_at = 0.0
        self._unsubscribe = lambda: None

    @property
    def watch(self) -> Watch:
        return Watch(self.report, self.cancel.is_set)

    def report(self, fraction: float, step: str) -> None:
        now = time.monotonic()
        if fraction - self.reported < REPORT_EVERY and now - self.reported_at < REPORT_AFTER_S:
            return
        self.reported, self.reported_at = fraction, now
        self.bus.publish(JobProgress(job_id=self.job_id, fraction=min(1.0, fraction), message=step))

    def _on_cancel(self, event: JobCancelRequested) -> None:
        if event.job_id == self.job_id:
            self.cancel.set()

    def __enter__(self) -> IndexingJob:
        self.bus.publish(JobStarted(job_id=self.job_id, title=self.title))
        self._unsubscribe = self.bus.subscribe(JobCancelRequested, self._on_cancel)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._unsubscribe()
        if kind is None:
            status, reason = "done", ""
        elif issubclass(kind, IndexingCancelled):
            status, reason = "cancelled", ""
        else:
            status, reason = "failed", str(error)
        self.bus.publish(JobFinished(job_id=self.job_id, status=status, error=reason))
