"""A big STL in the STL view: the GUI thread keeps answering while the mesh comes, and the full
mesh's still frames are drawn off the GUI thread (stl_stills.py, stl_offscreen.py).

A person opens a 327,680-triangle file in a real window (Xvfb, software GL), turns the camera,
and lets go. The script below runs in a subprocess (VTK needs a real GL context; the test
process runs Qt offscreen) and reports what happened, in order; nothing here is timed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.rigs.xvfb import running_xvfb
from tests.support.artifacts import artifact_folder
from workbench_plugins.topopt.views.stl_open_bench import make_test_mesh

ROOT = Path(__file__).resolve().parents[2]
SUBDIVISIONS = 7  # 327,680 triangles: above the preview threshold, quick to make

PERSON = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication
    from workbench.core.context import AppContext
    from workbench.ui.async_loop import attached_event_loop
    from workbench_plugins.topopt.views.stl_view import StlView
    from workbench_plugins.topopt.views.stl_open_bench import run_until, save_view_picture, settle

    app = QApplication(sys.argv[:1])
    context = AppContext.open()
    events, report = [], {}
    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(len(events)))
    with attached_event_loop(app):
        view = StlView(context)
        view.resize(1000, 700)
        view.show()
        run_until(view.isVisible, "the window")
        settle()
        for signal, step in ((view.preview_shown, "preview"),
                             (view.full_mesh_shown, "full"), (view.mesh_shown, "checked")):
            signal.connect(lambda _name, step=step: events.append(step))
        timer.start(10)
        view.load_file(Path(sys.argv[1]))
        run_until(lambda: "checked" in events, "the mesh and its checks")
        timer.stop()
        # how many ticks came while waiting for each step: the GUI thread was not blocked
        report["ticks_before"] = {step: ticks.count(i) for i, step in enumerate(events)}
        report["events"] = events
        report["picture_up"] = view.stills.frame is not None
        report["coarse_visible"] = bool(view.plotter.actors["stl"].GetVisibility())
        save_view_picture(view, Path(sys.argv[2]) / "stl-still-full.png")
        # the person turns the camera: the coarse copy is drawn while it moves
        view.plotter.camera.Azimuth(40.0)
        view.plotter.repaint()
        report["moving_picture_up"] = view.stills.frame is not None
        report["moving_coarse_visible"] = bool(view.plotter.actors["stl"].GetVisibility())
        # ... and lets go: a new picture of the full mesh for the new view
        run_until(lambda: view.stills.frame is not None, "the picture for the new view")
        report["rest_coarse_visible"] = bool(view.plotter.actors["stl"].GetVisibility())
        report["rest_key_is_camera"] = view.stills.frame.key[0] == view.plotter.camera.position
        save_view_picture(view, Path(sys.argv[2]) / "stl-still-turned.png")
        view.close_plotter()
        view.close()
    context.close()
    print(json.dumps(report))
    """
)


@pytest.mark.xvfb
@pytest.mark.slow
@pytest.mark.timeout(300)
def test_big_stl_comes_in_steps_without_blocking_and_is_redrawn_after_turning(
    tmp_path: Path,
) -> None:
    mesh = tmp_path / "rippled.stl"
    make_test_mesh(mesh, SUBDIVISIONS)
    shots = artifact_folder("stl-view-stills")
    with running_xvfb() as display:
        environment = {
            **os.environ,
            "DISPLAY": display,
            "QT_QPA_PLATFORM": "xcb",
            "WORKBENCH_HOME": str(tmp_path / "home"),
        }
        done = subprocess.run(
            [sys.executable, "-c", PERSON, str(mesh), str(shots)],
            env=environment,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=240,
        )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["events"] == ["preview", "full", "checked"]  # preview first, then full mesh
    # the GUI thread answered its 10 ms timer while the file was read and drawn elsewhere
    assert report["ticks_before"]["preview"] > 0 and report["ticks_before"]["full"] > 0
    # at rest the full mesh is a picture drawn off the GUI thread; the coarse copy is hidden
    assert report["picture_up"] and not report["coarse_visible"]
    # while the camera moves the coarse copy is drawn instead of the out-of-date picture
    assert not report["moving_picture_up"] and report["moving_coarse_visible"]
    # once it rests, a new picture for the new view replaces the coarse copy
    assert report["rest_key_is_camera"] and not report["rest_coarse_visible"]
