"""The density view's Run form: the problem and its main conditions, one page per problem."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QPushButton,
    QSpinBox,
    QStackedWidget,
    QWidget,
)


class RunForm(QWidget):
    """Problem and its main conditions; `run_requested(problem_type, config, seed)` on Run."""

    run_requested = Signal(str, dict, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
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
        self.steps = QSpinBox()
        self.steps.setRange(1, 2000)
        self.steps.setValue(200)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setObjectName("topopt-seed")

        self.pages = QStackedWidget()
        self.pages.addWidget(self._beams_page())
        self.pages.addWidget(self._photonics_page())
        self.problem.currentIndexChanged.connect(self.pages.setCurrentIndex)

        self.run_button = QPushButton("Run")
        self.run_button.setObjectName("topopt-run")
        self.run_button.setToolTip("optimize_design with these conditions (a worker process)")
        self.run_button.clicked.connect(self._run_clicked)

        layout = QFormLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addRow("problem", self.problem)
        layout.addRow(self.pages)
        layout.addRow("seed", self.seed)
        layout.addRow(self.run_button)

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

    def config(self) -> dict[str, Any]:
        if self.problem.currentText() == "beams2d":
            return {
                "volfrac": self.volfrac.value(),
                "rmin": self.rmin.value(),
                "forcedist": self.forcedist.value(),
            }
        return {
            "lambda1": self.lambda1.value(),
            "lambda2": self.lambda2.value(),
            "blur_radius": self.blur.value(),
            "num_optimization_steps": self.steps.value(),
        }

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
