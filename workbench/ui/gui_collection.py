"""Python's cyclic garbage collector run on the GUI thread only.

A collection starts on whichever thread happens to allocate when a threshold is crossed: a worker
thread (a tool, a model load, an import) then destroys the Qt objects held in garbage cycles
(closed views, dialogs), and Qt objects destroyed off the GUI thread while it paints or handles
events crash the interpreter (seen as segfaults in pytest-qt's event processing). So automatic
collection is off while the GUI runs and a timer on the GUI thread collects instead.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

YOUNG_EVERY_MS = 500  # the youngest generation: cheap, most cycles die young
FULL_EVERY = 120  # ticks between full collections (about a minute)


class GuiCollection(QObject):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ticks = 0
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.collect)
        gc.disable()
        self._timer.start(YOUNG_EVERY_MS)

    def collect(self) -> None:
        self._ticks += 1
        gc.collect(2 if self._ticks % FULL_EVERY == 0 else 0)

    def stop(self) -> None:
        self._timer.stop()
        gc.enable()
