"""The command log: every command the shell ran (time, exact command, folder, exit code,
duration) with its output, newest first, and a Stop button for a running one.

Live rows come from the plugin's events; earlier runs are read from the workspace store on a
worker thread (the GUI thread never waits on the disk) and added below them.
"""

from __future__ import annotations

import logging
import shlex
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.context import AppContext
from workbench.core.store import ToolCallRecord
from workbench.ui.bridge import gui_deliver, subscribe_in_gui
from workbench_plugins.shell.events import CommandFinished, CommandStarted, CommandStopRequested

COLUMNS = ("Time", "Command", "Result", "Duration", "Folder")
RUNNING = "running..."
log = logging.getLogger(__name__)


@dataclass
class Run:
    run_id: int
    started: float
    argv: list[str]
    cwd: str
    state: str = RUNNING
    duration_s: float | None = None
    output: str = ""

    @property
    def running(self) -> bool:
        return self.state == RUNNING


class CommandLog(QWidget):
    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("shell-command-log")
        self.context = context
        self.runs: dict[int, Run] = {}
        self.items: dict[int, QTreeWidgetItem] = {}
        self.table = QTreeWidget()
        self.table.setHeaderLabels(list(COLUMNS))
        self.table.setRootIsDecorated(False)
        self.table.setAlternatingRowColors(True)
        self.table.currentItemChanged.connect(lambda *_: self._show_selected())
        self.output = QPlainTextEdit(readOnly=True)
        self.output.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.output.setPlaceholderText("Select a command to see its output.")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("End the selected command and every process it started")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop_selected)
        self.title = QLabel("Commands run by the shell, newest first")
        self._layout()
        subscribe_in_gui(context.bus, CommandStarted, self._started, self)
        subscribe_in_gui(context.bus, CommandFinished, self._finished, self)
        threading.Thread(target=self._read_history, name="shell-history", daemon=True).start()

    def _layout(self) -> None:
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.stop_button)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.table)
        splitter.addWidget(self.output)
        splitter.setSizes([220, 280])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(splitter)

    # -- what happens ---------------------------------------------------------------------------
    def _started(self, event: CommandStarted) -> None:
        self._add(Run(event.run_id, event.time, event.argv, event.cwd), select=True)

    def _finished(self, event: CommandFinished) -> None:
        run = self.runs.get(event.run_id)
        if run is None:
            run = Run(event.run_id, event.time - event.duration_s, event.argv, event.cwd)
            self._add(run, select=False)
        run.state, run.duration_s, run.output = event.state, event.duration_s, event.output
        self._refresh(run)

    def stop_selected(self) -> None:
        run = self.selected()
        if run is not None and run.running:
            self.stop_button.setEnabled(False)
            self.context.bus.publish(CommandStopRequested(run_id=run.run_id))

    def selected(self) -> Run | None:
        item = self.table.currentItem()
        return None if item is None else self.runs.get(item.data(0, Qt.ItemDataRole.UserRole))

    # -- rows -----------------------------------------------------------------------------------
    def _add(self, run: Run, *, select: bool) -> None:
        if run.run_id in self.runs:
            return
        self.runs[run.run_id] = run
        item = QTreeWidgetItem()
        item.setData(0, Qt.ItemDataRole.UserRole, run.run_id)
        # newest first: below every run that started later
        position = sum(1 for other in self.runs.values() if other.started > run.started)
        self.table.insertTopLevelItem(position, item)
        self.items[run.run_id] = item
        self._refresh(run)
        if select or self.table.currentItem() is None:
            self.table.setCurrentItem(item)

    def _refresh(self, run: Run) -> None:
        item = self.items[run.run_id]
        duration = "" if run.duration_s is None else f"{run.duration_s:.2f} s"
        stamp = time.strftime("%H:%M:%S", time.localtime(run.started))
        short_state = run.state.split(":", 1)[0]  # the whole state is above the output
        texts = (stamp, shlex.join(run.argv), short_state, duration, self._folder(run.cwd))
        for column, text in enumerate(texts):
            item.setText(column, text)
        item.setToolTip(4, run.cwd)
        item.setToolTip(1, shlex.join(run.argv))
        for column in range(len(COLUMNS) - 1):  # the folder takes what is left
            self.table.resizeColumnToContents(column)
        if self.table.currentItem() is item:
            self._show_selected()

    def _folder(self, cwd: str) -> str:
        """The folder as the workspace sees it ('.', 'outputs'); elsewhere, the whole path."""
        workspace = Path(self.context.store.folder).resolve()
        folder = Path(cwd)
        return str(folder.relative_to(workspace)) if folder.is_relative_to(workspace) else cwd

    def _show_selected(self) -> None:
        run = self.selected()
        self.stop_button.setEnabled(run is not None and run.running)
        if run is None:
            self.output.clear()
            return
        header = f"$ {shlex.join(run.argv)}\n# in {run.cwd} - {run.state}\n\n"
        self.output.setPlainText(header + (run.output or "(no output yet)"))

    # -- earlier runs -----------------------------------------------------------------------------
    def _read_history(self) -> None:
        try:
            records = self.context.store.tool_calls("execute_cli_command")
        except Exception:  # a store closed meanwhile: the log just starts empty
            log.exception("the command history could not be read")
            return
        gui_deliver(self._history_read, [r for r in records if r["ok"] and r["result"]])

    def _history_read(self, records: list[ToolCallRecord]) -> None:
        if not shiboken6.isValid(self):  # closed while the store was read
            return
        for record in records:
            result: dict[str, Any] = record["result"] or {}
            if record["id"] in self.runs:
                continue
            run = Run(
                record["id"],
                float(record["started"]),
                list(result.get("command", [])),
                str(result.get("cwd", "")),
                state=str(result.get("state", "")),
                duration_s=float(result.get("duration_s", 0.0)),
                output=str(result.get("stdout", "")) + str(result.get("stderr", "")),
            )
            self._add(run, select=False)
