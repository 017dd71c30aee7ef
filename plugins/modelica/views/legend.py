"""The trajectories' legend as Qt widgets beside the plot, so no label is ever cut off.

pyqtgraph's legend is drawn inside the plot and clipped by it: with long run names or a narrow
pane the labels ran out of the plot. Here every entry is a line sample and a word-wrapped label
in a scrolling column: a label wraps to the column's width, and the column scrolls vertically.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

SAMPLE_WIDTH = 28  # the line sample's size, px
SAMPLE_HEIGHT = 12


@dataclass(frozen=True)
class LegendEntry:
    text: str
    colour: str
    style: Qt.PenStyle


class PlotLegend(QScrollArea):
    """`set_entries` replaces the entries; `labels` are their text labels (for tests)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelica-trajectory-legend")
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.labels: list[QLabel] = []
        self._column = QWidget()
        self._rows = QVBoxLayout(self._column)
        self._rows.setContentsMargins(4, 4, 4, 4)
        self._rows.setSpacing(2)
        self._rows.addStretch(1)
        self.setWidget(self._column)

    def set_entries(self, entries: list[LegendEntry]) -> None:
        while self._rows.count() > 1:  # all but the closing stretch
            item = self._rows.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.labels = []
        for index, entry in enumerate(entries):
            self._rows.insertWidget(index, self._row(entry))

    def _row(self, entry: LegendEntry) -> QWidget:
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        sample = QLabel()
        sample.setPixmap(_line_sample(entry.colour, entry.style))
        sample.setAlignment(Qt.AlignmentFlag.AlignTop)
        label = QLabel(entry.text)
        label.setWordWrap(True)
        label.setToolTip(entry.text)
        line.addWidget(sample)
        line.addWidget(label, 1)
        self.labels.append(label)
        return row


def _line_sample(colour: str, style: Qt.PenStyle) -> QPixmap:
    pixmap = QPixmap(SAMPLE_WIDTH, SAMPLE_HEIGHT)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    pen = QPen(QColor(colour), 2)
    pen.setStyle(style)
    painter.setPen(pen)
    painter.drawLine(0, SAMPLE_HEIGHT // 2, SAMPLE_WIDTH, SAMPLE_HEIGHT // 2)
    painter.end()
    return pixmap
