"""The desk walkthrough (test_walkthrough_desk.py) under a real X server: Xvfb, Qt's xcb platform
and OpenGL, where VTK really renders the STL and a freeze of its first render would show. Runs the
walkthrough's pytest in a child process (a QApplication's platform is fixed when it starts) and
keeps its screenshots under this test's tmp folder (artifacts/), and in $WORKBENCH_TEST_ARTIFACTS
when set."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.rigs.xvfb import running_xvfb

ROOT = Path(__file__).resolve().parents[2]
WALKTHROUGH = "tests/ui/test_walkthrough_desk.py"
TIMEOUT_S = 900


@pytest.mark.xvfb
def test_the_desk_walkthrough_under_x11(tmp_path: Path) -> None:
    pictures = tmp_path / "artifacts"
    with running_xvfb(1920, 1200) as display:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-n",
                "0",
                "-p",
                "no:cacheprovider",
                "-q",
                WALKTHROUGH,
            ],
            env={
                **os.environ,
                "DISPLAY": display,
                "QT_QPA_PLATFORM": "xcb",
                "WORKBENCH_TEST_ARTIFACTS": str(pictures),
            },
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            cwd=ROOT,
        )
    wanted = os.environ.get("WORKBENCH_TEST_ARTIFACTS")
    if wanted and pictures.exists():
        shutil.copytree(pictures, Path(wanted) / "walkthrough-x11", dirs_exist_ok=True)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    shots = sorted(pictures.rglob("*.png"))
    assert len(shots) == 18, shots  # nine steps at each of the two sizes
