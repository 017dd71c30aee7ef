"""Background jobs in the status bar: one row per running job, with progress and a Cancel button.

Cancel is a person's decision: it is published (`JobCancelRequested`) before the job is stopped,
so an agent whose tool call started the job stops its run instead of carrying on.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QWidget,
)

from workbench.core.context import AppContext
from workbench.core.events import JobCancelRequested, JobFinished, JobProgress, JobStarted
from workbench.ui.bridge import subscribe_in_gui

TITLE_CHARACTERS = 28  # the status bar is one line; long titles are elided, full text in tooltip
REASON_CHARACTERS = 100  # of a failed job's first error line in the status bar


class JobRow(QWidget):
    """Title, progress bar (busy indicator until the job reports a fraction) and Cancel."""

    cancel_requested = Signal(str)

    def __init__(self, job_id: str, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.job_id = job_id
        self.full_title = title
        self.setObjectName(f"job-{job_id}")
        self.title = QLabel(_elide(title))
        self.title.setToolTip(title)
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)  # busy until the first fraction arrives
        self.progress.setFixedWidth(120)
        self.progress.setMaximumHeight(16)
        self.progress.setTextVisible(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName(f"cancel-{job_id}")
        self.cancel_button.setToolTip(f"Stop {title}")
        self.cancel_button.clicked.connect(self._cancel_clicked)
        self.cancel_button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.progress)
        layout.addWidget(self.cancel_button)

    def show_progress(self, fraction: float | None, message: str) -> None:
        if fraction is not None:
            self.progress.setRange(0, 1000)
            self.progress.setValue(round(max(0.0, min(1.0, fraction)) * 1000))
        if message:
            self.progress.setToolTip(message)
            self.title.setToolTip(f"{self.full_title}\n{message}")

    def _cancel_clicked(self) -> None:
        self.cancel_button.setEnabled(False)
        self.cancel_button.setText("Cancelling…")
        self.cancel_requested.emit(self.job_id)


class JobsWidget(QWidget):
    """Lists running jobs from JobStarted/JobProgress/JobFinished; `message` reports endings."""

    message = Signal(str, str)  # level, text

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("jobs-widget")
        self.context = context
        self.rows: dict[str, JobRow] = {}
        self.cancelled_here: set[str] = set()  # jobs a person cancelled with these buttons
        self.idle_label = QLabel("No background jobs")
        self.idle_label.setEnabled(False)
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(12, 0, 0, 0)  # keep clear of status-bar messages
        self._layout.addWidget(self.idle_label)
        for job in context.jobs.running():  # jobs started before the window existed
            self._add_row(job.id, job.title)
        subscribe_in_gui(context.bus, JobStarted, self._on_started, self)
        subscribe_in_gui(context.bus, JobProgress, self._on_progress, self)
        subscribe_in_gui(context.bus, JobFinished, self._on_finished, self)
        # a person's Cancel elsewhere (a view's own button) is theirs too
        subscribe_in_gui(context.bus, JobCancelRequested, self._on_cancel_requested, self)

    def cancel_button(self, job_id: str) -> QPushButton:
        return self.rows[job_id].cancel_button

    def _on_cancel_requested(self, event: JobCancelRequested) -> None:
        if event.job_id in self.rows:
            self.cancelled_here.add(event.job_id)

    def _on_started(self, event: JobStarted) -> None:
        self._add_row(event.job_id, event.title)

    def _on_progress(self, event: JobProgress) -> None:
        row = self.rows.get(event.job_id)
        if row is not None:
            row.show_progress(event.fraction, event.message)

    def _on_finished(self, event: JobFinished) -> None:
        row = self.rows.pop(event.job_id, None)
        title = row.full_title if row else event.job_id
        if row is not None:
            self._layout.removeWidget(row)
            row.deleteLater()
        self.idle_label.setVisible(not self.rows)
        self.message.emit(*_ending(title, event, event.job_id in self.cancelled_here))
        self.cancelled_here.discard(event.job_id)

    def _add_row(self, job_id: str, title: str) -> None:
        if job_id in self.rows:
            return
        row = JobRow(job_id, title, self)
        row.cancel_requested.connect(self._cancel)
        self.rows[job_id] = row
        self._layout.addWidget(row)
        self.idle_label.setVisible(False)

    def _cancel(self, job_id: str) -> None:
        self.cancelled_here.add(job_id)
        # first the person's intent: an agent's run that started the job stops, and work that is
        # not the runner's (a tool following a cluster job) stops on this request
        self.context.bus.publish(JobCancelRequested(job_id=job_id))
        job = self.context.jobs.get(job_id)
        if job is not None:
            job.cancel()  # returns at once; the runner enforces the stop on its own thread


def _elide(text: str) -> str:
    return text if len(text) <= TITLE_CHARACTERS else text[: TITLE_CHARACTERS - 1] + "…"


def _ending(title: str, event: JobFinished, cancelled_here: bool) -> tuple[str, str]:
    """(level, text) for the status bar: short, in a person's words."""
    if event.status == "failed":
        lines = [line.strip() for line in event.error.splitlines() if line.strip()]
        reason = lines[0] if lines else "no reason given"
        if len(reason) > REASON_CHARACTERS:
            reason = reason[: REASON_CHARACTERS - 1] + "…"
        return "error", f"Job {title} failed: {reason}"
    if event.status == "cancelled":
        return (
            "info",
            f"Job {title} cancelled by you." if cancelled_here else f"Job {title} cancelled.",
        )
    return "info", f"Job {title} {event.status}."
