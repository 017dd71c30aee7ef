"""The "Write a brief" dialog of the task view: model name, what to build, stop time.

It refuses to close on a brief that cannot start (the reason is shown in the dialog) so that
nothing written is lost.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from workbench_plugins.modelica import harness
from workbench_plugins.modelica.views.task_source import (
    MAX_STOP_TIME,
    TaskSourceError,
    brief_task,
)


class BriefDialog(QDialog):
    """A generation task written by hand; `task` holds it once accepted."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New Modelica task from a brief")
        self.setObjectName("modelica-brief-dialog")
        self.task: harness.Task | None = None
        self.model_name = QLineEdit()
        self.model_name.setObjectName("modelica-brief-model")
        self.model_name.setPlaceholderText("e.g. TankLevel")
        self.brief = QPlainTextEdit()
        self.brief.setObjectName("modelica-brief-text")
        self.brief.setPlaceholderText(
            "What the model must contain and how it must behave, e.g. 'A tank of 2 m² filled at "
            "0.1 m³/s and drained through a valve (flow = 0.05·level). The level must settle.'"
        )
        self.stop_time = QDoubleSpinBox()
        self.stop_time.setObjectName("modelica-brief-stop-time")
        self.stop_time.setRange(0.001, MAX_STOP_TIME)
        self.stop_time.setDecimals(3)
        self.stop_time.setValue(10.0)
        self.stop_time.setSuffix(" s")
        self.problem = QLabel()
        self.problem.setObjectName("modelica-brief-problem")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #b00020")
        self.problem.hide()
        form = QFormLayout()
        form.addRow("Model name:", self.model_name)
        form.addRow("Brief:", self.brief)
        form.addRow("Stop time:", self.stop_time)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Start")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.resize(520, 360)

    def accept(self) -> None:
        try:
            self.task = brief_task(
                self.model_name.text(), self.brief.toPlainText(), self.stop_time.value()
            )
        except TaskSourceError as error:
            self.problem.setText(str(error))
            self.problem.show()
            return
        super().accept()
