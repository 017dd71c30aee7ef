"""The `printing` suite: USB streaming speed to the emulator and the heartbeat while streaming."""

from __future__ import annotations

from workbench.bench import BenchTask, CellContext, Suite
from workbench.bench.cell_result import CellResult
from workbench_plugins.printing.perf import stream_benchmark


class StreamingSuite(Suite):
    name = "printing"
    description = "G-code streaming to the Marlin emulator: lines/s and loop heartbeat gaps."
    headline = ("lines_per_s", "heartbeat_p99_ms")

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

    def run(self, task: BenchTask, model: str, seed: int, cell: CellContext) -> CellResult:
        figures = stream_benchmark(
            int(task.payload["lines"]),
            window=int(task.payload["window"]),
            checksum_error_rate=float(task.payload.get("checksum_error_rate", 0.0)),
        )
        if not figures["complete"]:
            raise RuntimeError(f"streaming did not complete: {figures}")
        # measurements of the machinery, no agent's work: nothing to bind
        return CellResult({name: float(value) for name, value in figures.items()})
