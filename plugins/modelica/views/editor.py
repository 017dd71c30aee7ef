"""The Modelica editor view: edit a .mo file, check or simulate it through the tools.

The calls go through the tool registry (the same calls the agent makes) and never wait on the
GUI thread: they run with `start_task`, and their diagnostics are marked in the text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
from workbench_plugins.modelica.backend_base import Diagnostic


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
