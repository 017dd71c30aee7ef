"""The chat's yes-or-no questions, as non-modal dialogs: the caller connects `finished` and calls
`open()`, never `exec()`, so the window (and other runs' progress) stays live while they wait.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtWidgets import QMessageBox, QWidget

from workbench.agents.events import InterruptRequested

YES_NO = QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No


def agent_tool_dialog(parent: QWidget, event: InterruptRequested) -> QMessageBox:
    """The agent asks to run a tool that needs the engineer's yes."""
    arguments = json.dumps(event.arguments, indent=2, ensure_ascii=False, default=str)
    box = QMessageBox(
        QMessageBox.Icon.Question,
        "The agent asks to run a tool",
        f"{event.question}\n\nArguments:\n{arguments}",
        YES_NO,
        parent,
    )
    box.setObjectName("confirm-agent-tool")
    box.setDefaultButton(QMessageBox.StandardButton.No)  # acting on the world is opt-in
    return box


def tool_command_dialog(
    parent: QWidget, name: str, arguments: dict[str, Any], why: str
) -> QMessageBox:
    """The engineer's own /tool call needs a yes first (`why` says what it would do)."""
    box = QMessageBox(
        QMessageBox.Icon.Question,
        "Confirm a tool call",
        f"{why}\n\nArguments:\n{json.dumps(arguments, indent=2)}\n\nRun it?",
        YES_NO,
        parent,
    )
    box.setObjectName("confirm-tool")
    return box
