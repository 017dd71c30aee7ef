"""The density view: follows a running optimisation live, shows the stored design when idle.

The density field is drawn as an image with a colour bar, with the objective-vs-iteration curve
under or beside it (density_plots.py); a header holds the run's description (elided, so it never
widens the window), the iteration counter and a Cancel button, the side the Run form that calls
`optimize_design` through the registry. Whichever way a run starts (the agent, the chat's /tool,
the Run button), the form shows that run's problem, conditions and seed (run_arguments.py).
Under the header, the design's readiness from the ledger ("Not ready: single_component violated"),
so it is read where the design is (design_readiness.py).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import numpy as np
import numpy.typing as npt
import shiboken6
from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.context import AppContext
from workbench.core.events import (
    JobCancelRequested,
    JobFinished,
    JobProgress,
    JobStarted,
    ToolCalled,
)
from workbench.core.tools import ToolOutcome
from workbench.ui.bridge import subscribe_in_gui
from workbench.ui.elided_label import ElidedLabel
from workbench_plugins.topopt.views.density_plots import DensityPlots
from workbench_plugins.topopt.views.design_readiness import design_readiness
from workbench_plugins.topopt.views.gui_tasks import start_gui_task
from workbench_plugins.topopt.views.run_arguments import (
    effective_config,
    running_optimize_arguments,
)
from workbench_plugins.topopt.views.run_form import RunForm
from workbench_plugins.topopt.views.stored_design import describe_config, read_last_design

CALLER = "gui:topopt"
OPTIMIZE_TOOL = "optimize_design"
# A frame older than this when it reaches the GUI means the GUI is behind: it is not drawn at once
# but coalesced with whatever follows, so a lagging GUI draws the newest frame instead of a backlog.
MAX_FRAME_LAG_S = 0.5


class DensityView(QWidget):
    """Follows the newest topology optimisation job; shows the stored design when idle.

    Every iteration event is recorded (`received_iterations`, the objective curve); drawing the
    field is skipped only for frames that are already stale when they arrive, and then the newest
    one is drawn once the backlog is through (`drawn_iterations` lists what was drawn).
    """

    frame_drawn = Signal(int)  # iteration number, after the image and curve were updated
    run_finished = Signal(object)  # the ToolOutcome of a run started from the form
    readiness_shown = Signal()  # the stored design's readiness was read and shown

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("topopt-density-view")
        self.context = context
        self.job_id: str | None = None
        self.job_state = "idle"
        self.problem_type = ""
        self.config_text = ""
        self.received_iterations: list[int] = []
        self.drawn_iterations: list[int] = []
        self.dropped_frames = 0
        self.last_outcome: ToolOutcome | None = None
        self._pending: JobProgress | None = None
        self._draw_scheduled = False
        self._curve_x: list[float] = []
        self._curve_y: list[float] = []
        self._runs_in_flight = 0

        self._build_controls()
        self._build_plots()
        self._lay_out()

        subscribe_in_gui(context.bus, JobStarted, self._job_started, self)
        subscribe_in_gui(context.bus, JobProgress, self._job_progress, self)
        subscribe_in_gui(context.bus, JobFinished, self._job_finished, self)
        subscribe_in_gui(context.bus, ToolCalled, self._tool_called, self)
        self.show_last_design()

    # -- building -------------------------------------------------------------------------------
    def _build_controls(self) -> None:
        self.problem_label = ElidedLabel("No optimisation yet")
        self.problem_label.setObjectName("topopt-problem-label")
        self.problem_label.setStyleSheet("font-weight: bold;")
        self.iteration_label = QLabel("iteration -")
        self.iteration_label.setObjectName("topopt-iteration")
        self.objective_label = QLabel("")
        self.objective_label.setObjectName("topopt-objective")
        self.status_label = QLabel("idle")
        self.status_label.setObjectName("topopt-status")
        self.status_label.setWordWrap(True)
        self.readiness_label = QLabel("")
        self.readiness_label.setObjectName("topopt-readiness")
        self.readiness_label.setWordWrap(True)
        self.readiness_label.hide()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("topopt-cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.form = RunForm()
        self.form.run_requested.connect(self.run)

    def _build_plots(self) -> None:
        """The density image with its colour bar, and the objective curve (density_plots.py)."""
        side = QWidget()
        side.setObjectName("topopt-controls")
        column = QVBoxLayout(side)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.form)
        column.addWidget(self.status_label)
        self.density_plots = DensityPlots(side)
        self.plots = self.density_plots.plots
        self.image_plot = self.density_plots.image_plot
        self.image = self.density_plots.image
        self.colour_bar = self.density_plots.colour_bar
        self.curve_plot = self.density_plots.curve_plot
        self.curve = self.density_plots.curve

    def _lay_out(self) -> None:
        header = QHBoxLayout()
        header.addWidget(self.problem_label, 1)
        header.addWidget(self.iteration_label)
        header.addWidget(self.objective_label)
        header.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addWidget(self.readiness_label)
        layout.addWidget(self.density_plots, 1)

    # -- following a job ------------------------------------------------------------------------
    def _follow(self, job_id: str, problem_type: str, first_event_time: float) -> None:
        self.job_id = job_id
        self.job_state = "running"
        self.received_iterations, self.drawn_iterations = [], []
        self.dropped_frames = 0
        self._pending = None
        self._curve_x, self._curve_y = [], []
        self.curve.setData([], [])
        self.problem_type = problem_type
        arguments = running_optimize_arguments(self.context.store, problem_type, first_event_time)
        if arguments is not None:
            self.problem_type = arguments.problem_type
            self.config_text = describe_config(arguments.problem_type, arguments.config)
            self.form.show_run(arguments.problem_type, arguments.config, arguments.seed)
        else:
            self.config_text = problem_type
        self.problem_label.setText(self.config_text or "optimisation")
        self.iteration_label.setText("iteration -")
        self.objective_label.setText("")
        self.status_label.setText(f"{job_id}: running")
        self.readiness_label.hide()  # the new design is not checked until the run ends
        self.cancel_button.setEnabled(True)

    def _job_started(self, event: JobStarted) -> None:
        # optimize_design titles its jobs "optimize <problem>"; other plugins' jobs are not ours
        if event.title.startswith("optimize "):
            self._follow(event.job_id, event.title.removeprefix("optimize ").strip(), event.time)

    def _job_progress(self, event: JobProgress) -> None:
        if event.message != "iteration" or "design" not in event.data:
            if event.job_id == self.job_id and event.message:
                self.status_label.setText(f"{event.job_id}: {event.message}")
            return
        if event.job_id != self.job_id:
            if self.job_id is not None and self.job_state == "running":
                return  # keep following the run we are on; a second run waits its turn
            self._follow(event.job_id, str(event.data.get("problem_type", "")), event.time)
        iteration = int(event.data["iteration"])
        self.received_iterations.append(iteration)
        objective = event.data.get("objective")
        if objective is not None:
            self._curve_x.append(iteration)
            self._curve_y.append(float(objective))
        if self._pending is not None:
            self.dropped_frames += 1  # superseded before it was drawn
        self._pending = event
        if time.time() - event.time <= MAX_FRAME_LAG_S:
            self._draw_pending()
        elif not self._draw_scheduled:
            # behind: draw whatever is newest once the queued events have been handled
            self._draw_scheduled = True
            QTimer.singleShot(0, self._draw_pending)

    def _draw_pending(self) -> None:
        self._draw_scheduled = False
        event, self._pending = self._pending, None
        if event is None or not shiboken6.isValid(self):
            return
        iteration = int(event.data["iteration"])
        self._show_field(np.asarray(event.data["design"], dtype=float))
        self.curve.setData(self._curve_x, self._curve_y)
        self.iteration_label.setText(f"iteration {iteration}")
        objective = event.data.get("objective")
        if objective is not None:
            self.objective_label.setText(f"objective {float(objective):.6g}")
        if event.fraction is not None:
            self.status_label.setText(f"{event.job_id}: running, {event.fraction:.0%}")
        self.drawn_iterations.append(iteration)
        self.frame_drawn.emit(iteration)

    def _show_field(self, design: npt.NDArray) -> None:
        self.density_plots.show_field(design)

    def _job_finished(self, event: JobFinished) -> None:
        if event.job_id != self.job_id:
            return
        self._draw_pending()  # the last frame, even if it was being coalesced
        self.job_state = event.status
        self.cancel_button.setEnabled(False)
        last = self.received_iterations[-1] if self.received_iterations else None
        where = f" at iteration {last}" if last is not None else ""
        text = {"done": "finished", "cancelled": "cancelled", "failed": "failed"}
        self.status_label.setText(f"{event.job_id}: {text.get(event.status, event.status)}{where}")
        if event.status == "failed" and event.error:
            self.status_label.setToolTip(event.error)

    def cancel(self) -> None:
        job = self.context.jobs.get(self.job_id) if self.job_id else None
        if job is None or job.done:
            return
        self.cancel_button.setEnabled(False)
        self.status_label.setText(f"{job.id}: cancelling…")
        # a person's decision, as in the jobs bar: an agent's run that started the job stops too
        self.context.bus.publish(JobCancelRequested(job_id=job.id))
        job.cancel()

    # -- running from the form ------------------------------------------------------------------
    def run(self, problem_type: str, config: dict[str, Any], seed: int = 0) -> bool:
        """Call optimize_design on the asyncio loop; the job's events then drive the view."""
        arguments = {"problem_type": problem_type, "problem_config": config, "seed": seed}
        started = start_gui_task(self._call_optimize(arguments), "topopt-optimize")
        if started:
            self._runs_in_flight += 1
            self.form.run_button.setEnabled(False)
            self.status_label.setText(f"starting {problem_type}…")
        return started

    async def _call_optimize(self, arguments: dict[str, Any]) -> None:
        try:
            outcome = await self.context.registry.acall(OPTIMIZE_TOOL, arguments, caller=CALLER)
        finally:
            self._runs_in_flight -= 1
            if shiboken6.isValid(self):
                self.form.run_button.setEnabled(self._runs_in_flight == 0)
        if not shiboken6.isValid(self):
            return
        self.last_outcome = outcome
        if outcome.ok and outcome.result:
            self.status_label.setText(outcome.result.get("message", "done"))
        elif outcome.error is not None:
            self.status_label.setText(outcome.error.explain())
        self.run_finished.emit(outcome)

    # -- idle: the stored design ----------------------------------------------------------------
    def _tool_called(self, event: ToolCalled) -> None:
        if event.tool == OPTIMIZE_TOOL and event.ok and self.job_state != "running":
            self.show_last_design()

    def show_last_design(self) -> None:
        start_gui_task(self._load_last_design(), "topopt-last-design")

    async def _load_last_design(self) -> None:
        stored = await asyncio.to_thread(read_last_design, self.context.store)
        if stored is None or not shiboken6.isValid(self) or self.job_state == "running":
            return
        problem_type = str(stored.meta.get("problem_type", ""))
        self.problem_type = problem_type
        self.config_text = describe_config(problem_type, stored.meta.get("config"))
        self.problem_label.setText(f"{self.config_text} — stored design")
        self.form.show_run(
            problem_type,
            effective_config(problem_type, stored.meta.get("config")),
            int(stored.meta.get("seed") or 0),
        )
        self._show_field(stored.design)
        self._curve_x = list(range(len(stored.history)))
        self._curve_y = list(stored.history)
        self.curve.setData(self._curve_x, self._curve_y)
        if stored.history:
            self.iteration_label.setText(f"{len(stored.history)} iterations")
            self.objective_label.setText(f"objective {stored.history[-1]:.6g}")
        readiness = await asyncio.to_thread(design_readiness, self.context.ledger, stored.design)
        if not shiboken6.isValid(self) or self.job_state == "running":
            return
        self.readiness_label.setVisible(readiness is not None)
        if readiness is not None:
            self.readiness_label.setText(readiness.text)
            self.readiness_label.setToolTip(readiness.detail)
            self.readiness_label.setStyleSheet(readiness.style)
        self.readiness_shown.emit()


def density_view(context: AppContext) -> DensityView:
    return DensityView(context)
