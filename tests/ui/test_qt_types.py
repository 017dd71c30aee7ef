"""workbench.ui.qt_types makes Qt's Python types ahead, one module per call: afterwards using any
name of that module makes no new type (what pyqtgraph's import would otherwise do all at once)."""

from __future__ import annotations

from types import ModuleType

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from workbench.ui import qt_types


@pytest.mark.parametrize(
    ("make", "module"),
    [(qt_types.qtcore, QtCore), (qt_types.qtgui, QtGui), (qt_types.qtwidgets, QtWidgets)],
    ids=["QtCore", "QtGui", "QtWidgets"],
)
def test_every_name_of_the_module_is_made(make: object, module: ModuleType) -> None:
    make()  # type: ignore[operator]
    made = vars(module)  # what PySide6 has made is in the module's namespace
    missing = [name for name in dir(module) if name not in made and not name.startswith("__")]
    assert not missing, missing[:10]
