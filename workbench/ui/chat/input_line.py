"""The chat's input line: recalls earlier entries with Up and Down, like a shell."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QLineEdit, QWidget


class HistoryLineEdit(QLineEdit):
    """Up and Down step through what was sent before; Down past the last entry empties it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.history: list[str] = []
        self._position = 0

    def remember(self, text: str) -> None:
        if text and (not self.history or self.history[-1] != text):
            self.history.append(text)
        self._position = len(self.history)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # Qt override
        popup = self.completer().popup() if self.completer() else None
        if popup is None or not popup.isVisible():
            if event.key() == Qt.Key.Key_Up and self.history:
                self._position = max(0, self._position - 1)
                self.setText(self.history[self._position])
                return
            if event.key() == Qt.Key.Key_Down and self.history:
                self._position = min(len(self.history), self._position + 1)
                at_end = self._position == len(self.history)
                self.setText("" if at_end else self.history[self._position])
                return
        super().keyPressEvent(event)
