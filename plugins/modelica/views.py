"""Qt views of the Modelica plugin: trajectories (pyqtgraph) and a Modelica editor.

Both go through the tool registry (the same calls the agent makes) and never wait on the GUI
thread: tool calls run with `start_task`, and simulations arrive as `SimulationRecorded` events.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from workbench.ui.async_loop import start_task
from workbench.ui.bridge import subscribe_in_gui
from workbench_plugins.modelica.backend_base import Diagnostic, SimulationResult
from workbench_plugins.modelica.events import SimulationRecorded

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"]
STYLES = [Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine]


class TrajectoryView(QWidget):
    """Runs (one per candidate or scenario) overlaid; pick variables; invariant marks."""

    def __init__(self, context: Any = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.runs: dict[str, SimulationResult] = {}
        self._marks: list[Any] = []
        pg.setConfigOptions(antialias=True, background="w", foreground="k")
        self.plot = pg.PlotWidget()
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.plot.setLabel("bottom", "time", units="s")
        self.legend = self.plot.addLegend(offset=(-10, 10))
        self.run_list = QListWidget()
        self.variable_list = QListWidget()
        for widget in (self.run_list, self.variable_list):
            widget.itemChanged.connect(lambda *_: self.redraw())
        side = QWidget()
        column = QVBoxLayout(side)
        column.addWidget(QLabel("Runs"))
        column.addWidget(self.run_list)
        column.addWidget(QLabel("Variables"))
        column.addWidget(self.variable_list)
        splitter = QSplitter()
        splitter.addWidget(side)
        splitter.addWidget(self.plot)
        splitter.setSizes([180, 620])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)
        if context is not None:
            subscribe_in_gui(context.bus, SimulationRecorded, self._on_simulation, self)

    # -- data ----------------------------------------------------------------------------------
    def _on_simulation(self, event: SimulationRecorded) -> None:
        if event.artifact_id is None or not event.ok:
            return
        artifact = self.context.store.artifact(event.artifact_id)
        # a few hundred kB of local JSON: read here rather than round-trip through a thread
        result = SimulationResult.model_validate_json(artifact.path.read_text(encoding="utf-8"))
        candidate = f" [{event.candidate_id[:8]}]" if event.candidate_id else ""
        self.add_run(f"{event.sim_id} {event.model}{candidate} ({event.scenario})", result)

    def add_run(self, label: str, result: SimulationResult, *, checked: bool = True) -> None:
        self.runs[label] = result
        self.run_list.blockSignals(True)  # one redraw at the end, not one per item
        self.variable_list.blockSignals(True)
        item = QListWidgetItem(label)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        self.run_list.addItem(item)
        known = {self.variable_list.item(i).text() for i in range(self.variable_list.count())}
        for name in result.series:
            if name in known:
                continue
            variable = QListWidgetItem(name)
            variable.setFlags(variable.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            first = self.variable_list.count() == 0
            variable.setCheckState(Qt.CheckState.Checked if first else Qt.CheckState.Unchecked)
            self.variable_list.addItem(variable)
        self.run_list.blockSignals(False)
        self.variable_list.blockSignals(False)
        self.redraw()

    def set_variables(self, names: list[str]) -> None:
        self.variable_list.blockSignals(True)
        for index in range(self.variable_list.count()):
            item = self.variable_list.item(index)
            item.setCheckState(
                Qt.CheckState.Checked if item.text() in names else Qt.CheckState.Unchecked
            )
        self.variable_list.blockSignals(False)
        self.redraw()

    def checked(self, widget: QListWidget) -> list[str]:
        return [
            widget.item(i).text()
            for i in range(widget.count())
            if widget.item(i).checkState() == Qt.CheckState.Checked
        ]

    # -- invariant marks -----------------------------------------------------------------------
    def mark_window(self, start: float, end: float, label: str = "") -> None:
        """Shade a scenario window (e.g. where a settling requirement applies)."""
        region = pg.LinearRegionItem((start, end), movable=False, brush=(255, 200, 0, 50))
        self.plot.addItem(region)
        self._marks.append(region)
        if label:
            text = pg.TextItem(label, color="#a07000", anchor=(0, 0))
            text.setPos(start, 0)
            self.plot.addItem(text)
            self._marks.append(text)

    def mark_bound(self, value: float, label: str = "", colour: str = "#b00020") -> None:
        line = pg.InfiniteLine(
            pos=value,
            angle=0,
            pen=pg.mkPen(colour, width=1.5, style=Qt.PenStyle.DashLine),
            label=label or None,
            labelOpts={"position": 0.9, "color": colour},
        )
        self.plot.addItem(line)
        self._marks.append(line)

    def mark_invariant(self, name: str, condition: dict[str, Any], observable: dict | None) -> None:
        """Bounds and windows of one invariant: target +- tolerance, min/max, time windows."""
        observable = observable or {}
        if "time" in observable:
            line = pg.InfiniteLine(pos=observable["time"], angle=90, pen=pg.mkPen("#555", width=1))
            self.plot.addItem(line)
            self._marks.append(line)
        if observable.get("start") is not None or observable.get("end") is not None:
            self.mark_window(observable.get("start") or 0.0, observable.get("end") or 0.0, name)
        target, tolerance = condition.get("target"), condition.get("tolerance")
        if target is not None and tolerance is not None:
            allowed = tolerance * abs(target) if condition.get("relative") else tolerance
            self.mark_bound(target - allowed, f"{name} low")
            self.mark_bound(target + allowed, f"{name} high")
        for key in ("min", "max"):
            if condition.get(key) is not None:
                self.mark_bound(condition[key], f"{name} {key}")

    def redraw(self) -> None:
        for item in list(self.plot.listDataItems()):
            self.plot.removeItem(item)
        self.legend.clear()
        variables = self.checked(self.variable_list)
        for run_index, label in enumerate(self.checked(self.run_list)):
            result = self.runs[label]
            for var_index, name in enumerate(variables):
                if name not in result.series:
                    continue
                pen = pg.mkPen(
                    PALETTE[var_index % len(PALETTE)],
                    width=2,
                    style=STYLES[run_index % len(STYLES)],
                )
                self.plot.plot(result.time, result.series[name], pen=pen, name=f"{name} · {label}")


class EditorView(QWidget):
    """Edit a .mo file, check or simulate it through the tools, see diagnostics in place."""

    def __init__(self, context: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.path = QLineEdit()
        self.path.setPlaceholderText("path to a .mo file")
        self.model = QLineEdit()
        self.model.setPlaceholderText("model name")
        self.editor = QPlainTextEdit()
        self.editor.setFont(QFont("monospace", 10))
        self.diagnostics = QListWidget()
        self.diagnostics.itemActivated.connect(self._go_to)
        self.diagnostics.itemClicked.connect(self._go_to)
        self.status = QLabel("")
        buttons = QHBoxLayout()
        for text, slot in (
            ("Open", self.open_file),
            ("Save", self.save_file),
            ("Check", self.check),
            ("Simulate", self.simulate),
        ):
            button = QPushButton(text)
            button.clicked.connect(slot)
            buttons.addWidget(button)
            setattr(self, f"{text.lower()}_button", button)
        top = QHBoxLayout()
        top.addWidget(self.path, 3)
        top.addWidget(self.model, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(buttons)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.editor)
        splitter.addWidget(self.diagnostics)
        splitter.setSizes([400, 120])
        layout.addWidget(splitter)
        layout.addWidget(self.status)
        self.last_result: dict[str, Any] | None = None

    def load(self, path: Path, model: str = "") -> None:
        self.path.setText(str(path))
        self.editor.setPlainText(Path(path).read_text(encoding="utf-8"))
        self.model.setText(model or Path(path).stem)

    def open_file(self) -> None:
        if self.path.text():
            self.load(Path(self.path.text()), self.model.text())

    def save_file(self) -> None:
        if self.path.text():
            Path(self.path.text()).write_text(self.editor.toPlainText(), encoding="utf-8")

    def check(self) -> None:
        self._call("check_model", {})

    def simulate(self) -> None:
        self._call("simulate", {"stop_time": 10.0, "intervals": 500})

    def _call(self, tool: str, extra: dict[str, Any]) -> None:
        if not self.path.text() or not self.model.text():
            self.status.setText("Name the file and the model first.")
            return
        self.save_file()  # the tools read the file: what is checked is what is shown
        arguments = {"file": self.path.text(), "model": self.model.text(), **extra}
        self.status.setText(f"{tool} running…")
        start_task(self._run(tool, arguments), name=f"modelica {tool}")

    async def _run(self, tool: str, arguments: dict[str, Any]) -> None:
        # the person typed this path and pressed the button: their own file, confirmed by them
        outcome = await self.context.registry.acall(tool, arguments, caller="gui", confirmed=True)
        self.show_outcome(tool, outcome.model_dump(mode="json"))

    def show_outcome(self, tool: str, outcome: dict[str, Any]) -> None:
        self.last_result = outcome
        if not outcome["ok"]:
            self.status.setText(outcome["error"]["message"])
            self.show_diagnostics([])
            return
        result = outcome["result"]
        problems = [Diagnostic.model_validate(d) for d in result.get("diagnostics", [])]
        self.show_diagnostics(problems)
        verdict = "ok" if result["ok"] else f"{len(problems)} problem(s)"
        self.status.setText(f"{tool}: {verdict}")

    def show_diagnostics(self, problems: list[Diagnostic]) -> None:
        self.diagnostics.clear()
        marks = []
        for problem in problems:
            item = QListWidgetItem(problem.explain())
            item.setData(Qt.ItemDataRole.UserRole, problem.line)
            colour = "#b00020" if problem.severity == "error" else "#a07000"
            item.setForeground(QColor(colour))
            self.diagnostics.addItem(item)
            if problem.line:
                marks.append(self._line_mark(problem.line, colour))
        self.editor.setExtraSelections(marks)

    def _line_mark(self, line: int, colour: str) -> QTextEdit.ExtraSelection:
        selection = QTextEdit.ExtraSelection()
        text_format = QTextCharFormat()
        text_format.setBackground(QColor("#ffd9de" if colour == "#b00020" else "#fff1c6"))
        text_format.setProperty(QTextCharFormat.Property.FullWidthSelection, True)
        selection.format = text_format
        cursor = QTextCursor(self.editor.document().findBlockByLineNumber(line - 1))
        selection.cursor = cursor
        return selection

    def _go_to(self, item: QListWidgetItem) -> None:
        line = item.data(Qt.ItemDataRole.UserRole)
        if line:
            block = self.editor.document().findBlockByLineNumber(int(line) - 1)
            self.editor.setTextCursor(QTextCursor(block))
            self.editor.setFocus()


def trajectory_view(context: Any) -> QWidget:
    return TrajectoryView(context)


def editor_view(context: Any) -> QWidget:
    return EditorView(context)
