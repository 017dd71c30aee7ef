"""A big mesh's still frames, drawn off the GUI thread, shown in the STL view's interactor.

The on-screen renderer keeps the coarse copy (drawn while the camera moves: ~37k triangles,
20-40 ms a frame on software GL) and, when the camera rests, shows a picture the
OffscreenPainter drew of the mesh for exactly that camera and window size, as the renderer's
background texture (5-20 ms a frame). Before each on-screen frame it checks that the picture
still fits the camera; if not, the coarse copy comes back and a new picture is asked for once
the camera has rested REDRAW_AFTER_MS.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from workbench_plugins.topopt.views.stl_offscreen import (
    FullFrame,
    OffscreenPainter,
    ViewKey,
    view_key,
)

REDRAW_AFTER_MS = 150  # the camera rests this long: draw the mesh again for the new view
COARSE = "stl"  # the on-screen actor (the view adds it)
STAND_IN = "stl-bounds"  # see-through stand-in for the coarse copy's bounds

# called with (step, GUI-thread seconds spent on it) once a step's first picture is set
PictureShown = Callable[[str, float], None]


class StillFrames(QObject):
    """Shows `plotter`'s current mesh through pictures drawn offscreen (see module doc)."""

    failed = Signal(str)  # no offscreen GL: the view must draw the mesh itself

    def __init__(self, plotter: Any, on_shown: PictureShown) -> None:
        super().__init__(plotter)
        self.plotter = plotter
        self.on_shown = on_shown
        # made for the first big mesh, not before: its offscreen GL window holds the GIL while
        # VTK makes it (40-90 ms, 130-190 ms on a busy machine), and a small mesh never needs it
        self.painter: OffscreenPainter | None = None
        self._closed = False  # closed, or no offscreen GL here: the view draws meshes itself
        self.render_s = 0.0  # the worker's last frame: what the GUI thread did not draw
        self.frame: FullFrame | None = None  # the picture on screen, if any
        self.step: str | None = None  # the step being drawn, until its first picture is up
        self._step_setup_s = 0.0
        self._asked: ViewKey | None = None  # the view last asked of the worker
        self._redraw = QTimer(self)
        self._redraw.setSingleShot(True)
        self._redraw.setInterval(REDRAW_AFTER_MS)
        self._redraw.timeout.connect(self._ask)
        plotter.render_window.AddObserver("StartEvent", self._frame_starting)

    @property
    def active(self) -> bool:
        return not self._closed

    def draw(self, step: str, polydata: Any, colour: tuple[float, float, float]) -> None:
        """Draw `polydata` offscreen from now on; `on_shown(step, …)` once its picture is up.

        The view has put the coarse copy on screen as COARSE; it stays hidden until the camera
        moves, so the GUI thread draws no mesh at all meanwhile.
        """
        started = time.perf_counter()
        # the picture on screen (the preview's, for the full mesh) stays until the new one
        self._asked = None
        self._redraw.stop()
        if self._closed:
            return
        if self.painter is None:
            self.painter = OffscreenPainter(self)
            self.painter.painted.connect(self._painted)
            self.painter.failed.connect(self._painter_failed)
        stand_in = bounds_stand_in(polydata.GetBounds())
        self.plotter.add_actor(stand_in, name=STAND_IN, reset_camera=False, render=False)
        self._coarse_visible(False)
        self.painter.set_mesh(polydata, colour, self.plotter.renderer)
        self.step = step
        self._step_setup_s = time.perf_counter() - started
        self._ask()

    def forget(self) -> None:
        """No picture of an older mesh stays up, nor is asked for again."""
        self._asked = None
        self.step = None
        self._redraw.stop()
        if self.painter is not None:
            self.painter.forget()
        if self.frame is not None:
            self.frame = None
            self.plotter.renderer.TexturedBackgroundOff()

    def close(self) -> None:
        self.forget()
        self._closed = True
        if self.painter is not None:
            self.painter.close()
            self.painter = None

    def _ask(self) -> None:
        if self.painter is None or not self.painter.has_mesh:
            return
        key = self._current_key()
        if key != self._asked:  # not already being drawn
            self._asked = key
            self.painter.paint(key, self.plotter.renderer.GetActiveCamera())

    def _painted(self, frame: FullFrame) -> None:
        """The worker's picture: shown if the camera did not move meanwhile (a cheap frame)."""
        if self.painter is None or frame.mesh != self.painter.mesh:
            return  # an older mesh's
        if frame.key != self._current_key():
            self._redraw.start()  # moved meanwhile: draw again once it rests
            return
        started = time.perf_counter()
        self.render_s = frame.render_s
        self.plotter.renderer.SetBackgroundTexture(frame.texture)
        self.plotter.renderer.TexturedBackgroundOn()
        self._coarse_visible(False)
        self.frame = frame
        step, self.step = self.step, None
        if step is None:
            self.plotter.update()  # a redraw after the camera moved
        else:  # the view asks for the frame and announces the step once it is drawn
            self.on_shown(step, self._step_setup_s + time.perf_counter() - started)

    def _frame_starting(self, *_: object) -> None:
        """Before each on-screen frame: has the camera left the picture? Coarse copy, redraw."""
        if self.painter is None or not self.painter.has_mesh:
            return
        key = self._current_key()
        if self.frame is not None and key == self.frame.key:
            return
        if self.frame is not None:
            self.frame = None
            self.plotter.renderer.TexturedBackgroundOff()
        if key != self._asked:  # the camera moved: the coarse copy until it rests
            self._coarse_visible(True)
            self._redraw.start()  # restarted by every frame while it moves

    def _current_key(self) -> ViewKey:
        return view_key(self.plotter.renderer, self.plotter.render_window)

    def _coarse_visible(self, visible: bool) -> None:
        """The coarse copy, or in its place a see-through stand-in for its bounds, which camera
        resets and clipping ranges take from what is visible. (A hidden but see-through coarse
        copy would cost ~25 ms a frame on llvmpipe, the stand-in ~10.)"""
        for name, shown in ((COARSE, visible), (STAND_IN, not visible)):
            actor = self.plotter.actors.get(name)
            if actor is not None:
                actor.SetVisibility(shown)
        if visible:
            self.plotter.renderer.ResetCameraClippingRange()

    def _painter_failed(self, message: str) -> None:
        if self.painter is None:
            return
        self.close()
        self._coarse_visible(True)
        self.failed.emit(message)


def bounds_stand_in(bounds: tuple[float, ...]) -> Any:
    """A see-through actor of two points at opposite corners of `bounds` (plain VTK: pyvista's
    add_mesh costs ~15 ms of checks on the GUI thread)."""
    from vtkmodules.vtkCommonCore import vtkPoints
    from vtkmodules.vtkCommonDataModel import vtkCellArray, vtkPolyData
    from vtkmodules.vtkRenderingCore import vtkActor, vtkPolyDataMapper

    x0, x1, y0, y1, z0, z1 = bounds
    points = vtkPoints()
    vertices = vtkCellArray()
    for corner in ((x0, y0, z0), (x1, y1, z1)):
        vertices.InsertNextCell(1)
        vertices.InsertCellPoint(points.InsertNextPoint(*corner))
    corners = vtkPolyData()
    corners.SetPoints(points)
    corners.SetVerts(vertices)
    mapper = vtkPolyDataMapper()
    mapper.SetInputData(corners)
    actor = vtkActor()
    actor.SetMapper(mapper)
    actor.GetProperty().SetOpacity(0.0)
    actor.PickableOff()
    return actor
