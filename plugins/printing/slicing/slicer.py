"""Slicing with the PrusaSlicer command line, as a worker job with progress and cancel.

`slice_job` runs in a worker process (workbench.core.jobs): it checks the mesh (empty, not
watertight, larger than the bed) before PrusaSlicer sees it, because PrusaSlicer's own messages for
those cases are cryptic ("No layers were detected", an uncaught exception), then runs the CLI and
turns its `NN => stage` lines into progress events. Refusals come back as {"error": ...} so the
tool can show the message alone, without a worker traceback.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from workbench.core.jobs import JobCancelled, Reporter
from workbench_plugins.printing.slicing.gcode_meta import read_meta

_PROGRESS = re.compile(r"^(\d+) => (.*)$")
BED_MARGIN_MM = 0.0


class SliceError(Exception):
    pass


def find_slicer(configured: str) -> str:
    found = shutil.which(configured) if configured else None
    if not found:
        raise SliceError(
            f"PrusaSlicer was not found ({configured or 'no path set'}). Install it "
            "(Debian: apt-get install prusa-slicer) or set slicer_path in the printing settings."
        )
    return found


def check_mesh(stl: Path, bed: list[tuple[float, float]], max_height: float) -> dict[str, Any]:
    """Refuse meshes PrusaSlicer would fail on or silently mangle; return their size."""
    import trimesh  # heavy import: only in the worker

    if not stl.is_file():
        raise SliceError(f"The model {stl} does not exist.")
    try:
        mesh = trimesh.load_mesh(stl, force="mesh")
    except Exception as error:
        raise SliceError(f"{stl.name} could not be read as a mesh: {error}") from None
    if mesh.is_empty or len(mesh.faces) == 0:
        raise SliceError(f"{stl.name} holds no triangles: there is nothing to slice.")
    if not mesh.is_watertight:
        raise SliceError(
            f"{stl.name} is not a closed (watertight) solid: it has open edges, so the slicer "
            "cannot tell inside from outside. Repair the mesh or export it again."
        )
    size = [float(v) for v in mesh.extents]
    if bed:
        xs, ys = [p[0] for p in bed], [p[1] for p in bed]
        bed_x, bed_y = max(xs) - min(xs), max(ys) - min(ys)
        # the slicer may rotate nothing on its own: compare the footprint as it is
        if (
            size[0] > bed_x - BED_MARGIN_MM
            or size[1] > bed_y - BED_MARGIN_MM
            or (max_height and size[2] > max_height)
        ):
            raise SliceError(
                f"{stl.name} is {size[0]:.1f} x {size[1]:.1f} x {size[2]:.1f} mm; the printer's "
                f"build volume is {bed_x:.0f} x {bed_y:.0f} x {max_height:.0f} mm. Scale or "
                "split the model, or pick a larger printer."
            )
    return {"size_mm": size, "triangles": len(mesh.faces), "volume_mm3": float(mesh.volume)}


def slice_job(
    reporter: Reporter,
    stl: str,
    ini: str,
    output: str,
    slicer: str,
    bed: list[tuple[float, float]],
    max_height: float,
    timeout_s: float = 600.0,
) -> dict[str, Any]:
    try:
        executable = find_slicer(slicer)
        reporter.progress(0.0, "checking mesh")
        mesh = check_mesh(Path(stl), bed, max_height)
    except SliceError as refused:
        return {"error": str(refused)}
    out = Path(output)
    partial = out.with_name(out.stem + ".part.gcode")
    command = [executable, "--load", ini, "--export-gcode", stl, "--output", str(partial)]
    env = {**os.environ, "LC_ALL": "C"}
    env.pop("DISPLAY", None)  # the CLI needs no display; never grab the user's
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    errors: list[str] = []

    def on_terminate(signum: int, frame: Any) -> None:
        # the job runner terminates a worker that does not stop in time: take the slicer along
        process.kill()
        raise JobCancelled("slicing")

    signal.signal(signal.SIGTERM, on_terminate)
    started = time.monotonic()
    if process.stdout is None:  # never with stdout=PIPE; this tells the type checker
        raise RuntimeError("PrusaSlicer was started without an output pipe")
    try:
        for line in process.stdout:
            line = line.rstrip()
            if reporter.cancelled or time.monotonic() - started > timeout_s:
                raise JobCancelled("slicing") if reporter.cancelled else TimeoutError
            match = _PROGRESS.match(line)
            if match:
                reporter.progress(int(match.group(1)) / 100, match.group(2))
            elif line and "] [trace]" not in line and "] [debug]" not in line:
                errors.append(line)
        code = process.wait()
    except TimeoutError:
        return {"error": f"PrusaSlicer took longer than {timeout_s:.0f} s and was stopped."}
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    if code != 0 or not partial.is_file():
        partial.unlink(missing_ok=True)
        detail = "; ".join(e for e in errors if "exported" not in e)[-600:]
        return {"error": f"PrusaSlicer could not slice {Path(stl).name}: {detail or code}"}
    partial.replace(out)
    reporter.progress(1.0, "sliced")
    return {"gcode": str(out), "mesh": mesh, "meta": read_meta(out).to_dict()}
