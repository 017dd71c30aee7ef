"""Issue 14: one theme for all plots. Only workbench/ui/plot_theme.py sets pyqtgraph's global
options; opening the Trajectories view no longer changes how plots look (before, it set white
globally, so the printer's temperature plot was black until Trajectories had been opened)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyqtgraph as pg
import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGraphicsView
from pytestqt.qtbot import QtBot

from workbench.core.context import AppContext
from workbench.ui import plot_theme
from workbench_plugins.modelica.views import TrajectoryView
from workbench_plugins.printing.views.temperature_plot import TemperaturePlot
from workbench_plugins.topopt.views.density_view import DensityView

ROOT = Path(__file__).resolve().parents[2]
PYQTGRAPH_DEFAULTS = {"background": "k", "foreground": "d", "antialias": False}


@pytest.fixture
def fresh_pyqtgraph() -> Iterator[None]:
    """pyqtgraph as a new process has it: no view has set anything yet."""
    before = {key: pg.getConfigOption(key) for key in PYQTGRAPH_DEFAULTS}
    pg.setConfigOptions(**PYQTGRAPH_DEFAULTS)
    yield
    pg.setConfigOptions(**before)


def background(view: QGraphicsView) -> QColor:
    return view.backgroundBrush().color()


def corner_pixel(view: QGraphicsView) -> QColor:
    return view.grab().toImage().pixelColor(3, 3)


def test_ensure_plot_theme_always_sets_the_same_values(fresh_pyqtgraph: None) -> None:
    plot_theme.ensure_plot_theme()
    first = {key: pg.getConfigOption(key) for key in plot_theme.THEME}
    plot_theme.ensure_plot_theme()
    assert {key: pg.getConfigOption(key) for key in plot_theme.THEME} == first
    assert first == plot_theme.THEME


def test_trajectories_do_not_change_the_look_of_other_plots(
    qtbot: QtBot, context: AppContext, fresh_pyqtgraph: None
) -> None:
    theme = QColor(plot_theme.BACKGROUND)
    temperatures = TemperaturePlot()  # as the printer panel creates it, first thing
    density = DensityView(context)
    for widget in (temperatures, density):
        qtbot.addWidget(widget)
        widget.resize(500, 350)
        widget.show()
    qtbot.waitExposed(density)
    plots: dict[str, QGraphicsView] = {"temperatures": temperatures}
    for index, view in enumerate(density.findChildren(pg.GraphicsView)):
        plots[f"density plot {index}"] = view  # the field and the objective curve
    assert len(plots) >= 2
    looks = {name: (background(view), corner_pixel(view)) for name, view in plots.items()}
    for name, (brush, pixel) in looks.items():
        assert brush == theme, f"{name}: {brush.name()}"
        assert pixel == theme, f"{name}: {pixel.name()}"
    options = {key: pg.getConfigOption(key) for key in plot_theme.THEME}

    trajectories = TrajectoryView(context)
    qtbot.addWidget(trajectories)
    trajectories.show()
    qtbot.waitExposed(trajectories)

    assert {key: pg.getConfigOption(key) for key in plot_theme.THEME} == options
    assert background(trajectories.plot) == theme
    for name, view in plots.items():
        assert (background(view), corner_pixel(view)) == looks[name], name


def test_only_the_theme_module_sets_pyqtgraphs_global_options() -> None:
    setters = [
        path.relative_to(ROOT).as_posix()
        for folder in ("workbench", "plugins")
        for path in (ROOT / folder).rglob("*.py")
        if "setConfigOption" in path.read_text(encoding="utf-8")
    ]
    assert setters == ["workbench/ui/plot_theme.py"]
