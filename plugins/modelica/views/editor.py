"""The Modelica editor view: edit a .mo file, check or simulate it through the tools.

The calls go through the tool registry (the same calls the agent makes) and never wait on the
GUI thread: they run with `start_task`, and their diagnostics are marked in the text.

The typed path follows the file rule every tool follows (workspace.files): inside the workspace
or an allowed folder it is used at once; outside, nothing is read, written or run until the
person approved the question that names the path (the app's approval dialog); through '..' or a
link leading out, never. Files are opened without following a link put there since the check.
"""

from __future__ import annotations

from collections.abc import Callable
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
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from workbench.core.approvals import ApprovalRequest
from workbench.core.files import Confinement, FileAccess, Mode, PathRefused
from workbench.ui.approvals import approval_dialog
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
        self.question: QMessageBox | None = None  # the approval asked now, if any

    def load(self, path: Path, model: str = "") -> None:
        """Show `path` (chosen by the program, not typed: read as given)."""
        self.path.setText(str(path))
        self.editor.setPlainText(Path(path).read_text(encoding="utf-8"))
        self.model.setText(model or Path(path).stem)

    def open_file(self) -> None:
        access = self._checked("read")
        if access is None:
            return

        def read() -> None:
            with access.open("rb") as opened:
                self.editor.setPlainText(opened.read().decode("utf-8"))
            self.model.setText(self.model.text() or access.path.stem)
            self.status.setText(f"Opened {access.path}")

        self._with_consent("open", "open", [access] if access.outside else [], "", read)

    def save_file(self) -> None:
        access = self._checked("write")
        if access is not None:
            outside = [access] if access.outside else []
            self._with_consent("save", "save", outside, "", self._saver(access))

    def check(self) -> None:
        self._call("check_model", {})

    def simulate(self) -> None:
        self._call("simulate", {"stop_time": 10.0, "intervals": 500})

    def _call(self, tool: str, extra: dict[str, Any]) -> None:
        if not self.path.text() or not self.model.text():
            self.status.setText("Name the file and the model first.")
            return
        access = self._checked("write")  # saved first: what is checked is what is shown
        if access is None:
            return
        arguments = {"file": str(access.path), "model": self.model.text(), **extra}
        needed = self.context.registry.confirmation_needed(tool, arguments)
        shows = needed.message if needed is not None else ""
        save = self._saver(access)

        def run() -> None:
            save()
            self.status.setText(f"{tool} running…")
            # confirmed only when the person approved the question naming every outside path
            confirmed = access.outside or needed is not None
            start_task(self._run(tool, arguments, confirmed), name=f"modelica {tool}")

        self._with_consent(tool, tool, [access] if access.outside else [], shows, run)

    def _checked(self, mode: Mode) -> FileAccess | None:
        """The typed path under the file rule; None (said in the status) when no yes can make
        it usable."""
        if not self.path.text().strip():
            self.status.setText("Name the file first.")
            return None
        workspace = Path(self.context.store.folder)
        rule = Confinement.of(workspace, self.context.settings.allowed_folders)
        try:
            return rule.check(self.path.text(), base=workspace, mode=mode)
        except PathRefused as refused:
            self.status.setText(f"{refused.message} {refused.hint}")
            return None

    def _saver(self, access: FileAccess) -> Callable[[], None]:
        def save() -> None:
            with access.open("wb") as opened:
                opened.write(self.editor.toPlainText().encode("utf-8"))

        return save

    def _with_consent(
        self,
        what: str,
        tool: str,
        outside: list[FileAccess],
        shows: str,
        then: Callable[[], None],
    ) -> None:
        """`then()` at once when nothing lies outside and the tool asks nothing; else only after
        the person approved the question naming the paths."""
        lines = [
            f"{a.mode} {a.path} (outside the workspace and the allowed folders)" for a in outside
        ]
        if shows:
            lines.append(shows)
        if not lines:
            then()
            return
        request = ApprovalRequest(
            caller="The Modelica editor",
            tool=tool,
            arguments={"file": self.path.text(), "model": self.model.text()},
            message="\n".join(lines),
        )
        box = self.question = approval_dialog(self, request)
        approve = box.findChild(QPushButton, "approve")

        def answered(_result: int) -> None:
            self.question = None
            if box.clickedButton() is approve:
                then()
            else:
                self.status.setText(f"Declined: did not {what}; nothing was written or run.")
            box.deleteLater()

        box.finished.connect(answered)
        box.open()

    async def _run(self, tool: str, arguments: dict[str, Any], confirmed: bool) -> None:
        outcome = await self.context.registry.acall(
            tool, arguments, caller="gui", confirmed=confirmed
        )
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
