"""Job functions for the tests; module level so a spawned worker can import them."""

from __future__ import annotations

import time

from workbench.core.jobs import JobCancelled, Reporter


def count_to(reporter: Reporter, count: int) -> int:
    for number in range(count):
        reporter.progress((number + 1) / count, "counting", number=number)
    return count


def spin_ignoring_cancel(reporter: Reporter, seconds: float) -> str:
    """Pure CPU work that never looks at the cancel flag: only termination stops it."""
    end = time.perf_counter() + seconds
    total = 0
    while time.perf_counter() < end:
        total += 1
    return "finished"


def spin_politely(reporter: Reporter, seconds: float) -> str:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        if reporter.cancelled:
            raise JobCancelled()
    return "finished"


def explode(reporter: Reporter) -> None:
    raise ValueError("bad mesh")


def unpicklable_result(reporter: Reporter) -> object:
    return lambda: None
