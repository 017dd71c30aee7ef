"""Closing the window while a view's work runs (issue 29): a Modelica task run (a SCRIPTED model,
slow on purpose: language models cannot run here) or a first document search loading the real
MiniLM. The window asks first, naming the work; Yes stops it, and the window is gone and the work
stopped (or unable to hold the process) within 5 s, measured."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from tests.modelica.test_task_view import public_task, reply, write_task
from workbench.agents import ScriptedChatModel
from workbench.core import minilm
from workbench.core.context import AppContext
from workbench.ui.main_window import MainWindow
from workbench_plugins.modelica.driver.background import handle_of
from workbench_plugins.modelica.views import TaskView
from workbench_plugins.retrieval.config import RetrievalSettings
from workbench_plugins.retrieval.sample_pdf import write_fact_pdf
from workbench_plugins.retrieval.views import DocumentsView

EXIT_S = 5.0
WAIT_MS = 180_000


class SlowScript(ScriptedChatModel):
    """A scripted model that takes a second per reply, so the run is mid-way when closed."""

    def _next_reply(self) -> dict[str, Any]:
        time.sleep(1.0)
        return super()._next_reply()


def view_of(window: MainWindow, name: str, qtbot: QtBot) -> Any:
    dock = window.open_view(name)
    assert dock is not None
    qtbot.waitUntil(lambda: dock.widget() is not None and dock.widget().objectName() != "")
    return dock.widget()


def close_and_say_yes(window: MainWindow, qtbot: QtBot, named: str) -> float:
    """Close; the question names the work; Yes. Returns when the window has closed."""
    window.close()
    qtbot.waitUntil(lambda: window.close_question is not None)
    box = window.close_question
    assert box is not None and named in box.text(), box.text()
    started = time.monotonic()
    box.button(QMessageBox.StandardButton.Yes).click()
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=int(EXIT_S * 1000))
    return started


def test_closing_during_a_modelica_task_asks_and_stops_it(
    open_window: Callable[..., MainWindow], qtbot: QtBot, tmp_path: Path, context: AppContext
) -> None:
    context.settings.plugins["modelica"] = {"inline_max_intervals": 1_000_000}
    window = open_window()
    view = view_of(window, "modelica.tasks", qtbot)
    assert isinstance(view, TaskView)
    view.model_factory = lambda: SlowScript(
        replies=[reply("check_model", model="RCCharge")] * 60, source="slow script"
    )
    view.open_task_file(write_task(tmp_path / "tasks", public_task()))
    qtbot.waitUntil(lambda: view.progress is not None and view.progress.turn >= 1, timeout=WAIT_MS)
    handle = handle_of(view.progress.run_id)
    assert handle is not None and not handle.done()

    started = close_and_say_yes(window, qtbot, "Modelica task run")
    assert handle.wait(EXIT_S) is not None or handle.done(), "the run did not stop"
    stopped_in = time.monotonic() - started
    assert handle.cancelled() and stopped_in < EXIT_S, stopped_in


@pytest.mark.slow
def test_closing_during_a_first_document_search_asks_and_holds_nothing(
    open_window: Callable[..., MainWindow],
    qtbot: QtBot,
    context: AppContext,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    context.settings = context.settings.with_plugin("retrieval", RetrievalSettings(dense="offline"))
    window = open_window()
    view = view_of(window, "documents", qtbot)
    assert isinstance(view, DocumentsView)
    pdf = write_fact_pdf(Path(context.store.folder) / "report.pdf", 2)
    view.add_paths([pdf])  # embeds the passages: loads the model once
    qtbot.waitUntil(lambda: not view.adding and view.runner.running == 0, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: view.search.mode.model().item(2).isEnabled(), timeout=WAIT_MS)
    monkeypatch.setattr(minilm, "_model", None)  # a new session: not loaded yet
    view.search.mode.setCurrentIndex(2)  # fused
    view.search.query.setText("specimen")
    view.search.submit()
    assert view.search.loading_bar.isVisible()

    started = close_and_say_yes(window, qtbot, "a document search")
    holding = [  # threads the interpreter would wait for at exit
        thread.name
        for thread in threading.enumerate()
        if thread.name.startswith("documents") and not thread.daemon and thread.is_alive()
    ]
    assert not holding, holding
    assert view.runner._stopped and view._cancel.is_set()  # nothing more is run or shown
    assert time.monotonic() - started < EXIT_S
