"""The live progress of the jobs one tool call started, as a thin bar and a line in its card.

Jobs report many times a second, from any thread. The bus handlers here run in the publishing
thread and only keep the latest report (under a lock); at most every REFRESH_MS one queued call
repaints on the GUI thread, so a flood of progress never floods the GUI's queue or blocks the job.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel, QProgressBar, QSizePolicy, QVBoxLayout, QWidget

from workbench.core.events import EventBus, JobFinished, JobProgress, JobStarted
from workbench.ui.bridge import gui_deliver
from workbench.ui.chat.job_links import StartedJobs
from workbench.ui.chat.summaries import progress_text

REFRESH_MS = 100  # ~10 repaints a second, whatever the jobs' pace


class _Reported:
    """One job's latest report (written in the publisher's thread, read on the GUI thread)."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.fraction: float | None = None
        self.text = title


class CardProgress(QWidget):
    """Hidden until a followed job reports; `stop` hides it for good (the call finished)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bar = QProgressBar()
        self.bar.setObjectName("tool-card-progress-bar")
        self.bar.setTextVisible(False)
        self.bar.setFixedHeight(4)
        self.bar.setStyleSheet(
            "QProgressBar { background: #eaeef2; border: none; border-radius: 2px; }"
            " QProgressBar::chunk { background: #0969da; border-radius: 2px; }"
        )
        self.label = QLabel()
        self.label.setObjectName("tool-card-progress")
        self.label.setStyleSheet("color: #57606a;")
        # a long line is cut, never widens the chat
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.bar)
        layout.addWidget(self.label)
        self.hide()
        self._lock = threading.Lock()
        self._jobs: dict[str, _Reported] = {}  # this call's running jobs, by job id
        self._latest = ""  # the job that reported last
        self._queued = False  # a repaint is on its way to the GUI thread
        self._stopped = False
        self._tool_call_id = ""
        self._unsubscribe: list[Callable[[], None]] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self._repaint)

    def follow(self, bus: EventBus, tool_call_id: str, started: StartedJobs | None = None) -> None:
        """Show the jobs whose JobStarted names `tool_call_id`; `started`: those of them that
        started before this (the card was made late)."""
        self._tool_call_id = tool_call_id
        self._unsubscribe = [
            bus.subscribe(JobStarted, self._on_started),
            bus.subscribe(JobProgress, self._on_progress),
            bus.subscribe(JobFinished, self._on_finished),
        ]
        # after subscribing, so a job starting in between is not missed
        for event in started.of_call(tool_call_id) if started is not None else []:
            with self._lock:
                self._jobs.setdefault(event.job_id, _Reported(event.title))
                self._latest = self._latest or event.job_id
            self._wake()
        unsubscribe = list(self._unsubscribe)  # not self: it is gone when `destroyed` fires
        self.destroyed.connect(lambda *_: [stop() for stop in unsubscribe])

    def stop(self) -> None:
        """The call finished: no more progress, nothing shown."""
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []
        with self._lock:
            self._stopped = True
            self._jobs.clear()
        self._timer.stop()
        self.hide()

    # -- in the publisher's thread: cheap, never touches a widget ---------------------------------
    def _on_started(self, event: JobStarted) -> None:
        if event.tool_call_id == self._tool_call_id:
            with self._lock:
                self._jobs[event.job_id] = _Reported(event.title)
                self._latest = event.job_id
            self._wake()

    def _on_progress(self, event: JobProgress) -> None:
        with self._lock:
            job = self._jobs.get(event.job_id)
            if job is None:
                return
            job.fraction = event.fraction
            job.text = progress_text(job.title, event.message, event.fraction, event.data)
            self._latest = event.job_id
        self._wake()

    def _on_finished(self, event: JobFinished) -> None:
        with self._lock:
            if self._jobs.pop(event.job_id, None) is None:
                return
        self._wake()

    def _wake(self) -> None:
        with self._lock:
            if self._queued or self._stopped:
                return
            self._queued = True
        gui_deliver(_schedule_repaint, self)

    # -- on the GUI thread ------------------------------------------------------------------------
    def schedule_repaint(self) -> None:
        if not self._timer.isActive():
            self._timer.start()

    def _repaint(self) -> None:
        with self._lock:
            self._queued = False
            if self._stopped:
                return
            job = self._jobs.get(self._latest) or next(iter(self._jobs.values()), None)
            shown = (job.text, job.fraction) if job is not None else None
        if shown is None:  # its jobs ended; the call itself may still be working
            self.hide()
            return
        text, fraction = shown
        if fraction is None:
            self.bar.setRange(0, 0)  # busy: the job's length is unknown
        else:
            self.bar.setRange(0, 1000)
            self.bar.setValue(round(max(0.0, min(1.0, fraction)) * 1000))
        self.label.setText(text)
        self.label.setToolTip(text)
        self.show()

    def text(self) -> str:
        """What a person reads now ("" when nothing is shown)."""
        return "" if self.isHidden() else self.label.text()


def _schedule_repaint(progress: CardProgress) -> None:
    if shiboken6.isValid(progress):  # the card may be gone (conversation cleared)
        progress.schedule_repaint()
