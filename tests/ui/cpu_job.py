"""A CPU-bound job for the GUI tests; module level so the spawned worker can import it."""

from __future__ import annotations

import time

from workbench.core.jobs import Reporter


def burn_cpu(reporter: Reporter, seconds: float) -> int:
    """Spin for `seconds`, reporting progress; it ignores the cancel flag, like native solvers do,
    so only the runner's termination can stop it."""
    started = time.perf_counter()
    next_report = started
    spins = 0
    while (elapsed := time.perf_counter() - started) < seconds:
        spins += 1
        if time.perf_counter() >= next_report:
            reporter.progress(elapsed / seconds, f"{elapsed:.1f} s of {seconds:.0f} s")
            next_report += 0.1
    return spins
