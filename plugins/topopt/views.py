"""Qt views of the topology optimisation plugin (the only module here that touches Qt).

DensityView follows a running optimisation live: the density field as an image with a colour bar,
the objective-vs-iteration curve, an iteration counter, a Cancel button; when idle it shows the
newest stored design and offers a Run form that calls `optimize_design` through the registry.

StlView shows an exported or opened STL in a pyvistaqt interactor with its stats. Files are read
and checked in a thread (a 1M-triangle mesh takes seconds to merge and check); only the finished
`pyvista.PolyData` is handed to VTK on the GUI thread.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from workbench.core.context import AppContext
from workbench.core.events import JobFinished, JobProgress, JobStarted, ToolCalled
from workbench.core.store import Artifact, Store
from workbench.core.tools import ToolOutcome
from workbench.ui.async_loop import start_task
from workbench.ui.bridge import subscribe_in_gui

log = logging.getLogger(__name__)
CALLER = "gui:topopt"
DESIGN_KIND = "topopt.design"  # designs.DESIGN_KIND; not imported, to keep numpy-only deps light
HISTORY_KIND = "topopt.history"
STL_KIND = "stl"
OPTIMIZE_TOOL = "optimize_design"
STL_TOOL = "convert_design_to_stl"
# A frame older than this when it reaches the GUI means the GUI is behind: it is not drawn at once
# but coalesced with whatever follows, so a lagging GUI draws the newest frame instead of a backlog.
MAX_FRAME_LAG_S = 0.5
LOD_TRIANGLES = 200_000  # above this the STL view also draws a coarse copy while the camera moves
LOD_DIVISIONS = 96  # clustering grid per axis: roughly 100k triangles for a closed surface
MESH_COLOUR = "#8fb3d9"
# White void, black material: the same convention as the rendered PNGs (matplotlib gray_r).
DENSITY_COLOURS = pg.ColorMap(pos=[0.0, 1.0], color=[(255, 255, 255), (0, 0, 0)])


def _start(coroutine: Coroutine[Any, Any, Any], name: str) -> bool:
    """Start a GUI task; False (and the coroutine closed) when no asyncio loop is attached."""
    try:
        start_task(coroutine, name=name)
    except RuntimeError as error:
        log.warning("%s not started: %s", name, error)
        return False
    return True


# -- density view --------------------------------------------------------------------------------
@dataclass
class StoredDesign:
    design: npt.NDArray
    meta: dict[str, Any]
    history: list[float]


def read_last_design(store: Store) -> StoredDesign | None:
    """The newest optimised design and its objective history (runs in a thread: file I/O)."""
    found = [a for a in store.artifacts(DESIGN_KIND) if a.meta.get("role") == "optimized"]
    if not found:
        return None
    artifact = found[-1]
    history: list[float] = []
    if artifact.tool_call_id is not None:
        for candidate in store.artifacts(HISTORY_KIND):
            if candidate.tool_call_id == artifact.tool_call_id:
                history = list(json.loads(candidate.path.read_text()).get("obj_values", []))
    design = np.load(artifact.path, allow_pickle=False)  # content-addressed: no .npy suffix
    return StoredDesign(np.asarray(design, dtype=float), artifact.meta, history)


def describe_config(problem_type: str, config: dict[str, Any] | None) -> str:
    shown = ("volfrac", "rmin", "forcedist", "lambda1", "lambda2", "blur_radius")
    parts = [f"{k} {v:g}" for k, v in (config or {}).items() if k in shown]
    return problem_type + (f"  ({', '.join(parts)})" if parts else "")


class RunForm(QWidget):
    """Problem and its main conditions; `run_requested(problem_type, config, seed)` on Run."""

    run_requested = Signal(str, dict, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.problem = QComboBox()
        self.problem.setObjectName("topopt-problem")
        self.problem.addItems(["beams2d", "photonics2d"])
        self.volfrac = _spin(0.01, 1.0, 0.35, 0.05, "topopt-volfrac")
        self.rmin = _spin(0.1, 100.0, 2.0, 0.5, "topopt-rmin")
        self.forcedist = _spin(0.0, 1.0, 0.0, 0.05, "topopt-forcedist")
        self.lambda1 = _spin(0.1, 10.0, 1.5, 0.1, "topopt-lambda1")
        self.lambda2 = _spin(0.1, 10.0, 1.3, 0.1, "topopt-lambda2")
        self.blur = QSpinBox()
        self.blur.setRange(0, 10)
        self.blur.setValue(2)
        self.steps = QSpinBox()
        self.steps.setRange(1, 2000)
        self.steps.setValue(200)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setObjectName("topopt-seed")

        beams = QWidget()
        beams_form = QFormLayout(beams)
        beams_form.addRow("volfrac", self.volfrac)
        beams_form.addRow("rmin", self.rmin)
        beams_form.addRow("forcedist", self.forcedist)
        photonics = QWidget()
        photonics_form = QFormLayout(photonics)
        photonics_form.addRow("lambda1 (µm)", self.lambda1)
        photonics_form.addRow("lambda2 (µm)", self.lambda2)
        photonics_form.addRow("blur radius", self.blur)
        photonics_form.addRow("steps", self.steps)
        for form in (beams_form, photonics_form):
            form.setContentsMargins(0, 0, 0, 0)
        self.pages = QStackedWidget()
        self.pages.addWidget(beams)
        self.pages.addWidget(photonics)
        self.problem.currentIndexChanged.connect(self.pages.setCurrentIndex)

        self.run_button = QPushButton("Run")
        self.run_button.setObjectName("topopt-run")
        self.run_button.setToolTip("optimize_design with these conditions (a worker process)")
        self.run_button.clicked.connect(self._run_clicked)

        layout = QFormLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addRow("problem", self.problem)
        layout.addRow(self.pages)
        layout.addRow("seed", self.seed)
        layout.addRow(self.run_button)

    def config(self) -> dict[str, Any]:
        if self.problem.currentText() == "beams2d":
            return {
                "volfrac": self.volfrac.value(),
                "rmin": self.rmin.value(),
                "forcedist": self.forcedist.value(),
            }
        return {
            "lambda1": self.lambda1.value(),
            "lambda2": self.lambda2.value(),
            "blur_radius": self.blur.value(),
            "num_optimization_steps": self.steps.value(),
        }

    def _run_clicked(self) -> None:
        self.run_requested.emit(self.problem.currentText(), self.config(), self.seed.value())


def _spin(low: float, high: float, value: float, step: float, name: str) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(low, high)
    box.setDecimals(3)
    box.setSingleStep(step)
    box.setValue(value)
    box.setObjectName(name)
    return box


class DensityView(QWidget):
    """Follows the newest topology optimisation job; shows the stored design when idle.

    Every iteration event is recorded (`received_iterations`, the objective curve); drawing the
    field is skipped only for frames that are already stale when they arrive, and then the newest
    one is drawn once the backlog is through (`drawn_iterations` lists what was drawn).
    """

    frame_drawn = Signal(int)  # iteration number, after the image and curve were updated
    run_finished = Signal(object)  # the ToolOutcome of a run started from the form

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
        self._run_config: tuple[str, dict[str, Any]] | None = None
        self._runs_in_flight = 0

        self.problem_label = QLabel("No optimisation yet")
        self.problem_label.setObjectName("topopt-problem-label")
        self.problem_label.setStyleSheet("font-weight: bold;")
        self.iteration_label = QLabel("iteration -")
        self.iteration_label.setObjectName("topopt-iteration")
        self.objective_label = QLabel("")
        self.status_label = QLabel("idle")
        self.status_label.setObjectName("topopt-status")
        self.status_label.setWordWrap(True)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("topopt-cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.form = RunForm()
        self.form.run_requested.connect(self.run)

        self.plots = pg.GraphicsLayoutWidget()
        self.plots.setBackground("w")
        self.image_plot = self.plots.addPlot(row=0, col=0)
        self.image_plot.setAspectLocked(True)
        self.image_plot.invertY(True)  # row 0 at the top, as in the design array
        self.image_plot.hideAxis("left")
        self.image_plot.hideAxis("bottom")
        self.image = pg.ImageItem(axisOrder="row-major")
        self.image_plot.addItem(self.image)
        self.colour_bar = pg.ColorBarItem(
            values=(0.0, 1.0), colorMap=DENSITY_COLOURS, label="density", interactive=False
        )
        self.colour_bar.setImageItem(self.image, insert_in=self.image_plot)
        self.curve_plot = self.plots.addPlot(row=1, col=0)
        self.curve_plot.setLabel("bottom", "iteration")
        self.curve_plot.setLabel("left", "objective")
        self.curve_plot.showGrid(x=True, y=True, alpha=0.3)
        self.curve = self.curve_plot.plot([], [], pen=pg.mkPen("#1f6feb", width=2))
        self.plots.ci.layout.setRowStretchFactor(0, 3)
        self.plots.ci.layout.setRowStretchFactor(1, 2)

        header = QHBoxLayout()
        header.addWidget(self.problem_label, 1)
        header.addWidget(self.iteration_label)
        header.addWidget(self.objective_label)
        header.addWidget(self.cancel_button)
        side = QVBoxLayout()
        side.addWidget(self.form)
        side.addWidget(self.status_label)
        side.addStretch(1)
        body = QGridLayout()
        body.addWidget(self.plots, 0, 0)
        body.addLayout(side, 0, 1)
        body.setColumnStretch(0, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addLayout(body, 1)

        subscribe_in_gui(context.bus, JobStarted, self._job_started, self)
        subscribe_in_gui(context.bus, JobProgress, self._job_progress, self)
        subscribe_in_gui(context.bus, JobFinished, self._job_finished, self)
        subscribe_in_gui(context.bus, ToolCalled, self._tool_called, self)
        self.show_last_design()

    # -- following a job ------------------------------------------------------------------------
    def _follow(self, job_id: str, problem_type: str = "") -> None:
        self.job_id = job_id
        self.job_state = "running"
        self.received_iterations, self.drawn_iterations = [], []
        self.dropped_frames = 0
        self._pending = None
        self._curve_x, self._curve_y = [], []
        self.curve.setData([], [])
        self.problem_type = problem_type
        if self._run_config and (not problem_type or self._run_config[0] == problem_type):
            self.problem_type = self._run_config[0]
            self.config_text = describe_config(*self._run_config)
        else:
            self.config_text = problem_type
        self.problem_label.setText(self.config_text or "optimisation")
        self.iteration_label.setText("iteration -")
        self.objective_label.setText("")
        self.status_label.setText(f"{job_id}: running")
        self.cancel_button.setEnabled(True)

    def _job_started(self, event: JobStarted) -> None:
        # optimize_design titles its jobs "optimize <problem>"; other plugins' jobs are not ours
        if event.title.startswith("optimize "):
            self._follow(event.job_id, event.title.removeprefix("optimize ").strip())

    def _job_progress(self, event: JobProgress) -> None:
        if event.message != "iteration" or "design" not in event.data:
            if event.job_id == self.job_id and event.message:
                self.status_label.setText(f"{event.job_id}: {event.message}")
            return
        if event.job_id != self.job_id:
            if self.job_id is not None and self.job_state == "running":
                return  # keep following the run we are on; a second run waits its turn
            self._follow(event.job_id, str(event.data.get("problem_type", "")))
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
        self.image.setImage(design, autoLevels=False, levels=(0.0, 1.0))
        self.image_plot.autoRange(padding=0.02)

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
        job.cancel()

    # -- running from the form ------------------------------------------------------------------
    def run(self, problem_type: str, config: dict[str, Any], seed: int = 0) -> bool:
        """Call optimize_design on the asyncio loop; the job's events then drive the view."""
        self._run_config = (problem_type, dict(config))
        arguments = {"problem_type": problem_type, "problem_config": config, "seed": seed}
        started = _start(self._call_optimize(arguments), "topopt-optimize")
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
        _start(self._load_last_design(), "topopt-last-design")

    async def _load_last_design(self) -> None:
        stored = await asyncio.to_thread(read_last_design, self.context.store)
        if stored is None or not shiboken6.isValid(self) or self.job_state == "running":
            return
        problem_type = str(stored.meta.get("problem_type", ""))
        self.problem_type = problem_type
        self.config_text = describe_config(problem_type, stored.meta.get("config"))
        self.problem_label.setText(f"{self.config_text} — stored design")
        self._show_field(stored.design)
        self._curve_x = list(range(len(stored.history)))
        self._curve_y = list(stored.history)
        self.curve.setData(self._curve_x, self._curve_y)
        if stored.history:
            self.iteration_label.setText(f"{len(stored.history)} iterations")
            self.objective_label.setText(f"objective {stored.history[-1]:.6g}")


def density_view(context: AppContext) -> DensityView:
    return DensityView(context)


# -- STL view ------------------------------------------------------------------------------------
@dataclass
class LoadedMesh:
    """A mesh read and checked off the GUI thread, ready for VTK."""

    name: str
    polydata: Any  # pyvista.PolyData
    triangles: int
    watertight: bool
    winding_consistent: bool
    volume: float | None
    area: float
    bounds: list[list[float]]
    read_s: float
    coarse: Any = None  # a decimated copy drawn while the camera moves (big meshes only)


class MeshLoadError(RuntimeError):
    pass


def load_mesh(path: Path, name: str = "") -> LoadedMesh:
    """Read an STL (also a content-addressed artifact without suffix) and check it; no Qt, no GL.

    trimesh merges the vertices (needed to judge watertightness) with vectorised numpy, so a
    1M-triangle file takes seconds, not minutes; it runs in a worker thread.
    """
    import pyvista as pv
    import trimesh

    started = time.perf_counter()
    try:
        with Path(path).open("rb") as handle:
            mesh = trimesh.load_mesh(handle, file_type="stl")
    except (OSError, ValueError, IndexError, KeyError) as error:
        raise MeshLoadError(f"Cannot read {name or path} as an STL file: {error}") from error
    if not isinstance(mesh, trimesh.Trimesh) or len(mesh.faces) == 0:
        raise MeshLoadError(f"{name or path} holds no triangles.")
    watertight = bool(mesh.is_watertight)
    polydata = pv.PolyData.from_regular_faces(
        np.asarray(mesh.vertices, dtype=np.float32), np.asarray(mesh.faces)
    )
    coarse = None
    if len(mesh.faces) > LOD_TRIANGLES:  # O(n) clustering; keeps rotating usable on software GL
        coarse = _cluster(polydata)
    return LoadedMesh(
        name=name or Path(path).name,
        polydata=polydata,
        triangles=len(mesh.faces),
        watertight=watertight,
        winding_consistent=bool(mesh.is_winding_consistent),
        volume=float(mesh.volume) if watertight else None,
        area=float(mesh.area),
        bounds=[[float(v) for v in row] for row in mesh.bounds],
        read_s=time.perf_counter() - started,
        coarse=coarse,
    )


def _cluster(polydata: Any) -> Any:
    """A ~100k-triangle stand-in (vertex clustering on a grid) for interactive frames."""
    import pyvista as pv
    from vtkmodules.vtkFiltersCore import vtkQuadricClustering

    clustering = vtkQuadricClustering()
    clustering.SetInputData(polydata)
    clustering.SetNumberOfDivisions(LOD_DIVISIONS, LOD_DIVISIONS, LOD_DIVISIONS)
    clustering.Update()
    return pv.wrap(clustering.GetOutput())


class StlView(QWidget):
    """An STL in a VTK interactor with watertightness, volume, bounds and triangle count.

    Follows new exports (ToolCalled for convert_design_to_stl); older STL artifacts are in the
    list, other files come through Open….
    """

    mesh_shown = Signal(str)  # the name of the mesh now on screen
    load_failed = Signal(str)

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        from pyvistaqt import QtInteractor  # here: only the STL view pays for VTK's import

        self.setObjectName("topopt-stl-view")
        self.context = context
        self.loaded: LoadedMesh | None = None
        self.last_show_s = 0.0
        self._artifacts: list[Artifact] = []
        self._loading = 0

        self.artifact_box = QComboBox()
        self.artifact_box.setObjectName("topopt-stl-artifacts")
        self.artifact_box.setMinimumContentsLength(24)
        self.artifact_box.activated.connect(self._artifact_chosen)
        self.open_button = QPushButton("Open…")
        self.open_button.setObjectName("topopt-stl-open")
        self.open_button.clicked.connect(self.choose_file)
        self.stats_label = QLabel("No STL yet: export a design or open a file.")
        self.stats_label.setObjectName("topopt-stl-stats")
        self.stats_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.stats_label.setWordWrap(True)

        self.plotter = QtInteractor(self)
        self.plotter.set_background("white")
        self.plotter.add_axes()

        top = QHBoxLayout()
        top.addWidget(QLabel("STL"))
        top.addWidget(self.artifact_box, 1)
        top.addWidget(self.open_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.plotter, 1)
        layout.addWidget(self.stats_label)

        subscribe_in_gui(context.bus, ToolCalled, self._tool_called, self)
        application = QApplication.instance()
        if application is not None:  # release the GL context before the X connection goes
            application.aboutToQuit.connect(self.close_plotter)
        _start(self._refresh_artifacts(show_newest=True), "topopt-stl-list")

    def close_plotter(self) -> None:
        if shiboken6.isValid(self.plotter):
            self.plotter.close()

    # -- sources --------------------------------------------------------------------------------
    async def _refresh_artifacts(self, show_newest: bool, call_id: int | None = None) -> None:
        found = await asyncio.to_thread(self.context.store.artifacts, STL_KIND)
        if not shiboken6.isValid(self):
            return
        self._artifacts = list(reversed(found))  # newest first
        self.artifact_box.clear()
        for artifact in self._artifacts:
            self.artifact_box.addItem(f"{artifact.name}  (#{artifact.id})")
        wanted = next(
            (a for a in self._artifacts if call_id is None or a.tool_call_id == call_id), None
        )
        if show_newest and wanted is not None:
            self.artifact_box.setCurrentIndex(self._artifacts.index(wanted))
            self.load(wanted.path, wanted.name)

    def _tool_called(self, event: ToolCalled) -> None:
        if event.tool == STL_TOOL and event.ok:
            _start(self._refresh_artifacts(True, event.call_id), "topopt-stl-follow")

    def _artifact_chosen(self, index: int) -> None:
        if 0 <= index < len(self._artifacts):
            artifact = self._artifacts[index]
            self.load(artifact.path, artifact.name)

    def choose_file(self) -> None:
        # a non-modal dialog: no nested event loop, the view keeps updating behind it
        dialog = QFileDialog(self, "Open STL", "", "STL files (*.stl *.STL);;All files (*)")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(self.load_file)
        dialog.open()

    def load_file(self, chosen: str | Path) -> bool:
        """A file from outside the store: the list shows its name instead of an artifact."""
        self.artifact_box.setPlaceholderText(f"file: {Path(chosen).name}")
        self.artifact_box.setCurrentIndex(-1)
        return self.load(Path(chosen))

    # -- loading and showing --------------------------------------------------------------------
    def load(self, path: Path, name: str = "") -> bool:
        """Read and check `path` in a thread, then show it; False if no loop is attached."""
        started = _start(self._load(Path(path), name or Path(path).name), "topopt-stl-load")
        if started:
            self._loading += 1
            self.stats_label.setText(f"Loading {name or Path(path).name}…")
        return started

    async def _load(self, path: Path, name: str) -> None:
        try:
            loaded = await asyncio.to_thread(load_mesh, path, name)
        except MeshLoadError as error:
            if shiboken6.isValid(self):
                self.stats_label.setText(f"{error} Choose another file.")
                self.load_failed.emit(str(error))
            return
        finally:
            self._loading -= 1
        if shiboken6.isValid(self):
            self.show_mesh(loaded)

    def show_mesh(self, loaded: LoadedMesh) -> None:
        started = time.perf_counter()
        self.loaded = loaded
        self.plotter.clear_actors()
        if loaded.coarse is None:
            self.plotter.add_mesh(
                loaded.polydata, color=MESH_COLOUR, name="stl", reset_camera=False
            )
        else:
            self.plotter.add_actor(self._lod_actor(loaded), name="stl", reset_camera=False)
        self.plotter.reset_camera(render=False)
        self.plotter.render()  # one render: on software GL a 1M-triangle frame costs ~1 s
        self.stats_label.setText(self.stats_text(loaded))
        self.last_show_s = time.perf_counter() - started  # GUI-thread cost (GL upload, 1st frame)
        self.mesh_shown.emit(loaded.name)

    @staticmethod
    def _lod_actor(loaded: LoadedMesh) -> Any:
        """Full mesh when still, the clustered copy when the render budget is short (rotating)."""
        from vtkmodules.vtkRenderingCore import vtkPolyDataMapper
        from vtkmodules.vtkRenderingLOD import vtkLODActor

        actor = vtkLODActor()
        for data, add in ((loaded.polydata, actor.SetMapper), (loaded.coarse, actor.AddLODMapper)):
            mapper = vtkPolyDataMapper()
            mapper.SetInputData(data)
            mapper.ScalarVisibilityOff()
            add(mapper)
        colour = QColor(MESH_COLOUR)
        actor.GetProperty().SetColor(colour.redF(), colour.greenF(), colour.blueF())
        return actor

    @staticmethod
    def stats_text(loaded: LoadedMesh) -> str:
        (x0, y0, z0), (x1, y1, z1) = loaded.bounds
        volume = f"{loaded.volume:.6g} mm³" if loaded.volume is not None else "n/a (not closed)"
        closed = "yes" if loaded.watertight else "NO"
        return (
            f"<b>{loaded.name}</b> — watertight: <b>{closed}</b>, "
            f"consistent winding: {'yes' if loaded.winding_consistent else 'no'}, "
            f"triangles: {loaded.triangles:,}, volume: {volume}, "
            f"area: {loaded.area:.6g} mm², bounds: x {x0:g}…{x1:g}, y {y0:g}…{y1:g}, "
            f"z {z0:g}…{z1:g} mm (size {x1 - x0:g} x {y1 - y0:g} x {z1 - z0:g})"
        )


def stl_view(context: AppContext) -> StlView:
    return StlView(context)
