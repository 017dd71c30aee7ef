"""Invariant marks on the trajectories plot: shaded time windows, bounds, the instants measured."""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt

BOUND_COLOUR = "#b00020"
WINDOW_COLOUR = "#a07000"


class InvariantMarks:
    """Adds marks to one plot and remembers them (`items`)."""

    def __init__(self, plot: pg.PlotWidget) -> None:
        self.plot = plot
        self.items: list[Any] = []

    def window(self, start: float, end: float, label: str = "") -> None:
        """Shade a scenario window (e.g. where a settling requirement applies)."""
        region = pg.LinearRegionItem((start, end), movable=False, brush=(255, 200, 0, 50))
        self._add(region)
        if label:
            text = pg.TextItem(label, color=WINDOW_COLOUR, anchor=(0, 0))
            text.setPos(start, 0)
            self._add(text)

    def bound(self, value: float, label: str = "", colour: str = BOUND_COLOUR) -> None:
        self._add(
            pg.InfiniteLine(
                pos=value,
                angle=0,
                pen=pg.mkPen(colour, width=1.5, style=Qt.PenStyle.DashLine),
                label=label or None,
                labelOpts={"position": 0.9, "color": colour},
            )
        )

    def invariant(self, name: str, condition: dict[str, Any], observable: dict | None) -> None:
        """Bounds and windows of one invariant: target +- tolerance, min/max, time windows."""
        observable = observable or {}
        if "time" in observable:
            self._add(pg.InfiniteLine(pos=observable["time"], angle=90, pen=pg.mkPen("#555")))
        if observable.get("start") is not None or observable.get("end") is not None:
            self.window(observable.get("start") or 0.0, observable.get("end") or 0.0, name)
        target, tolerance = condition.get("target"), condition.get("tolerance")
        if target is not None and tolerance is not None:
            allowed = tolerance * abs(target) if condition.get("relative") else tolerance
            self.bound(target - allowed, f"{name} low")
            self.bound(target + allowed, f"{name} high")
        for key in ("min", "max"):
            if condition.get(key) is not None:
                self.bound(condition[key], f"{name} {key}")

    def _add(self, item: Any) -> None:
        self.plot.addItem(item)
        self.items.append(item)
