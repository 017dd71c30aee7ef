"""A person's Stop while a tool runs (issue 29): the running card is drawn as a neutral
"Cancelled", not a red error, and no error card follows. The real chat panel and transcript,
fed the runtime's own events (no model is needed to stop a run)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from tests.support.artifacts import artifact_folder
from workbench.agents.events import AgentError, ToolStarted
from workbench.core.context import AppContext
from workbench.ui.async_loop import running_tasks
from workbench.ui.chat.cards import ErrorCard, ToolCard
from workbench.ui.chat.panel import ChatPanel
from workbench.ui.chat.style import COLOURS


@pytest.fixture
def panel(context: AppContext, qtbot: QtBot) -> Iterator[ChatPanel]:
    chat = ChatPanel(context)
    chat.resize(420, 500)
    chat.show()
    yield chat
    qtbot.waitUntil(lambda: running_tasks() == 0)
    chat.close()


@pytest.mark.parametrize("kind", ["cancelled", "cancelled_by_user"])
def test_a_stopped_tool_card_is_a_neutral_cancelled(
    panel: ChatPanel, qtbot: QtBot, kind: str
) -> None:
    transcript = panel.controller.transcript
    transcript.render(ToolStarted(tool="search_documents", tool_call_id="c1", agent="documents"))
    transcript.render(AgentError(kind=kind, message="Stopped by the engineer."))
    [card] = [item for item in panel.view.items() if isinstance(item, ToolCard)]
    assert card.status == "cancelled" and card.summary.text() == "Cancelled"
    assert COLOURS["error"] not in card.title.styleSheet()
    assert not [item for item in panel.view.items() if isinstance(item, ErrorCard)]
    qtbot.wait(20)
    assert panel.grab().save(str(artifact_folder("first-encounters") / f"chat-{kind}.png"))
