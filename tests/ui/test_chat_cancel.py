"""A person's Cancel in the jobs bar during an agent's optimisation stops the agent's run.

The whole main window with a SCRIPTED model (language models cannot run here) that optimises a
beam and then exports it; the optimisation is the real EngiBench job in a worker process. Before
the change the Cancel failed only that tool call: the agent went on, exported (the previous
design, in the session that found it) and reported success.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.agents.conftest import call, calls, handoff, say, write_script
from tests.support.artifacts import artifact_folder
from workbench.core.context import AppContext
from workbench.ui.async_loop import running_tasks
from workbench.ui.chat.cards import ErrorCard, NoteLine, ToolCard
from workbench.ui.chat.style import COLOURS
from workbench.ui.main_window import MainWindow

JOB_TIMEOUT_MS = 180_000  # a spawned worker imports EngiBench first; the machine may be busy
LONG_BEAM = {"volfrac": 0.4, "forcedist": 0.65, "rmin": 4.0, "max_iter": 1000}
OPTIMISE_THEN_EXPORT = [
    handoff("topopt", "Optimise a beam, then export it as STL."),
    calls(call("optimize_design", {"problem_type": "beams2d", "problem_config": LONG_BEAM})),
    calls(call("convert_design_to_stl", {"problem_type": "beams2d", "npy_file_path": "last"})),
    say("Optimised and exported."),
    say("Done: the beam is optimised and exported."),
]


def test_cancel_in_the_jobs_bar_stops_the_agents_run_with_scripted_model(
    context: AppContext, tmp_path: Path, open_window: Callable[..., MainWindow], qtbot: QtBot
) -> None:
    context.plugins.plugins = {"topopt": context.plugins.plugins["topopt"]}
    context.settings.model = write_script(tmp_path, OPTIMISE_THEN_EXPORT)
    window = open_window(context)
    panel, jobs = window.chat_dock.panel, window.jobs_widget
    panel.input.setText("Optimise a beam and export it.")
    qtbot.keyClick(panel.input, Qt.Key.Key_Return)

    qtbot.waitUntil(lambda: bool(jobs.rows) or not panel.busy, timeout=JOB_TIMEOUT_MS)
    assert jobs.rows, panel.transcript_text()
    [job_id] = jobs.rows
    qtbot.waitUntil(lambda: jobs.rows[job_id].progress.maximum() > 0, timeout=JOB_TIMEOUT_MS)
    with qtbot.waitSignal(panel.run_finished, timeout=JOB_TIMEOUT_MS) as finished:
        qtbot.mouseClick(jobs.cancel_button(job_id), Qt.MouseButton.LeftButton)

    result = finished.args[0]
    assert result is not None and result.status == "cancelled", result
    assert context.store.tool_calls("convert_design_to_stl") == []  # no export after it
    assert panel.runtime is not None
    assert panel.runtime.model.position == 2  # type: ignore[attr-defined]  # no model call either
    cards = [item for item in panel.view.items() if isinstance(item, ToolCard)]
    [card] = cards
    assert card.tool == "optimize_design" and card.status == "cancelled"
    assert card.summary.text() == "cancelled by you"
    assert COLOURS["error"] not in card.title.styleSheet()  # not a red error
    assert "The user cancelled this optimize_design call" in card.details.text()  # one click
    assert not [item for item in panel.view.items() if isinstance(item, ErrorCard)]
    notes = [item.plain_text() for item in panel.view.items() if isinstance(item, NoteLine)]
    assert any(n.startswith("You cancelled optimize_design, so the agent stopped") for n in notes)
    qtbot.waitUntil(lambda: "cancelled by you" in window.statusBar().currentMessage())
    assert window.statusBar().currentMessage() == "Job optimize beams2d cancelled by you."

    card.details_button.click()  # the detail, as a person would open it
    panel.view.ensureWidgetVisible(card)
    qtbot.wait(50)
    panel.grab().save(str(artifact_folder("chat") / "cancelled-card.png"))
    qtbot.waitUntil(lambda: running_tasks() == 0)
