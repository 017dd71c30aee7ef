"""A one-line label that never widens its window: long text is elided, the whole in the tooltip.

A plain QLabel asks for the width of its whole text as its minimum, so one long problem
description made the main window at least ~1200 px wide. This one asks for a few characters and
draws as much of the text as fits.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

MIN_CHARACTERS = 8  # the narrowest it gets: enough to see what the text starts with


class ElidedLabel(QLabel):
    """`text()` stays the whole text; what is drawn ends in "…" when the label is too narrow."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setToolTip(text)

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(text)

    def minimumSizeHint(self) -> QSize:
        metrics = self.fontMetrics()
        return QSize(
            metrics.averageCharWidth() * MIN_CHARACTERS, super().minimumSizeHint().height()
        )

    def sizeHint(self) -> QSize:
        return QSize(
            self.fontMetrics().horizontalAdvance(self.text()) + 4, super().sizeHint().height()
        )

    def is_elided(self) -> bool:
        return self.fontMetrics().horizontalAdvance(self.text()) > self.contentsRect().width()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        area = self.contentsRect()
        shown = self.fontMetrics().elidedText(
            self.text(), Qt.TextElideMode.ElideRight, area.width()
        )
        painter.drawText(area, int(self.alignment()), shown)
