"""The Modelica tasks view: start a task (a task JSON or a written brief), follow it, cancel it.

A task starts through the driver's `start_task_run` (its own thread; the jobs bar shows it too).
The view follows the newest run started anywhere (here, or by the chat's start_modelica_task)
from the bus events TaskRunStarted / TaskRunTurn / TaskRunFinished: turns, wall time, simulations
and tokens against their limits, the last tool, and the ledger of the run's current candidate,
read off the GUI thread after every turn and ledger change.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QMenu,
    QProgressBar,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.events import LedgerChanged
from workbench.ui.async_loop import start_task
from workbench.ui.bridge import subscribe_in_gui
from workbench_plugins.modelica import harness
from workbench_plugins.modelica.events import TaskRunFinished, TaskRunStarted, TaskRunTurn
from workbench_plugins.modelica.views.task_brief import BriefDialog
from workbench_plugins.modelica.views.task_ledger import RunLedger
from workbench_plugins.modelica.views.task_progress import RunProgress
from workbench_plugins.modelica.views.task_source import TaskSourceError, load_task_file

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

ModelFactory = Callable[[], "str | BaseChatModel | None"]
MODES = ("harness", "plain")
ERROR_STYLE = "color: #b00020"
TICK_MS = 1000  # the elapsed time moves on between turns


class TaskView(QWidget):
    """New task, live progress of the followed run, its ledger, and Cancel."""

    progressed = Signal()  # after each painted event (tests wait on it)

    def __init__(
        self,
        context: Any,
        parent: QWidget | None = None,
        *,
        model_factory: ModelFactory | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("modelica-task-view")
        self.context = context
        # which model drives a task started here; None means the app's settings model
        self.model_factory: ModelFactory = model_factory or (lambda: None)
        self.progress: RunProgress | None = None
        self.handle: Any = None  # the TaskRunHandle of a run started here
        self._event_clock = time.monotonic()  # when the last turn event arrived
        self._build()
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)
        bus = context.bus
        subscribe_in_gui(bus, TaskRunStarted, self._on_started, self)
        subscribe_in_gui(bus, TaskRunTurn, self._on_turn, self)
        subscribe_in_gui(bus, TaskRunFinished, self._on_finished, self)
        subscribe_in_gui(bus, LedgerChanged, self._on_ledger_changed, self)

    def _build(self) -> None:
        self.new_button = QToolButton()
        self.new_button.setObjectName("modelica-task-new")
        self.new_button.setText("New task")
        self.new_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.new_button)
        menu.addAction("Open task JSON…", self.choose_task_file)
        menu.addAction("Write a brief…", self.write_brief)
        self.new_button.setMenu(menu)
        self.mode_box = QComboBox()
        self.mode_box.setObjectName("modelica-task-mode")
        self.mode_box.addItems(MODES)
        self.mode_box.setToolTip(
            "harness: ledger, invariants and an explicit submit; plain: the same model and "
            "file/check/simulate tools in a plain loop, its last model submitted when it stops"
        )
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("modelica-task-cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        top = QHBoxLayout()
        top.addWidget(self.new_button)
        top.addWidget(QLabel("Mode:"))
        top.addWidget(self.mode_box)
        top.addStretch(1)
        top.addWidget(self.cancel_button)

        self.message = _wrapping_label("modelica-task-message")
        self.message.setStyleSheet(ERROR_STYLE)
        self.message.hide()
        self.heading = _wrapping_label("modelica-task-heading")
        self.heading.setText("No task yet. Start one with New task (a task JSON or a brief).")
        self.state = _wrapping_label("modelica-task-state")
        self.turns_bar = _bar("modelica-task-turns")
        self.time_bar = _bar("modelica-task-time")
        self.simulations_bar = _bar("modelica-task-simulations")
        self.tokens = QLabel()
        self.tokens.setObjectName("modelica-task-tokens")
        figures = QFormLayout()
        figures.addRow("Turns:", self.turns_bar)
        figures.addRow("Wall time:", self.time_bar)
        figures.addRow("Simulations:", self.simulations_bar)
        figures.addRow("Tokens:", self.tokens)
        self.ledger = RunLedger(self.context)
        self.ledger.read.connect(self.progressed.emit)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(top)
        layout.addWidget(self.message)
        layout.addWidget(self.heading)
        layout.addWidget(self.state)
        layout.addLayout(figures)
        layout.addWidget(self.ledger, 1)

    # -- starting -------------------------------------------------------------------------------
    def choose_task_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open a Modelica task", "", "Task JSON (*.json);;All files (*)"
        )
        if path:
            self.open_task_file(Path(path))

    def write_brief(self) -> None:
        dialog = BriefDialog(self)
        if dialog.exec() and dialog.task is not None:
            self.start(dialog.task)

    def open_task_file(self, path: Path) -> None:
        """Read the task JSON off the GUI thread; start it, or say what is wrong with it."""
        self.show_message("")
        start_task(self._open(path), name="modelica-open-task")

    async def _open(self, path: Path) -> None:
        try:
            task = await asyncio.to_thread(load_task_file, path)
        except TaskSourceError as error:
            if shiboken6.isValid(self):
                self.show_message(str(error))
            return
        if shiboken6.isValid(self):
            self.start(task)

    def start(self, task: harness.Task) -> None:
        """Start `task` in the chosen mode with the view's model (the settings model by default)."""
        self.show_message("")
        mode = self.mode_box.currentText()
        start_task(self._start(task, mode), name="modelica-start-task")

    async def _start(self, task: harness.Task, mode: str) -> None:
        from workbench_plugins.modelica.driver.background import start_task_run

        try:
            model = self.model_factory()
            handle = await asyncio.to_thread(
                start_task_run, self.context, task, model=model, mode=mode
            )
        except Exception as error:  # the boundary to a person: say it, never crash the GUI
            if shiboken6.isValid(self):
                self.show_message(f"Task {task.task_id} could not start: {error}")
            return
        if shiboken6.isValid(self):
            self.handle = handle
            self.cancel_button.setEnabled(not handle.done())

    def cancel(self) -> None:
        """Stop the followed run (started here or by the chat)."""
        progress = self.progress
        if progress is None or progress.finished:
            return
        handle = self.handle if self.handle and self.handle.run_id == progress.run_id else None
        if handle is None:
            from workbench_plugins.modelica.driver.background import handle_of

            handle = handle_of(progress.run_id)  # a run the chat started
        if handle is not None:
            handle.cancel()
            self.cancel_button.setEnabled(False)
            self.state.setText("Cancelling: the run stops after the current step")
        else:
            self.show_message(f"Run {progress.run_id} is not one this session can cancel.")

    # -- closing the window ---------------------------------------------------------------------
    def closing_stops(self) -> list[str]:
        """What closing the window would stop (the window asks first)."""
        progress = self.progress
        if progress is None or progress.finished:
            return []
        return [f"the Modelica task run {progress.run_id}"]

    def stop_for_close(self) -> None:
        """The window closes: the followed run stops after its current step (its thread is a
        daemon, so it never keeps the process alive meanwhile)."""
        progress = self.progress
        if progress is None or progress.finished:
            return
        from workbench_plugins.modelica.driver.background import handle_of

        handle = handle_of(progress.run_id)
        if handle is not None:
            handle.cancel()

    def show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))

    # -- following ------------------------------------------------------------------------------
    def _on_started(self, event: TaskRunStarted) -> None:
        self.progress = RunProgress(run_id=event.run_id)
        self.progress.started(event)
        self._event_clock = time.monotonic()
        self.ledger.follow(event.run_id, event.mode)
        self.cancel_button.setEnabled(True)
        self._timer.start()
        self._paint()

    def _on_turn(self, event: TaskRunTurn) -> None:
        if self.progress is None or event.run_id != self.progress.run_id:
            return
        self.progress.turned(event)
        self._event_clock = time.monotonic()
        self._paint()
        self.ledger.refresh()

    def _on_finished(self, event: TaskRunFinished) -> None:
        if self.progress is None or event.run_id != self.progress.run_id:
            return
        self.progress.ended(event)
        self._timer.stop()
        self.cancel_button.setEnabled(False)
        self._paint()
        self.ledger.refresh()

    def _on_ledger_changed(self, event: LedgerChanged) -> None:
        if self.progress is not None and not self.progress.finished:
            self.ledger.refresh()  # coalesced: evidence between turns shows at once

    def _tick(self) -> None:
        progress = self.progress
        if progress is None or progress.finished:
            self._timer.stop()
            return
        elapsed = progress.elapsed_s + time.monotonic() - self._event_clock
        _set_bar(self.time_bar, elapsed, progress.wall_time_s, progress.time_text(elapsed))

    def _paint(self) -> None:
        progress = self.progress
        if progress is None:
            return
        self.heading.setText(progress.heading())
        self.state.setText(progress.state_text())
        failed = progress.finished and progress.status != "submitted"
        self.state.setStyleSheet(ERROR_STYLE if failed else "")
        _set_bar(self.turns_bar, progress.turn, progress.max_turns, progress.turns_text())
        _set_bar(self.time_bar, progress.elapsed_s, progress.wall_time_s, progress.time_text())
        limit = progress.max_simulations
        used = progress.simulations if limit is not None else 0  # no limit: no fill, only text
        _set_bar(self.simulations_bar, used, limit or 1, progress.simulations_text())
        self.tokens.setText(progress.tokens_text())
        self.progressed.emit()


def _wrapping_label(name: str) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    return label


def _bar(name: str) -> QProgressBar:
    bar = QProgressBar()
    bar.setObjectName(name)
    bar.setTextVisible(True)
    bar.setRange(0, 1)
    bar.setValue(0)
    bar.setFormat("-")
    return bar


def _set_bar(bar: QProgressBar, value: float, limit: float, text: str) -> None:
    """A bar whose text is the figure against its limit (the fill is the share used)."""
    bar.setRange(0, max(1, round(limit)))
    bar.setValue(min(round(value), bar.maximum()))
    bar.setFormat(text)
    bar.setToolTip(text)
