"""TemperaturePlot: nozzle and bed temperatures (actual solid, target dashed), last minutes."""

from __future__ import annotations

import time
from collections import deque

import pyqtgraph as pg

from workbench.ui.plot_theme import ensure_plot_theme

HISTORY_S = 600.0  # how much temperature history the plot keeps


class TemperaturePlot(pg.PlotWidget):  # type: ignore[misc]  # pyqtgraph ships no types
    def __init__(self) -> None:
        ensure_plot_theme()  # before the widget exists: pyqtgraph reads the theme at creation
        super().__init__(title="Temperatures (°C)")
        self.setObjectName("printing-temperature-plot")
        self.addLegend()
        self.samples: deque[tuple[float, float, float, float, float]] = deque()
        self._started = time.monotonic()
        self.curves = {
            name: self.plot(name=name, pen=pg.mkPen(colour, style=style, width=2))
            for name, colour, style in [
                ("nozzle", "r", pg.QtCore.Qt.PenStyle.SolidLine),
                ("nozzle target", "r", pg.QtCore.Qt.PenStyle.DashLine),
                ("bed", "b", pg.QtCore.Qt.PenStyle.SolidLine),
                ("bed target", "b", pg.QtCore.Qt.PenStyle.DashLine),
            ]
        }

    def add(self, temperatures: dict[str, list[float]]) -> None:
        """One reading: {"nozzle": [actual, target], "bed": [actual, target]}."""
        nozzle = temperatures.get("nozzle", [0.0, 0.0])
        bed = temperatures.get("bed", [0.0, 0.0])
        now = time.monotonic() - self._started
        self.samples.append((now, nozzle[0], nozzle[1], bed[0], bed[1]))
        while self.samples and now - self.samples[0][0] > HISTORY_S:
            self.samples.popleft()
        columns = list(zip(*self.samples, strict=True))
        for index, name in enumerate(("nozzle", "nozzle target", "bed", "bed target"), 1):
            self.curves[name].setData(columns[0], columns[index])
