"""Cards speak to the person: a short line in their words, and what the model was told (schema
errors, hints such as "call again") one click away under Details.

The chat panel over a SCRIPTED model (language models cannot run here) and the sample plugin's
real tools; the /tool command through the real registry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import shiboken6
from pytestqt.qtbot import QtBot

from tests.agents.conftest import add_specialist, call, calls, handoff, say
from tests.support.artifacts import artifact_folder
from tests.ui.test_chat_agent import only_sample, send, send_and_wait
from workbench.agents import AgentRuntime, ScriptedChatModel
from workbench.core.context import AppContext
from workbench.ui.async_loop import running_tasks
from workbench.ui.chat.cards import ToolCard
from workbench.ui.chat.panel import ChatPanel


@pytest.fixture
def sample_app(sample_plugins: Path) -> Iterator[AppContext]:
    context = only_sample(AppContext.open())  # opened after sample_plugins: sample tools exist
    yield context
    context.close()


@pytest.fixture
def chat_panel(sample_app: AppContext, qtbot: QtBot) -> Iterator[Callable[..., ChatPanel]]:
    """A shown chat panel over a scripted model: chat_panel(replies)."""
    panels: list[ChatPanel] = []

    def make(replies: list[dict[str, Any]]) -> ChatPanel:
        runtime = AgentRuntime(sample_app, ScriptedChatModel(replies=replies), model_name="s:t")
        panel = ChatPanel(sample_app, runtime=runtime)
        qtbot.addWidget(panel)
        panel.resize(420, 700)
        panel.show()
        qtbot.waitUntil(lambda: running_tasks() == 0)
        panels.append(panel)
        return panel

    yield make
    qtbot.waitUntil(lambda: running_tasks() == 0)
    for panel in panels:
        if shiboken6.isValid(panel):  # waiting may have let pytest-qt delete it
            runtime = panel.runtime
            panel.close()
            if runtime is not None:
                runtime.close()


def cards(panel: ChatPanel) -> list[ToolCard]:
    return [item for item in panel.view.items() if isinstance(item, ToolCard)]


def turn(*tool_calls: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        handoff("sample", "Add the numbers."),
        *[calls(c) for c in tool_calls],
        say("It failed."),
        say("It failed; see the card."),
    ]


def test_a_schema_error_card_reads_as_a_sentence_with_the_detail_behind_a_click(
    chat_panel: Callable[..., ChatPanel], qtbot: QtBot
) -> None:
    panel = chat_panel(turn(call("sample_add", {"a": -1, "b": 2})))
    assert send_and_wait(qtbot, panel, "Add -1 and 2.").status == "done"

    [card] = cards(panel)
    assert card.status == "error"
    summary = card.summary.text()
    assert summary == (
        "Wrong argument a: should be greater than or equal to 0; the agent was asked to fix it."
    )
    for for_the_model in ("got invalid arguments", "problem(s)", "call again", "- a:"):
        assert for_the_model not in summary
    assert card.details_button.isVisible() and not card.details.isVisible()
    panel.grab().save(str(artifact_folder("chat") / "schema-error-card.png"))
    card.details_button.click()
    assert card.details.isVisible()
    detail = card.details.text()
    assert "- a: Input should be greater than or equal to 0" in detail
    assert "Fix the fields listed and call again; nothing was run." in detail
    card.details_button.click()
    assert not card.details.isVisible()


def test_a_tool_failure_card_says_what_failed_once_with_the_hint_under_details(
    sample_app: AppContext, chat_panel: Callable[..., ChatPanel], qtbot: QtBot
) -> None:
    add_specialist(sample_app, "writer", ("sample_write_note",))
    panel = chat_panel(
        [
            handoff("writer", "Store a note."),
            calls(call("sample_write_note", {"text": "hi", "fail_after_writing": True})),
            say("It was refused."),
            say("The note was refused."),
        ]
    )
    assert send_and_wait(qtbot, panel, "Store a note.").status == "done"

    [card] = cards(panel)
    assert card.status == "error"
    assert card.summary.text() == "the note was refused after writing"
    card.details_button.click()
    assert card.details.text() == "Call again without the flag."  # the rest, not a repeat
    assert card.plain_text().count("the note was refused after writing") == 1
    panel.view.ensureWidgetVisible(card)
    qtbot.wait(50)
    panel.grab().save(str(artifact_folder("chat") / "failed-card.png"))


def test_a_tool_command_card_shows_the_result_not_the_record_number(
    chat_panel: Callable[..., ChatPanel], qtbot: QtBot
) -> None:
    panel = chat_panel([])
    with qtbot.waitSignal(panel.tool_finished, timeout=5000):
        send(qtbot, panel, '/tool sample_add {"a": 1, "b": 2.5}')
    with qtbot.waitSignal(panel.tool_finished, timeout=5000):
        send(qtbot, panel, '/tool sample_add {"a": -1, "b": 2}')

    done, failed = cards(panel)
    assert done.summary.text() == "total: 3.5"  # before: "call 1", the store's row number
    assert failed.summary.text() == (
        "Wrong argument a: should be greater than or equal to 0; nothing was run."
    )
    assert failed.plain_text().count("- a: Input should be greater than or equal to 0") == 1
