"""The environment variables between the benchmark and the programs it starts (Qt-free, so the
benchmark process can name them without loading Qt)."""

from __future__ import annotations

REPORT_VARIABLE = "WORKBENCH_REPORT_INTERACTIVE"  # the report file; unset: no report, no quitting
LAUNCH_VARIABLE = "WORKBENCH_LAUNCH_TIME"  # time.time() just before the launch
