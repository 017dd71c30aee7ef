"""The conversation bar above the chat: pick a conversation, start a new one, export one.

Conversations come from the agent runtime (newest first); the panel decides what choosing one
means (load its transcript). Export asks for a file with a non-blocking QFileDialog.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QMenu,
    QSizePolicy,
    QToolButton,
    QWidget,
)

from workbench.agents.accounting import Conversation
from workbench.ui.chat.style import MENU_BUTTON_STYLE

FORMATS = {"markdown": ("Markdown", "md"), "json": ("JSON", "json")}
NEW_CONVERSATION = "New conversation"


def when(stamp: float) -> str:
    return time.strftime("%d %b %H:%M", time.localtime(stamp))


def file_stem(title: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9]+", "-", title).strip("-").lower()[:40]
    return stem or "conversation"


class ConversationBar(QWidget):
    chosen = Signal(str)  # thread id of a listed conversation
    new_requested = Signal()
    export_requested = Signal(str, str)  # format ("markdown" | "json"), file path

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.combo = QComboBox()
        self.combo.setObjectName("conversation-list")
        self.combo.setToolTip("Conversations in this workspace, newest first")
        self.combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.combo.setMinimumContentsLength(12)
        self.combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.combo.activated.connect(self._activated)
        self.new_button = QToolButton()
        self.new_button.setObjectName("conversation-new")
        self.new_button.setText("New")
        self.new_button.setToolTip("Start a new conversation")
        self.new_button.clicked.connect(self.new_requested)
        self.export_button = QToolButton()
        self.export_button.setObjectName("conversation-export")
        self.export_button.setText("Export ▾")
        self.export_button.setStyleSheet(MENU_BUTTON_STYLE)
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.export_button)
        for fmt, (label, _) in FORMATS.items():
            action = menu.addAction(f"As {label}…")
            action.setObjectName(f"export:{fmt}")
            action.triggered.connect(lambda _checked=False, chosen=fmt: self.ask_export(chosen))
        self.export_button.setMenu(menu)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.combo, 1)
        layout.addWidget(self.new_button)
        layout.addWidget(self.export_button)
        self.current_title = ""
        self.set_conversations([], None)

    def set_conversations(self, conversations: Sequence[Conversation], current: str | None) -> None:
        self.combo.blockSignals(True)  # filling it is not the engineer choosing
        self.combo.clear()
        if current is None:
            self.combo.addItem(NEW_CONVERSATION, None)
        for conversation in conversations:
            title = conversation.title or "(untitled)"
            self.combo.addItem(f"{title}  ·  {when(conversation.updated)}", conversation.thread_id)
            if conversation.thread_id == current:
                self.combo.setCurrentIndex(self.combo.count() - 1)
                self.current_title = title
        if current is not None and self.combo.findData(current) < 0:  # not recorded yet
            self.combo.insertItem(0, "(this conversation)", current)
            self.combo.setCurrentIndex(0)
        self.combo.blockSignals(False)
        self.export_button.setEnabled(current is not None)

    def listed_ids(self) -> list[str]:
        ids = [self.combo.itemData(index) for index in range(self.combo.count())]
        return [thread for thread in ids if thread]

    def _activated(self, index: int) -> None:
        thread_id = self.combo.itemData(index)
        if thread_id:
            self.chosen.emit(thread_id)

    def ask_export(self, fmt: str) -> QFileDialog:
        label, suffix = FORMATS[fmt]
        dialog = QFileDialog(self, f"Export the conversation as {label}")
        dialog.setObjectName("export-dialog")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setFileMode(QFileDialog.FileMode.AnyFile)
        dialog.setNameFilter(f"{label} (*.{suffix})")
        dialog.setDefaultSuffix(suffix)
        dialog.selectFile(f"{file_stem(self.current_title)}.{suffix}")
        dialog.fileSelected.connect(lambda path: self.export_requested.emit(fmt, path))
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()  # non-blocking: runs stream on while the engineer picks a file
        return dialog
