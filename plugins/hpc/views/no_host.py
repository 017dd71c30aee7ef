"""What the queue view shows when no SSH host is configured: the words, and "Add a host…"."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from workbench.ui.naming import named

NO_HOST = "No SSH host is configured, so there is no queue to show. Add the cluster's login node."
NO_HOST_SUBMIT = "No SSH host is configured: add one first."


class NoHostRow(QWidget):
    def __init__(self, can_add: bool) -> None:
        super().__init__()
        self.setObjectName("hpc-no-host")
        self.label = named(QLabel(NO_HOST), "hpc-no-host-label")
        self.label.setWordWrap(True)
        self.add_button = named(QPushButton("Add a host…"), "hpc-add-host")
        self.add_button.setVisible(can_add)  # the form needs the settings it writes to
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 12, 0, 0)
        row = QHBoxLayout()
        row.addWidget(self.label, 1)
        row.addWidget(self.add_button)
        column.addLayout(row)
        column.addStretch(1)
