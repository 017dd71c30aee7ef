"""How long a cell spent inside EngiBench, for the overhead ratio (wall time / EngiBench time).

- In-process calls (simulate_design -> engine.simulate, the ground truth) are timed directly.
- optimize_design runs in a worker process; its EngiBench time is taken from the worker's own
  progress-event timestamps: the span from the first iteration event to the "simulating" event,
  plus one median iteration gap for the iteration before the first event and one each for the
  two final simulations. Worker start-up, imports and result transfer are therefore overhead.
"""

from __future__ import annotations

import itertools
import statistics
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from workbench.core.context import AppContext
from workbench.core.events import JobProgress
from workbench_plugins.topopt import engine

_PATCH_LOCK = threading.Lock()


class EngiBenchClock:
    def __init__(self) -> None:
        self.in_process_s = 0.0
        self._events: dict[str, list[tuple[float, str]]] = defaultdict(list)

    def add(self, seconds: float) -> None:
        self.in_process_s += seconds

    def _on_progress(self, event: JobProgress) -> None:
        if event.message in ("iteration", "simulating the initial and the final design"):
            self._events[event.job_id].append((event.time, event.message))

    def worker_s(self) -> float:
        total = 0.0
        for events in self._events.values():
            times = [t for t, message in events if message == "iteration"]
            if not times:
                continue
            gaps = [b - a for a, b in itertools.pairwise(times)]
            gap = statistics.median(gaps) if gaps else 0.0
            end = events[-1][0]
            total += (end - times[0]) + 3 * gap
        return total

    @property
    def total_s(self) -> float:
        return self.in_process_s + self.worker_s()

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
