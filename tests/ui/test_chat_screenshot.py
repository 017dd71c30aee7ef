"""A picture of the chat panel after a turn with a tool call, kept in $WORKBENCH_TEST_ARTIFACTS
(else tests/artifacts/) under chat-panel/, for a person to look at."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from tests.agents.conftest import call, calls, handoff, say
from tests.support.artifacts import artifact_folder
from workbench.agents import AgentRuntime, ScriptedChatModel
from workbench.core.context import AppContext
from workbench.ui.async_loop import running_tasks
from workbench.ui.chat.panel import ChatPanel

TURN = [
    handoff("sample", "Add 2 and 3."),
    calls(call("sample_add", {"a": 2, "b": 3})),
    say("The sum is 5."),
    say("2 + 3 is **5**."),
]


@pytest.fixture
def app(sample_plugins: Path) -> Iterator[AppContext]:
    context = AppContext.open()  # opened after sample_plugins: the sample tools exist
    context.plugins.plugins = {"sample": context.plugins.plugins["sample"]}
    yield context
    context.close()


def test_screenshot_of_the_chat_panel_after_a_tool_call(app: AppContext, qtbot: QtBot) -> None:
    runtime = AgentRuntime(app, ScriptedChatModel(replies=TURN), model_name="scripted:test")
    panel = ChatPanel(app, runtime=runtime)
    qtbot.addWidget(panel)
    panel.resize(420, 700)
    panel.show()
    qtbot.waitExposed(panel)
    qtbot.waitUntil(lambda: running_tasks() == 0)
    with qtbot.waitSignal(panel.run_finished, timeout=20000):
        panel.input.setText("What is 2 + 3?")
        panel.submit()
    qtbot.waitUntil(lambda: running_tasks() == 0)
    qtbot.wait(100)  # the streamed bubbles' last repaint

    picture = artifact_folder("chat-panel") / "chat-panel.png"
    assert panel.grab().save(str(picture))
    assert picture.stat().st_size > 0
    panel.close()
    runtime.close()
