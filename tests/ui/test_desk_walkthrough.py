"""Issue 14, acceptance 1: the whole main window, driven as a person would, with no Ollama server.

The window starts on the settings' `ollama:qwen3:4b` at an address where nothing answers (a
closed port): the model status says so and the embedded model is offered. The person then picks
a SCRIPTED model through the picker's "Other model…" (language models cannot run here) and talks
through one conversation: optimise a beam (the real EngiBench job in a worker process), export it
as STL, simulate a Modelica model (the real rumoca backend), then start a long optimisation and
press the jobs bar's Cancel. Each card's link raises the view of its result; the Density form
shows the run's problem and parameters; the cancel stops the agent's run.

A screenshot of each step goes to $WORKBENCH_TEST_ARTIFACTS (else tests/artifacts/) under
desk-walkthrough/.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)
from pytestqt.qtbot import QtBot

from tests.agents.conftest import call, calls, handoff, say, write_script
from tests.modelica.conftest import MODELS
from tests.rigs.require import require_module, require_rig
from tests.support.artifacts import artifact_folder
from tests.ui.desk_script import SHORT_BEAM, in_front, optimise_export_simulate
from workbench.agents.defaults import embedded_available
from workbench.core.context import AppContext
from workbench.ui.async_loop import running_tasks
from workbench.ui.chat.cards import ToolCard
from workbench.ui.chat.input_line import ChatInput
from workbench.ui.chat.panel import ChatPanel
from workbench.ui.main_window import MainWindow
from workbench_plugins.topopt.views.density_view import DensityView
from workbench_plugins.topopt.views.stl_view import StlView

RUN_TIMEOUT_MS = 180_000  # a spawned worker imports EngiBench first; the machine may be busy
CHECK_TIMEOUT_MS = 30_000
LONG_BEAM = {"volfrac": 0.45, "forcedist": 0.3, "rmin": 3.0, "max_iter": 1000}
SIZE = (1024, 700)


def conversation(model_file: Path) -> list[dict[str, Any]]:
    """The model's side of the whole conversation, turn after turn."""
    return [
        *optimise_export_simulate(model_file),
        # cancel: what follows the optimisation must never be asked for
        handoff("topopt", "Optimise a finer beam, then export it."),
        calls(call("optimize_design", {"problem_type": "beams2d", "problem_config": LONG_BEAM})),
        calls(call("convert_design_to_stl", {"problem_type": "beams2d", "npy_file_path": "last"})),
        say("Optimised and exported."),
        say("Done: the finer beam is exported."),
    ]


REPLIES_BEFORE_CANCEL_TURN = 12


class Walkthrough:
    """The person's hands and eyes: find widgets by objectName, click, type, look."""

    def __init__(self, qtbot: QtBot, window: MainWindow) -> None:
        self.qtbot = qtbot
        self.window = window
        self.pictures = artifact_folder("desk-walkthrough")
        self.step = 0

    @property
    def panel(self) -> ChatPanel:
        return self.window.chat_dock.panel

    def find(self, kind: type, name: str) -> Any:
        widget = self.window.findChild(kind, name)
        assert widget is not None, f"no {kind.__name__} named {name!r} in the window"
        return widget

    def screenshot(self, name: str) -> Path:
        self.step += 1
        self.qtbot.wait(100)  # let the last changes paint
        path = self.pictures / f"{self.step:02d}-{name}.png"
        assert self.window.grab().save(str(path)), f"could not write {path}"
        return path

    def send(self, text: str) -> Any:
        chat_input = self.find(ChatInput, "chat-input")
        with self.qtbot.waitSignal(self.panel.run_finished, timeout=RUN_TIMEOUT_MS) as finished:
            chat_input.setText(text)
            self.qtbot.keyClick(chat_input, Qt.Key.Key_Return)
        return finished.args[0]

    def cards(self, tool: str) -> list[ToolCard]:
        return [
            card
            for card in self.panel.view.items()
            if isinstance(card, ToolCard) and card.tool == tool
        ]

    def open_from_card(self, card: ToolCard, view: str) -> QDockWidget:
        """Click the card's "Show in … view" link; the view's dock must come to the front."""
        button = card.findChild(QPushButton, "tool-card-open-view")
        assert button is not None and button.isVisible(), card.plain_text()
        self.qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        self.qtbot.waitUntil(lambda: view in self.window.plugin_docks, timeout=10_000)
        dock: QDockWidget = self.find(QDockWidget, view)
        # views are built when first shown, their modules imported off the GUI thread
        self.qtbot.waitUntil(lambda: getattr(dock, "view", None) is not None, timeout=60_000)
        self.qtbot.waitUntil(lambda: in_front(dock), timeout=10_000)
        return dock


@pytest.fixture
def desk(
    context: AppContext,
    tmp_path: Path,
    closed_url: str,
    monkeypatch: pytest.MonkeyPatch,
    open_window: Callable[..., MainWindow],
    qtbot: QtBot,
) -> Iterator[Walkthrough]:
    require_module("rumoca", "the Modelica step simulates with the embedded rumoca backend")
    require_rig(
        "llama.cpp embedded model",
        embedded_available(),
        "the offer to use the embedded model needs it (pip install 'workbench[embedded]')",
    )
    monkeypatch.setenv("OLLAMA_HOST", closed_url)
    fresh = AppContext.open()  # reads OLLAMA_HOST: the settings' model finds no server
    # only the plugins of this walk: the supervisor routes among them whatever else is installed
    fresh.plugins.plugins = {name: fresh.plugins.plugins[name] for name in ("topopt", "modelica")}
    fresh.settings.plugins["modelica"] = {"inline_max_intervals": 1000}  # a documented setting
    window = open_window(fresh)
    window.resize(*SIZE)
    walk = Walkthrough(qtbot, window)
    yield walk
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=RUN_TIMEOUT_MS)
    if shiboken6.isValid(window):  # pytest-qt may have deleted it already
        window.close()
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=RUN_TIMEOUT_MS)
    fresh.close()


def test_a_person_walks_through_optimise_export_simulate_and_cancel_with_scripted_model(
    desk: Walkthrough, tmp_path: Path, closed_url: str
) -> None:
    assert desk.window.objectName() == "main-window"
    desk.find(QDockWidget, "chat-dock")
    desk.find(QWidget, "jobs-widget")
    offer = start_without_a_server(desk, closed_url)
    choose_a_scripted_model(desk, tmp_path, offer)
    optimise_card, density = optimise(desk)
    stl = export(desk, density)
    simulate(desk, stl)
    cancel_a_long_run(desk, optimise_card)


def start_without_a_server(desk: Walkthrough, closed_url: str) -> QFrame:
    """The model status says no server answers; the embedded model is offered."""
    offer: QFrame = desk.find(QFrame, "model-offer")
    desk.qtbot.waitUntil(offer.isVisible, timeout=CHECK_TIMEOUT_MS)
    text = desk.find(QLabel, "model-offer-text").text()
    assert f"ollama:qwen3:4b cannot run: no server at {closed_url}." in text
    assert "trying the workbench offline" in text
    use_embedded = desk.find(QPushButton, "model-use-embedded")
    assert use_embedded.isVisible() and use_embedded.text() == "Use the embedded model"
    status = desk.find(QLabel, "model-status")
    assert status.text() == f"— no server at {closed_url}"
    desk.screenshot("start-no-server")
    return offer


def choose_a_scripted_model(desk: Walkthrough, folder: Path, offer: QFrame) -> None:
    """The picker's menu, "Other model…", the spec typed and Return."""
    qtbot, panel = desk.qtbot, desk.panel
    model_file = panel.context.store.folder / "SpringMassDamper.mo"
    shutil.copy(MODELS / "SpringMassDamper.mo", model_file)
    spec = write_script(folder, conversation(model_file))
    picker = panel.model_picker
    menu = picker.menu_
    menu.popup(picker.mapToGlobal(picker.rect().bottomLeft()))  # what clicking the button opens
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
    qtbot.waitUntil(lambda: not offer.isVisible(), timeout=CHECK_TIMEOUT_MS)
    assert picker.text() == f"Model: {spec} ▾"
    desk.screenshot("scripted-model-chosen")


def optimise(desk: Walkthrough) -> tuple[ToolCard, QDockWidget]:
    """A short Beams2D run; its card opens the Density view, whose form shows the run."""
    result = desk.send("Optimise a beam for me.")
    assert result.status == "done", result.error
    [card] = desk.cards("optimize_design")
    assert card.status == "ok"
    density = desk.open_from_card(card, "topopt.density")
    view = density_view(density)
    [recorded] = desk.panel.context.store.tool_calls("optimize_design")
    desk.qtbot.waitUntil(lambda: view.form.config().get("max_iter") == SHORT_BEAM["max_iter"])
    assert_form_shows(view.form, recorded["arguments"])
    desk.screenshot("optimised-density-view")
    return card, density


def export(desk: Walkthrough, density: QDockWidget) -> QDockWidget:
    """The export card opens the STL view (not the plugin's first view), which loads the file."""
    result = desk.send("Export it as STL.")
    assert result.status == "done", result.error
    [card] = desk.cards("convert_design_to_stl")
    assert card.status == "ok"
    stl = desk.open_from_card(card, "topopt.stl")
    assert not in_front(density)
    view = stl.widget()
    assert isinstance(view, StlView)
    desk.qtbot.waitUntil(lambda: view.loaded is not None, timeout=RUN_TIMEOUT_MS)
    loaded = view.loaded
    assert loaded is not None and loaded.name == "beams2d_design.stl" and loaded.watertight
    desk.screenshot("exported-stl-view")
    return stl


def simulate(desk: Walkthrough, stl: QDockWidget) -> None:
    """A rumoca simulation; its card opens the Trajectories view, which lists the run."""
    result = desk.send("Simulate the spring-mass-damper.")
    assert result.status == "done", result.error
    [card] = desk.cards("simulate")
    assert card.status == "ok", card.plain_text()
    trajectories = desk.open_from_card(card, "modelica.trajectory")
    assert not in_front(stl)
    assert trajectories.isVisible()
    desk.screenshot("simulated-trajectories")


def cancel_a_long_run(desk: Walkthrough, optimise_card: ToolCard) -> None:
    """A long optimisation, watched in the Density view, stopped with the jobs bar's Cancel:
    the card says "cancelled by you", the job stops, and the agent is not asked again."""
    qtbot, panel, window = desk.qtbot, desk.panel, desk.window
    context, jobs = panel.context, window.jobs_widget
    view = density_view(desk.open_from_card(optimise_card, "topopt.density"))
    chat_input = desk.find(ChatInput, "chat-input")
    chat_input.setText("Optimise a finer beam and export it.")
    qtbot.keyClick(chat_input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(jobs.rows) or not panel.busy, timeout=RUN_TIMEOUT_MS)
    assert jobs.rows, panel.transcript_text()
    [job_id] = jobs.rows
    qtbot.waitUntil(lambda: jobs.rows[job_id].progress.maximum() > 0, timeout=RUN_TIMEOUT_MS)
    running = [c for c in context.store.tool_calls("optimize_design") if c["ok"] is None]
    assert running, "the running optimisation is recorded with its arguments"
    qtbot.waitUntil(lambda: view.form.config().get("max_iter") == LONG_BEAM["max_iter"])
    assert_form_shows(view.form, running[-1]["arguments"])  # the running job's, not defaults
    desk.screenshot("long-run-before-cancel")
    cancel = desk.find(QPushButton, f"cancel-{job_id}")
    with qtbot.waitSignal(panel.run_finished, timeout=RUN_TIMEOUT_MS) as finished:
        qtbot.mouseClick(cancel, Qt.MouseButton.LeftButton)

    result = finished.args[0]
    assert result is not None and result.status == "cancelled", result
    job = context.jobs.get(job_id)
    qtbot.waitUntil(lambda: job is None or job.done, timeout=RUN_TIMEOUT_MS)
    assert job is None or job.state == "cancelled"
    _, cancelled = desk.cards("optimize_design")
    assert cancelled.status == "cancelled" and cancelled.summary.text() == "cancelled by you"
    assert len(context.store.tool_calls("convert_design_to_stl")) == 1  # no export after it
    assert panel.runtime is not None
    position = panel.runtime.model.position  # type: ignore[attr-defined]
    assert position == REPLIES_BEFORE_CANCEL_TURN + 2  # the agent was not asked again
    qtbot.waitUntil(lambda: "cancelled by you" in window.statusBar().currentMessage())
    panel.view.ensureWidgetVisible(cancelled)
    desk.screenshot("cancelled-by-you")


def density_view(dock: QDockWidget) -> DensityView:
    view = dock.widget()
    assert isinstance(view, DensityView) and view.objectName() == "topopt-density-view"
    return view


def assert_form_shows(form: Any, arguments: dict[str, Any]) -> None:
    """The Density form's problem, fields and kept settings are the run's."""
    assert form.problem.currentText() == arguments["problem_type"]
    shown = form.config()
    for key, value in arguments["problem_config"].items():
        assert shown[key] == pytest.approx(value), key
    assert form.seed.value() == int(arguments.get("seed") or 0)
