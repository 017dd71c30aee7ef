"""Acceptance 7: the streaming benchmark reports lines per second and the heartbeat."""

from __future__ import annotations

from pathlib import Path

from workbench.bench import CellContext
from workbench.bench.cell_result import CellResult
from workbench_plugins.printing.bench import suites
from workbench_plugins.printing.perf import stream_benchmark


def test_stream_benchmark_reports_rate_and_heartbeat() -> None:
    figures = stream_benchmark(800, window=2, checksum_error_rate=0.01)
    assert figures["complete"] == 1.0 and figures["lines"] > 800  # + M73 lines
    assert figures["lines_per_s"] > 0
    assert figures["resends"] >= figures["checksum_errors"]
    for key in ("heartbeat_median_ms", "heartbeat_p99_ms", "heartbeat_max_ms"):
        assert figures[key] >= figures["heartbeat_interval_ms"] * 0.5


def test_suite_runs_its_smoke_task(context: object, tmp_path: Path) -> None:
    (suite,) = suites()
    task = suite.smoke_tasks()[0]
    result = suite.run(task, "none", 0, CellContext(context, tmp_path))  # type: ignore[arg-type]
    assert isinstance(result, CellResult) and not result.bindings  # measured, nothing to bind
    scores = result.scores
    assert scores["lines_per_s"] > 0 and "heartbeat_max_ms" in scores
    assert all(isinstance(value, float) for value in scores.values())
    assert set(suite.headline) <= set(scores)
