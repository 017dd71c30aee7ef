"""The topopt views in pytest-qt (Qt offscreen): the density view follows real optimisations.

Acceptance 3: a Beams2D optimisation started from the density view's Run form is drawn once per
iteration it streams, and a run cancelled from the view stops (job cancelled, view says so, no
design stored). VTK needs a real OpenGL context, so the STL view's rendering is tested under Xvfb
(test_views_screenshots.py); here only its Qt-free mesh loading.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import shiboken6
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from workbench.core.context import AppContext
from workbench.core.events import JobProgress, JobStarted
from workbench.core.jobs import JobState
from workbench.ui.async_loop import attached_event_loop, running_tasks
from workbench.ui.main_window import MainWindow
from workbench_plugins.topopt.stl import StlSettings, export_stl
from workbench_plugins.topopt.views.density_view import DensityView
from workbench_plugins.topopt.views.mesh_loading import MeshLoadError, load_mesh

LEFT = Qt.MouseButton.LeftButton
RUN_TIMEOUT_MS = 180_000  # a spawned worker imports EngiBench first; the machine may be busy


@pytest.fixture(autouse=True)
def gui_loop(qapp: object) -> Iterator[asyncio.AbstractEventLoop]:
    with attached_event_loop(qapp) as loop:  # type: ignore[arg-type]
        yield loop


@pytest.fixture
def window(qtbot: QtBot, context: AppContext) -> Iterator[MainWindow]:
    main = MainWindow(context, remember_layout=False)
    qtbot.addWidget(main)
    main.show()
    qtbot.waitExposed(main)
    yield main
    context.jobs.cancel_all()
    if shiboken6.isValid(main):
        main.close()
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=30_000)


def open_density_view(window: MainWindow) -> DensityView:
    """Through the Views menu entry, as a person would."""
    window.view_actions["topopt.density"].trigger()
    dock = window.plugin_docks["topopt.density"]
    view = dock.widget()
    assert isinstance(view, DensityView)
    return view


def test_the_plugin_offers_both_views(window: MainWindow) -> None:
    assert {"topopt.density", "topopt.stl"} <= set(window.view_specs)


@pytest.mark.slow
def test_density_view_draws_every_iteration_of_a_run(
    qtbot: QtBot, window: MainWindow, context: AppContext
) -> None:
    view = open_density_view(window)
    form = view.form
    form.problem.setCurrentText("beams2d")
    form.volfrac.setValue(0.4)
    form.forcedist.setValue(0.65)
    form.rmin.setValue(4.0)
    started: list[str] = []
    context.bus.subscribe(JobStarted, lambda event: started.append(event.job_id))
    streamed: list[int] = []
    context.bus.subscribe(  # counted on the publishing thread: what the job really streamed
        JobProgress,
        lambda e: streamed.append(e.data["iteration"]) if e.message == "iteration" else None,
    )

    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as finished:
        qtbot.mouseClick(form.run_button, LEFT)
    outcome = finished.args[0]
    assert outcome.ok, outcome.error
    history = outcome.result["optimization_info"]["obj_values"]
    iterations = list(range(len(history)))
    qtbot.waitUntil(lambda: view.job_state == "done", timeout=10_000)

    assert view.job_id == started[0] == outcome.result["job_id"]
    assert streamed == iterations
    assert view.received_iterations == iterations
    # Frames are coalesced only when they reach the GUI more than MAX_FRAME_LAG_S late; an idle
    # test GUI keeps up with ~0.1 s iterations, so each one must have been drawn, in order.
    assert view.drawn_iterations == iterations, f"{view.dropped_frames} frames dropped"
    assert view.dropped_frames == 0
    # the curve holds the streamed objectives, which are the job's own history
    x, y = view.curve.getData()
    assert list(x) == iterations
    assert np.allclose(y, history, rtol=0, atol=0)
    assert history[-1] == pytest.approx(30.909, abs=0.01)
    assert view.iteration_label.text() == f"iteration {iterations[-1]}"
    assert view.image.image is not None and view.image.image.shape == (50, 100)
    assert "finished" in view.status_label.text() or "Optimised" in view.status_label.text()
    assert "volfrac 0.4" in view.problem_label.text()
    assert form.run_button.isEnabled()

    # A newly opened view, idle, shows that stored design and its history.
    idle = DensityView(context)
    qtbot.addWidget(idle)
    qtbot.waitUntil(lambda: "stored design" in idle.problem_label.text(), timeout=10_000)
    assert idle.image.image is not None and idle.image.image.shape == (50, 100)
    assert list(idle.curve.getData()[1]) == history


@pytest.mark.slow
def test_cancel_from_the_density_view_stops_the_job(
    qtbot: QtBot, window: MainWindow, context: AppContext
) -> None:
    view = open_density_view(window)
    view.form.volfrac.setValue(0.35)  # 100 iterations of 100 x 50: plenty of time to cancel
    designs_before = len(context.store.artifacts("topopt.design"))

    qtbot.mouseClick(view.form.run_button, LEFT)
    assert not view.form.run_button.isEnabled()  # one run at a time from this form
    qtbot.waitUntil(lambda: len(view.drawn_iterations) >= 3, timeout=RUN_TIMEOUT_MS)
    assert view.cancel_button.isEnabled()
    job = context.jobs.get(view.job_id or "")
    assert job is not None

    with qtbot.waitSignal(view.run_finished, timeout=30_000) as finished:
        qtbot.mouseClick(view.cancel_button, LEFT)
    outcome = finished.args[0]
    assert job.wait(10)
    assert job.state is JobState.CANCELLED
    qtbot.waitUntil(lambda: view.job_state == "cancelled", timeout=10_000)
    assert not outcome.ok and "cancelled" in outcome.error.message
    assert "cancelled" in view.status_label.text()
    assert not view.cancel_button.isEnabled()
    assert len(view.received_iterations) < 100
    stopped_at = list(view.received_iterations)
    qtbot.wait(500)
    assert view.received_iterations == stopped_at  # nothing arrives after the end
    assert len(context.store.artifacts("topopt.design")) == designs_before


def test_a_lagging_gui_draws_the_newest_frame_not_the_backlog(
    qtbot: QtBot, context: AppContext
) -> None:
    view = DensityView(context)
    qtbot.addWidget(view)
    design = np.random.default_rng(0).random((20, 40))
    stale = time.time() - 5.0  # as if the GUI had been busy for 5 s
    context.bus.publish(JobStarted(job_id="job-x", title="optimize beams2d"))
    for iteration in range(200):  # all queued on the GUI thread before any is handled
        context.bus.publish(
            JobProgress(
                job_id="job-x",
                message="iteration",
                time=stale,
                data={
                    "iteration": iteration,
                    "objective": 100.0 - iteration * 0.1,
                    "design": design * (iteration / 199),
                    "problem_type": "beams2d",
                },
            )
        )
    qtbot.waitUntil(lambda: view.drawn_iterations[-1:] == [199], timeout=10_000)
    assert view.received_iterations == list(range(200))  # every objective is on the curve
    assert len(view.curve.getData()[0]) == 200
    assert len(view.drawn_iterations) < 10, view.drawn_iterations
    assert np.allclose(view.image.image, design)


def test_progress_of_other_jobs_is_ignored(qtbot: QtBot, context: AppContext) -> None:
    view = DensityView(context)
    qtbot.addWidget(view)
    context.bus.publish(JobStarted(job_id="job-y", title="slice part"))
    context.bus.publish(JobProgress(job_id="job-y", message="layer", data={"layer": 3}))
    qtbot.wait(100)
    assert view.job_id is None and view.drawn_iterations == []


def test_load_mesh_reports_stats_of_an_exported_stl(context: AppContext, tmp_path: Path) -> None:
    design = np.zeros((10, 20))
    design[2:8, 3:17] = 1.0
    report = export_stl(design, tmp_path / "d.stl", StlSettings(scale_xy=2.0, scale_z=5.0))
    artifact = context.store.add_artifact(tmp_path / "d.stl", kind="stl")
    loaded = load_mesh(artifact.path, artifact.name)  # content-addressed path, no suffix
    assert loaded.watertight and loaded.winding_consistent
    assert loaded.triangles == report.num_triangles
    assert loaded.volume == pytest.approx(6 * 14 * 4.0 * 5.0, rel=1e-6)
    assert loaded.polydata.n_cells == loaded.triangles
    assert np.allclose(np.ptp(np.array(loaded.bounds), axis=0), [28.0, 12.0, 5.0])


def test_load_mesh_names_a_broken_file(tmp_path: Path) -> None:
    broken = tmp_path / "broken.stl"
    broken.write_bytes(b"solid nothing\nendsolid nothing\n")
    with pytest.raises(MeshLoadError, match=r"broken\.stl"):
        load_mesh(broken)
