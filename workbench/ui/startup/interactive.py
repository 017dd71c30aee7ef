"""The time-to-interactive hook: how long after launch a window could react to a click.

With WORKBENCH_REPORT_INTERACTIVE=<file> set, `report_when_interactive(app, window)` waits for the
window's first paint, then for the event loop to run once more (a zero timer: everything queued by
the start has been handled), writes a JSON report to <file> and quits. The time counts from
WORKBENCH_LAUNCH_TIME (a `time.time()` the launcher takes just before starting the process) or,
without it, from the process's start as the kernel recorded it (Linux, 10 ms ticks).
Unset, the hook does nothing: one environment lookup.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QTimer, qVersion
from PySide6.QtWidgets import QApplication, QWidget

from workbench.ui.startup.variables import LAUNCH_VARIABLE, REPORT_VARIABLE

EXIT_REPORT_FAILED = 3


class FirstPaint(QObject):
    """Calls `on_painted` once, when the watched widget first paints itself, then stops watching
    (a child of the widget, so Qt never calls it on a half-destroyed widget; no filter after
    the first paint, so later events cost nothing). Keep a reference while it watches."""

    def __init__(self, window: QWidget, on_painted: Callable[[], None]) -> None:
        super().__init__(window)
        self.on_painted: Callable[[], None] | None = on_painted
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        if event.type() == QEvent.Type.Paint and self.on_painted is not None:
            on_painted, self.on_painted = self.on_painted, None
            watched.removeEventFilter(self)
            on_painted()
        return False  # the window paints as usual


def report_when_interactive(app: QApplication, window: QWidget) -> bool:
    """Install the hook if the variable asks for it; True when installed."""
    target = os.environ.get(REPORT_VARIABLE)
    if not target:
        return False
    launched, clock = launch_time()

    def painted() -> None:
        first_paint = time.time()
        QTimer.singleShot(0, lambda: interactive(first_paint))

    def interactive(first_paint: float) -> None:
        report = {
            "seconds": time.time() - launched,
            "first_paint_seconds": first_paint - launched,
            "cpu_seconds": time.process_time(),  # this process's CPU time: less load-dependent
            "clock": clock,
            "platform": app.platformName(),
            "qt": qVersion(),
            "python": sys.version.split()[0],
            "mapped_files": mapped_files(),  # after the measurement: what a cold start reads
            # what was imported by then (top-level packages): the start must stay without the
            # agent runtime, VTK and plotting libraries (tests/ui/test_startup_imports.py)
            "packages": sorted({name.partition(".")[0] for name in list(sys.modules)}),
        }
        try:
            _write_atomically(Path(target), json.dumps(report, indent=1))
        except OSError as error:
            print(f"Could not write the start-up report to {target}: {error}", file=sys.stderr)
            app.exit(EXIT_REPORT_FAILED)
            return
        window.close()
        app.exit(0)  # also when a busy service kept the window open: the measurement is done

    FirstPaint(window, painted)
    return True


def launch_time() -> tuple[float, str]:
    """The wall-clock time of the launch, and which clock gave it."""
    given = os.environ.get(LAUNCH_VARIABLE, "")
    try:
        return float(given), "launch timestamp"
    except ValueError:
        pass
    started = _process_start()
    if started is None:
        raise RuntimeError(
            f"Cannot tell when this process started: set {LAUNCH_VARIABLE} to time.time() "
            "just before starting it."
        )
    return started, "process start (10 ms ticks)"


def _process_start() -> float | None:
    """Linux: the start time in /proc/self/stat is in clock ticks since boot."""
    try:
        stat = Path("/proc/self/stat").read_text()
        start_ticks = int(stat.rsplit(")", 1)[1].split()[19])  # field 22; the name may hold spaces
        ticks_per_second = os.sysconf("SC_CLK_TCK")
        since_boot = time.clock_gettime(time.CLOCK_BOOTTIME)
    except (OSError, ValueError, IndexError, AttributeError):
        return None
    return time.time() - (since_boot - start_ticks / ticks_per_second)


def mapped_files() -> list[str]:
    """The files this process has mapped (libraries, fonts, caches); empty where unknown."""
    try:
        lines = Path("/proc/self/maps").read_text().splitlines()
    except OSError:
        return []
    found = set()
    for line in lines:
        fields = line.split(maxsplit=5)
        if len(fields) == 6 and fields[5].startswith("/") and not fields[5].endswith("(deleted)"):
            found.add(fields[5])
    return sorted(found)


def _write_atomically(path: Path, text: str) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)
