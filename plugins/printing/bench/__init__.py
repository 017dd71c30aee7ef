"""The `printing` bench suite: G-code streaming to the Marlin emulator (the figures: perf.py).

suite.py  the tasks (window 1, window 4, 1% checksum errors) and running one
"""

from __future__ import annotations

from workbench.bench import Suite
from workbench_plugins.printing.bench.suite import StreamingSuite


def suites() -> list[Suite]:
    return [StreamingSuite()]
