"""Qt's Python types made ahead, one module per call, for `ViewSpec.gui_imports`.

PySide6 makes a class's Python type (and its enums) when the class is first used. pyqtgraph
copies every name of QtCore, QtGui and QtWidgets when it is imported, so its import made all of
them in one turn of the GUI thread: with pyqtgraph's own import, 130-220 ms. Listed before
"pyqtgraph" in a view's `gui_imports` (`workbench.core.plugins.PLOT_GUI_IMPORTS`), each of these
takes one turn (about 25 ms each on a 2-core machine), and pyqtgraph's import then 65 ms.
"""

from __future__ import annotations

from types import ModuleType

from PySide6 import QtCore, QtGui, QtWidgets


def _make_types(module: ModuleType) -> None:
    for name in dir(module):
        getattr(module, name)


def qtcore() -> None:
    _make_types(QtCore)


def qtgui() -> None:
    _make_types(QtGui)


def qtwidgets() -> None:
    _make_types(QtWidgets)
