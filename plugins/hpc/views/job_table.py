"""The queue view's jobs table: one QAbstractTableModel over a list of JobRow.

A refresh replaces the list in one go: when the same jobs are listed in the same order (the usual
poll, where only states and times move) it emits one dataChanged over the whole table, otherwise
one model reset. Either way 1,000 rows cost one signal, never a widget per cell.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from workbench_plugins.hpc.slurm.jobs import JobRow, JobState

Index = QModelIndex | QPersistentModelIndex
JobKey = tuple[str, str]  # (host, job_id)

COLUMNS: tuple[tuple[str, str], ...] = (
    ("host", "Host"),
    ("job_id", "Job"),
    ("array_task", "Task"),
    ("name", "Name"),
    ("user", "User"),
    ("state", "State"),
    ("reason", "Reason"),
    ("elapsed", "Elapsed"),
    ("time_limit", "Time limit"),
    ("nodes", "Nodes"),
)
STATE_COLUMN = [field for field, _ in COLUMNS].index("state")

# Light backgrounds, so the black text stays readable; failures stand out in red.
STATE_COLOURS: dict[str, str] = {
    JobState.PENDING: "#fff4c2",
    JobState.RUNNING: "#d4f5d4",
    JobState.COMPLETING: "#e3f5d4",
    JobState.COMPLETED: "#e4ecf7",
    JobState.FAILED: "#f9d0d0",
    JobState.TIMEOUT: "#f9d0d0",
    JobState.OUT_OF_MEMORY: "#f9d0d0",
    JobState.NODE_FAIL: "#f9d0d0",
    JobState.CANCELLED: "#ececec",
    JobState.PREEMPTED: "#fde2c8",
    JobState.SUSPENDED: "#fde2c8",
    JobState.UNKNOWN: "#ffffff",
}


def job_key(row: JobRow) -> JobKey:
    return (row.host, row.job_id)


def _job_number(job_id: str) -> tuple[int, int]:
    """Job "123" -> (123, -1), "123_4" -> (123, 4): newest jobs first, tasks in order."""
    head, _, task = job_id.partition("_")
    number = int(head) if head.isdigit() else 0
    return number, int(task) if task.isdigit() else -1


def ordered(rows: Sequence[JobRow]) -> list[JobRow]:
    """The table's order: host, then newest job first, then task number."""
    by_task = sorted(rows, key=lambda row: _job_number(row.job_id)[1])
    by_job = sorted(by_task, key=lambda row: _job_number(row.job_id)[0], reverse=True)
    return sorted(by_job, key=lambda row: row.host)


class JobTableModel(QAbstractTableModel):
    def __init__(self) -> None:
        super().__init__()
        self._rows: list[JobRow] = []
        self._keys: list[JobKey] = []
        self._brushes = {state: QBrush(QColor(colour)) for state, colour in STATE_COLOURS.items()}
        self._bold = QFont()
        self._bold.setBold(True)

    # -- data ---------------------------------------------------------------------------------
    def set_rows(self, rows: Sequence[JobRow]) -> None:
        """Show `rows` (in the table's order); one signal whatever their number."""
        new_rows = ordered(rows)
        new_keys = [job_key(row) for row in new_rows]
        if new_keys == self._keys:
            self._rows = new_rows
            if new_rows:
                last = self.index(len(new_rows) - 1, len(COLUMNS) - 1)
                self.dataChanged.emit(self.index(0, 0), last)
            return
        self.beginResetModel()
        self._rows, self._keys = new_rows, new_keys
        self.endResetModel()

    def rows(self) -> list[JobRow]:
        return list(self._rows)

    def row_of(self, key: JobKey) -> int:
        """The row showing job `key`, or -1."""
        try:
            return self._keys.index(key)
        except ValueError:
            return -1

    def job_at(self, row: int) -> JobRow | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    # -- QAbstractTableModel ------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        row = self._rows[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            value = getattr(row, COLUMNS[index.column()][0])
            text = "" if value is None else str(value)
            if role == Qt.ItemDataRole.ToolTipRole and index.column() == STATE_COLUMN:
                return f"{text}, exit code {row.exit_code}" if row.exit_code else text
            return text
        if role == Qt.ItemDataRole.BackgroundRole:
            return self._brushes.get(row.state)
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(QColor("#202020"))
        if role == Qt.ItemDataRole.FontRole and index.column() == STATE_COLUMN:
            return self._bold
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(COLUMNS):
            return COLUMNS[section][1]
        return None
