"""A big STL in the STL view: preview first, then the full mesh; the benchmark's numbers exist.

Runs the benchmark module (plugins/topopt/views/stl_open_bench.py) in a subprocess on an Xvfb
display, since VTK needs a real OpenGL context, on a 327,680-triangle file (above the preview
threshold, quick to draw). Timings are reported, not asserted: the test checks the order of the
steps, the triangle counts against the file's own header, that every comparison number is
produced, and that the view draws once per step (pyvistaqt's 5 Hz redraw timer used to redraw
the whole mesh all along). The pictures go to the test artifact folder for a person to look at.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage

from tests.rigs.xvfb import running_xvfb
from tests.support.artifacts import artifact_folder
from workbench_plugins.topopt.views.stl_open_bench import make_test_mesh

ROOT = Path(__file__).resolve().parents[2]
SUBDIVISIONS = 7  # 20 * 4**7 = 327,680 triangles


def header_triangles(path: Path) -> int:
    return int.from_bytes(path.read_bytes()[80:84], "little")


def covered_share(picture: QImage) -> float:
    """How much of the picture's middle is not the white background (the mesh is there)."""
    width, height = picture.width(), picture.height()
    pixels = [
        picture.pixelColor(x, y)
        for x in range(width // 4, 3 * width // 4, 4)
        for y in range(height // 4, 3 * height // 4, 4)
    ]
    return sum(colour != QColor("white") for colour in pixels) / len(pixels)


@pytest.mark.xvfb
@pytest.mark.slow
@pytest.mark.timeout(600)
def test_big_stl_shows_preview_then_full_mesh_and_the_comparison(tmp_path: Path) -> None:
    mesh = tmp_path / "rippled.stl"
    make_test_mesh(mesh, SUBDIVISIONS)
    shots = artifact_folder("stl-view-big")
    for old in shots.glob("*.png"):
        old.unlink()
    with running_xvfb() as display:
        environment = {
            **os.environ,
            "DISPLAY": display,
            "QT_QPA_PLATFORM": "xcb",
            "WORKBENCH_HOME": str(tmp_path / "home"),
        }
        command = [sys.executable, "-m", "workbench_plugins.topopt.views.stl_open_bench"]
        options = ["--file", str(mesh), "--repeats", "1", "--json", "--shots", str(shots)]
        done = subprocess.run(
            command + options,
            env=environment,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=540,
        )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    (shots / "result.json").write_text(json.dumps(result, indent=2))

    file_triangles = header_triangles(mesh)
    assert file_triangles == 20 * 4**SUBDIVISIONS
    assert result["file_triangles"] == result["full_triangles"] == file_triangles
    assert 0 < result["preview_triangles"] < file_triangles // 5
    assert result["watertight"]
    run = result["runs"]["view"][0]
    assert run["preview_s"] < run["full_s"] <= run["checked_s"]  # order, not speed
    assert set(run["gui_steps_s"]) == {"preview", "full"}
    # a frame for the preview and one for the full mesh, or one for both when the full mesh is
    # ready before the preview's frame was drawn (seen on a fresh CI machine); the old 200 ms
    # redraw timer drew many more
    assert 1 <= run["frames_drawn"] <= 3, run["frames_drawn"]
    for key in (
        "bare_pyvista_s",
        "bare_pyvista_read_s",
        "bare_pyvista_no_msaa_s",
        "view_preview_s",
        "view_full_s",
        "ratio_full_vs_bare",
        "ratio_full_vs_bare_no_msaa",
        "longest_gui_stall_s",
        "picture_frame_s",  # the stall split: the view's frame, its code (below), and the
        "full_render_on_gui_first_s",  # full mesh's frame on the GUI thread it avoids
        "full_render_on_gui_next_s",
        "offscreen_render_s",
    ):
        assert isinstance(result[key], float) and result[key] > 0, key
    assert isinstance(result["our_code_s"], float)
    assert result["runs"]["bare_default"][0]["triangles"] == file_triangles
    for name in ("stl-view-preview.png", "stl-view-full.png"):
        picture = QImage(str(shots / name))
        assert not picture.isNull(), name
        assert covered_share(picture) > 0.2, f"{name} shows no mesh"
