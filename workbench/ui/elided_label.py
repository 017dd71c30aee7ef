"""A one-line label that fits any width: long text ends in "…", the whole text in its tooltip.

A word-wrapped QLabel in a narrow dock turns into a tall column of single words; this one keeps
one line, asks for only a few characters of width and draws as much of the text as fits.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

MIN_CHARACTERS = 8  # the narrowest it gets: enough to see what the text starts with


class ElidedLabel(QLabel):
    """`text()` stays the whole text; `show_text(text, detail)` puts both in the tooltip."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setWordWrap(False)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setToolTip(text)

    def setText(self, text: str) -> None:  # Qt override: the tooltip always holds the whole text
        super().setText(text)
        self.setToolTip(text)

    def show_text(self, text: str, detail: str = "") -> None:
        """Show `text`; the tooltip holds it whole, and `detail` under it when that adds more."""
        self.setText(text)
        extra = detail.strip()
        self.setToolTip(f"{text}\n{extra}" if extra and extra not in text else text)

    def minimumSizeHint(self) -> QSize:
        metrics = self.fontMetrics()
        return QSize(
            metrics.averageCharWidth() * MIN_CHARACTERS, super().minimumSizeHint().height()
        )

    def sizeHint(self) -> QSize:
        width = self.fontMetrics().horizontalAdvance(self.text()) + 4
        return QSize(width, super().sizeHint().height())

    def is_elided(self) -> bool:
        return self.fontMetrics().horizontalAdvance(self.text()) > self.contentsRect().width()

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        area = self.contentsRect()
        shown = self.fontMetrics().elidedText(
            self.text(), Qt.TextElideMode.ElideRight, area.width()
        )
        painter.drawText(area, int(self.alignment() | Qt.AlignmentFlag.AlignVCenter), shown)
