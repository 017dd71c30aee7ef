"""The chat panel's /tool commands call tools through the one registry, without blocking, and
explain errors. (The agent side of the panel: test_chat_agent.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from workbench.core.context import AppContext
from workbench.core.tools import ToolOutcome
from workbench.ui.async_loop import running_tasks
from workbench.ui.chat.panel import ChatPanel


@pytest.fixture
def panel(sample_plugins: Path, qtbot: QtBot) -> Iterator[ChatPanel]:
    context = AppContext.open()  # opened after sample_plugins, so the sample tools are there
    # closed here, not by qtbot: qtbot deletes its widgets before this fixture's teardown, and
    # waiting for the model check's task below would then meet a deleted panel
    chat = ChatPanel(context)
    chat.show()
    yield chat
    qtbot.waitUntil(lambda: running_tasks() == 0)  # e.g. the conversation list's first read
    chat.close()
    context.close()


def send(qtbot: QtBot, panel: ChatPanel, text: str) -> None:
    panel.input.setText(text)
    qtbot.keyClick(panel.input, Qt.Key.Key_Return)


def test_tool_command_calls_the_registry_and_shows_the_result(
    panel: ChatPanel, qtbot: QtBot
) -> None:
    with qtbot.waitSignal(panel.tool_finished, timeout=5000) as finished:
        send(qtbot, panel, '/tool sample_add {"a": 1, "b": 2.5}')
    outcome: ToolOutcome = finished.args[0]
    assert outcome.ok and outcome.result == {"total": 3.5}
    assert '"total": 3.5' in panel.transcript_text()
    [call] = panel.context.store.tool_calls("sample_add")
    assert call["caller"] == "gui:chat"
    assert panel.input.text() == ""


def test_a_bad_argument_names_the_field(panel: ChatPanel, qtbot: QtBot) -> None:
    with qtbot.waitSignal(panel.tool_finished, timeout=5000) as finished:
        send(qtbot, panel, '/tool sample_add {"a": -1, "b": 2}')
    outcome: ToolOutcome = finished.args[0]
    assert not outcome.ok and outcome.error is not None
    transcript = panel.transcript_text()
    assert "- a: Input should be greater than or equal to 0" in transcript
    assert "nothing was run" in transcript


def test_listing_help_and_mistakes(panel: ChatPanel, qtbot: QtBot) -> None:
    send(qtbot, panel, "/tools")
    assert "sample_add [compute]" in panel.transcript_text()
    send(qtbot, panel, "/describe sample_add")
    assert "a: number" in panel.transcript_text()
    send(qtbot, panel, "/tool sample_add {a: 1}")
    assert "not valid JSON" in panel.transcript_text()
    send(qtbot, panel, "/tool sample_add [1, 2]")
    assert "must be a JSON object" in panel.transcript_text()
    send(qtbot, panel, "/frobnicate")
    assert "Unknown command /frobnicate" in panel.transcript_text()
    assert panel.context.store.tool_calls() == []  # none of these reached a tool


def test_a_physical_tool_asks_first(panel: ChatPanel, qtbot: QtBot) -> None:
    send(qtbot, panel, "/tool sample_actuate {}")
    box = panel.findChild(QMessageBox, "confirm-tool")
    assert box is not None and box.isVisible()
    assert panel.context.store.tool_calls() == []  # nothing moves before the person says yes
    with qtbot.waitSignal(panel.tool_finished, timeout=5000) as finished:
        qtbot.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    assert finished.args[0].ok and finished.args[0].result == {"moved": True}


def test_input_history_recalls_earlier_lines(panel: ChatPanel, qtbot: QtBot) -> None:
    send(qtbot, panel, "/help")
    send(qtbot, panel, "/tools")
    qtbot.keyClick(panel.input, Qt.Key.Key_Up)
    assert panel.input.text() == "/tools"
    qtbot.keyClick(panel.input, Qt.Key.Key_Up)
    assert panel.input.text() == "/help"
    qtbot.keyClick(panel.input, Qt.Key.Key_Down)
    qtbot.keyClick(panel.input, Qt.Key.Key_Down)
    assert panel.input.text() == ""
