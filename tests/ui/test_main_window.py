"""The main window: its parts, plugin views from the Views menu, notices, a lasting layout."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QLabel
from pytestqt.qtbot import QtBot

from tests.ui import views_for_tests
from workbench.core.context import AppContext
from workbench.core.plugins import Plugin, ViewSpec
from workbench.ui.jobs_widget import JobsWidget
from workbench.ui.main_window import MainWindow

WindowFactory = Callable[..., MainWindow]


def test_window_has_chat_ledger_and_jobs(open_window: WindowFactory) -> None:
    window = open_window()
    assert window.findChild(QDockWidget, "chat-dock") is window.chat_dock
    assert window.findChild(QDockWidget, "ledger-dock") is window.ledger_dock
    assert window.dockWidgetArea(window.chat_dock) == Qt.DockWidgetArea.LeftDockWidgetArea
    assert window.chat_dock.isVisible() and window.ledger_dock.isVisible()
    jobs = window.statusBar().findChild(JobsWidget, "jobs-widget")
    assert jobs is not None and jobs.isVisible()
    assert window.centralWidget() is window.view_area


def test_views_menu_docks_a_plugin_view(
    sample_plugins: Path, open_window: WindowFactory, context: AppContext, qtbot: QtBot
) -> None:
    window = open_window()
    action = window.view_actions["sample.counter"]
    assert action in window.views_menu.actions()
    action.trigger()
    dock = window.plugin_docks["sample.counter"]
    qtbot.waitUntil(lambda: dock.view is not None)  # built when shown, imported off-thread
    assert dock.objectName() == "sample.counter"
    assert dock.parent() is window.view_area
    assert window.view_area.dockWidgetArea(dock) != Qt.DockWidgetArea.NoDockWidgetArea
    assert isinstance(dock.widget(), QLabel) and dock.widget().objectName() == "sample-counter"
    assert dock.isVisible() and not window.placeholder.isVisible()
    action.trigger()  # choosing it again raises the same view instead of a second copy
    assert list(window.plugin_docks) == ["sample.counter"]


def test_plugin_failures_become_notices_not_crashes(
    sample_plugins: Path, open_window: WindowFactory, context: AppContext, qtbot: QtBot
) -> None:
    # The broken fixture plugin fails on import; a view that raises is another kind of failure.
    context.plugins.plugins["fragile"] = Plugin(
        name="fragile",
        title="Fragile",
        views=(
            ViewSpec("fragile.view", "Fragile view", f"{views_for_tests.__name__}:failing_view"),
        ),
    )
    window = open_window()
    notices = window.notices_button
    qtbot.waitUntil(lambda: notices.count >= 1)
    texts = [notices.dialog.list.item(i).text() for i in range(notices.dialog.list.count())]
    assert any("'broken'" in text for text in texts)

    window.view_actions["fragile.view"].trigger()
    qtbot.waitUntil(lambda: any("backend is missing" in t for t in _notice_texts(window)))
    assert "fragile.view" not in window.plugin_docks
    assert window.isVisible()
    notices.click()  # the list opens beside the window, not as a modal dialog
    assert notices.dialog.isVisible() and not notices.dialog.isModal()


def test_layout_is_restored_in_a_new_window(
    sample_plugins: Path, open_window: WindowFactory, context: AppContext, qtbot: QtBot
) -> None:
    first = open_window()
    first.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, first.chat_dock)
    first.ledger_dock.close()
    first.open_view("sample.counter")
    first.resize(640, 480)  # inside the offscreen screen, which clamps restores
    first.close()
    assert context.paths.layout_file.exists()

    second_context = AppContext.open()
    try:
        second = open_window(second_context)
        assert second.dockWidgetArea(second.chat_dock) == Qt.DockWidgetArea.RightDockWidgetArea
        assert second.ledger_dock.isHidden()
        assert not second.ledger_dock.toggleViewAction().isChecked()
        dock = second.plugin_docks["sample.counter"]
        assert dock.isVisible() and dock.widget().objectName() == "sample-counter"
        assert (second.width(), second.height()) == (640, 480)
        second.close()
    finally:
        second_context.close()


def test_a_broken_layout_file_is_reported_and_ignored(
    open_window: WindowFactory, context: AppContext, qtbot: QtBot
) -> None:
    context.paths.layout_file.write_text("{ not json", encoding="utf-8")
    window = open_window()
    assert window.chat_dock.isVisible()
    qtbot.waitUntil(lambda: any("window layout" in text for text in _notice_texts(window)))


def _notice_texts(window: MainWindow) -> list[str]:
    items = window.notices_button.dialog.list
    return [items.item(i).text() for i in range(items.count())]
