"""Headless benchmarks: plugins' suites, run as cells (suite x task x model x seed)."""

from workbench.bench.suite import BenchTask, CellContext, Suite

__all__ = ["BenchTask", "CellContext", "Suite"]
