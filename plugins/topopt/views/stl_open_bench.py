"""Benchmark: the STL view opening a 1M-triangle STL, against bare pyvista in the same run.

    xvfb-run -a -s "-screen 0 1280x800x24" python -m workbench_plugins.topopt.views.stl_open_bench
        [--file STL | --subdivisions 8] [--repeats 3] [--shots DIR] [--json]

For the same file (by default a rippled sphere of 1,310,720 triangles, made in a temporary
folder) it measures, each repeat in turn:

- bare pyvista: `pyvista.read` + `add_mesh` + the first frame in an open `pyvista.Plotter`, with
  pyvista's default GL settings and with multisampling off (as the view draws);
- the STL view (an open window, then "file chosen"): time to the preview on screen, to the full
  mesh on screen, and to its checks shown;
- the longest GUI-thread stall meanwhile: a 10 ms QTimer heartbeat records the gaps between its
  ticks; also how long each GUI-thread step of the view took, split into the view's own code
  and its on-screen frame;
- what the GUI thread no longer pays: one frame of the full mesh drawn in the view's window
  (the first, with its buffer upload, and a second), and the same frame as the view's worker
  drew it offscreen.

It prints a table (or, with --json, one JSON line). VTK needs an X display with OpenGL; Xvfb
with Mesa's software renderer is enough. No timing is asserted: it reports.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from statistics import median
from typing import Any

STALL_TARGET_S = 0.05
RATIO_TARGET = 1.5
WINDOW = (1000, 700)
HEARTBEAT_MS = 10
TIMEOUT_S = 300.0


def make_test_mesh(path: Path, subdivisions: int) -> int:
    """A closed, rippled sphere (20 * 4**subdivisions triangles) as a binary STL; its count."""
    import numpy as np
    import trimesh

    sphere = trimesh.creation.icosphere(subdivisions=subdivisions, radius=1.0)
    unit = np.asarray(sphere.vertices)
    # smooth bumps everywhere (no pole), so the full mesh shows detail the preview lacks
    radius = 20.0 * (1.0 + 0.06 * np.prod(np.sin(9.0 * unit), axis=1))
    trimesh.Trimesh(unit * radius[:, None], sphere.faces, process=False).export(path, "stl")
    return len(sphere.faces)


class Heartbeat:
    """A 10 ms timer on the GUI thread; a long gap between ticks is a stalled GUI."""

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.ticks: list[float] = []
        self.timer = QTimer()
        self.timer.setInterval(HEARTBEAT_MS)
        self.timer.timeout.connect(lambda: self.ticks.append(time.perf_counter()))

    def start(self) -> None:
        self.ticks = [time.perf_counter()]
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def longest_gap(self, start: float, end: float) -> float:
        inside = [start, *(tick for tick in self.ticks if start < tick < end), end]
        return max(later - earlier for earlier, later in pairwise(inside))

    def stalls(self, start: float, end: float) -> list[tuple[float, float]]:
        """(when, how long) in ms from `start` of every gap over the stall target."""
        inside = [start, *(tick for tick in self.ticks if start < tick < end), end]
        return [
            (round((earlier - start) * 1e3), round((later - earlier) * 1e3))
            for earlier, later in pairwise(inside)
            if later - earlier > STALL_TARGET_S
        ]


def run_until(done: Callable[[], bool], what: str) -> None:
    """Run the Qt event loop (a real one, not a polling loop) until `done()`."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    check = QTimer()
    check.timeout.connect(lambda: loop.quit() if done() else None)
    check.start(5)
    QTimer.singleShot(int(TIMEOUT_S * 1000), loop.quit)
    loop.exec()
    check.stop()
    if not done():
        raise SystemExit(f"Timed out after {TIMEOUT_S:.0f} s waiting for {what}.")


def settle(seconds: float = 0.5) -> None:
    """Run the Qt event loop for a while (pending paints and expose events)."""
    deadline = time.perf_counter() + seconds
    run_until(lambda: time.perf_counter() > deadline, "the event loop to settle")


def bare_pyvista(path: Path, multisampling: bool) -> dict[str, Any]:
    """`pyvista.read` + first frame in an already open window, as a short script would do it."""
    import pyvista as pv

    theme = copy.deepcopy(pv.global_theme)  # the defaults a plain script gets
    if not multisampling:
        theme.anti_aliasing = None
    plotter = pv.Plotter(window_size=list(WINDOW), theme=theme)
    plotter.show(auto_close=False, interactive_update=True)  # the window is up before the file
    started = time.perf_counter()
    mesh = pv.read(path)
    read_s = time.perf_counter() - started
    plotter.add_mesh(mesh, color="#8fb3d9")
    plotter.render()
    total_s = time.perf_counter() - started
    window = plotter.render_window
    samples = window.GetMultiSamples() if window is not None else 0
    plotter.close()
    return {"read_s": read_s, "total_s": total_s, "triangles": mesh.n_cells, "samples": samples}


def view_open(view: Any, path: Path, shots: Path | None = None) -> dict[str, Any]:
    """Open `path` in the STL view and time each step; optional screenshots of preview and full."""
    seen: dict[str, float] = {}
    failures: list[str] = []
    handlers: list[tuple[Any, Callable[..., None]]] = []
    for signal, step in (
        (view.preview_shown, "preview"),
        (view.full_mesh_shown, "full"),
        (view.mesh_shown, "checked"),
    ):

        def record(_name: str, step: str = step) -> None:
            seen[step] = time.perf_counter()
            if shots is not None and step == "preview":
                save_view_picture(view, shots / "stl-view-preview.png")

        signal.connect(record)
        handlers.append((signal, record))
    view.load_failed.connect(failures.append)
    settle()  # repaints owed to the bare runs' windows closing over the view are not its load
    frames: list[float] = []  # every frame VTK drew meanwhile (the view's and any repaint)
    window = view.plotter.render_window
    observer = window.AddObserver("EndEvent", lambda *_: frames.append(time.perf_counter()))
    heartbeat = Heartbeat()
    heartbeat.start()
    chosen = time.perf_counter()
    view.load_file(path)
    run_until(lambda: "checked" in seen or bool(failures), "the STL view")
    heartbeat.stop()
    window.RemoveObserver(observer)
    for signal, handler in handlers:
        signal.disconnect(handler)
    view.load_failed.disconnect(failures.append)
    if failures:
        raise SystemExit(f"The STL view could not open {path}: {failures[0]}")
    full_at = seen["full"]
    frames_s = dict(view.gui_frames)
    return {
        "preview_s": seen["preview"] - chosen if "preview" in seen else None,
        "full_s": full_at - chosen,
        "checked_s": seen["checked"] - chosen,
        "longest_stall_s": heartbeat.longest_gap(chosen, full_at),
        "longest_stall_until_checked_s": heartbeat.longest_gap(chosen, seen["checked"]),
        "stalls_ms": heartbeat.stalls(chosen, seen["checked"]),
        "steps_at_ms": {step: round((at - chosen) * 1e3) for step, at in seen.items()},
        "gui_steps_s": dict(view.gui_steps),
        "gui_frames_s": frames_s,
        "our_code_s": {step: s - frames_s.get(step, 0.0) for step, s in view.gui_steps.items()},
        "offscreen_render_s": view.stills.render_s if view.stills.active else None,
        "full_render_on_gui_s": full_mesh_on_gui_thread(view),
        "frames_drawn": len(frames),
        "preview_triangles": view.preview.polydata.n_cells if "preview" in seen else None,
        "full_triangles": int(view.full_polydata.n_cells),
        "file_triangles": view.loaded.triangles,
        "watertight": view.loaded.watertight,
    }


def full_mesh_on_gui_thread(view: Any) -> dict[str, float]:
    """Seconds of the first and a second frame of the full mesh drawn in the view's own window,
    on the GUI thread (what the view avoids); measured after the load, outside its timing."""
    from vtkmodules.vtkRenderingCore import vtkActor, vtkPolyDataMapper

    window, renderer = view.plotter.render_window, view.plotter.renderer
    mapper = vtkPolyDataMapper()
    mapper.SetInputData(view.full_polydata)
    actor = vtkActor()
    actor.SetMapper(mapper)
    hidden = [prop for prop in renderer.GetViewProps() if prop.GetVisibility()]
    for prop in hidden:
        prop.VisibilityOff()
    textured = renderer.GetTexturedBackground()
    renderer.TexturedBackgroundOff()
    renderer.AddActor(actor)
    seconds = {}
    for frame in ("first", "second"):
        started = time.perf_counter()
        window.Render()
        seconds[frame] = time.perf_counter() - started
    renderer.RemoveActor(actor)
    for prop in hidden:
        prop.VisibilityOn()
    renderer.SetTexturedBackground(textured)
    view.plotter.update()
    settle()
    return seconds


def save_view_picture(view: Any, path: Path) -> None:
    """The Qt parts from grab(), the GL area from VTK's own screenshot painted in place."""
    from PySide6.QtCore import QPoint, QRect
    from PySide6.QtGui import QImage, QPainter

    view.plotter.repaint()  # screenshot() reads the last frame; draw the current camera first
    render = view.plotter.screenshot(None, return_img=True)
    height, width = render.shape[:2]
    image = QImage(render.tobytes(), width, height, 3 * width, QImage.Format.Format_RGB888)
    picture = view.grab().toImage()
    painter = QPainter(picture)
    painter.drawImage(QRect(view.plotter.mapTo(view, QPoint(0, 0)), view.plotter.size()), image)
    painter.end()
    path.parent.mkdir(parents=True, exist_ok=True)
    picture.save(str(path))


def measure(path: Path, repeats: int, shots: Path | None) -> dict[str, Any]:
    """All runs in one process, interleaved so a busy machine weighs on every variant alike."""
    from PySide6.QtWidgets import QApplication

    from workbench.core.context import AppContext
    from workbench.ui.async_loop import attached_event_loop
    from workbench_plugins.topopt.views.stl_view import StlView

    app = QApplication.instance() or QApplication(sys.argv[:1])
    path.read_bytes()  # into the page cache: every variant reads a warm file
    context = AppContext.open()
    runs: dict[str, list[dict[str, Any]]] = {"bare_default": [], "bare_no_msaa": [], "view": []}
    try:
        with attached_event_loop(app):
            view = StlView(context)
            view.resize(*WINDOW)
            view.show()
            run_until(lambda: view.isVisible(), "the STL view window")
            for _ in range(repeats):
                runs["bare_default"].append(bare_pyvista(path, multisampling=True))
                runs["bare_no_msaa"].append(bare_pyvista(path, multisampling=False))
                runs["view"].append(view_open(view, path))
            if shots is not None:  # not timed: the grabs cost frames of their own
                view_open(view, path, shots)
                camera = view.plotter.camera  # turned and closer, as a person would look
                camera.azimuth, camera.elevation = 35.0, 25.0
                camera.zoom(1.8)
                view.plotter.update()  # the coarse copy while it moved, then a new still frame
                settle()
                run_until(
                    lambda: view.stills.frame is not None or not view.stills.active,
                    "the full mesh's picture for the turned camera",
                )
                save_view_picture(view, shots / "stl-view-full.png")
            view.close_plotter()
            view.close()
    finally:
        context.close()
    return summarise(path, runs)


def summarise(path: Path, runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    def middle(variant: str, key: str) -> float | None:
        values = [run[key] for run in runs[variant] if run[key] is not None]
        return median(values) if values else None

    bare_default, bare_strict = middle("bare_default", "total_s"), middle("bare_no_msaa", "total_s")
    full = middle("view", "full_s")
    last = runs["view"][-1]
    return {
        "file": str(path),
        "repeats": len(runs["view"]),
        "file_triangles": last["file_triangles"],
        "full_triangles": last["full_triangles"],
        "preview_triangles": last["preview_triangles"],
        "watertight": last["watertight"],
        "bare_pyvista_s": bare_default,
        "bare_pyvista_read_s": middle("bare_default", "read_s"),
        "bare_pyvista_samples": runs["bare_default"][-1]["samples"],
        "bare_pyvista_no_msaa_s": bare_strict,
        "view_preview_s": middle("view", "preview_s"),
        "view_full_s": full,
        "view_checked_s": middle("view", "checked_s"),
        "ratio_full_vs_bare": full / bare_default if full and bare_default else None,
        "ratio_full_vs_bare_no_msaa": full / bare_strict if full and bare_strict else None,
        "ratio_target": RATIO_TARGET,
        "longest_gui_stall_s": max(run["longest_stall_s"] for run in runs["view"]),
        "longest_gui_stall_per_run_s": [run["longest_stall_s"] for run in runs["view"]],
        "longest_gui_stall_until_checked_s": max(
            run["longest_stall_until_checked_s"] for run in runs["view"]
        ),
        "stall_target_s": STALL_TARGET_S,
        "view_frames_drawn": max(run["frames_drawn"] for run in runs["view"]),
        "gui_steps_s": {
            step: max(run["gui_steps_s"].get(step, 0.0) for run in runs["view"])
            for step in ("preview", "full")
        },
        "our_code_s": max(max(run["our_code_s"].values(), default=0.0) for run in runs["view"]),
        "picture_frame_s": max(
            max(run["gui_frames_s"].values(), default=0.0) for run in runs["view"]
        ),
        "full_render_on_gui_first_s": median(
            run["full_render_on_gui_s"]["first"] for run in runs["view"]
        ),
        "full_render_on_gui_next_s": median(
            run["full_render_on_gui_s"]["second"] for run in runs["view"]
        ),
        "offscreen_render_s": middle("view", "offscreen_render_s"),
        "runs": runs,
    }


def table(result: dict[str, Any]) -> str:
    def seconds(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.3f} s"

    def milliseconds(value: float | None) -> str:
        return "n/a" if value is None else f"{value * 1e3:.0f} ms"

    steps = ", ".join(f"{k} {v * 1e3:.0f} ms" for k, v in result["gui_steps_s"].items())
    rows = [
        f"file: {result['file']} ({result['file_triangles']:,} triangles), "
        f"median of {result['repeats']} run(s)",
        f"bare pyvista read + first frame (MSAA x{result['bare_pyvista_samples']}): "
        f"{seconds(result['bare_pyvista_s'])} (read {seconds(result['bare_pyvista_read_s'])})",
        f"bare pyvista, no MSAA (as the view):   {seconds(result['bare_pyvista_no_msaa_s'])}",
        f"view: preview on screen   {seconds(result['view_preview_s'])} "
        f"({result['preview_triangles']} triangles)",
        f"view: full mesh on screen {seconds(result['view_full_s'])} "
        f"({result['full_triangles']:,} triangles)",
        f"view: checks shown        {seconds(result['view_checked_s'])}",
        f"ratio full / bare: {result['ratio_full_vs_bare']:.2f} (no-MSAA bare: "
        f"{result['ratio_full_vs_bare_no_msaa']:.2f}; target <= {RATIO_TARGET})",
        f"longest GUI stall until full mesh: {result['longest_gui_stall_s'] * 1e3:.0f} ms, "
        f"until checks: {result['longest_gui_stall_until_checked_s'] * 1e3:.0f} ms "
        f"(target {STALL_TARGET_S * 1e3:.0f} ms); each run: "
        + ", ".join(f"{v * 1e3:.0f}" for v in result["longest_gui_stall_per_run_s"])
        + " ms",
        f"longest GUI-thread step of the view: {steps}; "
        f"frames drawn during a load: {result['view_frames_drawn']}",
        f"  of which the view's own code: {milliseconds(result['our_code_s'])}, "
        f"its on-screen frame (a picture or the preview): "
        f"{milliseconds(result['picture_frame_s'])}",
        f"one frame of the full mesh on the GUI thread (avoided): first "
        f"{milliseconds(result['full_render_on_gui_first_s'])}, next "
        f"{milliseconds(result['full_render_on_gui_next_s'])}; drawn offscreen by the worker: "
        f"{milliseconds(result['offscreen_render_s'])}",
    ]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--file", type=Path, help="an STL to open (default: a rippled sphere)")
    parser.add_argument("--subdivisions", type=int, default=8, help="8 gives 1,310,720 triangles")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--shots", type=Path, help="save pictures of the preview and full mesh")
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    options = parser.parse_args(argv)
    if not os.environ.get("DISPLAY"):
        print(
            "This benchmark needs an X display with OpenGL (VTK). Run it under Xvfb:\n"
            '  xvfb-run -a -s "-screen 0 1280x800x24" python -m '
            "workbench_plugins.topopt.views.stl_open_bench",
            file=sys.stderr,
        )
        return 2
    os.environ["QT_QPA_PLATFORM"] = "xcb"  # VTK draws into a native X window
    with tempfile.TemporaryDirectory(prefix="stl-open-bench-") as folder:
        os.environ["WORKBENCH_HOME"] = str(Path(folder) / "home")  # never the user's workspace
        path = options.file
        if path is None:
            path = Path(folder) / "rippled-sphere.stl"
            make_test_mesh(path, options.subdivisions)
        result = measure(path, max(1, options.repeats), options.shots)
    print(json.dumps(result) if options.json else table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
