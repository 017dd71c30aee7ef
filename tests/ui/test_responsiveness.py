"""Acceptance: a CPU-bound job leaves the window responsive, and Cancel stops it at once."""

from __future__ import annotations

import itertools
import multiprocessing
import time
from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer
from pytestqt.qtbot import QtBot

from tests.ui.cpu_job import burn_cpu
from workbench.core.context import AppContext
from workbench.core.jobs import JobState
from workbench.ui.main_window import MainWindow

HEARTBEAT_MS = 10
MEASURE_MS = 2000
MAX_GAP_S = 0.050
CANCEL_WITHIN_S = 1.0


def test_gui_stays_responsive_and_cancel_stops_the_job(
    open_window: Callable[..., MainWindow], context: AppContext, qtbot: QtBot
) -> None:
    window = open_window()
    jobs = window.jobs_widget
    job = context.jobs.submit(burn_cpu, 5.0, title="burn the CPU for 5 s")
    qtbot.waitUntil(lambda: job.id in jobs.rows, timeout=5000)
    # measure once the worker really runs: its first progress report has reached the GUI
    qtbot.waitUntil(lambda: jobs.rows[job.id].progress.maximum() > 0, timeout=5000)

    ticks: list[float] = []
    heartbeat = QTimer()
    heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
    heartbeat.timeout.connect(lambda: ticks.append(time.perf_counter()))
    heartbeat.start(HEARTBEAT_MS)
    qtbot.wait(MEASURE_MS)
    heartbeat.stop()

    assert not job.done, "the job should still be running while we measure"
    gaps = [later - earlier for earlier, later in itertools.pairwise(ticks)]
    assert len(ticks) > MEASURE_MS / HEARTBEAT_MS / 2
    assert max(gaps) < MAX_GAP_S, f"the GUI stalled for {max(gaps) * 1000:.0f} ms"
    assert jobs.rows[job.id].progress.value() > 0  # progress kept arriving meanwhile

    clicked = time.perf_counter()
    qtbot.mouseClick(jobs.cancel_button(job.id), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: job.done, timeout=int(CANCEL_WITHIN_S * 1000))
    assert time.perf_counter() - clicked < CANCEL_WITHIN_S
    assert job.state is JobState.CANCELLED
    assert job.id not in [child.name for child in multiprocessing.active_children()]
    qtbot.waitUntil(lambda: job.id not in jobs.rows)  # and the row leaves the status bar
