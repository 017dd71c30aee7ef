"""Still frames of a big mesh drawn off the GUI thread, in an offscreen VTK window of its own.

On software GL (llvmpipe) one frame of a 1M-triangle mesh costs 0.2-0.3 s of whoever draws it.
Drawn in the STL view's own window, that is the GUI thread, frozen for as long. An
OffscreenPainter holds a second, offscreen render window with the full mesh on one worker
thread (a GL context belongs to one thread), draws it there for a given camera and window size,
and hands back a ready `vtkTexture` of the picture. VTK releases the GIL while it draws, so the
GUI thread keeps running. The view shows the texture as its background: a 2 MB texture frame
costs a few milliseconds.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Signal

from workbench.ui.bridge import gui_deliver

log = logging.getLogger(__name__)

# what a picture was drawn for: camera position, focal point, view up, view angle, parallel
# projection and scale, window size; a picture is shown only while all of these still hold
ViewKey = tuple[Any, ...]


def view_key(renderer: Any, window: Any) -> ViewKey:
    camera = renderer.GetActiveCamera()
    return (
        camera.GetPosition(),
        camera.GetFocalPoint(),
        camera.GetViewUp(),
        camera.GetViewAngle(),
        camera.GetParallelProjection(),
        camera.GetParallelScale(),
        tuple(window.GetSize()),
    )


@dataclass(frozen=True)
class FullFrame:
    """A picture of the full mesh for `key`, ready for `vtkRenderer.SetBackgroundTexture`."""

    mesh: int  # which mesh (set_mesh call) it shows
    key: ViewKey
    texture: Any  # vtkTexture holding the picture
    render_s: float  # the worker's frame: what the GUI thread did not have to draw


class OffscreenPainter(QObject):
    """Draws the full mesh offscreen on one worker thread; `painted` comes back queued to Qt."""

    painted = Signal(object)  # a FullFrame (emitted from the worker thread)
    failed = Signal(str)  # no offscreen GL here: the view draws the full mesh itself

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="stl-offscreen")
        self._window: Any = None  # vtkRenderWindow, touched only on the worker thread
        self._renderer: Any = None
        self.mesh = 0  # the current mesh's number; pictures of older meshes are dropped
        self.has_mesh = False
        # the GL context first, before the mesh is handed over (StillFrames makes the painter
        # for the first big mesh)
        self._submit(self._open_window)

    def set_mesh(self, polydata: Any, colour: tuple[float, float, float], scene: Any) -> None:
        """Draw `polydata` from now on; the lights and background are copied from `scene`."""
        from vtkmodules.vtkRenderingCore import vtkActor, vtkLight, vtkPolyDataMapper

        self.mesh += 1
        self.has_mesh = True
        mapper = vtkPolyDataMapper()  # built here, first drawn (buffers made) on the worker
        mapper.SetInputData(polydata)
        mapper.ScalarVisibilityOff()
        mapper.StaticOn()  # the mesh never changes: skip its input checks on every frame
        actor = vtkActor()
        actor.SetMapper(mapper)
        actor.GetProperty().SetColor(*colour)
        lights = []
        for light in scene.GetLights():
            copied = vtkLight()
            copied.DeepCopy(light)
            lights.append(copied)
        background = scene.GetBackground()
        self._submit(lambda: self._use_mesh(actor, lights, background))

    def paint(self, key: ViewKey, camera: Any) -> None:
        """Draw the current mesh for `camera` (copied now) and the window size in `key`."""
        from vtkmodules.vtkRenderingCore import vtkCamera

        still = vtkCamera()
        still.DeepCopy(camera)
        mesh = self.mesh
        self._submit(lambda: self._paint(mesh, key, still))

    def forget(self) -> None:
        """Drop the mesh (its GL buffers too): no more pictures of it."""
        self.mesh += 1
        self.has_mesh = False
        self._submit(self._drop_mesh)

    def close(self) -> None:
        """Release the GL context on its own thread, then let the thread end."""
        self.forget()
        self._submit(self._finalize)
        self._executor.shutdown(wait=False)

    # -- on the worker thread ----------------------------------------------------------------
    def _submit(self, work: Callable[[], None]) -> None:
        try:
            future = self._executor.submit(work)
        except RuntimeError:  # closed
            return
        future.add_done_callback(self._report)

    def _report(self, future: Future[None]) -> None:
        error = future.exception()
        if error is not None:
            log.warning("offscreen STL frame failed: %s", error)
            # on the worker: reach this QObject only from the GUI thread (it may be going)
            gui_deliver(self._say_failed, f"offscreen drawing failed: {error}")

    def _say_failed(self, message: str) -> None:
        if shiboken6.isValid(self):
            self.failed.emit(message)

    def _use_mesh(self, actor: Any, lights: list[Any], background: Any) -> None:
        if self._window is None:
            return  # no offscreen GL (`failed` said so)
        self._renderer.RemoveAllViewProps()
        self._renderer.RemoveAllLights()
        for light in lights:
            self._renderer.AddLight(light)
        self._renderer.SetBackground(*background)
        self._renderer.AddActor(actor)

    def _open_window(self) -> None:
        from vtkmodules.vtkRenderingCore import vtkRenderer, vtkRenderWindow

        window = vtkRenderWindow()
        window.SetOffScreenRendering(True)
        window.SetMultiSamples(0)  # as the view draws (4x MSAA is 3-5x slower on llvmpipe)
        if not window.SupportsOpenGL():
            self.failed.emit("no offscreen OpenGL context")
            return
        renderer = vtkRenderer()
        renderer.AutomaticLightCreationOff()
        window.AddRenderer(renderer)
        window.SetSize(16, 16)
        window.Render()  # the context is made here, on this thread, which keeps it
        self._window, self._renderer = window, renderer

    def _paint(self, mesh: int, key: ViewKey, camera: Any) -> None:
        from vtkmodules.vtkCommonCore import vtkUnsignedCharArray
        from vtkmodules.vtkCommonDataModel import vtkImageData
        from vtkmodules.vtkRenderingCore import vtkTexture

        if mesh != self.mesh or self._window is None:
            return  # a newer mesh came meanwhile, or no GL here
        started = time.perf_counter()
        width, height = key[-1]
        self._window.SetSize(width, height)
        self._renderer.GetActiveCamera().DeepCopy(camera)
        self._renderer.ResetCameraClippingRange()
        self._window.Render()
        pixels = vtkUnsignedCharArray()
        self._window.GetPixelData(0, 0, width - 1, height - 1, False, pixels, False)
        picture = vtkImageData()
        picture.SetDimensions(width, height, 1)
        picture.GetPointData().SetScalars(pixels)
        texture = vtkTexture()
        texture.SetInputData(picture)
        texture.InterpolateOff()  # pixel for pixel
        self.painted.emit(FullFrame(mesh, key, texture, time.perf_counter() - started))

    def _drop_mesh(self) -> None:
        if self._renderer is not None:
            self._renderer.RemoveAllViewProps()

    def _finalize(self) -> None:
        if self._window is not None:
            self._renderer.RemoveAllViewProps()
            self._window.Finalize()
            self._window = self._renderer = None
