"""How long a cell spent inside EngiBench, for the overhead ratio (wall time / EngiBench time).

- In-process calls (simulate_design -> engine.simulate, the ground truth) are timed directly.
- optimize_design runs in a worker process, which times its own EngiBench calls (problem set-up,
  the optimiser, the two simulations) minus the time it spent streaming frames, and reports it
  in its last progress event. Job dispatch, frame streaming, result transfer and the tool's own
  bookkeeping are therefore overhead.

A clock counts only what its cell did: `watching` marks the cell's context (a ContextVar, which
the asyncio tasks and tool threads of the cell inherit), engine.simulate reports to the clocks of
the context it runs in, and a job counts when it was started from that context. Another cell
running at the same time in the same process is not counted.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from workbench.core.context import AppContext
from workbench.core.events import JobProgress, JobStarted
from workbench_plugins.topopt import engine, optimization_worker

_watching: ContextVar[tuple[EngiBenchClock, ...]] = ContextVar("engibench_clocks", default=())


class EngiBenchClock:
    def __init__(self) -> None:
        self.in_process_s = 0.0
        self.worker_s = 0.0
        self.streaming_s = 0.0  # frames handed out by the worker (overhead, kept for the report)
        self._jobs: set[str] = set()  # jobs started from this clock's cell
        self._lock = threading.Lock()  # tool threads and job monitors add to the same clock

    def add(self, seconds: float) -> None:
        with self._lock:
            self.in_process_s += seconds

    def _on_job_started(self, event: JobStarted) -> None:
        # JobStarted is published in the thread that submits the job: the tool's, in its context
        if self in _watching.get():
            with self._lock:
                self._jobs.add(event.job_id)

    def _on_progress(self, event: JobProgress) -> None:
        if event.job_id not in self._jobs:
            return
        if event.message == optimization_worker.FINISHED and "engibench_s" in event.data:
            with self._lock:
                self.worker_s += float(event.data["engibench_s"])
                self.streaming_s += float(event.data.get("streaming_s", 0.0))

    @property
    def total_s(self) -> float:
        return self.in_process_s + self.worker_s

    @contextmanager
    def watching(self, app: AppContext) -> Iterator[EngiBenchClock]:
        """Count the EngiBench time of what runs in this context until the block ends."""
        unsubscribe_started = app.bus.subscribe(JobStarted, self._on_job_started)
        unsubscribe_progress = app.bus.subscribe(JobProgress, self._on_progress)
        token = _watching.set((*_watching.get(), self))
        try:
            with engine.timing_simulations(self.add):
                yield self
        finally:
            _watching.reset(token)
            unsubscribe_progress()
            unsubscribe_started()
