"""Choose a problem by subject, family and seed, and see its diagram and statement.

Making a problem (pint) and drawing its diagram (matplotlib) run off the GUI thread; a choice
made while an older one is still drawing wins (the older result is dropped)."""

from __future__ import annotations

import asyncio

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.ui.async_loop import start_task
from workbench.ui.naming import named
from workbench_plugins.judging.problems.model import SUBJECTS, Family, Problem
from workbench_plugins.judging.problems.registry import families

ALL_SUBJECTS = "All subjects"
MAX_SEED = 9999
DIAGRAM_MIN_HEIGHT = 110


def subject_title(subject: str) -> str:
    return subject.replace("_", " ").capitalize()


class ProblemPicker(QWidget):
    chosen = Signal(object)  # the Problem, once made and drawn

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.problem: Problem | None = None
        self._families: dict[str, Family] = families()
        self._wanted = 0  # the newest choice; older loads are dropped
        self.subject_box = named(QComboBox(), "judging-subject")
        self.subject_box.addItem(ALL_SUBJECTS, "")
        for subject in SUBJECTS:
            self.subject_box.addItem(subject_title(subject), subject)
        self.family_box = named(QComboBox(), "judging-family")
        self.seed_box = named(QSpinBox(), "judging-seed")
        self.seed_box.setRange(1, MAX_SEED)
        self.seed_box.setToolTip(
            "The seed makes the problem's numbers; the same seed, the same problem"
        )
        self.diagram = named(DiagramLabel(), "judging-diagram")
        self.statement = named(QLabel(), "judging-statement")
        self.statement.setWordWrap(True)
        self.statement.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        choice = QHBoxLayout()
        choice.addWidget(self.subject_box, 2)
        choice.addWidget(self.family_box, 3)
        choice.addWidget(QLabel("Seed"))
        choice.addWidget(self.seed_box)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(choice)
        layout.addWidget(self.diagram, 3)
        layout.addWidget(self.statement)
        self._fill_families()
        self.subject_box.currentIndexChanged.connect(self._fill_families)
        self.family_box.currentIndexChanged.connect(self.load)
        self.seed_box.valueChanged.connect(self.load)

    def choose(self, family: str, seed: int) -> None:
        """Select `family` (and its subject) and `seed`, as a person would."""
        if family not in self._families:
            raise ValueError(
                f"no problem family named {family!r}; known: {', '.join(self._families)}"
            )
        self.subject_box.setCurrentIndex(self.subject_box.findData(self._families[family].subject))
        self.family_box.setCurrentIndex(self.family_box.findData(family))
        self.seed_box.setValue(seed)
        self.load()

    def _fill_families(self) -> None:
        subject = self.subject_box.currentData()
        self.family_box.blockSignals(True)
        self.family_box.clear()
        for name, family in self._families.items():
            if not subject or family.subject == subject:
                self.family_box.addItem(family.title, name)
                self.family_box.setItemData(
                    self.family_box.count() - 1,
                    subject_title(family.subject),
                    Qt.ItemDataRole.ToolTipRole,
                )
        self.family_box.blockSignals(False)
        self.load()

    def load(self) -> None:
        name = self.family_box.currentData()
        if not name:
            self.statement.setText("No problem family for this subject.")
            return
        self._wanted += 1
        self.diagram.setText("Drawing…")
        start_task(
            self._load(self._wanted, self._families[name], self.seed_box.value()),
            name="judging-problem",
        )

    async def _load(self, wanted: int, family: Family, seed: int) -> None:
        try:
            problem = await asyncio.to_thread(family.make, seed)
            png = await asyncio.to_thread(problem.diagram_png)
        except Exception as error:  # a family's bug must not take the panel down
            if shiboken6.isValid(self) and wanted == self._wanted:
                self.diagram.setText(f"{family.title}, seed {seed}: could not be made ({error}).")
            return
        if not shiboken6.isValid(self) or wanted != self._wanted:
            return
        self.problem = problem
        self.diagram.show_png(png)
        given = ", ".join(f"{name} = {value}" for name, value in problem.given.items())
        self.statement.setText(f"<b>{problem.id}</b>: {problem.statement}<br><i>Given:</i> {given}")
        self.diagram.setToolTip(problem.title)
        self.chosen.emit(problem)


class DiagramLabel(QLabel):
    """The problem's diagram, scaled to the label whatever its size (keeping its proportions)."""

    def __init__(self) -> None:
        super().__init__("Drawing…")
        self.pixmap_full = QPixmap()
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setMinimumHeight(DIAGRAM_MIN_HEIGHT)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)

    def show_png(self, png: bytes) -> None:
        self.pixmap_full.loadFromData(png, "PNG")
        self._scale()

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().resizeEvent(event)
        self._scale()

    def _scale(self) -> None:
        if self.pixmap_full.isNull():
            return
        self.setPixmap(
            self.pixmap_full.scaled(
                self.contentsRect().size(),
                Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.SmoothTransformation,
            )
        )
