"""Screenshots of the topopt views under a real X server (run by test_views_screenshots.py).

    DISPLAY=:N QT_QPA_PLATFORM=xcb WORKBENCH_HOME=... python -m tests.topopt.views_screenshot_script
        OUT_DIR [--big-mesh]

Runs a Beams2D optimisation in the density view and grabs it mid-run, exports the final design as
an STL (the STL view follows the export) and grabs that; with --big-mesh it also loads a
1.3M-triangle sphere and records how long the GUI thread was stalled meanwhile. Prints one JSON
line with what the test checks (image rectangles, stats, iteration numbers, timings).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEventLoop, QPoint, QRect, QTimer
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QApplication

from workbench.core.context import AppContext
from workbench.ui.async_loop import attached_event_loop, running_tasks, start_task
from workbench_plugins.topopt.views import DensityView, StlView

MID_RUN_ITERATION = 15  # of ~60: the beam is recognisable but still grey
TIMEOUT_S = 240.0


def wait_until(app: QApplication, condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)


def settle(app: QApplication, seconds: float = 0.3) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)


def rect_json(rect: QRect) -> list[int]:
    return [rect.x(), rect.y(), rect.width(), rect.height()]


def image_rect(view: DensityView) -> QRect:
    """Where the density image is drawn, in the view's own pixel coordinates."""
    scene_rect = view.image.mapRectToScene(view.image.boundingRect())
    in_viewport = view.plots.mapFromScene(scene_rect).boundingRect()
    top_left = view.plots.viewport().mapTo(view, in_viewport.topLeft())
    return QRect(top_left, in_viewport.size())


def grab_stl_view(view: StlView, path: Path, render_path: Path) -> QRect:
    """The Qt parts come from grab(); the GL area from VTK's own screenshot, painted in place."""
    view.plotter.render()
    view.plotter.screenshot(str(render_path))
    picture = view.grab().toImage()
    render = QImage(str(render_path))
    area = QRect(view.plotter.mapTo(view, QPoint(0, 0)), view.plotter.size())
    painter = QPainter(picture)
    painter.drawImage(area, render)
    painter.end()
    picture.save(str(path))
    return area


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--big-mesh", action="store_true")
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    app = QApplication(sys.argv[:1])
    context = AppContext.open()
    report: dict[str, Any] = {}
    try:
        with attached_event_loop(app):
            report.update(density_shot(app, context, options.out))
            report.update(stl_shot(app, context, options.out, options.big_mesh))
            wait_until(app, lambda: running_tasks() == 0, "GUI tasks to end")
    finally:
        context.close()
    print(json.dumps(report))
    return 0


def density_shot(app: QApplication, context: AppContext, out: Path) -> dict[str, Any]:
    view = DensityView(context)
    view.resize(1100, 700)
    view.show()
    outcomes: list[Any] = []
    view.run_finished.connect(outcomes.append)
    config = {"volfrac": 0.4, "forcedist": 0.65, "rmin": 4.0}
    view.form.volfrac.setValue(0.4)
    view.form.forcedist.setValue(0.65)
    view.form.rmin.setValue(4.0)
    assert view.run("beams2d", config, 42)
    wait_until(
        app, lambda: len(view.drawn_iterations) >= MID_RUN_ITERATION, "the mid-run iteration"
    )
    view.repaint()
    picture = view.grab()
    shown_iteration = view.drawn_iterations[-1]
    picture.save(str(out / "density-view-mid-run.png"))
    rect = image_rect(view)
    wait_until(app, lambda: bool(outcomes), "the optimisation to finish")
    outcome = outcomes[0]
    if not outcome.ok:
        raise SystemExit(f"optimize_design failed: {outcome.error}")
    settle(app)
    view.grab().save(str(out / "density-view-finished.png"))
    result = {
        "density_image_rect": rect_json(rect),
        "density_size": [picture.width(), picture.height()],
        "density_iteration": shown_iteration,
        "density_iterations": len(outcome.result["optimization_info"]["obj_values"]),
        "density_drawn": len(view.drawn_iterations),
    }
    view.close()
    view.deleteLater()
    return result


def stl_shot(app: QApplication, context: AppContext, out: Path, big: bool) -> dict[str, Any]:
    view = StlView(context)
    view.resize(1000, 700)
    view.show()
    shown: list[str] = []
    view.mesh_shown.connect(shown.append)
    view.load_failed.connect(lambda text: shown.append(f"failed: {text}"))
    settle(app, 0.5)  # its first look at the (empty) store

    async def export() -> None:
        arguments = {
            "problem_type": "beams2d",
            "npy_file_path": "last",
            "scale_xy": 1.0,
            "scale_z": 10.0,
            "mirror_y": True,
        }
        outcome = await context.registry.acall("convert_design_to_stl", arguments, caller="shot")
        if not outcome.ok:
            shown.append(f"failed: {outcome.error}")

    start_task(export(), name="export")
    wait_until(app, lambda: bool(shown), "the exported STL in the view")
    if shown[0].startswith("failed"):
        raise SystemExit(shown[0])
    settle(app)
    area = grab_stl_view(view, out / "stl-view.png", out / "stl-render.png")
    loaded = view.loaded
    assert loaded is not None
    result: dict[str, Any] = {
        "stl_render_rect": rect_json(area),
        "stl_triangles": loaded.triangles,
        "stl_watertight": loaded.watertight,
        "stl_volume": loaded.volume,
        "stl_stats": view.stats_label.text(),
    }
    if big:
        result.update(big_mesh(app, view, out))
    view.close_plotter()
    view.close()
    return result


def big_mesh(app: QApplication, view: StlView, out: Path) -> dict[str, Any]:
    """Load a 1.3M-triangle sphere while a 10 ms timer measures how long the GUI was stalled."""
    import trimesh

    path = out / "sphere-1m.stl"
    trimesh.creation.icosphere(subdivisions=8, radius=20.0).export(path)
    gaps: list[tuple[float, float]] = []  # (when, how long since the previous tick)
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gaps.append((now, now - last[0]))
        last[0] = now

    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(10)
    shown: list[str] = []
    view.mesh_shown.connect(shown.append)
    started = time.perf_counter()
    view.load(path)
    wait_until(app, lambda: bool(shown), "the 1M-triangle mesh")
    shown_at = time.perf_counter()
    shown_s = shown_at - started
    read_done = shown_at - view.last_show_s
    settle(app, 0.5)
    render_started = time.perf_counter()
    view.plotter.render()
    render_s = time.perf_counter() - render_started
    timer.stop()
    grab_stl_view(view, out / "stl-view-1m.png", out / "stl-render-1m.png")
    path.unlink()  # 65 MB; not worth keeping
    loaded = view.loaded
    assert loaded is not None
    return {
        "big_triangles": loaded.triangles,
        "big_watertight": loaded.watertight,
        "big_read_s": round(loaded.read_s, 3),
        "big_shown_s": round(shown_s, 3),
        "big_rerender_s": round(render_s, 3),
        "big_show_s": round(view.last_show_s, 3),
        # while the file was read in the thread, vs. whole load including VTK's first frame
        "big_longest_gui_stall_during_read_s": round(
            max((gap for when, gap in gaps if when < read_done), default=0.0), 3
        ),
        "big_longest_gui_stall_s": round(max((gap for _, gap in gaps), default=0.0), 3),
    }


if __name__ == "__main__":
    sys.exit(main())
