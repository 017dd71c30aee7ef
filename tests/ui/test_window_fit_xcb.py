"""Issue 14: under a real X server (Xvfb + xcb), the canvas gets the biggest share of the main
window at its first size and when it grows; the offscreen platform lays docks out differently,
so this is where the defect (chat 360 + ledger 440 left the canvas 428 of 1240 px) showed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.rigs.xvfb import running_xvfb

ROOT = Path(__file__).resolve().parents[2]
# Runs in a child process with DISPLAY set: opens the real main window, prints its dock widths.
MEASURE = """
import json, sys, time
from PySide6.QtWidgets import QApplication
from workbench.core.context import AppContext
from workbench.ui.async_loop import attached_event_loop
from workbench.ui.main_window import MainWindow

app = QApplication([])
def settle():
    for _ in range(40):
        app.processEvents()
        time.sleep(0.02)
with attached_event_loop(app):
    context = AppContext.open()
    window = MainWindow(context, remember_layout=False)
    window.show()
    settle()
    shares = {}
    for width, height in [(window.width(), window.height()), (1600, 1000), (1920, 1080)]:
        window.resize(width, height)
        settle()
        shares[f"{width}x{height}"] = {
            "window": window.width(),
            "canvas": window.view_area.width(),
            "chat": window.chat_dock.width(),
            "ledger": window.ledger_dock.width(),
        }
    window.close()
    context.close()
print(json.dumps(shares))
"""


@pytest.mark.xvfb
def test_the_canvas_gets_the_biggest_share_under_x11() -> None:
    with running_xvfb() as display:
        done = subprocess.run(
            [sys.executable, "-c", MEASURE],
            env={**os.environ, "DISPLAY": display, "QT_QPA_PLATFORM": "xcb"},
            capture_output=True,
            text=True,
            timeout=180,
            cwd=ROOT,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    shares = json.loads(done.stdout.strip().splitlines()[-1])
    for size, widths in shares.items():
        canvas = widths["canvas"]
        assert canvas > max(widths["chat"], widths["ledger"]), (size, widths)
        assert canvas >= widths["window"] // 2 - 20, (size, widths)  # - separators and frames
