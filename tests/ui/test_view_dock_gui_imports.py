"""A view's `gui_imports` (Qt-side modules it needs, imported on the GUI thread, or functions that
prepare them: "module:function") run one per turn of the event loop, before the view's own
module: the window paints between two of them instead of freezing for their sum (pyvistaqt's
qtpy modules: 50-75 ms each; Qt's types for pyqtgraph: 25 ms a module)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QMainWindow
from pytestqt.qtbot import QtBot

from workbench.core.context import AppContext
from workbench.core.plugins import Plugin, ViewSpec
from workbench.ui.view_docks import ViewDock

RECORD = "gui_import_record"
MODULES = ("gui_import_first", "gui_import_second", "gui_import_view")


@pytest.fixture
def importable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Three modules that note in `events` when they are imported; the last makes a view."""
    events: list[str] = []
    record = type(sys)(RECORD)
    record.events = events  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, RECORD, record)
    for name in MODULES:
        (tmp_path / f"{name}.py").write_text(
            f"import {RECORD}\n{RECORD}.events.append({name!r})\n", encoding="utf-8"
        )
    (tmp_path / "gui_import_second.py").write_text(  # a step that is a function, called once
        f"import {RECORD}\ndef step():\n    {RECORD}.events.append('gui_import_second')\n",
        encoding="utf-8",
    )
    (tmp_path / "gui_import_view.py").write_text(
        f"import {RECORD}\n{RECORD}.events.append('gui_import_view')\n"
        "from PySide6.QtWidgets import QLabel\n"
        "def make(context):\n    return QLabel('made')\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield events
    for name in MODULES:
        sys.modules.pop(name, None)


def test_gui_imports_come_one_per_turn_before_the_views_module(
    importable: list[str], context: AppContext, qtbot: QtBot
) -> None:
    spec = ViewSpec(
        "test.gui-imports",
        "GUI imports",
        "gui_import_view:make",
        gui_imports=("gui_import_first", "gui_import_second:step"),
    )
    plugin = Plugin(name="test", title="Test", description="", views=(spec,))
    window = QMainWindow()
    qtbot.addWidget(window)
    turns = QTimer(window)
    turns.timeout.connect(lambda: importable.append("turn"))
    turns.start(0)
    dock = ViewDock(plugin, spec, context, window)
    dock.build()
    qtbot.waitUntil(lambda: dock.view is not None)
    turns.stop()
    order = list(importable)
    first, second, view = (order.index(name) for name in MODULES)
    assert first < second < view
    assert "turn" in order[first:second], order  # the event loop ran between the two imports
    assert dock.view.text() == "made"  # type: ignore[attr-defined]
