"""The `spine` suite: what the shared machinery costs, each against a baseline in the same run.

- registry_overhead: a tool call through the registry (validation, store record, event) against
  calling the same function directly.
- event_order: events from several threads reach a subscriber whole and in per-thread order.
- job_streaming: a worker process streams progress events; how long until the first one arrives
  and whether all arrive in order.
"""

from __future__ import annotations

import threading
import time
from statistics import median
from typing import Any

from workbench.bench import BenchTask, CellContext, Suite
from workbench.bench.cell_result import CellResult
from workbench.core.events import EventBus, JobProgress
from workbench.core.jobs import Reporter
from workbench.core.tools import ToolContext
from workbench_plugins.workspace.tools.store import NoArguments, workspace_info


def stream_numbers(reporter: Reporter, count: int) -> int:
    """Worker job: report `count` progress events numbered 0..count-1."""
    for number in range(count):
        reporter.progress(number / count, "streaming", number=number)
    return count


class SpineSuite(Suite):
    name = "spine"
    description = "Cost of the tool registry, event bus and worker jobs vs their baselines."
    headline = ("overhead_ms", "in_order", "first_event_s")

    def tasks(self) -> list[BenchTask]:
        return [
            BenchTask("registry_overhead", problem="registry", smoke=True, payload={"calls": 200}),
            BenchTask(
                "event_order", problem="events", smoke=True, payload={"threads": 4, "events": 2000}
            ),
            BenchTask("job_streaming", problem="jobs", smoke=True, payload={"events": 500}),
        ]

    def run(self, task: BenchTask, model: str, seed: int, cell: CellContext) -> CellResult:
        measure = {
            "registry_overhead": self._registry_overhead,
            "event_order": self._event_order,
            "job_streaming": self._job_streaming,
        }[task.id]
        return CellResult(measure(task.payload, cell))

    def _registry_overhead(self, payload: dict[str, Any], cell: CellContext) -> dict[str, float]:
        registry, calls = cell.app.registry, int(payload["calls"])
        direct_context = ToolContext(cell.app, cell.caller, call_id=0)
        direct, through = [], []
        for _ in range(calls):
            start = time.perf_counter()
            workspace_info(NoArguments(), direct_context)
            direct.append(time.perf_counter() - start)
            start = time.perf_counter()
            outcome = registry.call("workspace_info", {}, caller=cell.caller)
            through.append(time.perf_counter() - start)
            if not outcome.ok:
                raise RuntimeError(f"workspace_info failed: {outcome.error}")
        return {
            "direct_ms": median(direct) * 1e3,
            "registry_ms": median(through) * 1e3,
            "overhead_ms": (median(through) - median(direct)) * 1e3,
        }

    def _event_order(self, payload: dict[str, Any], cell: CellContext) -> dict[str, float]:
        bus, threads, count = EventBus(), int(payload["threads"]), int(payload["events"])
        seen: list[tuple[str, int]] = []
        bus.subscribe(JobProgress, lambda event: seen.append((event.job_id, event.data["n"])))

        def publish(name: str) -> None:
            for number in range(count):
                bus.publish(JobProgress(job_id=name, data={"n": number}))

        workers = [threading.Thread(target=publish, args=(f"t{i}",)) for i in range(threads)]
        start = time.perf_counter()
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        elapsed = time.perf_counter() - start
        in_order = all(
            [n for name, n in seen if name == f"t{i}"] == list(range(count)) for i in range(threads)
        )
        return {
            "events_per_s": len(seen) / elapsed,
            "delivered": len(seen) / (threads * count),
            "in_order": float(in_order),
        }

    def _job_streaming(self, payload: dict[str, Any], cell: CellContext) -> dict[str, float]:
        count = int(payload["events"])
        arrivals: list[tuple[float, int]] = []

        def on_progress(event: JobProgress) -> None:
            if event.message == "streaming":
                arrivals.append((time.perf_counter(), event.data["number"]))

        unsubscribe = cell.app.bus.subscribe(JobProgress, on_progress)
        start = time.perf_counter()
        try:
            result = cell.app.jobs.submit(stream_numbers, count, title="stream").result(60)
        finally:
            unsubscribe()
        numbers = [number for _, number in arrivals]
        return {
            "first_event_s": arrivals[0][0] - start if arrivals else float("nan"),
            "total_s": time.perf_counter() - start,
            "in_order": float(numbers == list(range(count)) and result == count),
        }
