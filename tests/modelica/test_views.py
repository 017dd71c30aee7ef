"""Acceptance 4: the trajectory view and the Modelica editor under pytest-qt (offscreen), with
screenshots kept in $WORKBENCH_TEST_ARTIFACTS (else tests/artifacts/) under modelica-views/."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import tests.rigs.gui  # noqa: F401  (first: skips, or fails in CI, without PySide6/pyqtgraph)

# isort: split
from PySide6.QtGui import QColor

from tests.modelica.conftest import MODELS
from tests.support.artifacts import artifact_folder
from tests.ui.conftest import gui_loop  # noqa: F401  (a qasync loop for start_task)
from workbench.ui.async_loop import running_tasks
from workbench_plugins.modelica import harness
from workbench_plugins.modelica.views import EditorView, TrajectoryView

ROOT = Path(__file__).resolve().parents[2]


def coloured_pixels(image, colour: str, tolerance: int = 40) -> int:  # type: ignore[no-untyped-def]
    target = QColor(colour)
    count = 0
    for x in range(0, image.width(), 2):
        for y in range(0, image.height(), 2):
            pixel = image.pixelColor(x, y)
            if (
                abs(pixel.red() - target.red())
                + abs(pixel.green() - target.green())
                + abs(pixel.blue() - target.blue())
                < tolerance
            ):
                count += 1
    return count


def test_trajectory_view_overlays_candidates_with_invariant_marks(  # type: ignore[no-untyped-def]
    qtbot, context, tmp_path: Path
) -> None:
    context.settings.plugins["modelica"] = {"inline_max_intervals": 1_000_000}
    text = (MODELS / "SpringMassDamper.mo").read_text()
    task = harness.Task(
        task_id="smd",
        profile="tuning",
        model_name="SpringMassDamper",
        files={"SpringMassDamper.mo": text},
        tunable_parameters=["d"],
    )
    run = harness.start_run(task, tmp_path / "task", context.ledger)
    view = TrajectoryView(context)
    qtbot.addWidget(view)
    view.resize(900, 500)
    view.show()
    qtbot.waitExposed(view)
    pool = ThreadPoolExecutor(1)  # as the agent does: tool calls off the GUI thread
    for damping in (0.4, 2.0):  # two candidates: each simulation arrives as an event
        future = pool.submit(
            context.registry.call,
            "simulate",
            {
                "run": run.id,
                "model": "SpringMassDamper",
                "stop_time": 10,
                "intervals": 500,
                "parameters": {"d": damping},
            },
            caller="test",
        )
        qtbot.waitUntil(future.done, timeout=30000)
        assert future.result().ok, future.result().error
    pool.shutdown()
    qtbot.waitUntil(lambda: view.run_list.count() == 2)
    view.set_variables(["x"])
    view.mark_invariant("settles", {"min": -0.25, "max": 0.25}, {"start": 6.0, "end": 10.0})
    assert len(view.plot.listDataItems()) == 2  # one curve of x per candidate
    labels = [view.run_list.item(i).text() for i in range(2)]
    assert labels[0] != labels[1] and all("SpringMassDamper" in label for label in labels)
    qtbot.wait(50)
    image = view.grab().toImage()
    image.save(str(artifact_folder("modelica-views") / "trajectories.png"))
    assert coloured_pixels(image, "#1f77b4") > 100  # the curves are drawn, not a blank plot
    assert coloured_pixels(image, "#b00020") > 20  # and the bounds
    harness.forget_run(run.id)


def test_editor_checks_and_shows_diagnostics_in_place(qtbot, context, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    broken = Path(context.store.folder) / "RCCharge.mo"  # outside, the editor would ask first
    broken.write_text((MODELS / "RCCharge.mo").read_text().replace("/ R;", "/ Rr;"))
    editor = EditorView(context)
    qtbot.addWidget(editor)
    editor.resize(800, 500)
    editor.show()
    qtbot.waitExposed(editor)
    editor.load(broken, "RCCharge")
    editor.check_button.click()
    qtbot.waitUntil(lambda: editor.last_result is not None and running_tasks() == 0, timeout=20000)
    assert editor.diagnostics.count() == 1, editor.status.text()
    assert "Rr" in editor.diagnostics.item(0).text() and ":10:" in editor.diagnostics.item(0).text()
    assert len(editor.editor.extraSelections()) == 1  # the line is marked in the text
    editor.diagnostics.itemClicked.emit(editor.diagnostics.item(0))
    assert editor.editor.textCursor().blockNumber() == 9
    qtbot.wait(50)
    editor.grab().save(str(artifact_folder("modelica-views") / "editor-diagnostics.png"))
    # fix it in the editor and simulate through the same tool the agent uses
    editor.editor.setPlainText(editor.editor.toPlainText().replace("/ Rr;", "/ R;"))
    editor.last_result = None
    editor.simulate_button.click()
    qtbot.waitUntil(lambda: editor.last_result is not None and running_tasks() == 0, timeout=60000)
    assert editor.last_result["ok"] and editor.last_result["result"]["ok"]
    assert editor.diagnostics.count() == 0 and "simulate: ok" in editor.status.text()
    assert "Rr" not in broken.read_text()  # saved before simulating
