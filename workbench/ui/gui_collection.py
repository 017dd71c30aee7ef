"""Python's cyclic garbage collector run on the GUI thread only, in steps short enough not to
freeze the window.

A collection starts on whichever thread happens to allocate when a threshold is crossed: a worker
thread (a tool, a model load, an import) then destroys the Qt objects held in garbage cycles
(closed views, dialogs), and Qt objects destroyed off the GUI thread while it paints or handles
events crash the interpreter (seen as segfaults in pytest-qt's event processing). So automatic
collection is off while the GUI runs and a timer on the GUI thread collects instead.

A collection holds the GIL while it scans every object of its generations, and the libraries a
session loads (VTK, LangChain, the MCP server, trimesh) make hundreds of thousands: a full scan
of them froze the window for 150-300 ms. What an import makes (modules, classes, functions) lives
as long as the process, so after a tick that saw new modules the collector freezes every object
it still tracks (`gc.freeze`): later collections never scan them again. The price: a cycle that
is garbage at that moment, or becomes garbage later among the frozen objects, is never
reclaimed. That happens only at ticks where modules were imported, which are few and bounded
(each module is imported once per process).
"""

from __future__ import annotations

import gc
import sys

from PySide6.QtCore import QObject, QTimer

TICK_MS = 100  # the youngest generation, often, so each scan is short
MIDDLE_EVERY = 10  # ticks between collections of the middle generation (a second)
FULL_EVERY = 600  # ticks between full collections (a minute); they scan what is not frozen


class GuiCollection(QObject):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ticks = 0
        self._modules = len(sys.modules)
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.collect)
        gc.disable()
        gc.freeze()  # what start-up imported
        self._timer.start(TICK_MS)

    def collect(self) -> None:
        self._ticks += 1
        imported = len(sys.modules) != self._modules
        if self._ticks % FULL_EVERY == 0:
            gc.collect(2)
        elif imported or self._ticks % MIDDLE_EVERY == 0:
            gc.collect(1)
        else:
            gc.collect(0)
        if imported:  # what the imports made outlives any collection: never scan it again
            self._modules = len(sys.modules)
            gc.freeze()

    def stop(self) -> None:
        self._timer.stop()
        gc.enable()
