"""The SLURM queue view: the jobs of the configured hosts, a log that follows, submit and cancel.

The table is a QTableView over JobTableModel (one signal per refresh, whatever the number of
rows), coloured by state, filtered by host and mine/all on the GUI thread from the last poll (no
SSH for a filter). Polls run on a worker thread every `poll_seconds` (QueuePoller); the log pane
reads the selected job's output from where it stopped, and appends. Submit and Cancel ask first
(non-modal questions), then run as the HPC tools (or the Slurm client) off the GUI thread.
A host that cannot be read is said in words above the table, what failed in its tooltip; a host
refused only because its key is unknown gets a "Trust this host…" button (host_trust.py).
With no host configured the view says so instead of a blank table, Submit… is disabled with the
reason, and "Add a host…" opens a form with a connection test (host_form.py).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import shiboken6
from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt
from PySide6.QtGui import QCloseEvent, QHideEvent, QShowEvent, QTextCursor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from workbench.ui.async_loop import start_task
from workbench.ui.naming import named
from workbench_plugins.hpc.slurm.jobs import JobRow, TrackedJob
from workbench_plugins.hpc.ssh.errors import UnknownHostKey
from workbench_plugins.hpc.views.actions import ActionFailed, QueueActions, SubmitRequest
from workbench_plugins.hpc.views.host_trust import HostTrust, ProblemRow, trust_question
from workbench_plugins.hpc.views.job_table import JobKey, JobTableModel, job_key
from workbench_plugins.hpc.views.no_host import NO_HOST_SUBMIT, NoHostRow
from workbench_plugins.hpc.views.poller import QueuePoller
from workbench_plugins.hpc.views.queue_source import (
    LogRequest,
    QueueSnapshot,
    QueueSource,
    newer,
    tracked_rows,
)
from workbench_plugins.hpc.views.submit_form import SubmitForm, describe, question_box

ALL_HOSTS = "All hosts"
MINE, EVERYONE = "My jobs", "All users"
COLUMN_WIDTHS = (90, 70, 45, 200, 80, 105, 130, 75, 80)  # host ... time limit; nodes stretch


@dataclass
class LogFollow:
    key: JobKey | None = None
    offset: int = 0
    done: bool = False  # the job ended and its log was read to the end


class QueueView(QWidget):
    def __init__(
        self,
        source: QueueSource,
        hosts: Callable[[], list[str]],
        actions: QueueActions,
        poll_seconds: float = 10.0,
        host_trust: HostTrust | None = None,
        add_host: Callable[[QWidget], QDialog] | None = None,
    ) -> None:
        super().__init__()
        self.setObjectName("hpc-queue-view")
        self.source = source
        self.queue_actions = actions
        self.host_trust = host_trust
        self._hosts = hosts
        self._add_host = add_host
        self.host_form: QDialog | None = None
        self._rows: dict[JobKey, JobRow] = {}
        self._users: dict[str, str] = {}
        self._partitions: dict[str, list[str]] = {}
        self._log = LogFollow()
        self._select_when_listed: JobKey | None = None
        self.question: QMessageBox | None = None
        self.form: SubmitForm | None = None

        self.model = JobTableModel()
        self.table = named(QTableView(), "hpc-queue-table")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        # fixed widths: sizing 1,000 rows to their contents would cost the GUI thread a scan
        for column, width in enumerate(COLUMN_WIDTHS):
            header.resizeSection(column, width)
        rows = self.table.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.setWordWrap(False)
        self.table.selectionModel().currentRowChanged.connect(self._current_changed)

        self.log_title = named(QLabel("Select a job to follow its output."), "hpc-log-title")
        self.log_pane = named(QPlainTextEdit(readOnly=True), "hpc-log-pane")
        self.log_pane.setMaximumBlockCount(5000)
        self.log_pane.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        log_box = QWidget()
        log_layout = QVBoxLayout(log_box)
        log_layout.setContentsMargins(0, 0, 0, 0)
        log_layout.addWidget(self.log_title)
        log_layout.addWidget(self.log_pane, 1)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.table)
        splitter.addWidget(log_box)
        splitter.setSizes([300, 200])

        self.problems = ProblemRow(offer_trust=host_trust is not None)
        self.problems.trust_requested.connect(self.ask_trust)
        self.problem = self.problems.label
        self.message = named(QLabel(""), "hpc-queue-message")
        self.message.setWordWrap(True)
        self.message.hide()
        layout = QVBoxLayout(self)
        layout.addLayout(self._toolbar())
        layout.addWidget(self._no_host_row(), 1)  # in the table's place while there is none
        layout.addWidget(self.problems)
        layout.addWidget(self.message)
        layout.addWidget(splitter, 1)
        self.splitter = splitter
        self._show_host_state()

        self.poller = QueuePoller(source, self._hosts, self._log_request, poll_seconds, self)
        self.poller.polled.connect(self.show_snapshot)

    def _toolbar(self) -> QHBoxLayout:
        self.host_filter = named(QComboBox(), "hpc-host-filter")
        self.host_filter.addItem(ALL_HOSTS)
        self.host_filter.addItems(self._hosts())
        self.user_filter = named(QComboBox(), "hpc-user-filter")
        self.user_filter.addItems([MINE, EVERYONE])
        for combo in (self.host_filter, self.user_filter):
            combo.currentTextChanged.connect(lambda _text: self._apply_filter())
        self.refresh_button = named(QPushButton("Refresh"), "hpc-refresh")
        self.refresh_button.clicked.connect(self.refresh)
        self.submit_button = named(QPushButton("Submit…"), "hpc-submit")
        self.submit_button.clicked.connect(self.open_submit_form)
        self.cancel_button = named(QPushButton("Cancel job…"), "hpc-cancel")
        self.cancel_button.clicked.connect(self.ask_cancel)
        self.updated = named(QLabel("not read yet"), "hpc-queue-updated")
        bar = QHBoxLayout()
        for widget in (self.host_filter, self.user_filter, self.refresh_button):
            bar.addWidget(widget)
        bar.addWidget(self.submit_button)
        bar.addWidget(self.cancel_button)
        bar.addStretch(1)
        bar.addWidget(self.updated)
        return bar

    def _no_host_row(self) -> QWidget:
        self.no_host = NoHostRow(can_add=self._add_host is not None)
        self.no_host_label, self.add_host_button = self.no_host.label, self.no_host.add_button
        self.add_host_button.clicked.connect(self.open_host_form)
        return self.no_host

    def _show_host_state(self) -> None:
        """No host: say so, offer to add one, and keep Submit… off (with the reason)."""
        has_host = bool(self._hosts())
        self.no_host.setVisible(not has_host)
        self.splitter.setVisible(has_host)
        for widget in (self.host_filter, self.user_filter, self.refresh_button, self.cancel_button):
            widget.setEnabled(has_host)
        self.submit_button.setEnabled(has_host)
        self.submit_button.setToolTip("" if has_host else NO_HOST_SUBMIT)
        if not has_host:
            self.updated.setText("")

    def open_host_form(self) -> None:
        if self._add_host is None or self.host_form is not None:
            return
        form = self.host_form = self._add_host(self)

        def answered(_result: int) -> None:
            self.host_form = None
            self.host_added()

        form.finished.connect(answered)
        form.open()

    def host_added(self) -> None:
        """Re-read the hosts (the form may have saved one) and start reading the queue."""
        shown = [self.host_filter.itemText(i) for i in range(1, self.host_filter.count())]
        hosts = self._hosts()
        if hosts != shown:
            self.host_filter.blockSignals(True)
            self.host_filter.clear()
            self.host_filter.addItem(ALL_HOSTS)
            self.host_filter.addItems(hosts)
            self.host_filter.blockSignals(False)
        self._show_host_state()
        if hosts and self.isVisible():
            self.poller.start()

    # -- polling ------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Poll now (on the worker; returns at once)."""
        self.poller.poll_now()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._hosts():  # nothing to ask without a host ("updated" would say nothing true)
            self.poller.start()

    def hideEvent(self, event: QHideEvent) -> None:
        self.poller.timer.stop()  # a hidden view need not ask the cluster
        super().hideEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.poller.stop()
        super().closeEvent(event)

    def _log_request(self) -> LogRequest | None:
        follow = self._log
        if follow.key is None or follow.done:
            return None
        return LogRequest(follow.key[0], follow.key[1], follow.offset)

    def show_snapshot(self, snapshot: QueueSnapshot) -> None:
        self._rows = {job_key(row): row for row in snapshot.rows}
        self._users.update(snapshot.users)
        self._partitions.update(snapshot.partitions)
        self.problems.show_problems(snapshot.problems)
        if self._hosts():
            self.updated.setText(f"updated {time.strftime('%H:%M:%S')}")
        self._apply_filter()
        if snapshot.log is not None:
            self._append_log(snapshot)

    def merge_tracked(self, jobs: Sequence[TrackedJob]) -> None:
        """The job tracker's newer states (its own poll), shown without asking the cluster."""
        for job in jobs:
            for row in tracked_rows(job, self._users.get(job.host, "")):
                known = self._rows.get(job_key(row))
                self._rows[job_key(row)] = row if known is None else newer(known, row)
        self._apply_filter()

    # -- table --------------------------------------------------------------------------------
    def visible_rows(self) -> list[JobRow]:
        host = self.host_filter.currentText()
        mine = self.user_filter.currentText() == MINE
        return [
            row
            for row in self._rows.values()
            if (host == ALL_HOSTS or row.host == host)
            and not (mine and self._users.get(row.host) not in (None, row.user))
        ]

    def _apply_filter(self) -> None:
        kept = self.selected_key()
        self.model.set_rows(self.visible_rows())
        wanted = self._select_when_listed or kept
        if wanted is not None and self.model.row_of(wanted) >= 0:
            if wanted == self._select_when_listed:
                self._select_when_listed = None
            if wanted != self.selected_key():
                self.select(wanted)

    def selected_key(self) -> JobKey | None:
        row = self.model.job_at(self.table.selectionModel().currentIndex().row())
        return job_key(row) if row is not None else None

    def select(self, key: JobKey) -> None:
        row = self.model.row_of(key)
        if row < 0:
            return
        flags = (
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows
        )
        self.table.selectionModel().setCurrentIndex(self.model.index(row, 0), flags)

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        row = self.model.job_at(current.row())
        key = job_key(row) if row is not None else None
        if key is None or key == self._log.key:
            return
        self._log = LogFollow(key)
        self.log_pane.clear()
        self.log_title.setText(f"Output of job {key[1]} on {key[0]}")
        self.log_title.setToolTip("")
        self.refresh()

    # -- log ----------------------------------------------------------------------------------
    def _append_log(self, snapshot: QueueSnapshot) -> None:
        chunk = snapshot.log
        if chunk is None or (chunk.host, chunk.job_id) != self._log.key:
            return  # the selection moved on while this poll ran
        row = self._rows.get(self._log.key) if self._log.key else None
        ended = row is not None and row.state.finished
        if chunk.problem:
            self.log_title.setText(f"Output of job {chunk.job_id} on {chunk.host}: {chunk.problem}")
            self._log.done = ended  # an ended job's log will not turn up later
            return
        if chunk.path:
            self.log_title.setToolTip(chunk.path)
        if chunk.text:
            cursor = self.log_pane.textCursor()
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertText(chunk.text)
            self.log_pane.setTextCursor(cursor)
            self.log_pane.ensureCursorVisible()
        self._log.offset = chunk.offset
        if ended and not chunk.text:
            self._log.done = True  # ended, and nothing more was written: stop asking

    # -- submit and cancel --------------------------------------------------------------------
    def say(self, text: str, detail: str = "") -> None:
        self.message.setVisible(bool(text))
        self.message.setText(text)
        self.message.setToolTip(detail)

    def open_submit_form(self) -> None:
        hosts = self._hosts()
        if not hosts:
            self.say(NO_HOST_SUBMIT)
            return
        current = self.host_filter.currentText()
        form = self.form = SubmitForm(self, hosts, self._partitions, current)

        def answered(result: int) -> None:
            self.form = None
            if result == QDialog.DialogCode.Accepted:
                self.confirm_submit(form.request())

        form.finished.connect(answered)
        form.open()

    def confirm_submit(self, request: SubmitRequest) -> None:
        if not (request.script_file or request.command):
            self.say("Nothing submitted: give a script file or a command.")
            return
        self._ask(
            question_box(self, "Submit a Slurm job", describe(request), "confirm-hpc-submit"),
            lambda: start_task(self._submit(request), name="hpc-submit"),
            "Not submitted.",
        )

    def ask_cancel(self) -> None:
        key = self.selected_key()
        row = self._rows.get(key) if key else None
        if key is None or row is None:
            self.say("Select the job to cancel in the table first.")
            return
        if row.state.finished:
            self.say(f"Job {row.job_id} already ended ({row.state}); nothing to cancel.")
            return
        question = f"Cancel job {row.job_id} ({row.name}) on {row.host}?"
        self._ask(
            question_box(self, "Cancel a Slurm job", question, "confirm-hpc-cancel"),
            lambda: start_task(self._cancel(row.host, row.job_id), name="hpc-cancel"),
            f"Job {row.job_id} was not cancelled.",
        )

    def ask_trust(self, host: str, failure: UnknownHostKey) -> None:
        """The person compares the fingerprint; Yes writes the key (off the GUI thread)."""
        if self.host_trust is None:
            return
        self._ask(
            trust_question(self, host, failure, self.host_trust.file()),
            lambda: start_task(self._trust(host, failure), name="hpc-trust-host"),
            f"{host} was not trusted: its key stays unknown and its queue unread.",
        )

    def _ask(self, box: QMessageBox, on_yes: Callable[[], object], on_no: str) -> None:
        """A non-modal Yes/No; `on_yes` runs only on Yes."""
        self.question = box

        def answered(button: int) -> None:
            self.question = None
            if button == QMessageBox.StandardButton.Yes:
                on_yes()
            else:
                self.say(on_no)

        box.finished.connect(answered)
        box.open()

    async def _submit(self, request: SubmitRequest) -> None:
        self.say(f"Submitting to {request.host}…")
        try:
            job_id = await self.queue_actions.submit(request)
        except Exception as error:  # said in the view; the detail in the tooltip
            if shiboken6.isValid(self):
                self._failed("Not submitted", request.host, error)
            return
        if not shiboken6.isValid(self):
            return
        self.source.follow(request.host, job_id)
        self._select_when_listed = (request.host, job_id)
        self.say(f"Submitted job {job_id} to {request.host}.")
        self.refresh()

    async def _cancel(self, host: str, job_id: str) -> None:
        try:
            message = await self.queue_actions.cancel(host, job_id)
        except Exception as error:
            if shiboken6.isValid(self):
                self._failed(f"Job {job_id} was not cancelled", host, error)
            return
        if shiboken6.isValid(self):
            self.say(message)
            self.refresh()

    async def _trust(self, host: str, failure: UnknownHostKey) -> None:
        trust = self.host_trust
        if trust is None:
            return
        try:
            await asyncio.to_thread(trust.trust, host, failure)
        except Exception as error:
            if shiboken6.isValid(self):
                self._failed(f"{host} was not trusted", host, error)
            return
        if shiboken6.isValid(self):
            self.say(
                f"Trusted {host} ({failure.key_type} {failure.fingerprint}); its key was "
                f"written to {trust.file()}."
            )
            self.refresh()

    def _failed(self, what: str, host: str, error: BaseException) -> None:
        if isinstance(error, ActionFailed):
            self.say(f"{what}: {error}", str(error))
        else:
            self.say(f"{what} on {host}: {error}", f"{type(error).__name__}: {error}")
