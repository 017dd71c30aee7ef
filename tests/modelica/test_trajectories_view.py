"""Issue 14, the trajectories view follows the work: every simulation of the workspace (also
those run before the view opened, and after a restart), every variable plottable, a legend whose
labels are never cut off. Real rumoca simulations through the registry, as the agent makes them;
screenshots in $WORKBENCH_TEST_ARTIFACTS (else tests/artifacts/) under modelica-views/."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import tests.rigs.gui  # noqa: F401  (first: skips, or fails in CI, without PySide6/pyqtgraph)

# isort: split
import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.modelica.conftest import MODELS
from tests.support.artifacts import artifact_folder
from tests.ui.conftest import gui_loop  # noqa: F401  (a qasync loop for start_task)
from workbench.core.context import AppContext
from workbench.ui.async_loop import running_tasks
from workbench_plugins.modelica.views import TrajectoryView

DAMPINGS = (0.2, 0.6, 1.5, 3.0)


@pytest.fixture
def model_file(tmp_path: Path) -> Path:
    target = tmp_path / "SpringMassDamper.mo"
    shutil.copy(MODELS / "SpringMassDamper.mo", target)
    return target


def simulate(context: AppContext, model_file: Path, damping: float, scenario: str) -> None:
    """One standalone simulation through the registry (inline: the settings allow it), from
    another thread as the agent calls tools (the GUI thread runs an asyncio loop)."""
    with ThreadPoolExecutor(1) as pool:
        outcome = pool.submit(_call_simulate, context, model_file, damping, scenario).result()
    assert outcome.ok and outcome.result["ok"], outcome.error


def _call_simulate(context: AppContext, model_file: Path, damping: float, scenario: str) -> Any:
    return context.registry.call(
        "simulate",
        {
            "file": str(model_file),
            "model": "SpringMassDamper",
            "stop_time": 10,
            "intervals": 400,
            "parameters": {"d": damping},
            "scenario": scenario,
        },
        caller="test",
        confirmed=True,  # the file lies outside the workspace: the person's own file
    )


@pytest.fixture
def simulated(context: AppContext, model_file: Path) -> AppContext:
    context.settings.plugins["modelica"] = {"inline_max_intervals": 1_000_000}
    for damping in DAMPINGS[:2]:
        simulate(context, model_file, damping, f"d={damping}")
    return context


@pytest.fixture
def views(qtbot: QtBot) -> Iterator[list[TrajectoryView]]:
    opened: list[TrajectoryView] = []
    yield opened
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=20_000)


def open_view(
    qtbot: QtBot, context: AppContext, size: tuple[int, int] = (900, 560)
) -> TrajectoryView:
    view = TrajectoryView(context)
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    return view


def drawn_runs(view: TrajectoryView) -> int:
    return len(view.plot.listDataItems())


def test_simulations_run_before_opening_and_after_a_restart_are_shown(
    qtbot: QtBot, simulated: AppContext, views: list[TrajectoryView]
) -> None:
    view = open_view(qtbot, simulated)
    views.append(view)
    assert view.run_list.count() == 2  # listed at once, from the store
    qtbot.waitUntil(lambda: drawn_runs(view) == 2, timeout=20_000)  # read off the GUI thread
    labels = [view.run_list.item(i).text() for i in range(2)]
    assert all("SpringMassDamper" in label for label in labels)
    assert "(d=0.2)" in labels[0] and "(d=0.6)" in labels[1]

    # a restart: a new context on the same workspace, a new view
    workspace = simulated.store.folder
    view.close()
    restarted = AppContext.open(workspace=workspace)
    try:
        again = open_view(qtbot, restarted)
        views.append(again)
        assert [again.run_list.item(i).text() for i in range(2)] == labels
        qtbot.waitUntil(lambda: drawn_runs(again) == 2, timeout=20_000)
    finally:
        qtbot.waitUntil(lambda: running_tasks() == 0, timeout=20_000)
        restarted.close()


def test_a_new_simulation_joins_the_stored_ones(
    qtbot: QtBot, simulated: AppContext, model_file: Path, views: list[TrajectoryView]
) -> None:
    view = open_view(qtbot, simulated)
    views.append(view)
    qtbot.waitUntil(lambda: drawn_runs(view) == 2, timeout=20_000)
    simulate(simulated, model_file, DAMPINGS[2], "d=1.5")
    qtbot.waitUntil(lambda: view.run_list.count() == 3 and drawn_runs(view) == 3, timeout=20_000)


def test_every_variable_can_be_plotted(
    qtbot: QtBot, simulated: AppContext, views: list[TrajectoryView]
) -> None:
    view = open_view(qtbot, simulated)
    views.append(view)
    qtbot.waitUntil(lambda: drawn_runs(view) == 2, timeout=20_000)
    variables = [view.variable_list.item(i).text() for i in range(view.variable_list.count())]
    result = next(iter(view.runs.values()))
    assert set(variables) == set(result.series) and {"x", "v"} <= set(variables)
    for index in range(view.variable_list.count()):  # tick each box, as a person would
        item = view.variable_list.item(index)
        item.setCheckState(Qt.CheckState.Checked)
    assert drawn_runs(view) == 2 * len(variables)
    assert len(view.legend.labels) == 2 * len(variables)
    view.variable_filter.setText("v")
    shown = [
        view.variable_list.item(i).text()
        for i in range(view.variable_list.count())
        if not view.variable_list.item(i).isHidden()
    ]
    assert "v" in shown and "x" not in shown


def test_legend_labels_are_not_cut_off_in_a_narrow_pane(
    qtbot: QtBot, simulated: AppContext, views: list[TrajectoryView]
) -> None:
    view = open_view(qtbot, simulated, size=(520, 520))
    views.append(view)
    qtbot.waitUntil(lambda: drawn_runs(view) == 2, timeout=20_000)
    view.set_variables(["x", "v"])
    qtbot.wait(50)
    assert len(view.legend.labels) == drawn_runs(view) == 4
    viewport = view.legend.viewport()
    for label in view.legend.labels:
        assert "SpringMassDamper" in label.text()
        # the whole text fits the label (it wraps), and the label lies inside the legend
        assert label.heightForWidth(label.width()) <= label.height(), label.text()
        words = label.text().split()
        widest = max(label.fontMetrics().horizontalAdvance(word) for word in words)
        assert widest <= label.contentsRect().width(), label.text()
        right = label.mapTo(viewport, label.rect().topRight()).x()
        assert right <= viewport.width(), label.text()


def test_screenshot_with_several_runs(
    qtbot: QtBot, simulated: AppContext, model_file: Path, views: list[TrajectoryView]
) -> None:
    for damping in DAMPINGS[2:]:
        simulate(simulated, model_file, damping, f"d={damping}")
    view = open_view(qtbot, simulated, size=(1000, 620))
    views.append(view)
    qtbot.waitUntil(lambda: drawn_runs(view) == 3, timeout=20_000)  # the newest three
    first = view.run_list.item(0)
    first.setCheckState(Qt.CheckState.Checked)  # the oldest: read when ticked
    qtbot.waitUntil(lambda: drawn_runs(view) == 4, timeout=20_000)
    view.set_variables(["x", "v"])
    view.mark_invariant("settles", {"min": -0.25, "max": 0.25}, {"start": 6.0, "end": 10.0})
    qtbot.wait(50)
    assert drawn_runs(view) == 8 and len(view.legend.labels) == 8
    view.grab().save(str(artifact_folder("modelica-views") / "trajectories-several-runs.png"))
