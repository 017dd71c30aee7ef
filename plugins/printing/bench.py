"""The `printing` suite: USB streaming speed to the emulator and the heartbeat while streaming."""

from __future__ import annotations

from typing import Any

from workbench.bench import BenchTask, CellContext, Suite
from workbench_plugins.printing.perf import stream_benchmark


class StreamingSuite(Suite):
    name = "printing"
    description = "G-code streaming to the Marlin emulator: lines/s and loop heartbeat gaps."

    def tasks(self) -> list[BenchTask]:
        return [
            BenchTask(
                "stream_window1",
                problem="streaming",
                style="window1",
                smoke=True,
                payload={"lines": 3000, "window": 1},
            ),
            BenchTask(
                "stream_window4",
                problem="streaming",
                style="window4",
                payload={"lines": 3000, "window": 4},
            ),
            BenchTask(
                "stream_errors",
                problem="streaming",
                style="window1",
                condition="1% checksum errors",
                payload={"lines": 3000, "window": 1, "checksum_error_rate": 0.01},
            ),
        ]

    def run(self, task: BenchTask, model: str, seed: int, cell: CellContext) -> dict[str, Any]:
        figures = stream_benchmark(
            int(task.payload["lines"]),
            window=int(task.payload["window"]),
            checksum_error_rate=float(task.payload.get("checksum_error_rate", 0.0)),
        )
        if not figures["complete"]:
            raise RuntimeError(f"streaming did not complete: {figures}")
        return figures


def suites() -> list[Suite]:
    return [StreamingSuite()]
