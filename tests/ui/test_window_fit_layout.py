"""Issue 14: dock widths and open docks come back after a restart (a new MainWindow on the same
config folder), a width the person chose is kept, and the ledger otherwise grows to its columns.

The offscreen screen is 800x800 and restoreGeometry keeps a window inside its screen, so these
windows stay smaller than that.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QPoint, QSize, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from workbench.core.context import AppContext
from workbench.ui.dock_fitting import (
    CANVAS_MIN_SHARE,
    CHAT_MIN_WIDTH,
    SEPARATOR_ROOM,
    WidthLimits,
    dock_widths,
)
from workbench.ui.main_window import MainWindow

WindowFactory = Callable[..., MainWindow]
WINDOW = QSize(790, 600)
LEFT = Qt.MouseButton.LeftButton


def settle(qtbot: QtBot) -> None:
    for _ in range(5):
        QApplication.processEvents()
        qtbot.wait(20)


def drag_ledger_edge(window: MainWindow, qtbot: QtBot, by: int) -> None:
    """Drag the separator on the ledger's left edge, as a person does with the mouse."""
    ledger = window.ledger_dock.geometry()
    canvas = window.centralWidget().geometry()
    start = QPoint((canvas.right() + ledger.left()) // 2, ledger.center().y())
    qtbot.mousePress(window, LEFT, pos=start)
    for step in range(1, 5):  # Qt moves the separator on a timer: let it run after each step
        qtbot.mouseMove(window, QPoint(start.x() - by * step // 4, start.y()))
        settle(qtbot)
    qtbot.mouseRelease(window, LEFT, pos=QPoint(start.x() - by, start.y()))
    settle(qtbot)


def test_dock_widths_and_open_docks_survive_a_restart(
    open_window: WindowFactory, context: AppContext, qtbot: QtBot
) -> None:
    first = open_window()
    first.resize(WINDOW)
    settle(qtbot)
    before = first.ledger_dock.width()
    drag_ledger_edge(first, qtbot, by=60)
    ledger_width, chat_width = first.ledger_dock.width(), first.chat_dock.width()
    assert ledger_width > before + 30, "the drag did not move the separator"
    first.chat_dock.close()
    first.close()

    second_context = AppContext.open()  # same WORKBENCH_HOME: the same config folder
    try:
        second = open_window(second_context)
        settle(qtbot)
        assert second.size() == WINDOW
        assert second.chat_dock.isHidden() and second.ledger_dock.isVisible()
        assert abs(second.ledger_dock.width() - ledger_width) <= 2, (ledger_width, chat_width)
        second.chat_dock.show()
        settle(qtbot)
        assert abs(second.chat_dock.width() - chat_width) <= 2
        second.close()
    finally:
        second_context.close()


def test_a_width_the_person_chose_is_kept_when_content_arrives(
    open_window: WindowFactory, context: AppContext, qtbot: QtBot
) -> None:
    window = open_window()
    window.resize(WINDOW)
    settle(qtbot)
    drag_ledger_edge(window, qtbot, by=-40)  # narrower than the ledger's first width
    chosen = window.ledger_dock.width()
    context.ledger.define_invariant(
        "bracket", "a-long-invariant-name", "mass under 2 kg", kind="constraint"
    )
    context.ledger.propose("bracket", "density", {"volfrac": 0.3}, label="first try")
    qtbot.waitUntil(lambda: window.ledger_dock.view.status_table.rowCount() == 1)
    settle(qtbot)
    assert window.ledger_dock.width() == chosen


def test_docks_follow_the_window_and_the_ledger_grows_to_its_columns(
    open_window: WindowFactory, context: AppContext, qtbot: QtBot
) -> None:
    window = open_window()
    window.resize(QSize(1600, 1000))
    settle(qtbot)
    empty_width = window.ledger_dock.width()
    ledger = context.ledger
    for name in ("mass", "stiffness", "printable", "first-mode", "buckling"):
        ledger.define_invariant("bracket", name, f"{name} is fine", kind="constraint")
    ledger.propose("bracket", "density", {"volfrac": 0.3}, label="thicker ribs")
    view = window.ledger_dock.view
    qtbot.waitUntil(lambda: view.status_table.columnCount() == 6)
    qtbot.waitUntil(lambda: window.ledger_dock.width() > empty_width)
    settle(qtbot)
    assert view.status_table.horizontalScrollBar().maximum() == 0  # every column in sight
    assert window.view_area.width() >= window.width() * CANVAS_MIN_SHARE  # the canvas keeps some

    window.resize(QSize(1024, 700))  # shrinking takes from the ledger first, not the chat
    settle(qtbot)
    assert window.chat_dock.width() >= CHAT_MIN_WIDTH
    assert window.ledger_dock.width() < empty_width


def test_the_chat_is_a_readable_column_at_every_width() -> None:
    """Issue 29: about 35-40% of a 1920 px window, never under 380 px from 1024 px up; the
    ledger gives way first, the canvas keeps its share."""
    limits = WidthLimits(
        chat_minimum=256, ledger_minimum=204, ledger_wanted=512, canvas_minimum=241
    )
    for window_width in (1024, 1240, 1600, 1920, 2560):
        widths = dock_widths(window_width, limits)
        canvas = window_width - widths.chat - widths.ledger - SEPARATOR_ROOM
        assert widths.chat >= CHAT_MIN_WIDTH, (window_width, widths)
        assert canvas >= window_width * CANVAS_MIN_SHARE - 1, (window_width, widths)
        assert widths.ledger >= limits.ledger_minimum
    large = dock_widths(1920, limits)
    assert 0.35 * 1920 <= large.chat <= 0.40 * 1920, large
    small = dock_widths(1024, limits)
    assert small.ledger < large.ledger  # the ledger gave way, the chat did not
    # a view whose minimum leaves no room: the docks give way, never below what Qt needs
    tight = dock_widths(1024, WidthLimits(256, 204, 512, canvas_minimum=560))
    assert tight.ledger == 204 and tight.chat >= 256


def test_reset_layout_hands_the_widths_back_to_the_window(
    open_window: WindowFactory, qtbot: QtBot
) -> None:
    window = open_window()
    window.resize(WINDOW)
    settle(qtbot)
    fitted = window.ledger_dock.width()
    drag_ledger_edge(window, qtbot, by=50)
    assert window.ledger_dock.width() > fitted + 25 and not window.dock_fitter.follows_window
    window.reset_layout()
    settle(qtbot)
    assert window.dock_fitter.follows_window
    assert abs(window.ledger_dock.width() - fitted) <= 2
