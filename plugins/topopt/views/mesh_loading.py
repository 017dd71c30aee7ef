"""Reading and checking an STL for the STL view, off the GUI thread (no Qt, no GL).

A 1M-triangle mesh takes seconds to merge and check, so this runs in a worker thread; only the
finished `pyvista.PolyData` is handed to VTK on the GUI thread. Big meshes also get a coarse copy
to draw while the camera moves.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

LOD_TRIANGLES = 200_000  # above this the STL view also draws a coarse copy while the camera moves
LOD_DIVISIONS = 96  # clustering grid per axis: roughly 100k triangles for a closed surface


@dataclass
class LoadedMesh:
    """A mesh read and checked off the GUI thread, ready for VTK."""

    name: str
    polydata: Any  # pyvista.PolyData
    triangles: int
    watertight: bool
    winding_consistent: bool
    volume: float | None
    area: float
    bounds: list[list[float]]
    read_s: float
    coarse: Any = None  # a decimated copy drawn while the camera moves (big meshes only)


class MeshLoadError(RuntimeError):
    pass


def load_mesh(path: Path, name: str = "") -> LoadedMesh:
    """Read an STL (also a content-addressed artifact without suffix) and check it; no Qt, no GL.

    trimesh merges the vertices (needed to judge watertightness) with vectorised numpy, so a
    1M-triangle file takes seconds, not minutes; it runs in a worker thread.
    """
    import pyvista as pv
    import trimesh

    started = time.perf_counter()
    try:
        with Path(path).open("rb") as handle:
            mesh = trimesh.load_mesh(handle, file_type="stl")
    except (OSError, ValueError, IndexError, KeyError) as error:
        raise MeshLoadError(f"Cannot read {name or path} as an STL file: {error}") from error
    if not isinstance(mesh, trimesh.Trimesh) or len(mesh.faces) == 0:
        raise MeshLoadError(f"{name or path} holds no triangles.")
    watertight = bool(mesh.is_watertight)
    polydata = pv.PolyData.from_regular_faces(
        # float32 points are accepted (half the memory); pyvista's hint names only float64
        np.asarray(mesh.vertices, dtype=np.float32),  # type: ignore[arg-type]
        np.asarray(mesh.faces),
    )
    coarse = None
    if len(mesh.faces) > LOD_TRIANGLES:  # O(n) clustering; keeps rotating usable on software GL
        coarse = _cluster(polydata)
    return LoadedMesh(
        name=name or Path(path).name,
        polydata=polydata,
        triangles=len(mesh.faces),
        watertight=watertight,
        winding_consistent=bool(mesh.is_winding_consistent),
        volume=float(mesh.volume) if watertight else None,
        area=float(mesh.area),
        bounds=[[float(v) for v in row] for row in mesh.bounds],
        read_s=time.perf_counter() - started,
        coarse=coarse,
    )


def _cluster(polydata: Any) -> Any:
    """A ~100k-triangle stand-in (vertex clustering on a grid) for interactive frames."""
    import pyvista as pv
    from vtkmodules.vtkFiltersCore import vtkQuadricClustering

    clustering = vtkQuadricClustering()
    clustering.SetInputData(polydata)
    clustering.SetNumberOfDivisions(LOD_DIVISIONS, LOD_DIVISIONS, LOD_DIVISIONS)
    clustering.Update()
    return pv.wrap(clustering.GetOutput())
