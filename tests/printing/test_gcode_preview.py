"""The G-code layer preview: the parser on real PrusaSlicer output and on hand-written G-code with
known answers, clear errors for bad files, and the widget loading off the GUI thread."""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import tests.rigs.gui  # noqa: F401  (first: skips, or fails in CI, without PySide6/pyqtgraph)

# isort: split
from PySide6.QtCore import QTimer
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from tests.support.artifacts import artifact_folder
from tests.ui.conftest import gui_loop  # noqa: F401  (a qasync loop for start_task)
from workbench.ui.async_loop import running_tasks
from workbench_plugins.printing.slicing.gcode_layers import GcodeError, GcodeLayers, read_layers
from workbench_plugins.printing.slicing.gcode_meta import tail_values
from workbench_plugins.printing.views import FAINT, STRONG, GcodePreview, PrinterPanel

CUBE_MM = 20.0  # the sliced_cube fixture: a 20 mm cube, MK3S, 0.20mm QUALITY


def pixels(widget: QWidget) -> np.ndarray:
    """The widget as it looks, (height, width, rgb)."""
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGBA8888)
    array = np.frombuffer(image.constBits(), np.uint8, count=image.sizeInBytes()).copy()
    return array.reshape(image.height(), image.bytesPerLine() // 4, 4)[:, : image.width(), :3]


def coloured(picture: np.ndarray, colour: QColor) -> np.ndarray:
    wanted = np.array([colour.red(), colour.green(), colour.blue()])
    return (np.abs(picture.astype(int) - wanted) < 30).all(axis=2)


def layer_markers(path: Path) -> int:
    return sum(line == ";LAYER_CHANGE" for line in path.read_text().splitlines())


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_bytes(text.encode())
    return path


# -- real PrusaSlicer output ---------------------------------------------------------------------
def test_sliced_cube_layers_heights_footprint_and_length(sliced_cube: Path) -> None:
    parsed = read_layers(sliced_cube)
    config = tail_values(sliced_cube)
    layer_height = float(config["layer_height"])
    markers = layer_markers(sliced_cube)

    assert markers == round(CUBE_MM / layer_height)
    assert len(parsed.layers) == markers
    heights = np.array([layer.z for layer in parsed.layers])
    assert heights[0] == pytest.approx(float(config["first_layer_height"]))
    assert np.diff(heights) == pytest.approx(np.full(markers - 1, layer_height))
    assert heights[-1] == pytest.approx(CUBE_MM)

    # PrusaSlicer places a single part in the middle of the bed
    corners = [tuple(map(float, point.split("x"))) for point in config["bed_shape"].split(",")]
    centre = np.mean(corners, axis=0)
    low, high = centre - CUBE_MM / 2, centre + CUBE_MM / 2
    first = parsed.layers[0]
    names = np.array(parsed.feature_names)[first.features]
    part = first.segments[names != "Skirt/Brim"].reshape(-1, 2)
    assert len(part) > 20
    assert (part >= low - 0.1).all() and (part <= high + 0.1).all()  # inside the footprint
    assert np.abs(part.min(axis=0) - low).max() < 1.0  # ...and filling it to within a mm
    assert np.abs(part.max(axis=0) - high).max() < 1.0
    skirt = first.segments[names == "Skirt/Brim"].reshape(-1, 2)
    reach = float(config["skirt_distance"]) + 2.0  # the skirt loops around the part, outside
    assert (skirt < low).any() and (skirt > high).any()
    assert (skirt >= low - reach).all() and (skirt <= high + reach).all()
    x0, y0, x1, y1 = parsed.bounds
    assert low[0] - reach <= x0 < low[0] and high[0] < x1 <= high[0] + reach
    assert low[1] - reach <= y0 < low[1] and high[1] < y1 <= high[1] + reach

    # every layer prints at least the four walls; the whole path matches the filament used
    assert min(layer.length for layer in parsed.layers) > 4 * (CUBE_MM - 2)
    width = float(config["extrusion_width"])
    volume_mm3 = float(config["filament used [cm3]"]) * 1000
    assert 0.8 < parsed.length * width * layer_height / volume_mm3 < 1.4
    assert all(len(layer.travels) for layer in parsed.layers)


# -- hand-written G-code with known answers ------------------------------------------------------
RELATIVE_E = """\
G90
M83 ; relative E
G1 Z0.2 F600
G1 X0 Y0 E4 ; start G-code: before the first marker, no layer
;LAYER_CHANGE
;Z:0.2
G1 X10 Y0 E0.5
G1 X10 Y10 E0.5 ; printed
G1 E-0.8 F2100 ; retract
G1 X20 Y10 F9000 ; travel
G1 E0.8 ; unretract, no XY
G1 X20 Y20 E0.5
G1 X25 Y20 E-0.3 ; a wipe: moving while retracting prints nothing
;LAYER_CHANGE
;Z:0.4
G1 Z0.4
G1 X0 Y20 E1.0
"""

ABSOLUTE_E = """\
M82 ; absolute E
G90
G92 E0
;LAYER_CHANGE
;Z:0.3
G1 Z0.3
G1 X5 Y5 F3000
G1 X15 Y5 E1.0
G1 E0.2 ; retract: E goes down
G1 X15 Y15
G1 E1.0 ; back to where it was: no XY, prints nothing
G1 X5 Y15 E2.0
G92 E0 ; reset: without it the next move would look like a retraction
G1 X5 Y5 E0.5
G1 X0 Y0 E0.5 ; E unchanged: travel
"""

NO_MARKERS = """\
G21
G90
M83
G0 F6000 X10 Y10 Z0.2 ; parameters in another order, as Cura writes them
G1 F1200 X20 Y10 E0.4 ; a comment with X99 E5 in it
G1 X20 Y20 E0.4
G0 Z0.4
G91
G1 X-10 E0.4 ; relative XY (and E, under G91)
G90
M83
G1 X10 Y10 E0.4
G92 X0 Y0 ; the coordinate system moves: (10, 10) is now (0, 0)
G1 X5 Y0 E0.4
"""


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_relative_extrusion_retraction_wipe_and_travel(tmp_path: Path, newline: str) -> None:
    parsed = read_layers(write(tmp_path, "relative.gcode", RELATIVE_E.replace("\n", newline)))
    assert [layer.z for layer in parsed.layers] == [0.2, 0.4]
    first, second = parsed.layers
    assert first.segments.tolist() == [[0, 0, 10, 0], [10, 0, 10, 10], [20, 10, 20, 20]]
    assert first.travels.tolist() == [[10, 10, 20, 10], [20, 20, 25, 20]]
    assert second.segments.tolist() == [[25, 20, 0, 20]]
    assert first.length == pytest.approx(30) and parsed.length == pytest.approx(55)
    assert parsed.bounds == (0, 0, 25, 20)
    assert (first.features == -1).all()  # no ;TYPE: comments


def test_absolute_extrusion_with_g92_reset(tmp_path: Path) -> None:
    parsed = read_layers(write(tmp_path, "absolute.gcode", ABSOLUTE_E))
    (layer,) = parsed.layers
    assert layer.z == 0.3
    assert layer.segments.tolist() == [[5, 5, 15, 5], [15, 15, 5, 15], [5, 15, 5, 5]]
    assert layer.travels.tolist() == [[0, 0, 5, 5], [15, 5, 15, 15], [5, 5, 0, 0]]
    assert parsed.length == pytest.approx(30)


def test_without_markers_layers_follow_the_printing_height(tmp_path: Path) -> None:
    parsed = read_layers(write(tmp_path, "plain.gcode", NO_MARKERS))
    assert [layer.z for layer in parsed.layers] == [0.2, 0.4]
    assert parsed.layers[0].segments.tolist() == [[10, 10, 20, 10], [20, 10, 20, 20]]
    assert parsed.layers[1].segments.tolist() == [[20, 20, 10, 20], [10, 20, 10, 10], [0, 0, 5, 0]]


def test_markers_without_height_notes_take_the_printing_height(tmp_path: Path) -> None:
    text = RELATIVE_E.replace(";Z:0.2\n", "").replace(";Z:0.4\n", "")
    parsed = read_layers(write(tmp_path, "no-z.gcode", text))
    assert [layer.z for layer in parsed.layers] == [0.2, 0.4]


def test_feature_types_are_kept(tmp_path: Path) -> None:
    text = RELATIVE_E.replace(";Z:0.2\n", ";Z:0.2\n;TYPE:Skirt/Brim\n").replace(
        "G1 X20 Y20 E0.5", ";TYPE:External perimeter\nG1 X20 Y20 E0.5"
    )
    parsed = read_layers(write(tmp_path, "typed.gcode", text))
    names = [parsed.feature_names[code] for code in parsed.layers[0].features]
    assert names == ["Skirt/Brim", "Skirt/Brim", "External perimeter"]


# -- bad input -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "does not exist"),
        (b"", "is empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4, "binary file, not G-code"),
        (b"GCDE\x01\x00\x00\x00" + bytes(64), "binary G-code (.bgcode)"),
        (b"# Notes\n\nThis is a README, not G-code.\nGo to the bed.\n", "no G0/G1 moves"),
        (b"G28\nG90\nM83\nG1 X10 Y10 F3000\nG1 E-1\nG1 X20 Y20\n", "none that extrude"),
        (b"G90\nM83\nG1 X1 Y1 E1\n;LAYER_CHANGE\n;Z:0.2\nG1 X5 Y5\n", "prints nothing after"),
    ],
    ids=["missing", "empty", "png", "bgcode", "text", "travel-only", "start-only"],
)
def test_bad_files_give_clear_errors(tmp_path: Path, content: bytes | None, message: str) -> None:
    path = tmp_path / "bad.gcode"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(GcodeError, match=re.escape(message)) as info:
        read_layers(path)
    assert str(path) in str(info.value)  # names the file
    assert any(word in str(info.value) for word in ("Choose", "Slice", "Export"))  # what to do


# -- the widget ------------------------------------------------------------------------------------
@pytest.fixture
def preview(qtbot: QtBot) -> Iterator[GcodePreview]:  # gui_loop is autouse
    widget = GcodePreview()
    qtbot.addWidget(widget)
    widget.resize(640, 520)
    widget.show()
    yield widget
    widget.close()
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=10000)


def loaded(qtbot: QtBot, preview: GcodePreview, timeout: int = 30000) -> GcodeLayers:
    qtbot.waitUntil(lambda: not preview.loading, timeout=timeout)
    assert preview.parsed is not None, preview.message
    return preview.parsed


def test_preview_shows_layers_and_moves_with_the_slider(
    qtbot: QtBot, preview: GcodePreview, sliced_cube: Path
) -> None:
    preview.load(sliced_cube)
    assert preview.loading and "Loading" in preview.message and "Loading" in preview.label.text()
    parsed = loaded(qtbot, preview)
    layers = len(parsed.layers)
    assert preview.slider.isEnabled() and preview.slider.maximum() == layers - 1
    assert preview.slider.value() == layers - 1  # the top layer first
    assert preview.label.text() == f"layer {layers} / {layers}, z = 20.00 mm"

    preview.slider.setValue(0)
    assert preview.label.text() == f"layer 1 / {layers}, z = 0.20 mm"
    assert preview.canvas.index == 0
    preview.slider.setValue(layers // 2 - 1)
    assert preview.label.text() == f"layer {layers // 2} / {layers}, z = 10.00 mm"

    qtbot.waitUntil(lambda: preview.canvas.ready, timeout=10000)  # the faint layers below
    path = artifact_folder() / "gcode_preview.png"
    assert preview.grab().save(str(path))
    canvas = pixels(preview.canvas)
    height, width = canvas.shape[:2]
    ys, xs = np.nonzero(coloured(canvas, STRONG))
    assert len(xs) > 500  # the shown layer, strongly
    assert coloured(canvas, FAINT).sum() > 100  # the layers below, faintly (the skirt at least)
    # fitted with the aspect kept: the layer (19 of the 25.5 mm the print spans with its skirt)
    # fills about three quarters of the smaller side, centred, and is as wide as it is tall
    spans = xs.max() - xs.min(), ys.max() - ys.min()
    assert 0.5 * min(width, height) < min(spans) and max(spans) < min(width, height)
    assert abs(spans[0] - spans[1]) <= 3
    assert abs((xs.max() + xs.min()) / 2 - width / 2) < 0.05 * width
    assert abs((ys.max() + ys.min()) / 2 - height / 2) < 0.05 * height


def test_preview_of_a_bad_file_shows_the_error(qtbot: QtBot, preview: GcodePreview) -> None:
    missing = Path("/nonexistent/part.gcode")
    preview.load(missing)
    qtbot.waitUntil(lambda: not preview.loading, timeout=10000)
    assert preview.parsed is None and not preview.slider.isEnabled()
    assert preview.message.startswith("Cannot preview: The G-code file")
    assert str(missing) in preview.message and "Choose" in preview.message
    assert preview.label.text() == "no preview"


@pytest.fixture(scope="module")
def big_gcode(sliced_cube: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 10 MB: the sliced cube 16 times over (each copy's layers come after the last)."""
    path = tmp_path_factory.mktemp("big") / "big.gcode"
    text = sliced_cube.read_text()
    path.write_text(text * max(1, round(10e6 / len(text))))
    return path


def test_load_does_not_block_the_gui(
    qtbot: QtBot, preview: GcodePreview, big_gcode: Path, sliced_cube: Path
) -> None:
    ticks: list[tuple[float, bool]] = []  # (when, still parsing)
    heartbeat = QTimer()
    heartbeat.timeout.connect(lambda: ticks.append((time.perf_counter(), preview.loading)))
    heartbeat.start(10)
    started = time.perf_counter()
    preview.load(big_gcode)
    returned = time.perf_counter()
    assert preview.loading  # load() handed the parse off and came straight back
    qtbot.waitUntil(lambda: not preview.loading, timeout=60000)
    qtbot.waitUntil(lambda: preview.canvas.ready, timeout=60000)  # and the layers below painted
    shown = time.perf_counter()
    heartbeat.stop()
    parsed = loaded(qtbot, preview)
    assert len(parsed.layers) == layer_markers(big_gcode)

    parsing = [when for when, loading in ticks if loading]
    gaps = [b - a for a, b in itertools.pairwise([returned, *(when for when, _ in ticks), shown])]
    print(
        f"{big_gcode.stat().st_size / 1e6:.1f} MB parsed in {parsing[-1] - started:.2f} s and "
        f"shown with the layers below after {shown - started:.2f} s; load() returned after "
        f"{(returned - started) * 1000:.1f} ms; {len(ticks)} heartbeat ticks meanwhile, longest "
        f"gap {max(gaps) * 1000:.0f} ms"
    )
    assert len(parsing) >= 5  # the event loop kept running while the file was parsed
    assert max(gaps) < (shown - started) / 4  # and never stalled for the parse or the painting

    # a later load wins over an earlier one that finishes after it
    preview.load(big_gcode)
    preview.load(sliced_cube)
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=60000)
    assert loaded(qtbot, preview).path == sliced_cube


def test_panel_previews_the_file_chosen_for_printing(
    qtbot: QtBot, app: object, sliced_cube: Path
) -> None:
    panel = PrinterPanel(app)  # type: ignore[arg-type]
    qtbot.addWidget(panel)
    panel.resize(1000, 700)
    panel.show()
    panel.printer.setEditText("/dev/ttyNOPE")
    panel.print_file(str(sliced_cube))
    parsed = loaded(qtbot, panel.preview)
    assert parsed.path == sliced_cube
    # /dev/ttyNOPE never answered M115 (issue 14): previewed, but printing is not even asked
    assert panel.confirmation is None
    assert "has not answered yet" in panel.terminal.toPlainText()
    qtbot.waitUntil(lambda: panel.preview.canvas.ready, timeout=10000)
    assert panel.grab().save(str(artifact_folder() / "printer_panel_preview.png"))
    panel.close()
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=10000)
