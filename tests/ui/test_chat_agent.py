"""The chat panel on the agent runtime, driven by SCRIPTED models (language models cannot run
here) and, for the model server's side, the FAKE Ollama HTTP server with the real client.

Streaming, tool cards, confirmations and questions, Stop, Retry after an unreachable server,
conversations that continue after a restart, export, the model picker.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import shiboken6
from langchain_core.messages import AIMessage, HumanMessage
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from tests.agents.conftest import add_specialist, call, calls, handoff, say, write_script
from tests.rigs.fake_ollama import FakeOllama
from tests.ui.slow_model import SlowScriptedChatModel
from workbench.agents import AgentRuntime, ScriptedChatModel
from workbench.agents.events import AgentEvent, Token
from workbench.core.context import AppContext
from workbench.ui.async_loop import running_tasks
from workbench.ui.chat.cards import ErrorCard, MessageBubble, NoteLine, QuestionCard, ToolCard
from workbench.ui.chat.panel import ChatPanel
from workbench.ui.main_window import MainWindow

ADD_TURN = [
    handoff("sample", "Add 2 and 3."),
    calls(call("sample_add", {"a": 2, "b": 3})),
    say("The sum is 5."),
    say("2 + 3 is **5**."),
]
RUN_TIMEOUT_MS = 20000


def only_sample(context: AppContext) -> AppContext:
    # only the sample specialist routes, whatever other plugins this checkout has installed
    context.plugins.plugins = {"sample": context.plugins.plugins["sample"]}
    return context


@pytest.fixture
def app(sample_plugins: Path) -> Iterator[AppContext]:
    context = only_sample(AppContext.open())  # opened after sample_plugins: sample tools exist
    yield context
    context.close()


@pytest.fixture
def make_panel(app: AppContext, qtbot: QtBot) -> Iterator[Callable[..., ChatPanel]]:
    """A shown chat panel over a scripted model: make_panel(replies, model_class=...)."""
    panels: list[ChatPanel] = []

    def make(
        replies: list[dict[str, Any]], model_class: type[ScriptedChatModel] = ScriptedChatModel
    ) -> ChatPanel:
        model = model_class(replies=replies)
        runtime = AgentRuntime(app, model, model_name="scripted:test")
        panel = ChatPanel(app, runtime=runtime)
        qtbot.addWidget(panel)
        panel.resize(420, 700)
        panel.show()
        qtbot.waitUntil(lambda: running_tasks() == 0)
        panels.append(panel)
        return panel

    yield make
    # pytest-qt may have deleted the panels already (which stops their runs and closes their
    # runtimes); what is left is stopped and closed here
    for panel in panels:
        if shiboken6.isValid(panel):
            panel.stop()
    qtbot.waitUntil(lambda: running_tasks() == 0)
    for panel in panels:
        if shiboken6.isValid(panel):  # waiting may have let pytest-qt delete it
            panel.close()
            if panel.runtime is not None:
                panel.runtime.close()


def close_panel(qtbot: QtBot, panel: ChatPanel) -> None:
    """Once the panel's background work has finished: close it and its runtime."""
    qtbot.waitUntil(lambda: running_tasks() == 0)
    panel.close()
    if panel.runtime is not None:
        panel.runtime.close()


def send(qtbot: QtBot, panel: ChatPanel, text: str) -> None:
    panel.input.setText(text)
    qtbot.keyClick(panel.input, Qt.Key.Key_Return)


def send_and_wait(qtbot: QtBot, panel: ChatPanel, text: str) -> Any:
    with qtbot.waitSignal(panel.run_finished, timeout=RUN_TIMEOUT_MS) as finished:
        send(qtbot, panel, text)
    return finished.args[0]


def items(panel: ChatPanel, kind: type) -> list[Any]:
    return [item for item in panel.view.items() if isinstance(item, kind)]


def test_tokens_stream_and_a_tool_card_appears_with_scripted_model(
    make_panel: Callable[..., ChatPanel], qtbot: QtBot
) -> None:
    panel = make_panel(ADD_TURN)
    result = send_and_wait(qtbot, panel, "What is 2 + 3?")

    assert result.status == "done", result.error
    you, specialist, final = items(panel, MessageBubble)
    assert you.text() == "What is 2 + 3?" and you.role == "you"
    assert specialist.text() == "The sum is 5." and specialist.agent == "sample"
    assert final.text() == "2 + 3 is **5**." and final.final and final.agent == "supervisor"
    assert final.body.text() == "2 + 3 is **5**."  # what the label shows (as Markdown)
    [card] = items(panel, ToolCard)
    assert card.tool == "sample_add" and card.status == "ok" and card.agent == "sample"
    assert card.summary.text() == "total: 5"
    assert '"a": 2' in card.arguments.text() and card.timing.text().startswith("ok · ")
    assert "→ sample: Add 2 and 3." in panel.transcript_text()
    total = result.totals["input_tokens"] + result.totals["output_tokens"]
    assert total > 0 and panel.token_label.text() == f"{total:,} tokens"
    assert panel.model_picker.text() == "Model: scripted:test ▾"
    assert not panel.stop_button.isEnabled()
    [recorded] = panel.context.store.tool_calls("sample_add")
    assert recorded["caller"] == "agent:sample" and recorded["ok"]


def test_tokens_arrive_one_by_one_on_the_gui_thread_with_slow_scripted_model(
    make_panel: Callable[..., ChatPanel], qtbot: QtBot
) -> None:
    panel = make_panel([say("one two three four five six seven eight")], SlowScriptedChatModel)
    threads: set[int] = set()
    tokens: list[str] = []
    render = panel._on_agent_event

    def spy(event: AgentEvent) -> None:
        threads.add(threading.get_ident())
        if isinstance(event, Token):
            tokens.append(event.text)
        render(event)

    panel._on_agent_event = spy  # type: ignore[method-assign]
    send(qtbot, panel, "Count.")

    def partly_shown() -> bool:
        bubbles = [b for b in items(panel, MessageBubble) if b.role == "workbench"]
        return bool(bubbles) and "two" in bubbles[0].body.text()

    qtbot.waitUntil(partly_shown, timeout=RUN_TIMEOUT_MS)
    assert panel.busy and "eight" not in panel.transcript_text()  # still streaming
    qtbot.waitSignal(panel.run_finished, timeout=RUN_TIMEOUT_MS).wait()
    assert len(tokens) == 8
    assert threads == {threading.get_ident()}  # events are handled on the GUI thread
    final = [b for b in items(panel, MessageBubble) if b.final]
    assert [b.text() for b in final] == ["one two three four five six seven eight"]


def confirm_turn() -> list[dict[str, Any]]:
    return [
        handoff("mover", "Move the motor."),
        calls(call("sample_actuate", {})),
        say("Done moving."),
        say("The motor has moved."),
    ]


def answer_confirmation(qtbot: QtBot, panel: ChatPanel, button: QMessageBox.StandardButton) -> Any:
    box: QMessageBox | None = None

    def asked() -> bool:
        nonlocal box
        box = panel.findChild(QMessageBox, "confirm-agent-tool")
        return box is not None and box.isVisible()

    qtbot.waitUntil(asked, timeout=RUN_TIMEOUT_MS)
    assert box is not None and "sample_actuate" in box.text()
    assert not box.isModal() or box.windowModality() != Qt.WindowModality.ApplicationModal
    assert panel.context.store.tool_calls() == []  # nothing moves before the person answers
    with qtbot.waitSignal(panel.run_finished, timeout=RUN_TIMEOUT_MS) as finished:
        qtbot.mouseClick(box.button(button), Qt.MouseButton.LeftButton)
    return finished.args[0]


def test_confirmation_dialog_approved_runs_the_tool_with_scripted_model(
    app: AppContext, make_panel: Callable[..., ChatPanel], qtbot: QtBot
) -> None:
    add_specialist(app, "mover", ("sample_actuate",))
    panel = make_panel(confirm_turn())
    first = send_and_wait(qtbot, panel, "Move the motor.")
    assert first.status == "interrupted"

    result = answer_confirmation(qtbot, panel, QMessageBox.StandardButton.Yes)

    assert result.status == "done", result.error
    [card] = items(panel, ToolCard)
    assert card.tool == "sample_actuate" and card.status == "ok"
    [recorded] = app.store.tool_calls("sample_actuate")
    assert recorded["ok"] and recorded["caller"] == "agent:mover"
    assert "You approved sample_actuate." in panel.transcript_text()
    assert "The motor has moved." in panel.transcript_text()


def test_confirmation_dialog_denied_is_recorded_with_scripted_model(
    app: AppContext, make_panel: Callable[..., ChatPanel], qtbot: QtBot
) -> None:
    add_specialist(app, "mover", ("sample_actuate",))
    replies = confirm_turn()
    replies[2:] = [say("I did not move it."), say("The motor was not moved: you declined.")]
    panel = make_panel(replies)
    send_and_wait(qtbot, panel, "Move the motor.")

    result = answer_confirmation(qtbot, panel, QMessageBox.StandardButton.No)

    assert result.status == "done", result.error
    [card] = items(panel, ToolCard)
    assert card.status == "declined" and "declined" in card.plain_text()
    [recorded] = app.store.tool_calls("sample_actuate")
    assert not recorded["ok"] and recorded["error"]["kind"] == "confirmation_required"
    assert "You declined sample_actuate." in panel.transcript_text()
    assert "The motor was not moved: you declined." in panel.transcript_text()


def test_clarification_is_answered_in_the_chat_with_scripted_model(
    app: AppContext, make_panel: Callable[..., ChatPanel], qtbot: QtBot
) -> None:
    add_specialist(app, "asker", ("ask_human_for_clarification", "sample_add"))
    panel = make_panel(
        [
            handoff("asker", "Add the numbers the engineer means."),
            calls(call("ask_human_for_clarification", {"question": "Which numbers?"})),
            calls(call("sample_add", {"a": 4, "b": 5})),
            say("4 + 5 = 9"),
            say("It is 9."),
        ]
    )
    assert send_and_wait(qtbot, panel, "Add my numbers.").status == "interrupted"
    [question] = items(panel, QuestionCard)
    assert question.question.text() == "Which numbers?"

    with qtbot.waitSignal(panel.run_finished, timeout=RUN_TIMEOUT_MS) as finished:
        question.answer.setText("4 and 5")
        qtbot.mouseClick(question.button, Qt.MouseButton.LeftButton)

    assert finished.args[0].status == "done", finished.args[0].error
    assert question.given == "4 and 5" and not question.button.isEnabled()
    [added] = app.store.tool_calls("sample_add")
    assert added["arguments"] == {"a": 4, "b": 5}
    assert "It is 9." in panel.transcript_text()


def test_stop_button_cancels_a_run_and_the_conversation_goes_on_with_slow_scripted_model(
    make_panel: Callable[..., ChatPanel], qtbot: QtBot
) -> None:
    long_reply = " ".join(f"word{i}" for i in range(200))
    panel = make_panel([say(long_reply), say("Back again.")], SlowScriptedChatModel)
    send(qtbot, panel, "Talk a lot.")
    qtbot.waitUntil(lambda: "word3" in panel.transcript_text(), timeout=RUN_TIMEOUT_MS)
    assert panel.stop_button.isEnabled()

    with qtbot.waitSignal(panel.run_finished, timeout=RUN_TIMEOUT_MS) as finished:
        qtbot.mouseClick(panel.stop_button, Qt.MouseButton.LeftButton)

    assert finished.args[0] is None  # the run's task was cancelled
    assert not panel.busy and not panel.stop_button.isEnabled()
    assert "Stopped." in panel.transcript_text()
    assert "word199" not in panel.transcript_text()
    [partial] = [b for b in items(panel, MessageBubble) if b.role == "workbench"]
    assert partial.discarded  # its model call never finished: not part of the conversation

    result = send_and_wait(qtbot, panel, "Are you there?")
    assert result.status == "done" and result.answer == "Back again."
    assert panel.runtime is not None and panel.thread_id is not None
    said = [b.text() for b in items(panel, MessageBubble) if b.role == "you"]
    assert said == ["Talk a lot.", "Are you there?"]


def test_unreachable_model_server_gives_a_clear_message_and_retry_with_fake_ollama_server(
    sample_plugins: Path, monkeypatch: pytest.MonkeyPatch, qtbot: QtBot
) -> None:
    with FakeOllama() as server:
        server.kill()  # the port now refuses connections, like a stopped `ollama serve`
        monkeypatch.setenv("OLLAMA_HOST", server.url)
        context = only_sample(AppContext.open())
        panel = ChatPanel(context)  # the default model from settings: ollama:qwen3:4b
        qtbot.addWidget(panel)
        panel.show()
        try:
            result = send_and_wait(qtbot, panel, "What is 2 + 3?")
            assert result.status == "error"
            [card] = items(panel, ErrorCard)
            message = card.plain_text()
            assert f"Ollama at {server.url} is not reachable" in message
            assert "ollama serve" in message and "conversation is kept" in message
            assert card.button is not None and card.button.text() == "Retry"
            [you] = [b for b in items(panel, MessageBubble) if b.role == "you"]
            assert you.text() == "What is 2 + 3?"  # still there

            server.replies = [
                {"tool_calls": [{"name": "transfer_to_sample", "arguments": {"task": "Add."}}]},
                {"tool_calls": [{"name": "sample_add", "arguments": {"a": 2, "b": 3}}]},
                {"content": "5"},
                {"content": "2 + 3 = 5."},
            ]
            server.restart()
            with qtbot.waitSignal(panel.run_finished, timeout=RUN_TIMEOUT_MS) as finished:
                qtbot.mouseClick(card.button, Qt.MouseButton.LeftButton)
            assert finished.args[0].status == "done", finished.args[0].error
            assert finished.args[0].answer == "2 + 3 = 5."
            assert server.requests[0]["messages"][-1]["content"] == "What is 2 + 3?"
            [tool_card] = items(panel, ToolCard)
            assert tool_card.status == "ok"
        finally:
            close_panel(qtbot, panel)
            context.close()


def test_last_conversation_is_listed_and_continues_after_reopening_with_scripted_model(
    sample_plugins: Path,
    tmp_path: Path,
    open_window: Callable[..., MainWindow],
    qtbot: QtBot,
) -> None:
    first = only_sample(AppContext.open())
    first.settings.model = write_script(tmp_path, ADD_TURN, "one.json")
    first.save_settings()
    window = open_window(first)
    panel = window.chat_dock.panel
    assert panel.thread_id is None  # a fresh workspace has no conversation yet
    result = send_and_wait(qtbot, panel, "What is 2 + 3?")
    assert result.status == "done", result.error
    thread_id = panel.thread_id
    window.close()
    qtbot.waitUntil(lambda: running_tasks() == 0)
    first.close()

    # "restart": a new context and window on the same WORKBENCH_HOME
    second = only_sample(AppContext.open())
    second.settings.model = write_script(tmp_path, [say("Twice that is 10.")], "two.json")
    reopened = open_window(second)
    panel = reopened.chat_dock.panel
    qtbot.waitUntil(lambda: panel.thread_id == thread_id, timeout=RUN_TIMEOUT_MS)
    qtbot.waitUntil(lambda: running_tasks() == 0)
    assert panel.conversation_bar.listed_ids() == [thread_id]
    assert panel.conversation_bar.combo.currentText().startswith("What is 2 + 3?")
    shown = panel.transcript_text()
    assert "What is 2 + 3?" in shown and "2 + 3 is **5**." in shown
    assert [card.tool for card in items(panel, ToolCard)] == ["sample_add"]
    assert panel.token_label.text() != "0 tokens"  # the conversation's earlier tokens

    result = send_and_wait(qtbot, panel, "And twice that?")
    assert result.answer == "Twice that is 10.", result.error
    assert panel.thread_id == thread_id
    seen = panel.runtime.model.seen[0]["messages"]  # type: ignore[union-attr]
    said = [m.content for m in seen if isinstance(m, HumanMessage | AIMessage)]
    assert said[0] == "What is 2 + 3?" and said[-1] == "And twice that?"
    reopened.close()
    qtbot.waitUntil(lambda: running_tasks() == 0)
    second.close()


def test_clicking_a_tool_card_shows_its_plugin_view_with_scripted_model(
    sample_plugins: Path,
    tmp_path: Path,
    open_window: Callable[..., MainWindow],
    qtbot: QtBot,
) -> None:
    context = only_sample(AppContext.open())
    context.settings.model = write_script(tmp_path, ADD_TURN)
    window = open_window(context)
    panel = window.chat_dock.panel
    send_and_wait(qtbot, panel, "What is 2 + 3?")
    [card] = items(panel, ToolCard)
    # the sample plugin declares no `shows`: its cards open its first view, as before
    assert card.view_name == "sample.counter" and card.view_button.isVisible()
    assert "sample.counter" not in window.plugin_docks

    qtbot.mouseClick(card.view_button, Qt.MouseButton.LeftButton)

    qtbot.waitUntil(lambda: "sample.counter" in window.plugin_docks)  # through the bus
    dock = window.plugin_docks["sample.counter"]
    assert dock.isVisible()
    window.close()
    qtbot.waitUntil(lambda: running_tasks() == 0)
    context.close()


def test_export_as_markdown_and_json_with_scripted_model(
    make_panel: Callable[..., ChatPanel], qtbot: QtBot, tmp_path: Path
) -> None:
    panel = make_panel(ADD_TURN)
    send_and_wait(qtbot, panel, "What is 2 + 3?")
    for fmt, name in (("markdown", "talk.md"), ("json", "talk.json")):
        dialog = panel.conversation_bar.ask_export(fmt)
        assert dialog.isVisible()  # opened with open(): the test (and the loop) go on
        with qtbot.waitSignal(panel.exported, timeout=RUN_TIMEOUT_MS) as written:
            dialog.selectFile(str(tmp_path / name))
            dialog.accept()
        assert written.args[0] == str(tmp_path / name)
    markdown = (tmp_path / "talk.md").read_text(encoding="utf-8")
    assert markdown.startswith("# What is 2 + 3?") and "sample_add" in markdown
    assert "2 + 3 is **5**." in markdown
    document = json.loads((tmp_path / "talk.json").read_text(encoding="utf-8"))
    assert document["thread_id"] == panel.thread_id
    assert document["entries"][0]["role"] == "user"
    assert "Exported the conversation to" in panel.transcript_text()


def test_model_picker_lists_the_ollama_models_with_fake_ollama_server(
    sample_plugins: Path, monkeypatch: pytest.MonkeyPatch, qtbot: QtBot
) -> None:
    with FakeOllama(models=["qwen3:4b", "llama3.2:1b"]) as server:
        monkeypatch.setenv("OLLAMA_HOST", server.url)
        context = only_sample(AppContext.open())
        panel = ChatPanel(context)
        qtbot.addWidget(panel)
        try:
            picker = panel.model_picker
            assert picker.text() == "Model: ollama:qwen3:4b ▾"  # settings.model
            with qtbot.waitSignal(picker.listed, timeout=RUN_TIMEOUT_MS) as listed:
                picker.refresh()
            assert listed.args[0] == ["llama3.2:1b", "qwen3:4b"]
            actions = {a.objectName(): a for a in picker.menu_.actions()}
            assert actions["model:ollama:qwen3:4b"].isChecked()

            actions["model:ollama:llama3.2:1b"].trigger()

            # every runtime is built off the GUI thread: the pick takes effect a moment later
            picked = "ollama:llama3.2:1b"
            qtbot.waitUntil(
                lambda: panel.runtime is not None and panel.runtime.model_spec == picked
            )
            assert picker.text() == "Model: ollama:llama3.2:1b ▾"
            qtbot.waitUntil(lambda: running_tasks() == 0)
            saved = context.paths.settings_file.read_text(encoding="utf-8")
            assert 'model = "ollama:llama3.2:1b"' in saved

            server.kill()
            with qtbot.waitSignal(picker.listed, timeout=RUN_TIMEOUT_MS) as listed:
                picker.refresh()
            assert listed.args[0] == []
            texts = [a.text() for a in picker.menu_.actions()]
            assert "The server does not answer (hover for what to do)" in texts
        finally:
            close_panel(qtbot, panel)
            context.close()


def test_a_malformed_reply_is_shown_as_discarded_with_scripted_model(
    make_panel: Callable[..., ChatPanel], qtbot: QtBot
) -> None:
    broken = {"content": "Routing now", "tool_calls": [{"name": "transfer_to_sample", "args": "{"}]}
    panel = make_panel([broken, say("Hello, engineer.")])
    result = send_and_wait(qtbot, panel, "Hi")

    assert result.status == "done", result.error
    first, final = [b for b in items(panel, MessageBubble) if b.role == "workbench"]
    assert first.text() == "Routing now" and first.discarded and not first.final
    assert final.text() == "Hello, engineer." and final.final
    # in a person's words; the model's detail on hover
    said = "The model's reply could not be used (it handed the task to no usable specialist)"
    [note] = [n for n in items(panel, NoteLine) if n.plain_text().startswith(said)]
    assert note.label.toolTip() == "invalid_handoff: no usable hand-off"
