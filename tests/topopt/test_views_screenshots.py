"""Acceptance 4: screenshots of the density view (mid-run) and the STL view under Xvfb.

VTK needs a real OpenGL context, so the views run in a subprocess on an Xvfb display with the xcb
platform (tests/topopt/views_screenshot_script.py). The pictures are kept in the test artifact
folder ($WORKBENCH_TEST_ARTIFACTS, else tests/artifacts/ in the repository) for a person to look
at; the test checks that the field and the mesh are really there, not a blank window.
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

ROOT = Path(__file__).resolve().parents[2]


def region_colours(image: QImage, rect: list[int], step: int = 3) -> list[QColor]:
    x, y, width, height = rect
    return [
        image.pixelColor(i, j)
        for i in range(max(0, x), min(image.width(), x + width), step)
        for j in range(max(0, y), min(image.height(), y + height), step)
    ]


@pytest.mark.xvfb
@pytest.mark.slow
@pytest.mark.timeout(900)  # a 1.3M-triangle mesh on software GL, on a shared 2-core machine
def test_screenshots_show_the_field_and_the_mesh(tmp_path: Path) -> None:
    out = artifact_folder("topopt-views")
    for old in out.glob("*.png"):
        old.unlink()
    with running_xvfb() as display:
        environment = {
            **os.environ,
            "DISPLAY": display,
            "QT_QPA_PLATFORM": "xcb",
            "WORKBENCH_HOME": str(tmp_path / "home"),
        }
        done = subprocess.run(
            [sys.executable, "-m", "tests.topopt.views_screenshot_script", str(out), "--big-mesh"],
            env=environment,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
        )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    (out / "report.json").write_text(json.dumps(report, indent=2))

    # Density view, mid-run: the run went on after the picture, and every iteration was drawn.
    assert 0 < report["density_iteration"] < report["density_iterations"] - 1
    assert report["density_drawn"] == report["density_iterations"]
    density = QImage(str(out / "density-view-mid-run.png"))
    assert not density.isNull()
    field = region_colours(density, report["density_image_rect"])
    greys = [colour.lightness() for colour in field]
    assert len(field) > 1000
    material = sum(g < 60 for g in greys) / len(greys)
    void = sum(g > 200 for g in greys) / len(greys)
    # a beam forming: black material, white void and grey in between, not a flat frame
    assert 0.15 < material < 0.85 and 0.15 < void < 0.85, (material, void)
    assert len({g // 8 for g in greys}) > 8

    # STL view: the mesh covers a good part of the render and is shaded (many colours).
    for name in ("stl-view.png", "stl-view-1m.png"):
        picture = QImage(str(out / name))
        assert not picture.isNull(), name
        pixels = region_colours(picture, report["stl_render_rect"])
        background = QColor("white")
        covered = sum(c != background for c in pixels) / len(pixels)
        assert covered > 0.05, f"{name}: the mesh covers only {covered:.1%} of the render"
        assert len({c.rgb() for c in pixels}) > 20, f"{name} looks flat"
    assert report["stl_watertight"] and report["stl_triangles"] > 100
    assert report["stl_volume"] > 0
    assert "watertight: <b>yes</b>" in report["stl_stats"]
    # 1M triangles: read and checked in a thread, shown, still watertight
    assert report["big_triangles"] > 1_000_000 and report["big_watertight"]
