"""The STL view: an exported or opened STL in a pyvistaqt interactor, with its stats.

Files are read and checked in threads (mesh_loading.py); the GUI thread only hands finished
`pyvista.PolyData` to VTK and draws. A big mesh (over PREVIEW_ABOVE triangles) comes in three
steps, each a signal: `preview_shown` (a ~37k-triangle clustered copy, a 40-75 ms frame),
`full_mesh_shown` (the whole mesh on screen) and `mesh_shown` (its checks in the stats line).

The GUI thread draws no big mesh while it rests: the preview's and the full mesh's still frames
are drawn off the GUI thread and shown as a picture (stl_stills.py); only while the camera moves
does it draw the coarse copy. Without offscreen GL it draws them itself, as before (the full
mesh then costs it 0.2-0.3 s a frame on software GL). stl_open_bench.py measures all this
against bare pyvista.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.context import AppContext
from workbench.core.events import ToolCalled
from workbench.core.store import Artifact
from workbench.ui.bridge import subscribe_in_gui
from workbench_plugins.topopt.views.frame_watch import FrameWatch
from workbench_plugins.topopt.views.gui_tasks import start_gui_task
from workbench_plugins.topopt.views.mesh_loading import (
    PREVIEW_ABOVE,
    LoadedMesh,
    MeshLoadError,
    PreviewMesh,
    check_mesh,
    open_stl,
    read_full,
    read_preview,
)
from workbench_plugins.topopt.views.stl_stills import StillFrames

STL_KIND = "stl"
STL_TOOL = "convert_design_to_stl"
MESH_COLOUR = "#8fb3d9"
# the full mesh waits at most this long for the preview's frame, the checks for the full one's
STEP_WAIT_S = 3.0


class StlView(QWidget):
    """An STL in a VTK interactor with watertightness, volume, bounds and triangle count.

    Follows new exports (ToolCalled for convert_design_to_stl); older STL artifacts are in the
    list, other files come through Open….
    """

    preview_shown = Signal(str)  # a big mesh's coarse copy is on screen
    full_mesh_shown = Signal(str)  # the whole mesh is on screen; its checks are still running
    mesh_shown = Signal(str)  # the whole mesh and its stats are shown (the name)
    load_failed = Signal(str)

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        from pyvistaqt import QtInteractor  # here: only the STL view pays for VTK's import

        self.setObjectName("topopt-stl-view")
        self.context = context
        self.loaded: LoadedMesh | None = None
        self.preview: PreviewMesh | None = None  # the last preview drawn
        self.full_polydata: Any = None  # the last full mesh drawn (pyvista.PolyData)
        # GUI-thread seconds of the last load's steps ("preview", "full"): setup + their frame
        self.gui_steps: dict[str, float] = {}
        self.gui_frames: dict[str, float] = {}  # of which the step's on-screen frame
        self.last_show_s = 0.0  # GUI-thread seconds of the last full-mesh swap (its 1st frame)
        self._full_pending: str | None = None  # the name, until the full mesh is first on screen
        self._after_full: list[Any] = []  # callbacks waiting for the full mesh on screen
        self._step_up: dict[str, asyncio.Event] = {}  # "preview", "full": set once on screen
        # what is drawn off the GUI thread (step, name, mesh, coarse copy): for a fallback
        self._offscreen: tuple[str, str, Any, Any] | None = None
        self._artifacts: list[Artifact] = []
        self._generation = 0  # which load is current; older ones' results are dropped

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
        # room for three lines from the start: a label growing from one line to two would
        # shrink the render area, and VTK redraws the whole mesh on that resize (~0.5 s for 1M)
        self.stats_label.setMinimumHeight(3 * self.stats_label.fontMetrics().lineSpacing() + 4)
        self.stats_label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)

        # auto_update off: pyvistaqt otherwise redraws the whole scene 5 times a second, which
        # with a 1M-triangle mesh on software GL (0.3-1 s a frame) keeps the GUI frozen; this
        # view draws after each change itself, and the interactor draws while the camera moves.
        # No multisampling: on software GL (llvmpipe) 4x MSAA makes a 1M-triangle frame 3-5x
        # slower (1.3 s instead of 0.3 s) and an 80k-triangle preview frame miss 50 ms.
        self.plotter = QtInteractor(self, multi_samples=0, auto_update=False)
        self.plotter.setObjectName("topopt-stl-plotter")
        # pyvista types these decorated methods as unbound (_Wrapped): a quirk of its hints
        self.plotter.set_background("white")  # type: ignore[arg-type]
        self.plotter.add_axes()  # type: ignore[call-arg]
        self.frame_watch = FrameWatch(self.plotter)
        self.stills = StillFrames(self.plotter, self._picture_shown)
        self.stills.failed.connect(self._stills_failed)

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
        start_gui_task(self._refresh_artifacts(show_newest=True), "topopt-stl-list")

    def close_plotter(self) -> None:
        self.stills.close()
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
            start_gui_task(self._refresh_artifacts(True, event.call_id), "topopt-stl-follow")

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
        """Read and check `path` in threads, then show it; False if no loop is attached.

        A newer load supersedes an older one still running: its results are dropped.
        """
        self._generation += 1
        label = name or Path(path).name
        started = start_gui_task(self._load(Path(path), label, self._generation), "topopt-stl-load")
        if started:
            self.gui_steps, self.gui_frames = {}, {}
            self.stats_label.setText(f"Loading {label}…")
            self.stills.forget()
            self._after_full = []
            if self.full_polydata is not None and self.full_polydata.n_cells > PREVIEW_ABOVE:
                # the old big mesh goes at once: otherwise every repaint meanwhile (the file
                # dialog closing over the view) redraws it, ~0.5-1 s each on software GL
                self.plotter.clear_actors()
                self.full_polydata = None
        return started

    async def _load(self, path: Path, name: str, generation: int) -> None:
        try:
            source = await asyncio.to_thread(open_stl, path, name)
            started = time.perf_counter()
            # the full read and the preview run side by side: neither waits for the other
            full_read = asyncio.ensure_future(asyncio.to_thread(read_full, source))
            try:
                preview = await asyncio.to_thread(read_preview, source)
            except BaseException:
                full_read.add_done_callback(_drop_outcome)  # no "exception never retrieved"
                raise
            # always preview first, also when the full read won the race: a big mesh appears
            # in the same two steps every time, and the preview frame is cheap (40-75 ms)
            if preview is not None and self._current(generation):
                self._step_up = {"preview": asyncio.Event(), "full": asyncio.Event()}
                self._show_preview(preview)
                await self._step_shown("preview")
            polydata = await full_read
            if not self._current(generation):
                return
            coarse = preview.polydata if preview is not None else None
            self._show_full(source.name, polydata, coarse, fit_camera=preview is None)
            read_s = time.perf_counter() - started
            # the checks start once the full mesh is drawn: on two cores they slowed its drawing
            await self._step_shown("full")
            loaded = await asyncio.to_thread(check_mesh, source, polydata, read_s, coarse)
        except MeshLoadError as error:
            if self._current(generation):
                self.stats_label.setText(f"{error} Choose another file.")
                self.load_failed.emit(str(error))
            return
        if self._current(generation):
            self._show_stats(loaded)

    async def _step_shown(self, step: str) -> None:
        """Until `step` is on screen (at most STEP_WAIT_S: never held up by a lost frame)."""
        shown = self._step_up.get(step)
        if shown is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(shown.wait(), STEP_WAIT_S)

    def _current(self, generation: int) -> bool:
        return shiboken6.isValid(self) and generation == self._generation

    def _show_preview(self, preview: PreviewMesh) -> None:
        """The coarse copy: drawn off the GUI thread, or (no offscreen GL) one cheap frame."""
        started = time.perf_counter()
        self.preview = preview
        self.plotter.clear_actors()
        self.plotter.renderer.SetUseFXAA(False)  # big mesh: every millisecond of a frame counts
        # a plain VTK actor: pyvista's add_mesh spends ~15 ms of the GUI thread on checks
        stl = mesh_actor(preview.polydata)
        self.plotter.add_actor(stl, name="stl", reset_camera=False, render=False)
        self.plotter.renderer.reset_camera(render=False)
        self.stats_label.setText(
            f"<b>{preview.name}</b> — preview: {preview.polydata.n_cells:,} of "
            f"{preview.file_triangles:,} triangles; reading the full mesh…"
        )
        if self.stills.active:
            self._offscreen = ("preview", preview.name, preview.polydata, preview.polydata)
            self.stills.draw("preview", preview.polydata, mesh_rgb())
        else:
            self._announce_after_frame("preview", preview.name, time.perf_counter() - started)

    def _show_full(self, name: str, polydata: Any, coarse: Any, fit_camera: bool) -> None:
        """Show the full mesh (the camera stays where the person put it on the preview).

        A big mesh (one with a coarse copy) is drawn off the GUI thread; only without offscreen
        GL does the GUI thread draw it: 0.2-0.3 s a frame on software GL, ms on a GPU.
        """
        started = time.perf_counter()
        self.full_polydata = polydata
        self._full_pending = name
        if fit_camera:  # a new file, not the preview's full version
            self.stills.forget()
            self.plotter.clear_actors()
        # smooth edges (FXAA, ~20 ms a frame on software GL) only where frames are cheap
        self.plotter.renderer.SetUseFXAA(polydata.n_cells <= PREVIEW_ABOVE)
        self.stats_label.setText(
            f"<b>{name}</b> — triangles: {polydata.n_cells:,}; checking watertightness…"
        )
        if coarse is not None and self.stills.active:
            if "stl" not in self.plotter.actors:  # drawn while the camera moves
                stl = mesh_actor(coarse)
                self.plotter.add_actor(stl, name="stl", reset_camera=False, render=False)
            if fit_camera:
                self.plotter.renderer.reset_camera(render=False)
            self._offscreen = ("full", name, polydata, coarse)
            self.stills.draw("full", polydata, mesh_rgb())
            return
        if coarse is None:
            self.plotter.add_mesh(polydata, color=MESH_COLOUR, name="stl", render=False)
        else:
            actor = lod_actor(polydata, coarse)
            self.plotter.add_actor(actor, name="stl", reset_camera=False, render=False)
        if fit_camera:  # Plotter.reset_camera would render: the renderer's own does not
            self.plotter.renderer.reset_camera(render=False)
        self._announce_after_frame("full", name, time.perf_counter() - started)

    def _picture_shown(self, step: str, gui_s: float) -> None:
        """A step's first picture drawn off the GUI thread is set: announce it once drawn."""
        if self._offscreen is not None and self._offscreen[0] == step:
            self._announce_after_frame(step, self._offscreen[1], gui_s)

    def _stills_failed(self, message: str) -> None:
        """No offscreen GL here: the GUI thread draws the mesh itself from now on."""
        self.stats_label.setToolTip(f"The mesh is drawn on the GUI thread: {message}.")
        if self._offscreen is None or not shiboken6.isValid(self):
            return
        step, name, polydata, coarse = self._offscreen
        self._offscreen = None
        if step == "preview":
            self._announce_after_frame("preview", name, 0.0)
        else:
            waiting = self._after_full
            self._show_full(name, polydata, coarse, fit_camera=False)
            self._after_full = waiting  # the stats still wait for the full mesh

    def _announce_after_frame(self, step: str, name: str, setup_s: float) -> None:
        """Emit the step's signal once its frame is drawn (`plotter.render()` would draw twice:
        pyvistaqt's widget always renders again in its paint)."""
        generation = self._generation

        def drawn(frame_s: float) -> None:
            if not shiboken6.isValid(self) or generation != self._generation:
                return
            self.gui_steps[step] = setup_s + frame_s
            self.gui_frames[step] = frame_s
            if step in self._step_up:
                self._step_up[step].set()
            if step != "full":
                self.preview_shown.emit(name)
                return
            self.last_show_s = setup_s + frame_s
            self._full_pending = None
            self.full_mesh_shown.emit(name)
            waiting, self._after_full = self._after_full, []
            for callback in waiting:
                callback()

        self.frame_watch.after_next_frame(drawn)

    def _show_stats(self, loaded: LoadedMesh) -> None:
        self.loaded = loaded
        self.stats_label.setText(self.stats_text(loaded))
        generation = self._generation

        def after_full_frame(_frame_s: float = 0.0) -> None:  # never before full_mesh_shown
            if shiboken6.isValid(self) and generation == self._generation:
                self.mesh_shown.emit(loaded.name)

        if self._full_pending is not None:  # still being drawn off the GUI thread
            self._after_full.append(after_full_frame)
        else:
            self.frame_watch.after_pending_frame(after_full_frame)

    def show_mesh(self, loaded: LoadedMesh) -> None:
        """Show a mesh already read and checked (e.g. by `load_mesh`), in one step."""
        self._generation += 1  # a load still running must not replace it
        self._show_full(loaded.name, loaded.polydata, loaded.coarse, fit_camera=True)
        self._show_stats(loaded)

    @staticmethod
    def stats_text(loaded: LoadedMesh) -> str:
        (x0, y0, z0), (x1, y1, z1) = loaded.bounds
        volume = f"{loaded.volume:.6g} mm³" if loaded.volume is not None else "n/a (not closed)"
        closed = "yes" if loaded.watertight else "NO"
        degenerate = loaded.triangles - loaded.polydata.n_cells  # VTK's reader drops them
        skipped = f" ({degenerate:,} degenerate, not drawn)" if degenerate > 0 else ""
        return (
            f"<b>{loaded.name}</b> — watertight: <b>{closed}</b>, "
            f"consistent winding: {'yes' if loaded.winding_consistent else 'no'}, "
            f"triangles: {loaded.triangles:,}{skipped}, volume: {volume}, "
            f"area: {loaded.area:.6g} mm², bounds: x {x0:g}…{x1:g}, y {y0:g}…{y1:g}, "
            f"z {z0:g}…{z1:g} mm (size {x1 - x0:g} x {y1 - y0:g} x {z1 - z0:g})"
        )


def _drop_outcome(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


def mesh_rgb() -> tuple[float, float, float]:
    colour = QColor(MESH_COLOUR)
    return colour.redF(), colour.greenF(), colour.blueF()


def mesh_actor(polydata: Any) -> Any:
    """A plain actor drawing `polydata` in the mesh colour."""
    from vtkmodules.vtkRenderingCore import vtkActor, vtkPolyDataMapper

    mapper = vtkPolyDataMapper()
    mapper.SetInputData(polydata)
    mapper.ScalarVisibilityOff()
    actor = vtkActor()
    actor.SetMapper(mapper)
    actor.GetProperty().SetColor(*mesh_rgb())
    return actor


def lod_actor(full: Any, coarse: Any) -> Any:
    """Full mesh when still, the coarse copy when the render budget is short (rotating)."""
    from vtkmodules.vtkRenderingCore import vtkPolyDataMapper
    from vtkmodules.vtkRenderingLOD import vtkLODActor

    actor = vtkLODActor()
    for data, add in ((full, actor.SetMapper), (coarse, actor.AddLODMapper)):
        mapper = vtkPolyDataMapper()
        mapper.SetInputData(data)
        mapper.ScalarVisibilityOff()
        add(mapper)
    actor.GetProperty().SetColor(*mesh_rgb())
    return actor


def stl_view(context: AppContext) -> StlView:
    return StlView(context)
