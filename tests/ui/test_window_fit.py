"""Issue 14, acceptance 2: the whole main window fits 1024x700 and gives a 1920x1080 screen to the
canvas, with every plugin view open and typical content in the ledger, chat and density view.

The content is real: a design stored the way the optimiser stores it, a ledger filled through
its API, chat lines through the chat panel. Screenshots go to tests/artifacts/.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSize
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QApplication,
    QDockWidget,
    QLabel,
    QMainWindow,
    QSizePolicy,
    QTableWidget,
    QWidget,
)
from pytestqt.qtbot import QtBot

from workbench.core.context import AppContext
from workbench.ui.dock_fitting import CANVAS_MIN_SHARE
from workbench.ui.main_window import MainWindow

WindowFactory = Callable[..., MainWindow]
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
SMALL = QSize(1024, 700)
LARGE = QSize(1920, 1080)
SUBJECT = "pump-housing-bracket"  # a long name must not widen the ledger (its box elides it)
LONG_NOTE = "deadline: the design review is on Friday"
LONG_PATH = "/home/engineer/projects/bracket/exports/" + "very_long_folder_name_" * 6 + "part.stl"


def _store_a_design(context: AppContext) -> None:
    """A design artifact with the metadata the optimiser writes (topopt designs.store_design)."""
    design = np.random.default_rng(1).random((50, 100))
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "beams2d_optimized.npy"
        np.save(path, design)
        context.store.add_artifact(
            path,
            kind="topopt.design",
            meta={
                "problem_type": "beams2d",
                "role": "optimized",
                "config": {"volfrac": 0.35, "rmin": 2.0, "forcedist": 0.65, "nelx": 100},
                "seed": 1,
                "shape": [50, 100],
            },
        )


def _fill_the_ledger(context: AppContext) -> None:
    ledger = context.ledger
    ledger.define_invariant(
        SUBJECT, "mass", "mass stays under 2 kg", kind="constraint", observables=["mass"]
    )
    ledger.define_invariant(
        SUBJECT, "stiffness", "deflects less than 1 mm", kind="behavioural", required=False
    )
    ledger.define_invariant(SUBJECT, "printable", "prints without supports", kind="constraint")
    first = ledger.propose(SUBJECT, "density", {"volfrac": 0.3}, label="first try")
    ledger.record_evidence(candidate=first, invariant="mass", adjudication="supported")
    ledger.record_evidence(candidate=first, invariant="stiffness", adjudication="violated")
    second = ledger.propose(
        SUBJECT, "density", {"volfrac": 0.5}, parent=first, label="thicker ribs"
    )
    ledger.submit(second, override=True, note=LONG_NOTE)


def settle(qtbot: QtBot) -> None:
    """Let Qt finish the layout passes a resize or new content starts (no timing asserted)."""
    for _ in range(5):
        QApplication.processEvents()
        qtbot.wait(20)


@pytest.fixture
def full_window(open_window: WindowFactory, context: AppContext, qtbot: QtBot) -> MainWindow:
    """The main window with typical content and every plugin view open, as a person would have."""
    _store_a_design(context)
    _fill_the_ledger(context)
    window = open_window()
    panel = window.chat_dock.panel
    panel.user_message(f"Optimise the bracket and export it to {LONG_PATH}")
    panel.message("Agent", "Exported the optimised bracket to " + LONG_PATH, role="agent")
    for name in window.view_specs:
        window.open_view(name)
    for dock in window.plugin_docks.values():  # views are built when first shown
        dock.raise_()
        qtbot.waitUntil(lambda dock=dock: dock.view is not None, timeout=60_000)
    assert set(window.plugin_docks) == set(window.view_specs), "a view failed to open"
    table = window.ledger_dock.view.status_table
    qtbot.waitUntil(lambda: table.rowCount() == 2, timeout=10_000)
    if "topopt.density" in window.plugin_docks:  # its header shows the stored design's problem
        density = window.plugin_docks["topopt.density"].widget()
        label = density.findChild(QLabel, "topopt-problem-label")
        qtbot.waitUntil(lambda: "stored design" in label.text(), timeout=10_000)
    settle(qtbot)
    return window


def minimum_width(widget: QWidget) -> int:
    return max(widget.minimumSizeHint().width(), widget.minimumWidth())


def widest_widgets(window: MainWindow, count: int = 10) -> str:
    """Which widgets ask for the most width, named, to say who keeps the window wide."""
    rows = []
    for widget in window.findChildren(QWidget):
        if widget.isVisibleTo(window) and not isinstance(widget, QDockWidget | QMainWindow):
            if _scrolled(widget, window):
                continue  # inside a scroll area its width does not widen the window
            text = widget.text()[:60] if isinstance(widget, QLabel) else ""
            name = f"{type(widget).__name__} {widget.objectName()!r} {text!r}"
            rows.append((minimum_width(widget), name))
    rows.sort(reverse=True)
    docks = {d.objectName(): minimum_width(d) for d in window.findChildren(QDockWidget)}
    return f"dock minimum widths {docks}; widest widgets {rows[:count]}"


def _scrolled(widget: QWidget, window: MainWindow) -> bool:
    parent = widget.parentWidget()
    while parent is not None and parent is not window:
        if isinstance(parent, QAbstractScrollArea):
            return True
        parent = parent.parentWidget()
    return False


def raised_one_by_one(window: MainWindow, qtbot: QtBot) -> Iterator[QDockWidget]:
    """Every open dock, each brought to the front of its tab group in turn."""
    for dock in window.findChildren(QDockWidget):
        if dock.isHidden():
            continue
        dock.raise_()
        settle(qtbot)
        yield dock


def cut_off_parts(dock: QDockWidget) -> list[str]:
    """The dock's widget and its laid-out descendants that are smaller than their minimum."""
    found = []
    for widget in [dock.widget(), *dock.widget().findChildren(QWidget)]:
        if not widget.isVisibleTo(dock) or widget.isWindow():
            continue
        policy = widget.sizePolicy()
        ignored = QSizePolicy.Policy.Ignored
        if policy.horizontalPolicy() == ignored or policy.verticalPolicy() == ignored:
            continue
        parent = widget.parentWidget()
        inside_scrolling = parent is not None and isinstance(
            parent.parentWidget(), QAbstractScrollArea
        )
        if inside_scrolling or parent is None or parent.layout() is None:
            continue  # placed by a scroll area or by hand, not squeezed by a layout
        hint, size = widget.minimumSizeHint(), widget.size()
        if hint.isValid() and (size.width() < hint.width() or size.height() < hint.height()):
            found.append(f"{type(widget).__name__} {widget.objectName()!r} {size} < {hint}")
    return found


def save_screenshot(window: MainWindow, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    if not window.grab().save(str(path)):
        raise OSError(f"could not write {path}")
    return path


def test_minimum_width_is_at_most_1024_with_every_view_open(full_window: MainWindow) -> None:
    window = full_window
    assert window.minimumSizeHint().width() <= SMALL.width(), widest_widgets(window)
    assert window.minimumWidth() <= SMALL.width(), widest_widgets(window)
    assert window.minimumSizeHint().height() <= SMALL.height(), window.minimumSizeHint()


def test_at_1024x700_no_dock_is_cut_off(full_window: MainWindow, qtbot: QtBot) -> None:
    window = full_window
    window.resize(SMALL)
    settle(qtbot)
    assert window.size() == SMALL, widest_widgets(window)
    walked = []
    for dock in raised_one_by_one(window, qtbot):
        content, hint = dock.widget().size(), dock.widget().minimumSizeHint()
        assert content.width() >= hint.width(), f"{dock.objectName()}: {content} < {hint}"
        assert content.height() >= hint.height(), f"{dock.objectName()}: {content} < {hint}"
        assert cut_off_parts(dock) == [], dock.objectName()
        walked.append(dock.objectName())
        if dock.objectName() in window.plugin_docks:  # a picture of each view at this size
            save_screenshot(window, f"window-fit-1024x700-{dock.objectName()}.png")
    assert {"chat-dock", "ledger-dock", *window.plugin_docks} <= set(walked)
    window.plugin_docks.get("topopt.density", window.ledger_dock).raise_()
    settle(qtbot)
    save_screenshot(window, "window-fit-1024x700.png")


@pytest.mark.parametrize("size", [QSize(1600, 1000), LARGE], ids=["1600x1000", "1920x1080"])
def test_a_large_window_gives_the_chat_a_column_and_the_canvas_its_share(
    full_window: MainWindow, qtbot: QtBot, size: QSize
) -> None:
    """Issue 29: the chat is a proper column (35-40% of the width), the canvas keeps its share."""
    window = full_window
    window.resize(size)
    settle(qtbot)
    canvas = window.view_area.size()
    regions = {
        "canvas": canvas,
        "chat": window.chat_dock.size(),
        "ledger": window.ledger_dock.size(),
    }
    assert 0.35 * size.width() <= regions["chat"].width() <= 0.40 * size.width(), regions
    assert canvas.width() >= CANVAS_MIN_SHARE * size.width() - 1, regions
    if size == LARGE:
        window.plugin_docks.get("topopt.density", window.ledger_dock).raise_()
        settle(qtbot)
        save_screenshot(window, "window-fit-1920x1080.png")


def columns_cut_off(table: QTableWidget) -> list[str]:
    header = table.horizontalHeader()
    cut = []
    for column in range(table.columnCount()):
        content = min(header.maximumSectionSize(), table.sizeHintForColumn(column))
        if header.sectionSize(column) < max(content, header.sectionSizeHint(column)):
            title = table.horizontalHeaderItem(column)
            cut.append(f"{title.text() if title else column}: {header.sectionSize(column)}")
    return cut


def test_ledger_columns_are_not_cut_off(full_window: MainWindow, qtbot: QtBot) -> None:
    view = full_window.ledger_dock.view
    tables = [view.status_table, view.submissions_table]
    full_window.resize(LARGE)
    settle(qtbot)
    for table in tables:  # every column as wide as its content, all of them in sight
        assert columns_cut_off(table) == [], table.objectName()
        assert table.horizontalScrollBar().maximum() == 0, table.objectName()
    note = view.submissions_table.item(0, 4)
    assert note.text() == LONG_NOTE and note.toolTip() == LONG_NOTE

    full_window.resize(SMALL)  # a narrow ledger scrolls sideways instead of squeezing columns
    settle(qtbot)
    for table in tables:
        assert columns_cut_off(table) == [], table.objectName()
    wide = view.submissions_table
    assert wide.horizontalHeader().length() > wide.viewport().width()
    assert wide.horizontalScrollBar().maximum() > 0
