"""The first-run guide: shown once on the first start (the real `open_main_window` of the app),
skippable, non-modal, reachable again from Help → Getting started…; its model step follows the
chat's model picker (no Ollama server here: a closed port), and its other steps open the installed
plugins' own editors (the REAL printing plugin's Printers dialog). No plugin provides SSH hosts or
documents folders yet, so a STAND-IN plugin defined here shows how such a step appears.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import shiboken6
from pydantic import BaseModel, Field
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialog, QGroupBox, QLabel, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from tests.rigs.fake_ollama import FakeOllama
from tests.support.artifacts import artifact_folder
from workbench.agents.defaults import embedded_available
from workbench.core.context import AppContext
from workbench.core.plugins import Plugin
from workbench.ui.app import open_main_window
from workbench.ui.async_loop import running_tasks
from workbench.ui.first_run import FirstRunGuide, show_guide_on_first_start
from workbench.ui.first_run_steps import setup_steps
from workbench.ui.gui_state import guide_shown
from workbench.ui.main_window import MainWindow

TIMEOUT_MS = 30000
STAND_IN_EDITOR = "tests.ui.test_first_run_guide:open_stand_in_hosts"


def open_stand_in_hosts(context: AppContext, parent: QWidget | None = None) -> QDialog:
    """The editor of the stand-in SSH plugin: an empty non-modal dialog."""
    dialog = QDialog(parent)
    dialog.setObjectName("stand-in-hosts")
    dialog.show()
    return dialog


class StandInSshSettings(BaseModel):
    ssh_hosts: list[str] = Field(
        default_factory=list, json_schema_extra={"editor": STAND_IN_EDITOR}
    )
    archive: list[str] = Field(
        default_factory=list,
        json_schema_extra={"editor": STAND_IN_EDITOR, "setup_step": "documents"},
    )


STAND_IN = Plugin("stand_in_ssh", "Stand-in SSH", settings=StandInSshSettings)


@pytest.fixture(autouse=True)
def no_server(monkeypatch: pytest.MonkeyPatch) -> None:
    server = FakeOllama().start()
    server.kill()  # the port refuses connections, like a stopped `ollama serve`
    monkeypatch.setenv("OLLAMA_HOST", server.url)


@pytest.fixture
def app(workbench_home: object) -> Iterator[AppContext]:
    context = AppContext.open()  # after OLLAMA_HOST was set
    yield context
    context.close()


@pytest.fixture
def windows(qtbot: QtBot) -> Iterator[list[MainWindow]]:
    made: list[MainWindow] = []
    yield made
    for window in made:
        if shiboken6.isValid(window):
            window.close()
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=TIMEOUT_MS)


def start_app(qtbot: QtBot, context: AppContext, windows: list[MainWindow]) -> MainWindow:
    window = open_main_window(context, [])
    qtbot.addWidget(window)
    qtbot.waitExposed(window)
    windows.append(window)
    return window


def visible_guide(window: QWidget) -> FirstRunGuide | None:
    guide = window.findChild(FirstRunGuide, "first-run-guide")
    return guide if guide is not None and guide.isVisible() else None


def step_names(guide: FirstRunGuide) -> list[str]:
    return [g.objectName() for g in guide.findChildren(QGroupBox) if g.objectName()]


def test_the_guide_shows_once_on_first_start_and_can_be_skipped(
    qtbot: QtBot, app: AppContext, windows: list[MainWindow]
) -> None:
    assert not guide_shown(app.paths.config_dir)
    window = start_app(qtbot, app, windows)
    qtbot.waitUntil(lambda: visible_guide(window) is not None, timeout=TIMEOUT_MS)
    guide = visible_guide(window)
    assert guide is not None
    assert guide.windowModality() == Qt.WindowModality.NonModal and not guide.isModal()
    assert window.isEnabled()  # the window behind stays usable
    assert guide_shown(app.paths.config_dir)  # remembered as soon as shown
    # the printing plugin provides printers, the HPC plugin SSH hosts; nothing documents folders
    assert step_names(guide) == ["guide-step:model", "guide-step:printer", "guide-step:ssh_host"]
    status = guide.findChild(QLabel, "guide-model-status")
    qtbot.waitUntil(lambda: "no server at" in status.text(), timeout=TIMEOUT_MS)
    assert status.text() == f"In use: ollama:qwen3:4b — no server at {os.environ['OLLAMA_HOST']}"
    assert status.text() == f"In use: {window.chat_dock.panel.model_picker.status_line()}"
    offer = guide.findChild(QPushButton, "guide-use-embedded")
    assert offer is not None and offer.isVisible() == embedded_available()
    guide.grab().save(str(artifact_folder("first-start") / "first-run-guide.png"))

    skip = guide.findChild(QPushButton, "guide-skip")
    qtbot.mouseClick(skip, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: visible_guide(window) is None, timeout=TIMEOUT_MS)

    # the next start: no guide
    assert show_guide_on_first_start(app, window.chat_dock.panel.model_picker, window) is None
    again = start_app(qtbot, app, windows)
    for _ in range(5):  # the start's queued calls (the guide would come in the first)
        QCoreApplication.processEvents()
    assert visible_guide(again) is None


def test_help_menu_opens_the_guide_again(
    qtbot: QtBot, open_window, app: AppContext, windows: list[MainWindow]
) -> None:
    window = open_window(app)
    assert visible_guide(window) is None  # a MainWindow alone never shows it
    action = window.findChild(QAction, "action-getting-started")
    assert action is not None and action.text() == "&Getting started…"
    action.trigger()
    guide = visible_guide(window)
    assert guide is not None
    action.trigger()  # a second time: the same guide, raised
    assert window.findChildren(FirstRunGuide) == [guide]
    qtbot.mouseClick(guide.findChild(QPushButton, "guide-done"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: visible_guide(window) is None, timeout=TIMEOUT_MS)


def test_the_printer_step_opens_the_printing_plugins_printers_dialog(
    qtbot: QtBot, open_window, app: AppContext
) -> None:
    window = open_window(app)
    window.findChild(QAction, "action-getting-started").trigger()
    guide = visible_guide(window)
    assert guide is not None
    button = guide.findChild(QPushButton, "guide-open:printer")
    assert button.text() == "Add a printer…"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    dialog = guide.editors["printer"]
    assert dialog.objectName() == "printer-settings" and dialog.isVisible()
    test_button = [b for b in dialog.findChildren(QPushButton) if b.text() == "Test connection"]
    assert test_button  # the connection test is in the dialog the guide opens
    dialog.reject()


def test_steps_appear_only_for_plugins_that_provide_them(
    qtbot: QtBot, app: AppContext, open_window
) -> None:
    assert [s.kind for s in setup_steps(app.plugins)] == ["printer", "ssh_host"]
    del app.plugins.plugins["hpc"]  # the stand-in provides the SSH hosts instead
    assert [s.kind for s in setup_steps(app.plugins)] == ["printer"]
    app.plugins.plugins[STAND_IN.name] = STAND_IN
    steps = setup_steps(app.plugins)
    assert [s.kind for s in steps] == ["printer", "ssh_host", "documents"]
    assert [s.title for s in steps] == [
        "Add a printer",
        "Add an SSH host",
        "Add a documents folder",
    ]
    window = open_window(app)
    window.findChild(QAction, "action-getting-started").trigger()
    guide = visible_guide(window)
    assert guide is not None
    assert step_names(guide) == [
        "guide-step:model",
        "guide-step:printer",
        "guide-step:ssh_host",
        "guide-step:documents",
    ]
    qtbot.mouseClick(guide.findChild(QPushButton, "guide-open:ssh_host"), Qt.MouseButton.LeftButton)
    assert guide.editors["ssh_host"].objectName() == "stand-in-hosts"
    guide.grab().save(str(artifact_folder("first-start") / "first-run-guide-more-steps.png"))
    guide.editors["ssh_host"].close()


def test_an_editor_that_fails_is_reported_in_its_step(
    qtbot: QtBot, app: AppContext, open_window
) -> None:
    broken = Plugin(
        "broken_docs",
        "Broken docs",
        settings=type(
            "BrokenDocs",
            (BaseModel,),
            {
                "__annotations__": {"documents": list[str]},
                "documents": Field(
                    default_factory=list, json_schema_extra={"editor": "no.such.module:open"}
                ),
            },
        ),
    )
    app.plugins.plugins[broken.name] = broken
    window = open_window(app)
    window.findChild(QAction, "action-getting-started").trigger()
    guide = visible_guide(window)
    qtbot.mouseClick(
        guide.findChild(QPushButton, "guide-open:documents"), Qt.MouseButton.LeftButton
    )
    note = guide.findChild(QLabel, "guide-note:documents")
    assert note.isVisible() and "Broken docs plugin's editor could not be opened" in note.text()
    assert visible_guide(window) is guide
