"""The grading's outcome under the graph: the final score with what lowered it, a table of raw
vs propagated score per stage, and the errors per stage with their severity."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableWidget,
    QTableWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.ui.naming import named
from workbench_plugins.judging.views.grade_report import BELOW_A_FAILURE, GradeReport, StageLine
from workbench_plugins.judging.views.stage_graph import score_colour

SEVERITY_COLOURS = {
    "cap": "#7b1fa2",
    "critical": "#b00020",
    "major": "#d84315",
    "moderate": "#b26a00",
    "minor": "#5f6b7a",
    "format": "#37474f",
    "note": "#37474f",
    "failure": "#b00020",
}
LOWERED_MAX_HEIGHT = 190  # pixels of "what lowered it" before it scrolls
COLUMNS = ("Stage", "Raw", "Propagated", "Errors")
SEVERITY_ROLE = Qt.ItemDataRole.UserRole  # an error item's severity (tests, style)


class ResultsPanel(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.final = named(QLabel("Not graded yet."), "judging-final")
        font = QFont()
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        self.final.setFont(font)
        self.facts = named(QLabel(), "judging-facts")  # ground truth, judge calls
        self.facts.setWordWrap(True)
        self.facts.setStyleSheet("color: #404040")
        self.lowered = named(QLabel(), "judging-lowered-by")
        self.lowered.setWordWrap(True)
        self.lowered.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.lowered_area = LoweredArea(self.lowered)
        self.lowered.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = named(QTableWidget(0, len(COLUMNS)), "judging-stage-table")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        for column in range(len(COLUMNS) - 1):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        self.errors = named(QTreeWidget(), "judging-errors")
        self.errors.setHeaderLabels(["Errors per stage", "Severity"])
        self.errors.setWordWrap(True)
        self.errors.setUniformRowHeights(False)
        self.errors.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.errors.setItemDelegate(WrappingDelegate(self.errors))
        self.errors.header().sectionResized.connect(lambda *_: self.errors.doItemsLayout())
        self.errors.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.errors.header().setStretchLastSection(False)
        self.errors.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        lists = QSplitter(Qt.Orientation.Horizontal)
        lists.addWidget(self.table)
        lists.addWidget(self.errors)
        lists.setStretchFactor(0, 2)
        lists.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.final)
        layout.addWidget(self.facts)
        layout.addWidget(self.lowered_area)
        layout.addWidget(lists, 1)

    def clear(self, text: str = "Not graded yet.") -> None:
        self.final.setText(text)
        self.final.setToolTip("")
        self.facts.setText("")
        self.lowered.setText("")
        self.lowered_area.updateGeometry()
        self.table.setRowCount(0)
        self.errors.clear()

    def show_report(self, report: GradeReport) -> None:
        if report.final is None:
            self.final.setText("No final score: the judge failed (see below).")
        else:
            self.final.setText(f"Final score {report.final:.2f} / 10  ({report.graph} graph)")
        tip = [f"{name} = {value:.3g}" for name, value in report.figures.items()]
        self.final.setToolTip("\n".join([*tip, report.calls_text()]))
        facts = [f"Ground truth: {report.answer}"] if report.answer else []
        self.facts.setText("\n".join([*facts, report.calls_text()]))
        lines = ["What lowered it:", *(f"• {line}" for line in report.lowered_by)]
        if not report.lowered_by:
            lines = ["Nothing lowered it."] if report.final is not None else []
        self.lowered.setText("\n".join(lines))
        self.lowered_area.updateGeometry()
        self._fill_table(report.stages)
        self._fill_errors(report)

    def _fill_table(self, stages: tuple[StageLine, ...]) -> None:
        self.table.setRowCount(len(stages))
        for row, line in enumerate(stages):
            count = len(line.errors)
            worst = line.worst()
            cells = (
                line.stage,
                _figure(line.raw),
                _figure(line.propagated),
                line.badge or (f"{count} ({worst})" if count else "none"),
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column in (1, 2):
                    score = line.raw if column == 1 else line.propagated
                    item.setBackground(QBrush(score_colour(score)))
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                item.setToolTip("\n".join(filter(None, (line.name, line.comment, line.note))))
                self.table.setItem(row, column, item)

    def _fill_errors(self, report: GradeReport) -> None:
        self.errors.clear()
        if report.failures:
            self._group("Judge failures", [("failure", text) for text in report.failures])
        if report.format_notes:
            self._group("Solution format", [("format", text) for text in report.format_notes])
        for line in report.stages:
            found = [(error.severity, error.text) for error in line.errors]
            if line.note and line.badge != BELOW_A_FAILURE:  # the failure above says it
                found.insert(0, ("note", line.note))
            if found:
                self._group(f"{line.stage}  {line.name}", found)
        if self.errors.topLevelItemCount() == 0:
            self._group("No errors found", [])
        self.errors.expandAll()

    def _group(self, title: str, entries: list[tuple[str, str]]) -> None:
        group = QTreeWidgetItem([title, ""])
        bold = group.font(0)
        bold.setBold(True)
        group.setFont(0, bold)
        self.errors.addTopLevelItem(group)
        for severity, text in entries:
            item = QTreeWidgetItem([text, severity])
            item.setData(0, SEVERITY_ROLE, severity)
            item.setToolTip(0, text)
            colour = QColor(SEVERITY_COLOURS.get(severity, "#b00020"))
            item.setForeground(1, QBrush(colour))
            group.addChild(item)


class LoweredArea(QScrollArea):
    """The lines of what lowered the score: as tall as they are, up to LOWERED_MAX_HEIGHT, then
    they scroll (a wrong solution has many; the lists below keep their room)."""

    def __init__(self, label: QLabel) -> None:
        super().__init__()
        self.label = label
        self.setWidget(label)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        width = self.viewport().width() or self.width()
        wanted = self.label.heightForWidth(max(width, 100))
        return QSize(super().sizeHint().width(), min(max(wanted, 0), LOWERED_MAX_HEIGHT) + 2)

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().resizeEvent(event)
        self.updateGeometry()


class WrappingDelegate(QStyledItemDelegate):
    """Rows as tall as their wrapped text in the column's width (a judge's error is a sentence;
    the tree view itself only wraps what fits the height it assumed)."""

    def __init__(self, tree: QTreeWidget) -> None:
        super().__init__(tree)
        self.tree = tree

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:  # type: ignore[override]
        hint = super().sizeHint(option, index)
        depth, parent = 0, index.parent()
        while parent.isValid():
            depth, parent = depth + 1, parent.parent()
        width = self.tree.columnWidth(index.column()) - 8
        if index.column() == 0:
            width -= self.tree.indentation() * (depth + 1)
        text = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
        flags = int(Qt.TextFlag.TextWordWrap)
        box = option.fontMetrics.boundingRect(QRect(0, 0, max(width, 40), 10_000), flags, text)
        return QSize(hint.width(), max(hint.height(), box.height() + 6))


def _figure(score: float | None) -> str:
    return "-" if score is None else f"{score:.1f}"
