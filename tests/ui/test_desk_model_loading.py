"""Issue 14: a llama.cpp model named in the settings is read on a worker thread at start, never on
the GUI thread: the window opens and answers while the model loads, and the picker says
"loading model…" meanwhile.

The load is held back by a FAKE slow loader (`FakeSlowLoader`, standing in for the runtime's
constructor, which reads the GGUF file) until the test lets it finish; it then hands over a
runtime on a SCRIPTED model under the llama.cpp spec (language models cannot run here).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from tests.agents.conftest import say
from workbench.agents import AgentRuntime, ScriptedChatModel
from workbench.core.context import AppContext
from workbench.ui.async_loop import running_tasks
from workbench.ui.chat import model_choice
from workbench.ui.chat.input_line import ChatInput
from workbench.ui.main_window import MainWindow

SPEC = "llamacpp:embedded"
LOAD_LIMIT_S = 60  # the fake never holds a thread longer, even if the test fails early
TIMEOUT_MS = 20_000


class FakeSlowLoader:
    """Replaces make_runtime(context, spec) in the chat's model choice: waits until `release()`,
    then returns a runtime on a scripted model named `spec`."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.started = threading.Event()
        self.threads: list[int] = []
        self.finished = False

    def __call__(self, context: AppContext, spec: str) -> AgentRuntime:
        self.threads.append(threading.get_ident())
        self.started.set()
        self.gate.wait(LOAD_LIMIT_S)
        model = ScriptedChatModel(replies=[say("Loaded and listening.")])
        runtime = AgentRuntime(context, model, model_name=spec)
        self.finished = True
        return runtime

    def release(self) -> None:
        self.gate.set()


@pytest.fixture
def slow_loader(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeSlowLoader]:
    loader = FakeSlowLoader()
    monkeypatch.setattr(model_choice, "make_runtime", loader)
    yield loader
    loader.release()  # never leave a worker thread waiting


def test_a_llamacpp_model_in_the_settings_loads_off_the_gui_thread_at_start(
    context: AppContext,
    slow_loader: FakeSlowLoader,
    qtbot: QtBot,
) -> None:
    context.settings.model = SPEC
    gui_thread = threading.get_ident()

    window = MainWindow(context)  # what `workbench` does at start
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)

    # the window is up and answering while the model is still being read
    qtbot.waitUntil(slow_loader.started.is_set, timeout=TIMEOUT_MS)
    assert not slow_loader.finished
    assert slow_loader.threads and slow_loader.threads[0] != gui_thread
    panel = window.chat_dock.panel
    status = window.findChild(QLabel, "model-status")
    assert status is not None and status.text() == "— loading model…"
    assert panel.model_picker.text() == f"Model: {SPEC} ▾"
    assert f"Loading {SPEC}" in panel.transcript_text()
    chat_input = window.findChild(ChatInput, "chat-input")
    assert chat_input is not None
    chat_input.setText("Hello?")
    qtbot.keyClick(chat_input, Qt.Key.Key_Return)  # handled at once: the GUI is not blocked
    assert f"The model {SPEC} is still loading; send again in a moment." in panel.transcript_text()
    assert not panel.busy

    slow_loader.release()
    qtbot.waitUntil(lambda: panel.runtime is not None, timeout=TIMEOUT_MS)
    assert panel.runtime is not None and panel.runtime.model_spec == SPEC
    qtbot.waitUntil(lambda: status.text() != "— loading model…", timeout=TIMEOUT_MS)
    assert f"Model: {SPEC} is loaded." in panel.transcript_text()

    with qtbot.waitSignal(panel.run_finished, timeout=TIMEOUT_MS) as finished:
        chat_input.setText("Hello again.")
        qtbot.keyClick(chat_input, Qt.Key.Key_Return)
    assert finished.args[0].status == "done", finished.args[0].error
    assert "Loaded and listening." in panel.transcript_text()
    window.close()
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=TIMEOUT_MS)
