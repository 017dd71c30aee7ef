"""Issue 14: the Density view's own Cancel is a person's cancel, like the jobs bar's: the agent's
run that started the optimisation stops, its card says "cancelled by you", and the status bar
says so too.

The whole main window with a SCRIPTED model (language models cannot run here) that optimises a
beam and would then export it; the optimisation is the real EngiBench job in a worker process.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from tests.agents.conftest import call, calls, handoff, say, write_script
from tests.support.artifacts import artifact_folder
from workbench.core.context import AppContext
from workbench.core.events import JobCancelRequested
from workbench.ui.async_loop import running_tasks
from workbench.ui.chat.cards import ErrorCard, ToolCard
from workbench.ui.chat.input_line import ChatInput
from workbench.ui.main_window import MainWindow
from workbench_plugins.topopt.views.density_view import DensityView

JOB_TIMEOUT_MS = 180_000  # a spawned worker imports EngiBench first; the machine may be busy
LONG_BEAM = {"volfrac": 0.4, "forcedist": 0.65, "rmin": 4.0, "max_iter": 1000}
OPTIMISE_THEN_EXPORT = [
    handoff("topopt", "Optimise a beam, then export it as STL."),
    calls(call("optimize_design", {"problem_type": "beams2d", "problem_config": LONG_BEAM})),
    calls(call("convert_design_to_stl", {"problem_type": "beams2d", "npy_file_path": "last"})),
    say("Optimised and exported."),
    say("Done: the beam is optimised and exported."),
]


def test_cancel_in_the_density_view_stops_the_agents_run_with_scripted_model(
    context: AppContext, tmp_path: Path, open_window: Callable[..., MainWindow], qtbot: QtBot
) -> None:
    context.plugins.plugins = {"topopt": context.plugins.plugins["topopt"]}
    context.settings.model = write_script(tmp_path, OPTIMISE_THEN_EXPORT)
    window = open_window(context)
    requests: list[JobCancelRequested] = []
    context.bus.subscribe(JobCancelRequested, requests.append)
    opener = window.findChild(QAction, "open-view:topopt.density")
    assert opener is not None
    opener.trigger()  # Views > Density
    view = window.plugin_docks["topopt.density"].widget()
    assert isinstance(view, DensityView)
    cancel = view.findChild(QPushButton, "topopt-cancel")
    panel = window.chat_dock.panel
    chat_input = window.findChild(ChatInput, "chat-input")
    assert cancel is not None and chat_input is not None
    chat_input.setText("Optimise a beam and export it.")
    qtbot.keyClick(chat_input, Qt.Key.Key_Return)

    qtbot.waitUntil(lambda: cancel.isEnabled() or not panel.busy, timeout=JOB_TIMEOUT_MS)
    assert cancel.isEnabled(), panel.transcript_text()
    qtbot.waitUntil(lambda: bool(view.received_iterations), timeout=JOB_TIMEOUT_MS)
    job_id = view.job_id
    with qtbot.waitSignal(panel.run_finished, timeout=JOB_TIMEOUT_MS) as finished:
        qtbot.mouseClick(cancel, Qt.MouseButton.LeftButton)

    result = finished.args[0]
    assert result is not None and result.status == "cancelled", result
    assert [r.job_id for r in requests] == [job_id]  # published, as the jobs bar does
    assert context.store.tool_calls("convert_design_to_stl") == []  # the agent did not go on
    [card] = [item for item in panel.view.items() if isinstance(item, ToolCard)]
    assert card.tool == "optimize_design" and card.status == "cancelled"
    assert card.summary.text() == "cancelled by you"
    assert not [item for item in panel.view.items() if isinstance(item, ErrorCard)]
    qtbot.waitUntil(lambda: view.job_state == "cancelled", timeout=JOB_TIMEOUT_MS)
    qtbot.waitUntil(lambda: "cancelled by you" in window.statusBar().currentMessage())
    window.grab().save(str(artifact_folder("desk") / "density-cancelled-by-you.png"))
    qtbot.waitUntil(lambda: running_tasks() == 0)
