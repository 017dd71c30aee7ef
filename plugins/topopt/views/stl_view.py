"""The STL view: an exported or opened STL in a pyvistaqt interactor, with its stats.

Files are read and checked in a thread (mesh_loading.py); only the finished `pyvista.PolyData`
is handed to VTK on the GUI thread.
"""

from __future__ import annotations

import asyncio
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
from workbench_plugins.topopt.views.gui_tasks import start_gui_task
from workbench_plugins.topopt.views.mesh_loading import LoadedMesh, MeshLoadError, load_mesh

STL_KIND = "stl"
STL_TOOL = "convert_design_to_stl"
MESH_COLOUR = "#8fb3d9"


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
        # pyvista types these decorated methods as unbound (_Wrapped): a quirk of its hints
        self.plotter.set_background("white")  # type: ignore[arg-type]
        self.plotter.add_axes()  # type: ignore[call-arg]

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
        """Read and check `path` in a thread, then show it; False if no loop is attached."""
        started = start_gui_task(self._load(Path(path), name or Path(path).name), "topopt-stl-load")
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
        self.plotter.reset_camera(render=False)  # type: ignore[call-arg]  # pyvista's _Wrapped
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
