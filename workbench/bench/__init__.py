"""Headless benchmarks: plugins' suites, run as cells (suite x task x model x seed)."""

from workbench.bench.suite import AgentBudget, BenchTask, CellContext, Suite

__all__ = ["AgentBudget", "BenchTask", "CellContext", "Suite"]
