"""Issue 14, the density view follows the work: its form shows the running job's problem and
conditions (however the run was started), the field fills its pane keeping its shape (also on
resize), and the header never forces a wide window. Screenshot in topopt-views/."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import QRect
from pytestqt.qtbot import QtBot

from tests.support.artifacts import artifact_folder
from workbench.core.context import AppContext
from workbench.core.events import JobProgress, JobStarted
from workbench.ui.async_loop import attached_event_loop, running_tasks
from workbench_plugins.topopt.views.density_view import DensityView

RUN_TIMEOUT_MS = 180_000  # a spawned worker imports EngiBench first; the machine may be busy


@pytest.fixture(autouse=True)
def gui_loop(qapp: object) -> Iterator[asyncio.AbstractEventLoop]:
    with attached_event_loop(qapp) as loop:  # type: ignore[arg-type]
        yield loop


@pytest.fixture
def make_view(qtbot: QtBot, context: AppContext) -> Iterator[Any]:
    def make(width: int = 700, height: int = 500) -> DensityView:
        view = DensityView(context)
        qtbot.addWidget(view)
        view.resize(width, height)
        view.show()
        qtbot.waitExposed(view)
        return view

    yield make
    context.jobs.cancel_all()
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=30_000)


def drawn_field(view: DensityView) -> QRect:
    """Where the field is drawn, in the view's pixels."""
    scene_rect = view.image.mapRectToScene(view.image.boundingRect())
    return view.plots.mapFromScene(scene_rect).boundingRect()


def publish_frame(context: AppContext, job_id: str, design: np.ndarray) -> None:
    """A job's first iteration event, as the optimisation worker sends it."""
    context.bus.publish(
        JobProgress(
            job_id=job_id,
            message="iteration",
            fraction=0.1,
            data={"iteration": 0, "objective": 1.0, "design": design, "problem_type": "beams2d"},
        )
    )


def test_header_label_does_not_force_a_wide_window(qtbot: QtBot, make_view: Any) -> None:
    view = make_view()
    long_text = "photonics2d  (lambda1 1.5, lambda2 1.3, blur_radius 2) — stored design " * 3
    view.problem_label.setText(long_text)
    view.layout().activate()
    assert view.minimumSizeHint().width() <= 400, view.minimumSizeHint()
    assert view.problem_label.text() == long_text == view.problem_label.toolTip()
    view.resize(380, 500)
    qtbot.wait(20)
    assert view.width() <= 400


# (pane size, the least share of the pane the field must cover). Before, a 100 x 50 beam in the
# main window's ~650 x 650 Density pane covered 14% of it (341 px wide), in 600 x 300 13%.
PANES = [((652, 649), 0.28), ((600, 450), 0.18), ((600, 300), 0.18), ((900, 650), 0.35)]


@pytest.mark.parametrize(("size", "least_share"), PANES)
def test_the_field_fills_its_pane_and_follows_resizes(
    qtbot: QtBot,
    context: AppContext,
    make_view: Any,
    size: tuple[int, int],
    least_share: float,
) -> None:
    view = make_view(*size)
    design = np.zeros((50, 100))  # a 100 x 50 beam, as Beams2D draws it
    design[10:40, 5:95] = 1.0
    context.bus.publish(JobStarted(job_id="job-fill", title="optimize beams2d"))
    publish_frame(context, "job-fill", design)
    qtbot.waitUntil(lambda: view.drawn_iterations == [0], timeout=10_000)

    def fills(share: float) -> bool:
        field, plots = drawn_field(view), view.plots
        keeps_shape = abs(field.width() / max(field.height(), 1) - 2.0) < 0.1
        # edge to edge in one direction of its plot (beside it only the colour bar, margins)
        edge_to_edge = field.width() >= plots.width() - 130 or field.height() >= plots.height() - 40
        covered = field.width() * field.height() / (view.width() * view.height())
        return keeps_shape and edge_to_edge and covered >= share

    qtbot.waitUntil(lambda: fills(least_share), timeout=5_000)
    view.resize(size[0] + 300, size[1] + 200)  # larger: the field grows with the pane
    qtbot.waitUntil(lambda: fills(least_share), timeout=5_000)
    view.resize(size[0], int(size[1] * 0.8))  # lower: still edge to edge
    qtbot.waitUntil(lambda: fills(0.15), timeout=5_000)
    assert view.image.image is not None and view.image.image.shape == (50, 100)


def test_screenshot_at_a_normal_pane_size(
    qtbot: QtBot, context: AppContext, make_view: Any
) -> None:
    view = make_view(760, 560)
    rng = np.random.default_rng(3)
    design = np.clip(rng.random((50, 100)) * 0.3 + np.linspace(0, 1, 100)[None, :] * 0.8, 0, 1)
    context.bus.publish(JobStarted(job_id="job-shot", title="optimize beams2d"))
    publish_frame(context, "job-shot", design)
    qtbot.waitUntil(lambda: view.drawn_iterations == [0], timeout=10_000)
    qtbot.wait(50)
    view.grab().save(str(artifact_folder("topopt-views") / "density-view-pane.png"))
    field = drawn_field(view)
    assert field.width() >= 0.6 * view.width()


def test_the_form_shows_a_started_jobs_photonics_arguments(
    qtbot: QtBot, context: AppContext, make_view: Any
) -> None:
    """The registry records every call before it runs; the job's start names only its problem.
    (A recorded call and the job's event, without running Photonics2D: the view's part.)"""
    view = make_view()
    arguments = {
        "problem_type": "photonics2d",
        "problem_config": {"lambda1": 1.1, "lambda2": 0.9, "blur_radius": 3, "num_elems_x": 140},
        "seed": 5,
    }
    context.store.begin_tool_call(tool="optimize_design", caller="agent", arguments=arguments)
    context.bus.publish(JobStarted(job_id="job-ph", title="optimize photonics2d"))
    form = view.form
    qtbot.waitUntil(lambda: form.problem.currentText() == "photonics2d", timeout=10_000)
    assert (form.lambda1.value(), form.lambda2.value(), form.blur.value()) == (1.1, 0.9, 3)
    assert form.steps.value() == 200  # not given: the problem's default, as the job runs it
    assert form.seed.value() == 5
    assert form.config()["num_elems_x"] == 140  # kept: Run reruns what ran
    assert "num_elems_x 140" in form.hidden_label.text()
    assert "lambda1 1.1" in view.problem_label.text()


@pytest.mark.slow
def test_the_form_follows_a_run_the_agent_started(
    qtbot: QtBot, context: AppContext, make_view: Any
) -> None:
    view = make_view(900, 600)
    assert view.form.volfrac.value() == 0.35  # the form's defaults before any run
    arguments = {
        "problem_type": "beams2d",
        "problem_config": {"volfrac": 0.45, "rmin": 3.0, "forcedist": 0.3, "max_iter": 15},
        "seed": 7,
    }
    pool = ThreadPoolExecutor(1)  # as the agent calls tools: off the GUI thread
    future = pool.submit(context.registry.call, "optimize_design", arguments, caller="agent")
    form = view.form
    qtbot.waitUntil(lambda: view.job_id is not None, timeout=RUN_TIMEOUT_MS)
    assert (form.volfrac.value(), form.rmin.value(), form.forcedist.value()) == (0.45, 3.0, 0.3)
    assert form.seed.value() == 7 and form.config()["max_iter"] == 15
    qtbot.waitUntil(lambda: len(view.drawn_iterations) >= 5, timeout=RUN_TIMEOUT_MS)
    view.grab().save(str(artifact_folder("topopt-views") / "density-view-follows-agent-run.png"))
    qtbot.waitUntil(future.done, timeout=RUN_TIMEOUT_MS)
    pool.shutdown()
    assert future.result().ok, future.result().error
    qtbot.waitUntil(lambda: view.job_state == "done", timeout=10_000)

    # a view opened later shows the stored design with the conditions it was made with
    later = make_view(700, 500)
    qtbot.waitUntil(lambda: "stored design" in later.problem_label.text(), timeout=10_000)
    assert (later.form.volfrac.value(), later.form.seed.value()) == (0.45, 7)
