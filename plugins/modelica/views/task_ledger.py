"""The ledger of a followed task run's current candidate: invariants, their status, readiness.

`run_status.status_of(find_run(run_id))` touches the ledger's SQLite, so it is read on a worker
thread; bursts of refreshes while a read is under way coalesce into one more read after it.
A candidate with no invariant stated is never called ready (the ledger's rule, "every required
invariant supported", holds vacuously): it says "nothing checked yet", in grey.
"""

from __future__ import annotations

import asyncio
from typing import Any

import shiboken6
from PySide6.QtCore import Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.ledger import Status
from workbench.core.tools import ToolFailure
from workbench.ui.async_loop import start_task
from workbench.ui.ledger_view import READY_COLOURS, STATUS_COLOURS
from workbench_plugins.modelica.harness import find_run
from workbench_plugins.modelica.run_status import StatusOutput, status_of

TEXT_ON_PASTEL = "#1f2328"


def read_status(run_id: str) -> StatusOutput | str:
    """The run's ledger status, or why there is none (a person reads it)."""
    try:
        run = find_run(run_id)
    except ToolFailure as failure:
        return failure.message
    if run is None:
        return f"Run {run_id} is not in this session."
    return status_of(run)


class RunLedger(QWidget):
    """The current candidate's invariants x status, refreshed off the GUI thread."""

    read = Signal()  # after each painted read

    def __init__(self, context: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelica-task-ledger")
        self.context = context
        self.run_id: str | None = None
        self.mode = "harness"
        self.status: StatusOutput | None = None
        self._reading = False
        self._stale = False
        self.title = QLabel("Ledger")
        self.title.setObjectName("modelica-task-ledger-title")
        self.title.setWordWrap(True)
        self.table = QTableWidget(0, 2)
        self.table.setObjectName("modelica-task-invariants")
        self.table.setHorizontalHeaderLabels(["Invariant", "Status"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.readiness = QLabel()
        self.readiness.setObjectName("modelica-task-readiness")
        self.readiness.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.readiness)

    def follow(self, run_id: str, mode: str) -> None:
        self.run_id, self.mode, self.status = run_id, mode, None
        self.table.setRowCount(0)
        self.title.setText("Ledger of the current candidate")
        self.readiness.setText("")
        self.refresh()

    def refresh(self) -> None:
        if self.run_id is None:
            return
        if self._reading:
            self._stale = True
            return
        self._reading = True
        start_task(self._read_and_show(), name="modelica-task-ledger")

    async def _read_and_show(self) -> None:
        try:
            while True:
                self._stale = False
                run_id = self.run_id
                if run_id is None:
                    return
                status = await asyncio.to_thread(read_status, run_id)
                if not shiboken6.isValid(self):
                    return
                if run_id == self.run_id:
                    self.show_status(status)
                if not self._stale:
                    break
        finally:
            if shiboken6.isValid(self):
                self._reading = False

    def show_status(self, status: StatusOutput | str) -> None:
        if isinstance(status, str):
            self.readiness.setText(status)
            self.read.emit()
            return
        self.status = status
        candidate = status.current_candidate
        self.title.setText(
            f"Ledger of the current candidate {candidate[:12]}"
            if candidate
            else "Ledger: no candidate yet (the workspace holds no model)"
        )
        self.table.setRowCount(len(status.invariants))
        for row, (name, value) in enumerate(status.invariants.items()):
            self.table.setItem(row, 0, _item(name))
            colour = STATUS_COLOURS.get(Status(value), STATUS_COLOURS[Status.OPEN])
            self.table.setItem(row, 1, _item(value, colour))
        if not status.invariants:
            none = "no ledger in the plain loop" if self.mode == "plain" else "none stated yet"
            self.readiness.setText(f"Invariants: {none}. Nothing checked yet, so not ready.")
            colour = STATUS_COLOURS[Status.OPEN]
        else:
            self.readiness.setText(status.readiness)
            colour = READY_COLOURS[status.ready]
        self.readiness.setStyleSheet(f"background: {colour}; color: {TEXT_ON_PASTEL}; padding: 3px")
        self.read.emit()


def _item(text: str, colour: str | None = None) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    if colour:
        item.setBackground(QBrush(QColor(colour)))
        item.setForeground(QBrush(QColor(TEXT_ON_PASTEL)))
    return item
