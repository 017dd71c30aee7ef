"""The density view's Run form: the problem and its main conditions, one page per problem.

`show_run` fills it from a run that started elsewhere (the agent, the chat's /tool): the form
then shows what is running, and Run reruns exactly that, including the settings the form has no
field for (max_iter, the grid size...), which it keeps per problem.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QStackedWidget,
    QWidget,
)

from workbench_plugins.topopt.views.run_arguments import effective_config


class RunForm(QWidget):
    """Problem and its main conditions; `run_requested(problem_type, config, seed)` on Run."""

    run_requested = Signal(str, dict, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("topopt-run-form")
        # per problem: the config keys of the last shown run that the form has no field for
        self._hidden_settings: dict[str, dict[str, Any]] = {}
        self.problem = QComboBox()
        self.problem.setObjectName("topopt-problem")
        self.problem.addItems(["beams2d", "photonics2d"])
        self.volfrac = _spin(0.01, 1.0, 0.35, 0.05, "topopt-volfrac")
        self.rmin = _spin(0.1, 100.0, 2.0, 0.5, "topopt-rmin")
        self.forcedist = _spin(0.0, 1.0, 0.0, 0.05, "topopt-forcedist")
        self.lambda1 = _spin(0.1, 10.0, 1.5, 0.1, "topopt-lambda1")
        self.lambda2 = _spin(0.1, 10.0, 1.3, 0.1, "topopt-lambda2")
        self.blur = QSpinBox()
        self.blur.setRange(0, 10)
        self.blur.setValue(2)
        self.blur.setObjectName("topopt-blur")
        self.steps = QSpinBox()
        self.steps.setRange(1, 2000)
        self.steps.setValue(200)
        self.steps.setObjectName("topopt-steps")
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setObjectName("topopt-seed")

        self.pages = QStackedWidget()
        self.pages.addWidget(self._beams_page())
        self.pages.addWidget(self._photonics_page())
        self.problem.currentIndexChanged.connect(self._show_page)
        self._show_page(0)
        self.hidden_label = QLabel("")
        self.hidden_label.setObjectName("topopt-hidden-settings")
        self.hidden_label.setWordWrap(True)
        self.hidden_label.setToolTip("Settings of the shown run that the form has no field for")
        self.hidden_label.setVisible(False)
        self.problem.currentIndexChanged.connect(lambda *_: self._show_hidden_settings())

        self.run_button = QPushButton("Run")
        self.run_button.setObjectName("topopt-run")
        self.run_button.setToolTip("optimize_design with these conditions (a worker process)")
        self.run_button.clicked.connect(self._run_clicked)

        layout = QFormLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addRow("problem", self.problem)
        layout.addRow(self.pages)
        layout.addRow(self.hidden_label)
        layout.addRow("seed", self.seed)
        layout.addRow(self.run_button)

    def _show_page(self, index: int) -> None:
        """Only the shown page counts for the form's size: the beams page is shorter."""
        for number in range(self.pages.count()):
            policy = QSizePolicy.Policy.Preferred if number == index else QSizePolicy.Policy.Ignored
            page = self.pages.widget(number)
            if page is not None:
                page.setSizePolicy(policy, policy)
        self.pages.setCurrentIndex(index)
        self.pages.adjustSize()

    def _beams_page(self) -> QWidget:
        beams = QWidget()
        form = QFormLayout(beams)
        form.addRow("volfrac", self.volfrac)
        form.addRow("rmin", self.rmin)
        form.addRow("forcedist", self.forcedist)
        form.setContentsMargins(0, 0, 0, 0)
        return beams

    def _photonics_page(self) -> QWidget:
        photonics = QWidget()
        form = QFormLayout(photonics)
        form.addRow("lambda1 (µm)", self.lambda1)
        form.addRow("lambda2 (µm)", self.lambda2)
        form.addRow("blur radius", self.blur)
        form.addRow("steps", self.steps)
        form.setContentsMargins(0, 0, 0, 0)
        return photonics

    def _fields(self, problem_type: str) -> dict[str, QSpinBox | QDoubleSpinBox]:
        if problem_type == "beams2d":
            return {"volfrac": self.volfrac, "rmin": self.rmin, "forcedist": self.forcedist}
        return {
            "lambda1": self.lambda1,
            "lambda2": self.lambda2,
            "blur_radius": self.blur,
            "num_optimization_steps": self.steps,
        }

    def config(self) -> dict[str, Any]:
        """The shown problem's config: the fields, plus the shown run's settings without one."""
        problem_type = self.problem.currentText()
        values: dict[str, Any] = dict(self._hidden_settings.get(problem_type, {}))
        values.update({key: box.value() for key, box in self._fields(problem_type).items()})
        return values

    def show_run(self, problem_type: str, config: dict[str, Any], seed: int) -> None:
        """Show a run's problem, config and seed (a run started elsewhere, or a stored one)."""
        if self.problem.findText(problem_type) < 0:
            return  # a problem this form does not offer: leave the form as it is
        self.problem.setCurrentText(problem_type)
        fields = self._fields(problem_type)
        for key, box in fields.items():
            value = config.get(key)
            if not isinstance(value, int | float) or isinstance(value, bool):
                continue
            if isinstance(box, QSpinBox):
                box.setValue(int(value))
            else:
                box.setValue(float(value))
        self._hidden_settings[problem_type] = {
            key: value for key, value in config.items() if key not in fields
        }
        self.seed.setValue(int(seed))
        self._show_hidden_settings()

    def _show_hidden_settings(self) -> None:
        """Name the kept settings that differ from the problem's defaults: Run uses them too."""
        problem_type = self.problem.currentText()
        defaults = effective_config(problem_type, None)
        changed = {
            key: value
            for key, value in self._hidden_settings.get(problem_type, {}).items()
            if defaults.get(key) != value
        }
        text = ", ".join(f"{key} {value}" for key, value in changed.items())
        self.hidden_label.setText(f"also: {text}" if text else "")
        self.hidden_label.setVisible(bool(text))

    def _run_clicked(self) -> None:
        self.run_requested.emit(self.problem.currentText(), self.config(), self.seed.value())


def _spin(low: float, high: float, value: float, step: float, name: str) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(low, high)
    box.setDecimals(3)
    box.setSingleStep(step)
    box.setValue(value)
    box.setObjectName(name)
    return box
