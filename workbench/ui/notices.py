"""Notices (a plugin that failed to load, a broken settings file, a view that would not open).

They never interrupt: the status bar shows the latest one for a while, a button counts them, and
the list opens in a non-modal window that can stay open beside the work.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QListWidget,
    QListWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.events import EventBus, Notice
from workbench.ui.bridge import subscribe_in_gui

LEVEL_COLOURS = {"info": "#1f6feb", "warning": "#9a6700", "error": "#cf222e"}
LEVEL_MARKS = {"info": "•", "warning": "⚠", "error": "✖"}


class NoticesDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("notices-dialog")
        self.setWindowTitle("Notices")
        self.setModal(False)
        self.resize(640, 320)
        self.list = QListWidget()
        self.list.setWordWrap(True)
        self.list.setObjectName("notices-list")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        clear = buttons.addButton("Clear", QDialogButtonBox.ButtonRole.ResetRole)
        clear.clicked.connect(self.list.clear)
        buttons.rejected.connect(self.hide)
        layout = QVBoxLayout(self)
        layout.addWidget(self.list)
        layout.addWidget(buttons)

    def add(self, notice: Notice) -> None:
        stamp = time.strftime("%H:%M:%S", time.localtime(notice.time))
        mark = LEVEL_MARKS.get(notice.level, "•")
        item = QListWidgetItem(f"{mark} {stamp}  {notice.text}")
        item.setForeground(QColor(LEVEL_COLOURS.get(notice.level, "#000000")))
        item.setToolTip(notice.text)
        self.list.addItem(item)
        self.list.scrollToBottom()


class NoticesButton(QToolButton):
    """Status-bar button counting notices; click opens the list. `shown` carries the latest text."""

    shown = Signal(str)

    def __init__(self, bus: EventBus, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("notices-button")
        self.setAutoRaise(True)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.dialog = NoticesDialog(self)
        self.count = 0
        self._update_text()
        self.clicked.connect(self.open_list)
        self.dialog.list.model().rowsRemoved.connect(self._on_cleared)
        self.dialog.list.model().modelReset.connect(self._on_cleared)
        subscribe_in_gui(bus, Notice, self.add, self)

    def add(self, notice: Notice) -> None:
        self.dialog.add(notice)
        self.count = self.dialog.list.count()
        self._update_text()
        self.shown.emit(f"{LEVEL_MARKS.get(notice.level, '')} {notice.text}")

    def open_list(self) -> None:
        self.dialog.show()  # non-modal: the window stays usable
        self.dialog.raise_()
        self.dialog.activateWindow()

    def _on_cleared(self) -> None:
        self.count = self.dialog.list.count()
        self._update_text()

    def _update_text(self) -> None:
        self.setText(f"⚠ {self.count} notice(s)" if self.count else "No notices")
