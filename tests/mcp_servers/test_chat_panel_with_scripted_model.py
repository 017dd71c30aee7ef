"""Acceptance 2 in the desktop app's chat panel (real Qt offscreen, the REAL test MCP server over
stdio, a SCRIPTED language model): the supervisor hands the request to the external server's
specialist and the remote tool's result shows in the chat, as a tool card and in the answer."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import tests.rigs.gui  # noqa: F401  (first: skips, or fails in CI, without PySide6/pyqtgraph)

# isort: split
import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.mcp_servers.conftest import configure, stdio_server
from tests.mcp_servers.test_agent_with_scripted_model import BEAM_TURN
from workbench.agents import AgentRuntime, ScriptedChatModel
from workbench.core.context import AppContext
from workbench.ui.async_loop import attached_event_loop, running_tasks
from workbench.ui.chat.cards import MessageBubble, ToolCard
from workbench.ui.chat.panel import ChatPanel

RUN_TIMEOUT_MS = 40000
SHOTS = Path("/tmp/h/shots")


@pytest.fixture(autouse=True)
def gui_loop(qapp: object) -> Iterator[asyncio.AbstractEventLoop]:
    with attached_event_loop(qapp) as loop:  # type: ignore[arg-type]
        yield loop


def test_the_remote_tool_result_reaches_the_chat_with_scripted_model(
    qtbot: QtBot, context: AppContext
) -> None:
    context.plugins.plugins = {"mcp_servers": context.plugins.plugins["mcp_servers"]}
    configure(context, stdio_server())
    runtime = AgentRuntime(context, ScriptedChatModel(replies=BEAM_TURN), model_name="scripted:x")
    panel = ChatPanel(context, runtime=runtime)
    qtbot.addWidget(panel)
    panel.resize(420, 700)
    panel.show()
    qtbot.waitUntil(lambda: running_tasks() == 0)

    panel.input.setText("How much does my 2 m beam deflect under 1000 N?")
    with qtbot.waitSignal(panel.run_finished, timeout=RUN_TIMEOUT_MS) as finished:
        qtbot.keyClick(panel.input, Qt.Key.Key_Return)

    result = finished.args[0]
    assert result.status == "done", result.error
    [card] = [item for item in panel.view.items() if isinstance(item, ToolCard)]
    assert card.tool == "bench__beam_deflection" and card.status == "ok"
    assert card.agent == "mcp_bench"
    assert "0.833333" in card.summary.text(), card.plain_text()
    final = [item for item in panel.view.items() if isinstance(item, MessageBubble) and item.final]
    assert [bubble.text() for bubble in final] == [
        "The mid-span deflection is 0.833 mm (from the bench MCP server)."
    ]
    assert "→ mcp_bench: Mid-span deflection of a 2 m beam under 1000 N?" in (
        panel.transcript_text()
    )
    qtbot.waitUntil(lambda: running_tasks() == 0)
    SHOTS.mkdir(parents=True, exist_ok=True)
    panel.grab().save(str(SHOTS / "mcp_chat_panel.png"))
    panel.close()
    runtime.close()
