"""The real application under a real X server (Xvfb + xcb) paints a full, non-blank window."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from tests.rigs.xvfb import running_xvfb
from workbench.ui.main_window import DEFAULT_SIZE

KEPT_COPY = Path("/tmp/workbench-main-window.png")  # for a person to look at


@pytest.mark.xvfb
def test_screenshot_of_the_main_window(tmp_path: Path) -> None:
    picture = tmp_path / "main-window.png"
    with running_xvfb() as display:
        environment = {**os.environ, "DISPLAY": display, "QT_QPA_PLATFORM": "xcb"}
        done = subprocess.run(
            [sys.executable, "-m", "workbench", "--screenshot", str(picture)],
            env=environment,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    image = QImage(str(picture))
    assert not image.isNull(), f"{picture} is not an image"
    assert (image.width(), image.height()) == DEFAULT_SIZE
    step = 16
    colours = {
        image.pixel(x, y)
        for x in range(0, image.width(), step)
        for y in range(0, image.height(), step)
    }
    assert len(colours) > 20, f"the window looks blank ({len(colours)} colours)"
    shutil.copyfile(picture, KEPT_COPY)
