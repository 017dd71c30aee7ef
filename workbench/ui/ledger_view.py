"""The ledger view: subjects, their candidates x invariants (colour coded), readiness, submissions,
and the chosen cell's evidence with its trajectory and bound (ledger_evidence.py).

Reading the ledger touches SQLite, so a snapshot is taken on a worker thread and only painted on
the GUI thread. Bursts of LedgerChanged events coalesce into one refresh.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.context import AppContext
from workbench.core.events import LedgerChanged
from workbench.core.ledger import (
    Candidate,
    Invariant,
    Ledger,
    ReadinessReport,
    Status,
    StatusTable,
    Submission,
)
from workbench.ui.async_loop import start_task
from workbench.ui.bridge import subscribe_in_gui
from workbench.ui.ledger_evidence import EvidencePanel

STATUS_COLOURS = {
    Status.SUPPORTED: "#b7e4c7",
    Status.VIOLATED: "#f4b6b6",
    Status.INCONCLUSIVE: "#ffe08a",
    Status.OPEN: "#e6e6e6",
}
READY_COLOURS = {True: "#b7e4c7", False: "#f4b6b6"}
LEDGER_MARGIN = 4
SUBJECT_CHARACTERS = 5  # the subject box's minimum width in characters; longer names elide
MAX_COLUMN_WIDTH = 300  # a longer note or label is elided; its tooltip holds all of it


@dataclass
class LedgerSnapshot:
    """Everything the view shows for one subject, read in one go off the GUI thread."""

    subjects: list[str]
    subject: str | None = None
    candidates: list[Candidate] = field(default_factory=list)
    invariants: list[Invariant] = field(default_factory=list)
    table: StatusTable | None = None
    readiness: dict[str, ReadinessReport] = field(default_factory=dict)
    submissions: list[Submission] = field(default_factory=list)


def take_snapshot(ledger: Ledger, wanted_subject: str | None) -> LedgerSnapshot:
    subjects = ledger.subjects()
    subject = wanted_subject if wanted_subject in subjects else (subjects[0] if subjects else None)
    snapshot = LedgerSnapshot(subjects=subjects, subject=subject)
    if subject is None:
        return snapshot
    snapshot.candidates = ledger.candidates(subject)
    snapshot.invariants = ledger.invariants(subject)
    snapshot.table = ledger.status_table(subject)
    snapshot.readiness = {c.id: ledger.readiness(c) for c in snapshot.candidates}
    snapshot.submissions = ledger.submissions(subject)
    return snapshot


def _item(text: str, *, tooltip: str = "", colour: str | None = None) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setFlags(Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled)
    if tooltip:
        item.setToolTip(tooltip)
    if colour:
        item.setBackground(QBrush(QColor(colour)))
        item.setForeground(QBrush(QColor("#1f2328")))  # readable on the pastel in any theme
    return item


def fit_columns_to_content(table: QTableWidget) -> None:
    """Columns as wide as their content, long text elided (the tooltip has all of it), and a
    horizontal scrollbar when the dock is narrower than the columns."""
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setMaximumSectionSize(MAX_COLUMN_WIDTH)
    table.verticalHeader().setMaximumWidth(MAX_COLUMN_WIDTH)  # long candidate labels elide
    table.setTextElideMode(Qt.TextElideMode.ElideRight)
    table.setWordWrap(False)
    table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
    table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)


def width_showing_every_column(table: QTableWidget) -> int:
    """The table width at which no column is cut off and no horizontal scrolling is needed."""
    header = table.horizontalHeader()
    columns = sum(
        min(MAX_COLUMN_WIDTH, max(header.sectionSizeHint(c), table.sizeHintForColumn(c)))
        for c in range(table.columnCount())
        if not header.isSectionHidden(c)
    )
    rows = table.verticalHeader()
    row_labels = min(rows.sizeHint().width(), rows.maximumWidth()) if not rows.isHidden() else 0
    scrollbar = table.verticalScrollBar().sizeHint().width()  # room for one, should rows overflow
    return columns + row_labels + scrollbar + 2 * table.frameWidth()


class LedgerView(QWidget):
    refreshed = Signal()

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ledger-view")
        self.context = context
        self.snapshot = LedgerSnapshot(subjects=[])
        self._refreshing = False
        self._stale = False
        self._room_wanted = False

        self.subject_box = QComboBox()
        self.subject_box.setObjectName("ledger-subjects")
        self.subject_box.setPlaceholderText("none yet")
        # a long subject name is elided in the box instead of widening the dock and the window
        self.subject_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.subject_box.setMinimumContentsLength(SUBJECT_CHARACTERS)
        self.subject_box.currentTextChanged.connect(self._subject_chosen)
        refresh = QToolButton()
        refresh.setText("⟳")
        refresh.setToolTip("Read the ledger again")
        refresh.clicked.connect(self.refresh)
        top = QHBoxLayout()
        top.addWidget(QLabel("Subject:"))
        top.addWidget(self.subject_box, 1)
        top.addWidget(refresh)

        self.status_table = QTableWidget()
        self.status_table.setObjectName("ledger-status")
        self.status_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.status_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        fit_columns_to_content(self.status_table)
        self.status_table.itemSelectionChanged.connect(self._show_selected_readiness)
        self.status_table.currentCellChanged.connect(self._show_cell_evidence)
        self.readiness_label = QLabel()
        self.readiness_label.setObjectName("ledger-readiness")
        self.readiness_label.setWordWrap(True)
        self.readiness_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.submissions_table = QTableWidget(0, 5)
        self.submissions_table.setObjectName("ledger-submissions")
        self.submissions_table.setHorizontalHeaderLabels(
            ["#", "Candidate", "When", "Ready", "Note"]
        )
        self.submissions_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.submissions_table.verticalHeader().hide()
        fit_columns_to_content(self.submissions_table)
        self.submissions_title = QLabel("Submissions")
        self.evidence = EvidencePanel(context)  # the chosen cell's evidence and trajectory

        upper = QWidget()
        upper_layout = QVBoxLayout(upper)
        upper_layout.setContentsMargins(0, 0, 0, 0)
        upper_layout.addLayout(top)
        upper_layout.addWidget(self.status_table, 1)
        upper_layout.addWidget(self.readiness_label)
        upper_layout.addStretch(0)  # keeps the text at the top while the table is hidden
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.submissions_title)
        lower_layout.addWidget(self.submissions_table)
        self.splitter = splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(upper)
        splitter.addWidget(self.evidence)
        splitter.addWidget(lower)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 3)
        splitter.setStretchFactor(2, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(*(LEDGER_MARGIN,) * 4)
        layout.addWidget(splitter)

        self.evidence.shown.connect(self._make_room_for_evidence)
        subscribe_in_gui(context.bus, LedgerChanged, lambda _event: self.refresh(), self)
        self.refresh()

    # -- reading --------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Ask for a new snapshot; while one is being read, remember to read once more after."""
        if self._refreshing:
            self._stale = True
            return
        self._refreshing = True
        start_task(self._read_and_show(), name="ledger-refresh")

    async def _read_and_show(self) -> None:
        try:
            while True:
                self._stale = False
                wanted = self.subject_box.currentText() or None
                snapshot = await asyncio.to_thread(take_snapshot, self.context.ledger, wanted)
                if not shiboken6.isValid(self):
                    return
                self.show_snapshot(snapshot)
                if not self._stale:
                    break
        finally:
            if shiboken6.isValid(self):
                self._refreshing = False
                self.refreshed.emit()

    def _subject_chosen(self, subject: str) -> None:
        if subject and subject != self.snapshot.subject:
            self.refresh()

    # -- painting -------------------------------------------------------------------------------
    def show_snapshot(self, snapshot: LedgerSnapshot) -> None:
        self.snapshot = snapshot
        self.subject_box.blockSignals(True)
        self.subject_box.clear()
        self.subject_box.addItems(snapshot.subjects)
        if snapshot.subject:
            self.subject_box.setCurrentText(snapshot.subject)
        self.subject_box.blockSignals(False)
        self._show_status_table(snapshot)
        self._show_submissions(snapshot.submissions)
        self._show_selected_readiness()
        self.evidence.refresh()  # new evidence may have arrived for the cell it shows

    def _show_status_table(self, snapshot: LedgerSnapshot) -> None:
        table = self.status_table
        invariants = snapshot.invariants
        table.clear()
        table.setRowCount(len(snapshot.candidates))
        table.setColumnCount(len(invariants) + 1)
        table.setHorizontalHeaderLabels(["Ready"] + [i.name for i in invariants])
        for column, invariant in enumerate(invariants, start=1):
            header = table.horizontalHeaderItem(column)
            if header is None:
                continue
            need = "required" if invariant.required else "optional: does not block readiness"
            header.setToolTip(f"{invariant.proposition}\nkind: {invariant.kind}, {need}")
            if not invariant.required:  # optional invariants in italics, to keep headers short
                font = header.font()
                font.setItalic(True)
                header.setFont(font)
        for row, candidate in enumerate(snapshot.candidates):
            heading = QTableWidgetItem(candidate.label or candidate.short_id)
            heading.setToolTip(f"{candidate.label}\n{candidate.id}\nkind: {candidate.kind}")
            table.setVerticalHeaderItem(row, heading)
            report = snapshot.readiness.get(candidate.id)
            # with no invariant stated nothing was checked: never "ready" (issue 29)
            ready = bool(report and report.ready and invariants)
            table.setItem(
                row,
                0,
                _item(
                    ("ready" if ready else "not ready") if invariants else "nothing checked yet",
                    colour=READY_COLOURS[ready] if invariants else STATUS_COLOURS[Status.OPEN],
                    tooltip=report.explain() if report and invariants else "no invariant stated",
                ),
            )
            details = {s.invariant_name: s for s in (report.invariants if report else [])}
            for column, invariant in enumerate(invariants, start=1):
                status = (
                    snapshot.table.status(candidate.id, invariant.name)
                    if snapshot.table
                    else Status.OPEN
                )
                detail = details.get(invariant.name)
                table.setItem(
                    row,
                    column,
                    _item(
                        status.value,
                        colour=STATUS_COLOURS[status],
                        tooltip=detail.describe() if detail else "",
                    ),
                )
        table.setVisible(snapshot.subject is not None)  # no lone header row over nothing
        if snapshot.subject is None:
            self.readiness_label.setText(
                "The ledger is empty. Candidates and invariants appear here when tools propose "
                "designs and check them."
            )

    def _show_submissions(self, submissions: list[Submission]) -> None:
        table = self.submissions_table
        table.setRowCount(len(submissions))
        self.submissions_title.setText(
            f"Submissions ({len(submissions)})" if submissions else "Submissions: none yet"
        )
        for row, submission in enumerate(submissions):
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(submission.created))
            ready = "overridden" if submission.override else "ready"
            colour = READY_COLOURS[not submission.override]
            table.setItem(row, 0, _item(str(submission.id)))
            table.setItem(
                row, 1, _item(submission.candidate_id[:12], tooltip=submission.candidate_id)
            )
            table.setItem(row, 2, _item(when))
            table.setItem(
                row, 3, _item(ready, colour=colour, tooltip=submission.readiness.explain())
            )
            table.setItem(row, 4, _item(submission.note, tooltip=submission.note))

    def wanted_width(self) -> int:
        """The width at which both tables show every column without scrolling."""
        tables = [t for t in (self.status_table, self.submissions_table) if not t.isHidden()]
        widest = max((width_showing_every_column(t) for t in tables), default=0)
        return widest + 2 * LEDGER_MARGIN

    def _show_selected_readiness(self) -> None:
        candidates = self.snapshot.candidates
        if not candidates:
            return
        rows = {index.row() for index in self.status_table.selectedIndexes()}
        row = min(rows) if rows else len(candidates) - 1  # default: the newest candidate
        if row >= len(candidates):
            return
        report = self.snapshot.readiness.get(candidates[row].id)
        self.readiness_label.setText(report.explain() if report else "")

    def _show_cell_evidence(self, row: int, column: int, *_previous: int) -> None:
        """A status cell (not the Ready column) chosen: show its evidence and trajectory."""
        candidates, invariants = self.snapshot.candidates, self.snapshot.invariants
        if 0 <= row < len(candidates) and 1 <= column <= len(invariants):
            self._room_wanted = True  # once per choice: a later refresh keeps the person's sizes
            self.evidence.show_cell(candidates[row].id, invariants[column - 1].name)

    def _make_room_for_evidence(self) -> None:
        """Give the evidence pane the height it asks for, taken from the status table's pane."""
        if not self._room_wanted:
            return
        self._room_wanted = False
        sizes = self.splitter.sizes()
        wanted = self.evidence.sizeHint().height()
        missing = min(wanted - sizes[1], sizes[0] - self.status_table.minimumSizeHint().height())
        if missing > 0:
            self.splitter.setSizes([sizes[0] - missing, sizes[1] + missing, *sizes[2:]])


class LedgerDock(QDockWidget):
    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__("Ledger", parent)
        self.setObjectName("ledger-dock")
        self.view = LedgerView(context, self)
        self.setWidget(self.view)
