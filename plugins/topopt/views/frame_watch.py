"""Knowing when a change in a pyvistaqt view is really on screen: after VTK drew a frame.

pyvistaqt's widget renders inside its Qt paint (a QOpenGLWidget), and Qt may hold a paint back
until the window's previous frame is out, so `repaint()` returning does not mean "drawn". A
FrameWatch asks for a paint and calls back once VTK's render window has finished the next frame
(its EndEvent), with that frame's duration: the GUI-thread cost of showing the change.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer

# Without a GL context (no display, a hidden window) no frame comes: then call back anyway.
FRAME_WAIT_LIMIT_MS = 2000

FrameCallback = Callable[[float], None]  # gets the frame's duration in seconds


class FrameWatch(QObject):
    """Call back after the next frame of `plotter` (a pyvistaqt QtInteractor) is drawn."""

    def __init__(self, plotter: Any) -> None:
        super().__init__(plotter)
        self.plotter = plotter
        self.frames = 0  # frames drawn since the watch began
        self._waiting: list[FrameCallback] = []
        self._request = 0  # which request a give-up timer belongs to
        self._frame_started = 0.0
        window = plotter.render_window
        window.AddObserver("StartEvent", self._started)
        window.AddObserver("EndEvent", self._ended)

    def after_next_frame(self, callback: FrameCallback) -> None:
        """Ask for a frame and call `callback(frame_seconds)` once it is drawn."""
        if not self.plotter.isVisible():
            callback(0.0)  # nothing will be drawn until the view is shown
            return
        self._waiting.append(callback)
        self._request += 1
        request = self._request
        self.plotter.update()
        QTimer.singleShot(FRAME_WAIT_LIMIT_MS, self, lambda: self._give_up(request))

    def after_pending_frame(self, callback: FrameCallback) -> None:
        """Call back after the frame already asked for, or now if none is pending."""
        if self._waiting:
            self._waiting.append(callback)
        else:
            callback(0.0)

    def _started(self, *_: object) -> None:
        self._frame_started = time.perf_counter()

    def _ended(self, *_: object) -> None:
        self.frames += 1
        seconds = time.perf_counter() - self._frame_started
        # called back from the event loop, not from inside VTK's render (Qt's paint)
        self._call_back(seconds, deferred=True)

    def _give_up(self, request: int) -> None:
        if request == self._request:  # a later request has a timer of its own
            self._call_back(0.0, deferred=False)

    def _call_back(self, seconds: float, deferred: bool) -> None:
        waiting, self._waiting = self._waiting, []
        if not waiting:
            return
        if deferred:
            QTimer.singleShot(0, self, lambda: self._run(waiting, seconds))
        else:
            self._run(waiting, seconds)

    @staticmethod
    def _run(callbacks: list[FrameCallback], seconds: float) -> None:
        for callback in callbacks:  # in the order asked: preview before full before stats
            callback(seconds)
