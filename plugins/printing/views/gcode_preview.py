"""GcodePreview: the G-code chosen for printing, layer by layer, before it is printed.

Parsing (gcode_layers, numpy) and drawing the faint layers below run on a thread via start_task,
so loading even a 25 MB file never holds the GUI thread; the slider repaints only the shown layer.
"""

from __future__ import annotations

import asyncio
import struct
from pathlib import Path

import numpy as np
import shiboken6
from PySide6.QtCore import QByteArray, QDataStream, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QImage,
    QPainter,
    QPainterPath,
    QPaintEvent,
    QPen,
    QTransform,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from workbench.ui.async_loop import start_task
from workbench_plugins.printing.slicing.gcode_layers import GcodeLayers, read_layers

MARGIN_PX = 24  # around the fitted print in the preview
UNDERLAYS = 10  # faint underlay images kept per print (a tenth of the layers apart)
FAINT = QColor(200, 205, 212)  # the layers below the shown one
STRONG = QColor(214, 96, 20)  # the shown layer
OUTLINE = QColor(110, 120, 135)  # the print's bounds
_PATH_ELEMENT = np.dtype([("kind", ">i4"), ("x", ">f8"), ("y", ">f8")])


# -- G-code preview ------------------------------------------------------------------------------
def _segments_path(segments: np.ndarray) -> QPainterPath:
    """Separate line segments (x0, y0, x1, y1 rows) as one path, built in one go.

    Through QPainterPath's QDataStream format (as pyqtgraph's arrayToQPath does, which holds the
    GIL for long stretches on a thread): the point count, per point its kind (0 move to, 1 line
    to) and x, y, then the fill rule. Safe on a worker thread: paths are plain values.
    """
    path = QPainterPath()
    if len(segments):
        points = np.empty(2 * len(segments), _PATH_ELEMENT)
        points["kind"] = np.tile([0, 1], len(segments))
        points["x"], points["y"] = segments[:, 0::2].ravel(), segments[:, 1::2].ravel()
        raw = struct.pack(">i", len(points)) + points.tobytes() + struct.pack(">ii", 0, 0)
        QDataStream(QByteArray(raw)) >> path
    return path


def _layer_paths(path: Path) -> tuple[GcodeLayers, list[QPainterPath]]:
    """Parse, and make each layer one path (in mm); runs on a worker thread."""
    parsed = read_layers(path)
    return parsed, [_segments_path(layer.segments) for layer in parsed.layers]


def _faint(image: QImage, paths: list[QPainterPath], transform: QTransform) -> QImage:
    """A copy of `image` with `paths` painted on it faintly (QImage painting: any thread)."""
    image = image.copy()
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setTransform(transform)
    pen = QPen(FAINT, 1.0)
    pen.setCosmetic(True)
    painter.setPen(pen)
    for path in paths:
        painter.drawPath(path)
    painter.end()
    return image


def _underlays(
    paths: list[QPainterPath], step: int, transform: QTransform, size: QSize, ratio: float
) -> dict[int, QImage]:
    """The layers below layer 0, step, 2 step, ... as faint images; runs on a worker thread."""
    image = QImage(size * ratio, QImage.Format.Format_ARGB32_Premultiplied)
    image.setDevicePixelRatio(ratio)
    image.fill(Qt.GlobalColor.transparent)
    images = {0: image}
    for base in range(step, len(paths), step):
        images[base] = image = _faint(image, paths[base - step : base], transform)
    return images


class _LayerCanvas(QWidget):
    """Paints one layer strongly over the layers below (faint), fitted with the aspect kept.

    The faint layers below are painted on a worker thread into images kept every `step` layers
    (a tenth of the print), again after a resize; the GUI thread adds at most `step` layers to
    one of them, so neither a tall print nor moving the slider makes it wait.
    """

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(200, 160)
        self.message = ""
        self.parsed: GcodeLayers | None = None
        self.paths: list[QPainterPath] = []
        self.index = 0
        self._step = 1
        self._underlays: dict[int, QImage] = {}
        self._underlays_for: tuple[int, int, float] | None = None  # the size they were made at
        self._shown: tuple[int, QImage] | None = None  # the last underlay between kept ones
        self._rendering = False

    @property
    def ready(self) -> bool:
        """A print is shown with the layers below it (not just the message or the top layer)."""
        return self.parsed is not None and self._underlays_for == self._size()

    def show_message(self, text: str) -> None:
        self.message, self.parsed, self.paths = text, None, []
        self._forget()

    def show_print(self, parsed: GcodeLayers, paths: list[QPainterPath], index: int) -> None:
        self.message, self.parsed, self.paths, self.index = "", parsed, paths, index
        self._step = max(8, -(-len(paths) // UNDERLAYS))
        self._forget()

    def show_layer(self, index: int) -> None:
        self.index = index
        self.update()

    def _forget(self) -> None:
        self._underlays, self._underlays_for, self._shown = {}, None, None
        self.update()

    def _size(self) -> tuple[int, int, float]:
        return self.width(), self.height(), self.devicePixelRatioF()

    def transform(self) -> QTransform:
        """Print millimetres to widget pixels: fitted, centred, y pointing up as on the bed."""
        if self.parsed is None:
            raise RuntimeError("no print is shown, so there is nothing to fit")
        x0, y0, x1, y1 = self.parsed.bounds
        room_x, room_y = self.width() - 2 * MARGIN_PX, self.height() - 2 * MARGIN_PX
        scale = max(min(room_x / max(x1 - x0, 1.0), room_y / max(y1 - y0, 1.0)), 1e-3)
        centre_x, centre_y = (x0 + x1) / 2, (y0 + y1) / 2
        return QTransform(
            scale,
            0,
            0,
            -scale,
            self.width() / 2 - scale * centre_x,
            self.height() / 2 + scale * centre_y,
        )

    def _underlay(self) -> QImage | None:
        """The layers below the shown one, faint; None while they are being painted."""
        if self._underlays_for != self._size():
            if not self._rendering:
                self._rendering = True
                start_task(self._render(), name="gcode-preview-underlay")
            return None
        base = self.index - self.index % self._step
        if self.index == base:
            return self._underlays[base]
        if self._shown is None or self._shown[0] != self.index:
            added = _faint(self._underlays[base], self.paths[base : self.index], self.transform())
            self._shown = self.index, added
        return self._shown[1]

    async def _render(self) -> None:
        """Paint the kept underlays on a thread, again if the size changed meanwhile."""
        try:
            while self.parsed is not None:
                size, paths, step = self._size(), self.paths, self._step
                images = await asyncio.to_thread(
                    _underlays, paths, step, self.transform(), QSize(*size[:2]), size[2]
                )
                if not shiboken6.isValid(self):
                    return
                if paths is self.paths and size == self._size():
                    self._underlays, self._underlays_for, self._shown = images, size, None
                    self.update()
                    return
        finally:
            if shiboken6.isValid(self):
                self._rendering = False

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), self.palette().base())
        if self.parsed is None:
            painter.drawText(
                self.rect().adjusted(12, 12, -12, -12),
                Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                self.message,
            )
            painter.end()
            return
        underlay = self._underlay()
        if underlay is not None:
            painter.drawImage(0, 0, underlay)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        transform = self.transform()
        x0, y0, x1, y1 = self.parsed.bounds
        frame = transform.mapRect(QRectF(x0, y0, x1 - x0, y1 - y0))
        painter.setPen(QPen(OUTLINE, 1.0, Qt.PenStyle.DashLine))
        painter.drawRect(frame)
        painter.drawText(
            frame.topLeft() + QPointF(0, -6), f"print {x1 - x0:.1f} x {y1 - y0:.1f} mm"
        )
        painter.setTransform(transform)
        pen = QPen(STRONG, 1.6)
        pen.setCosmetic(True)
        painter.setPen(pen)
        painter.drawPath(self.paths[self.index])
        painter.end()


class GcodePreview(QWidget):
    """A G-code file layer by layer: the toolpaths of one layer over the ones below, a slider.

    load() parses on a worker thread (start_task + asyncio.to_thread) and shows "Loading…" until
    the top layer is ready; a file that cannot be read shows its error here instead of raising.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("gcode-preview")
        self.parsed: GcodeLayers | None = None
        self.loading = False
        self._generation = 0
        self.canvas = _LayerCanvas(self)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setEnabled(False)
        self.slider.valueChanged.connect(self.show_layer)
        self.label = QLabel("no G-code chosen")
        self.canvas.show_message("Choose a G-code file to see its layers here.")
        row = QHBoxLayout()
        row.addWidget(self.slider, 1)
        row.addWidget(self.label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.canvas, 1)
        layout.addLayout(row)

    @property
    def message(self) -> str:
        return self.canvas.message

    def load(self, path: str | Path) -> None:
        """Start reading `path`; returns at once (a later load wins over an earlier one)."""
        path = Path(path)
        self._generation += 1
        self.parsed, self.loading = None, True
        self.slider.setEnabled(False)
        self.label.setText("Loading…")
        self.canvas.show_message(f"Loading {path.name}…")
        start_task(self._load(path, self._generation), name="gcode-preview")

    async def _load(self, path: Path, generation: int) -> None:
        try:
            parsed, paths = await asyncio.to_thread(_layer_paths, path)
        except Exception as error:  # GcodeError says what to do; anything else still shows here
            if shiboken6.isValid(self) and generation == self._generation:
                self.loading = False
                self.label.setText("no preview")
                self.canvas.show_message(f"Cannot preview: {error}")
            return
        if not shiboken6.isValid(self) or generation != self._generation:
            return  # closed, or another file was chosen meanwhile
        self.parsed, self.loading = parsed, False
        top = len(parsed.layers) - 1
        self.canvas.show_print(parsed, paths, top)
        self.slider.blockSignals(True)
        self.slider.setRange(0, top)
        self.slider.setValue(top)
        self.slider.blockSignals(False)
        self.slider.setEnabled(True)
        self.show_layer(top)

    def show_layer(self, index: int) -> None:
        if self.parsed is None:
            return
        layers = self.parsed.layers
        self.label.setText(f"layer {index + 1} / {len(layers)}, z = {layers[index].z:.2f} mm")
        self.canvas.show_layer(index)
