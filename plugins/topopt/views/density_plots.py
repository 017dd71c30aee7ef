"""The density view's body: the density field (with its colour bar) as large as the pane allows.

The rest of the body, the objective curve and the view's controls (the Run form), goes under
the field, as a row, or beside it, as a column, whichever leaves the field more room for its
shape; the field keeps its aspect ratio and is fitted edge to edge. Both are redone on every
resize and whenever a field of another shape arrives.
"""

from __future__ import annotations

import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QBoxLayout, QSizePolicy, QWidget

from workbench.ui.plot_theme import ensure_plot_theme

# White void, black material: the same convention as the rendered PNGs (matplotlib gray_r).
DENSITY_COLOURS = pg.ColorMap(pos=[0.0, 1.0], color=[(255, 255, 255), (0, 0, 0)])
COLOUR_BAR_PX = 70  # what the colour bar and its labels take beside the field
MARGIN_PX = 12  # the field's plot margins
CURVE_MIN_PX = 160  # the objective curve's length beside the controls, at least
REST_SHARE = 0.3  # the curve and controls never take less than this share of the pane
Direction = QBoxLayout.Direction


class DensityPlots(QWidget):
    """`plots` holds the field (`image_plot`, `image`), `curve_widget` the objective `curve`;
    `controls` (given) sits next to the curve."""

    def __init__(self, controls: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("topopt-density-body")
        ensure_plot_theme()  # before any plot widget is created
        self._shape: tuple[int, int] = (50, 100)  # rows, columns of the field last shown
        self.controls = controls
        self.plots = pg.GraphicsLayoutWidget()
        self.plots.setObjectName("topopt-density-image")
        self.image_plot = self.plots.addPlot(row=0, col=0)
        self.image_plot.setAspectLocked(True)
        self.image_plot.invertY(True)  # row 0 at the top, as in the design array
        self.image_plot.hideAxis("left")
        self.image_plot.hideAxis("bottom")
        self.image_plot.setMenuEnabled(False)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.image_plot.addItem(self.image)
        self.colour_bar = pg.ColorBarItem(
            values=(0.0, 1.0), colorMap=DENSITY_COLOURS, label="density", interactive=False
        )
        self.colour_bar.setImageItem(self.image, insert_in=self.image_plot)

        self.curve_widget = pg.PlotWidget()
        self.curve_widget.setObjectName("topopt-objective-plot")
        self.curve_plot = self.curve_widget.getPlotItem()
        self.curve_plot.setLabel("bottom", "iteration")
        self.curve_plot.setLabel("left", "objective")
        self.curve_plot.showGrid(x=True, y=True, alpha=0.3)
        self.curve = self.curve_plot.plot([], [], pen=pg.mkPen("#1f6feb", width=2))
        for widget in (self.plots, self.curve_widget):
            # their default size hints (600 x 480 each) would outweigh the stretch factors
            widget.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
            widget.setMinimumSize(60, 60)

        self.rest = QWidget()  # the curve and the controls, across the arrangement
        self.rest_layout = QBoxLayout(Direction.LeftToRight, self.rest)
        self.rest_layout.setContentsMargins(0, 0, 0, 0)
        self.rest_layout.addWidget(self.curve_widget, 1)
        # the controls keep their natural height, at the top; the curve takes what is left
        controls.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.rest_layout.addWidget(controls, 0, Qt.AlignmentFlag.AlignTop)
        self.arrangement = QBoxLayout(Direction.TopToBottom, self)
        self.arrangement.setContentsMargins(0, 0, 0, 0)
        self.arrangement.addWidget(self.plots, 3)
        self.arrangement.addWidget(self.rest, 1)

    def sizeHint(self) -> QSize:
        return QSize(760, 560)  # not the plot widgets' default hints added up (~1000 px)

    def show_field(self, design: npt.NDArray) -> None:
        self.image.setImage(design, autoLevels=False, levels=(0.0, 1.0))
        if design.ndim == 2 and tuple(design.shape) != self._shape:
            self._shape = (int(design.shape[0]), int(design.shape[1]))
            self._arrange(self.width(), self.height())
        self.fit_field()

    def fit_field(self) -> None:
        """The whole field, edge to edge in one direction (the aspect lock keeps its shape)."""
        rows, columns = self._shape
        self.image_plot.vb.setRange(xRange=(0, columns), yRange=(0, rows), padding=0.0)

    def field_is_beside(self) -> bool:
        """True when the curve and controls are beside the field (a wide, low pane)."""
        return self.arrangement.direction() == Direction.LeftToRight

    def resizeEvent(self, event: QResizeEvent) -> None:
        self._arrange(event.size().width(), event.size().height())
        super().resizeEvent(event)
        self.fit_field()

    def _arrange(self, width: int, height: int) -> None:
        """The rest under the field (a row) or beside it (a column), whichever draws the field
        larger; the field gets the length it can use, the rest the remainder."""
        controls = self.controls.sizeHint()
        under_rest = max(controls.height(), round(REST_SHARE * height))
        beside_rest = max(controls.width(), round(REST_SHARE * width))
        under = _field_scale(self._shape, width, height - under_rest)
        beside = _field_scale(self._shape, width - beside_rest, height)
        if beside > under:
            outer, inner, along = Direction.LeftToRight, Direction.TopToBottom, width
            field = beside * self._shape[1] + COLOUR_BAR_PX + 2 * MARGIN_PX
            rest = max(beside_rest, along - field)
        else:
            outer, inner, along = Direction.TopToBottom, Direction.LeftToRight, height
            field = under * self._shape[0] + 2 * MARGIN_PX
            rest = max(under_rest, along - field)
        if outer != self.arrangement.direction():
            self.arrangement.setDirection(outer)
            self.rest_layout.setDirection(inner)
        # stretch factors in pixels: the layout shares the length in that proportion
        self.arrangement.setStretch(0, max(round(along - rest), 1))
        self.arrangement.setStretch(1, max(round(rest), 1))


def _field_scale(shape: tuple[int, int], width: float, height: float) -> float:
    """Pixels per design cell when a field of `shape` fits a plot area of width x height."""
    rows, columns = shape
    room_x = width - COLOUR_BAR_PX - 2 * MARGIN_PX
    room_y = height - 2 * MARGIN_PX
    return max(0.0, min(room_x / max(columns, 1), room_y / max(rows, 1)))
