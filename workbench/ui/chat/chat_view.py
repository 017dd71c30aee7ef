"""The chat's transcript: its items top to bottom in a scroll area, following the bottom as items
arrive unless the engineer has scrolled up to read."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QVBoxLayout, QWidget

from workbench.ui.chat.cards import ChatItem


class ChatView(QScrollArea):
    """The chat's items top to bottom; follows the bottom unless the engineer scrolled up."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chat-transcript")
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._column = QWidget()
        self._column.setObjectName("chat-column")
        self._layout = QVBoxLayout(self._column)
        self._layout.setContentsMargins(6, 6, 6, 6)
        self._layout.setSpacing(6)
        self._layout.addStretch(1)
        self.setWidget(self._column)
        self._follow = True
        bar = self.verticalScrollBar()
        bar.valueChanged.connect(self._scrolled)
        bar.rangeChanged.connect(self._grown)

    def add(self, item: ChatItem) -> ChatItem:
        self._layout.insertWidget(self._layout.count() - 1, item)
        return item

    def items(self) -> list[ChatItem]:
        found = []
        for index in range(self._layout.count()):
            entry = self._layout.itemAt(index)
            widget = entry.widget() if entry is not None else None
            if isinstance(widget, ChatItem):
                found.append(widget)
        return found

    def remove(self, item: ChatItem) -> None:
        self._layout.removeWidget(item)
        item.hide()  # deleteLater waits for the event loop; until then it must not show
        item.deleteLater()

    def clear(self) -> None:
        for item in self.items():
            self.remove(item)
        self._follow = True

    def plain_text(self) -> str:
        return "\n".join(item.plain_text() for item in self.items())

    def _scrolled(self, value: int) -> None:
        self._follow = value >= self.verticalScrollBar().maximum() - 8

    def _grown(self, _minimum: int, maximum: int) -> None:
        if self._follow:
            self.verticalScrollBar().setValue(maximum)
