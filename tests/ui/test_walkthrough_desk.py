"""Issue 29, acceptance: the whole window walked through at 1024x700 and 1920x1080 with a
scripted model and no Ollama, with a heartbeat on the GUI thread that fails the walk on any gap
over 100 ms: the window never freezes.

The window starts as `workbench` starts it (the centre shows a view; the settings' model is an
`ollama:` one at a closed port), then: a SCRIPTED model picked through the picker, a two-line
message typed with Shift+Enter and sent with Enter (a real Beams2D optimisation in a worker
process), its STL export opened from the card (VTK), a rumoca simulation opened in Trajectories,
the Grading view, the Settings dialog, and MCP serving started and stopped. A screenshot per step
goes to the test's tmp folder (artifacts/), and to $WORKBENCH_TEST_ARTIFACTS when set.

Under Xvfb (real X11 and OpenGL, where VTK really renders): test_walkthrough_desk_xvfb.py.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QInputDialog, QLineEdit, QPushButton, QTabBar
from pytestqt.qtbot import QtBot

from tests.agents.conftest import write_script
from tests.modelica.conftest import MODELS
from tests.rigs.require import require_module
from tests.ui.desk_script import in_front, optimise_export_simulate
from tests.ui.heartbeat import Heartbeat
from workbench.core.context import AppContext
from workbench.ui.app import share_the_interpreter_with_the_gui
from workbench.ui.async_loop import running_tasks
from workbench.ui.chat.cards import ToolCard
from workbench.ui.chat.input_line import ChatInput
from workbench.ui.chat.panel import ChatPanel
from workbench.ui.dock_fitting import CHAT_MIN_WIDTH
from workbench.ui.gui_collection import GuiCollection
from workbench.ui.main_window import MainWindow
from workbench.ui.view_docks import ViewDock

MAX_GAP_S = 0.100
# Under a real X server (test_walkthrough_desk_xvfb.py) the STL view's first opening also makes
# the process's first on-screen OpenGL context, on the GUI thread where Qt must make it, and VTK
# sets up its OpenGL state in the same event: on software GL (Mesa's llvmpipe, as on CI) 90-120 ms
# of the GUI thread's CPU, gaps of 150-220 ms (a plain QOpenGLWidget's first show alone: 70-90 ms).
# That one step has its own bound there (issue 29 says so); every other step, and every step
# offscreen, as CI runs this file directly, has MAX_GAP_S.
X11_FIRST_TIME_MAX_GAP_S = {"STL view": 0.300}
RUN_TIMEOUT_MS = 180_000  # a spawned worker imports EngiBench first; the machine may be busy
STEP_TIMEOUT_MS = 60_000
SIZES = [(1024, 700), (1920, 1080)]
PLUGINS = ("topopt", "modelica", "judging")


class Desk:
    """The person's hands and eyes, and the heartbeat that says whether the window kept up."""

    def __init__(self, qtbot: QtBot, window: MainWindow, pictures: Path) -> None:
        self.qtbot = qtbot
        self.window = window
        self.pictures = pictures
        self.heartbeat = Heartbeat()
        self.shots: list[Path] = []

    @property
    def panel(self) -> ChatPanel:
        return self.window.chat_dock.panel

    def step(self, name: str) -> None:
        self.heartbeat.step = name

    def find(self, kind: type, name: str) -> Any:
        widget = self.window.findChild(kind, name)
        assert widget is not None, f"no {kind.__name__} named {name!r} in the window"
        return widget

    def screenshot(self, name: str, widget: Any = None) -> Path:
        self.qtbot.wait(150)  # the last changes paint (the heartbeat runs meanwhile)
        path = self.pictures / f"{len(self.shots) + 1:02d}-{name}.png"
        with self.heartbeat.paused():  # the test's own work on the GUI thread, not the app's
            assert (widget or self.window).grab().save(str(path)), f"could not write {path}"
        self.shots.append(path)
        return path

    def send(self, text: str) -> Any:
        chat_input: ChatInput = self.find(ChatInput, "chat-input")
        with self.qtbot.waitSignal(self.panel.run_finished, timeout=RUN_TIMEOUT_MS) as finished:
            chat_input.setText(text)
            self.qtbot.keyClick(chat_input, Qt.Key.Key_Return)
        return finished.args[0]

    def card(self, tool: str) -> ToolCard:
        [card] = [c for c in self.panel.view.items() if isinstance(c, ToolCard) and c.tool == tool]
        return card

    def view_from_card(self, card: ToolCard, view: str) -> ViewDock:
        button = card.findChild(QPushButton, "tool-card-open-view")
        assert button is not None and button.isVisible(), card.plain_text()
        self.qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        return self.built(view)

    def built(self, view: str) -> ViewDock:
        self.qtbot.waitUntil(lambda: view in self.window.plugin_docks, timeout=STEP_TIMEOUT_MS)
        dock = self.window.plugin_docks[view]
        self.qtbot.waitUntil(lambda: dock.view is not None, timeout=STEP_TIMEOUT_MS)
        self.qtbot.waitUntil(lambda: in_front(dock), timeout=STEP_TIMEOUT_MS)
        return dock


@pytest.fixture
def desk_context(
    context: AppContext, closed_url: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[AppContext]:
    require_module("rumoca", "the Modelica step simulates with the embedded rumoca backend")
    monkeypatch.setenv("OLLAMA_HOST", closed_url)
    fresh = AppContext.open()  # reads OLLAMA_HOST: the settings' model finds no server
    fresh.plugins.plugins = {name: fresh.plugins.plugins[name] for name in PLUGINS}
    fresh.settings.plugins["modelica"] = {"inline_max_intervals": 1000}
    yield fresh
    fresh.close()


@pytest.fixture
def pictures(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Path]:
    folder = tmp_path / "artifacts"
    folder.mkdir()
    yield folder
    wanted = os.environ.get("WORKBENCH_TEST_ARTIFACTS")
    if wanted:  # a copy where a person (or CI) collects pictures
        name = request.node.name.replace("[", "-").rstrip("]")
        shutil.copytree(folder, Path(wanted) / name, dirs_exist_ok=True)


@pytest.fixture
def start_desk(
    desk_context: AppContext, pictures: Path, qtbot: QtBot
) -> Iterator[Callable[[tuple[int, int]], Desk]]:
    windows: list[MainWindow] = []
    switch_interval = sys.getswitchinterval()
    blas = share_the_interpreter_with_the_gui()  # as run_gui does
    collection = GuiCollection()  # as run_gui does

    def start(size: tuple[int, int]) -> Desk:
        window = MainWindow(desk_context)  # as workbench.ui.app.open_main_window does
        qtbot.addWidget(window)
        window.resize(*size)
        window.show()
        window.show_view_of_latest_work()
        qtbot.waitExposed(window)
        windows.append(window)
        desk = Desk(qtbot, window, pictures)
        desk.heartbeat.start()
        return desk

    yield start
    collection.stop()
    sys.setswitchinterval(switch_interval)
    blas.restore_original_limits()
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=RUN_TIMEOUT_MS)
    for window in windows:
        if shiboken6.isValid(window):
            if window.mcp_panel is not None:
                window.mcp_panel.shutdown()
            window.close()
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=RUN_TIMEOUT_MS)


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_desk_walkthrough_never_freezes_the_window(
    start_desk: Callable[[tuple[int, int]], Desk], size: tuple[int, int], tmp_path: Path
) -> None:
    desk = start_desk(size)
    start(desk, size)
    choose_a_scripted_model(desk, tmp_path)
    type_and_send_two_lines(desk)
    export_and_see_the_stl(desk)
    simulate_and_see_trajectories(desk)
    open_grading(desk)
    open_settings(desk)
    serve_over_mcp(desk)
    desk.heartbeat.stop()

    assert len(desk.shots) == 9 and all(shot.stat().st_size > 0 for shot in desk.shots)
    assert desk.heartbeat.ticks > 100
    allowed = X11_FIRST_TIME_MAX_GAP_S if QGuiApplication.platformName() == "xcb" else {}
    freezes = [
        gap
        for gap in desk.heartbeat.over(MAX_GAP_S)
        if gap.frozen_s > allowed.get(gap.step, MAX_GAP_S)
    ]
    longest = "\n".join(str(gap) for gap in desk.heartbeat.longest())
    worst_first = sorted(freezes, key=lambda gap: -gap.frozen_s)
    steps = dict.fromkeys(gap.step for gap in worst_first)  # each step once
    where = "\n".join(f"{step}:\n{desk.heartbeat.stalls.get(step, '')}" for step in steps)
    assert not freezes, (
        f"the GUI thread stalled over {MAX_GAP_S * 1000:.0f} ms:\n{longest}\nwhere:\n{where}"
    )


def start(desk: Desk, size: tuple[int, int]) -> None:
    """The centre shows a view, not a list of them; the chat is a readable column."""
    desk.step("start")
    window, panel = desk.window, desk.panel
    qtbot = desk.qtbot
    qtbot.waitUntil(lambda: bool(window.plugin_docks), timeout=STEP_TIMEOUT_MS)
    [first] = window.plugin_docks.values()
    qtbot.waitUntil(lambda: first.view is not None, timeout=STEP_TIMEOUT_MS)
    assert not window.placeholder.isVisible()
    # the settings' model was built off the GUI thread once the window was up
    qtbot.waitUntil(lambda: panel.runtime is not None, timeout=STEP_TIMEOUT_MS)
    qtbot.waitUntil(
        lambda: desk.find(QPushButton, "model-use-embedded").isVisible(), timeout=STEP_TIMEOUT_MS
    )
    chat = window.chat_dock.width()
    assert chat >= CHAT_MIN_WIDTH, chat
    if size[0] >= 1920:
        assert 0.35 * size[0] <= chat <= 0.40 * size[0], chat
    chat_input = desk.find(ChatInput, "chat-input")
    assert chat_input.width() >= panel.width() - 20  # across the panel, not beside Send/Stop
    send, stop = desk.find(QPushButton, "chat-send"), desk.find(QPushButton, "chat-stop")
    assert send.geometry().top() > chat_input.geometry().bottom()  # below it, not squeezing it
    assert stop.geometry().top() > chat_input.geometry().bottom()
    desk.screenshot("start")


def choose_a_scripted_model(desk: Desk, folder: Path) -> None:
    desk.step("choose a model")
    qtbot, panel = desk.qtbot, desk.panel
    model_file = panel.context.store.folder / "SpringMassDamper.mo"
    shutil.copy(MODELS / "SpringMassDamper.mo", model_file)
    spec = write_script(folder, optimise_export_simulate(model_file))
    picker = panel.model_picker
    menu = picker.menu_
    menu.popup(picker.mapToGlobal(picker.rect().bottomLeft()))
    qtbot.waitExposed(menu)
    [other] = [a for a in menu.actions() if a.objectName() == "model-other-action"]
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(other).center())
    dialog = picker.findChild(QInputDialog, "model-other")
    assert dialog is not None
    qtbot.waitUntil(dialog.isVisible)
    line = dialog.findChild(QLineEdit)
    assert line is not None
    line.selectAll()
    line.setText(spec)
    qtbot.keyClick(line, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: panel.runtime is not None and panel.runtime.model_spec == spec)
    desk.screenshot("scripted-model-chosen")


def type_and_send_two_lines(desk: Desk) -> None:
    """Shift+Enter breaks the line, Enter sends: a real optimisation, seen in Density."""
    desk.step("type and send")
    qtbot, panel = desk.qtbot, desk.panel
    chat_input: ChatInput = desk.find(ChatInput, "chat-input")
    one_line = chat_input.height()
    qtbot.keyClicks(chat_input, "Optimise a 2D beam for me,")
    qtbot.keyClick(chat_input, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(chat_input, "volume fraction 0.4.")
    assert chat_input.text() == "Optimise a 2D beam for me,\nvolume fraction 0.4."
    assert chat_input.height() >= one_line
    desk.screenshot("two-lines-typed")
    desk.step("first send")
    with qtbot.waitSignal(panel.run_finished, timeout=RUN_TIMEOUT_MS) as finished:
        qtbot.keyClick(chat_input, Qt.Key.Key_Return)
    assert chat_input.text() == ""
    result = finished.args[0]
    assert result is not None and result.status == "done", result
    assert "Optimise a 2D beam for me,\nvolume fraction 0.4." in panel.transcript_text()
    desk.step("density view")
    desk.view_from_card(desk.card("optimize_design"), "topopt.density")
    desk.screenshot("optimised-density")


def export_and_see_the_stl(desk: Desk) -> None:
    desk.step("export")
    result = desk.send("Export it as STL.")
    assert result.status == "done", result.error
    desk.step("STL view")
    dock = desk.view_from_card(desk.card("convert_design_to_stl"), "topopt.stl")
    view = dock.view
    desk.qtbot.waitUntil(lambda: getattr(view, "loaded", None) is not None, timeout=RUN_TIMEOUT_MS)
    assert view.stills.painter is None  # a small mesh: no offscreen GL window (it holds the GIL)
    desk.screenshot("stl-view")


def simulate_and_see_trajectories(desk: Desk) -> None:
    desk.step("simulate")
    result = desk.send("Simulate the spring-mass-damper.")
    assert result.status == "done", result.error
    desk.step("Trajectories view")
    desk.view_from_card(desk.card("simulate"), "modelica.trajectory")
    desk.screenshot("trajectories")


def open_grading(desk: Desk) -> None:
    """From the Views menu; every view tab shows its whole title."""
    desk.step("Grading view")
    action = desk.find(QAction, "open-view:judging.grading")
    action.trigger()
    desk.built("judging.grading")
    desk.qtbot.wait(100)
    for bar in desk.window.view_area.findChildren(QTabBar):
        for index in range(bar.count()):
            title = bar.tabText(index)
            assert bar.elideMode() == Qt.TextElideMode.ElideNone, title
            wanted = bar.fontMetrics().horizontalAdvance(title)
            assert bar.tabRect(index).width() >= wanted, f"tab {title!r} is cut"
    desk.screenshot("grading")


def open_settings(desk: Desk) -> None:
    desk.step("Settings")
    desk.find(QAction, "action-settings").trigger()
    dialog = desk.window.settings_dialog
    assert dialog is not None
    desk.qtbot.waitUntil(dialog.isVisible, timeout=STEP_TIMEOUT_MS)
    desk.screenshot("settings", dialog)
    dialog.reject()
    desk.qtbot.waitUntil(lambda: desk.window.settings_dialog is None, timeout=STEP_TIMEOUT_MS)


def serve_over_mcp(desk: Desk) -> None:
    desk.step("MCP start")
    qtbot = desk.qtbot
    desk.find(QAction, "action-serve-mcp").trigger()
    panel = desk.window.mcp_panel
    assert panel is not None
    panel.port.setValue(0)  # any free port
    status = panel.status
    qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: status.text().startswith("Serving at"), timeout=STEP_TIMEOUT_MS)
    desk.screenshot("mcp-serving", panel)
    desk.step("MCP stop")
    qtbot.mouseClick(panel.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: status.text().startswith("Stopped"), timeout=STEP_TIMEOUT_MS)
    panel.close()
