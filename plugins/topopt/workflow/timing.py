"""How long a cell spent inside EngiBench, for the overhead ratio (wall time / EngiBench time).

- In-process calls (simulate_design -> engine.simulate, the ground truth) are timed directly.
- optimize_design runs in a worker process, which times its own EngiBench calls (problem set-up,
  the optimiser, the two simulations) minus the time it spent streaming frames, and reports it
  in its last progress event. Job dispatch, frame streaming, result transfer and the tool's own
  bookkeeping are therefore overhead.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from workbench.core.context import AppContext
from workbench.core.events import JobProgress
from workbench_plugins.topopt import engine, jobs

_PATCH_LOCK = threading.Lock()


class EngiBenchClock:
    def __init__(self) -> None:
        self.in_process_s = 0.0
        self.worker_s = 0.0
        self.streaming_s = 0.0  # frames handed out by the worker (overhead, kept for the report)

    def add(self, seconds: float) -> None:
        self.in_process_s += seconds

    def _on_progress(self, event: JobProgress) -> None:
        if event.message == jobs.FINISHED and "engibench_s" in event.data:
            self.worker_s += float(event.data["engibench_s"])
            self.streaming_s += float(event.data.get("streaming_s", 0.0))

    @property
    def total_s(self) -> float:
        return self.in_process_s + self.worker_s

    @contextmanager
    def watching(self, app: AppContext) -> Iterator[EngiBenchClock]:
        original = engine.simulate

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.add(time.perf_counter() - started)

        unsubscribe = app.bus.subscribe(JobProgress, self._on_progress)
        with _PATCH_LOCK:  # one cell at a time per process (the runner's workers are processes)
            engine.simulate = timed  # tools.py calls engine.simulate through the module
            try:
                yield self
            finally:
                engine.simulate = original
                unsubscribe()
