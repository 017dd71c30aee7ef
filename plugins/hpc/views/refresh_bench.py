"""The GUI half of the HPC benchmark (perf.py): how long the GUI thread stalls while the queue
view shows polls of many jobs.

A QTimer ticks every `tick_ms` on the GUI thread and records when it fired; the view is shown and
given one snapshot after another, as its poller would (repaints included). The longest gap
between ticks is the longest time the GUI could not answer.
"""

from __future__ import annotations

import itertools
import os
import statistics
import time
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication

from workbench_plugins.hpc.slurm.jobs import JobRow
from workbench_plugins.hpc.views.actions import DirectActions
from workbench_plugins.hpc.views.queue_source import QueueSnapshot, QueueSource
from workbench_plugins.hpc.views.queue_view import EVERYONE, QueueView


def application() -> QApplication:
    """The running QApplication, or a new one (offscreen unless a platform was chosen)."""
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    return QApplication([])


def _no_shell(host: str) -> Any:
    raise RuntimeError(f"the benchmark reads no host ({host})")


def measure_refresh(
    polls: Sequence[Sequence[JobRow]], *, tick_ms: float = 5.0, spacing_ms: int = 60
) -> dict[str, float]:
    """Show each poll's rows in a fresh queue view, `spacing_ms` apart; the GUI gaps seen."""
    app = application()
    view = QueueView(QueueSource(_no_shell), list, DirectActions(_no_shell), poll_seconds=3600)
    view.user_filter.setCurrentText(EVERYONE)
    view.resize(1100, 700)
    view.show()
    view.poller.stop()  # snapshots come from here, not from a host
    app.processEvents()

    ticks: list[float] = []
    calls: list[float] = []
    loop = QEventLoop()
    heartbeat = QTimer()
    heartbeat.setInterval(max(1, int(tick_ms)))
    heartbeat.timeout.connect(lambda: ticks.append(time.perf_counter()))
    pending = list(polls)

    def next_poll() -> None:
        if not pending:
            QTimer.singleShot(spacing_ms, loop.quit)
            return
        rows = pending.pop(0)
        started = time.perf_counter()
        view.show_snapshot(QueueSnapshot(tuple(rows), {}, {}))
        calls.append(time.perf_counter() - started)
        QTimer.singleShot(spacing_ms, next_poll)

    heartbeat.start()
    ticks.append(time.perf_counter())
    QTimer.singleShot(spacing_ms, next_poll)
    loop.exec()
    heartbeat.stop()
    shown = view.model.rowCount()
    view.close()
    view.deleteLater()
    app.processEvents()
    gaps = [later - earlier for earlier, later in itertools.pairwise(ticks)] or [0.0]
    return {
        "rows": float(shown),
        "refreshes": float(len(calls)),
        "gap_max_ms": max(gaps) * 1000,
        "gap_median_ms": statistics.median(gaps) * 1000,
        "refresh_call_max_ms": max(calls, default=0.0) * 1000,
        "refresh_call_mean_ms": statistics.fmean(calls) * 1000 if calls else 0.0,
    }
