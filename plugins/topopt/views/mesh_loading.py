"""Reading and checking an STL for the STL view, in steps run off the GUI thread (no Qt, no GL).

A big file is shown in two steps so the view has something on screen quickly:

1. `open_stl` looks at the header (is it a binary STL, how many triangles; ASCII files too);
2. `read_preview` reads the raw triangles with numpy and clusters them into a coarse copy
   (~35-40k triangles), only for files above PREVIEW_ABOVE triangles;
3. `read_full` reads the full mesh with VTK's STL reader (points merged, as `pyvista.read` does);
4. `check_mesh` judges watertightness, winding, volume, area and bounds with vectorised numpy.

Steps 2 and 3 are independent, so the view runs them side by side. `load_mesh` does all of them
in one call. VTK releases the GIL while it reads and clusters, so the GUI thread keeps running.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

PREVIEW_ABOVE = 200_000  # triangles; smaller meshes are shown in one step
# Clustering grid per axis: ~37k triangles for a closed surface. On software GL (llvmpipe) a
# frame of the preview then costs 40-75 ms on the GUI thread; 96 (~80k triangles) ~110 ms.
PREVIEW_DIVISIONS = 64
BINARY_HEADER = 84  # 80-byte comment + uint32 triangle count
BINARY_RECORD = np.dtype([("normal", "<f4", (3,)), ("corners", "<f4", (3, 3)), ("tag", "<u2")])


class MeshLoadError(RuntimeError):
    """The file cannot be shown; the message names it and says what is wrong."""


@dataclass(frozen=True)
class StlSource:
    """A file that looks like an STL: its name, its format and (binary only) its triangle count."""

    path: Path
    name: str
    binary: bool
    file_triangles: int | None  # from the binary header; None for ASCII (known after reading)

    @property
    def big(self) -> bool:
        return self.file_triangles is not None and self.file_triangles > PREVIEW_ABOVE


@dataclass
class PreviewMesh:
    """A coarse copy of a big mesh, drawn while the full mesh is read (and while rotating)."""

    name: str
    polydata: Any  # pyvista.PolyData
    file_triangles: int
    seconds: float


@dataclass
class LoadedMesh:
    """A mesh read and checked off the GUI thread, ready for VTK."""

    name: str
    polydata: Any  # pyvista.PolyData
    triangles: int  # as the file says (binary) or as read (ASCII)
    watertight: bool
    winding_consistent: bool
    volume: float | None
    area: float
    bounds: list[list[float]]
    read_s: float
    coarse: Any = None  # the preview, drawn while the camera moves (big meshes only)


def open_stl(path: Path, name: str = "") -> StlSource:
    """Check that `path` is an STL (by size and header, not by suffix: artifacts have none)."""
    label = name or Path(path).name
    try:
        size = Path(path).stat().st_size
        with Path(path).open("rb") as handle:
            head = handle.read(BINARY_HEADER)
    except OSError as error:
        raise MeshLoadError(f"Cannot read {label}: {error.strerror or error}.") from error
    if len(head) == BINARY_HEADER:
        count = int(np.frombuffer(head[80:84], dtype="<u4")[0])
        if size == BINARY_HEADER + count * BINARY_RECORD.itemsize:
            if count == 0:
                raise MeshLoadError(f"{label} holds no triangles.")
            return StlSource(Path(path), label, binary=True, file_triangles=count)
    if head.lstrip().lower().startswith(b"solid"):
        return StlSource(Path(path), label, binary=False, file_triangles=None)
    raise MeshLoadError(
        f"{label} is not an STL file: its size does not match a binary STL's triangle count "
        "and it does not start with 'solid'."
    )


def read_preview(source: StlSource) -> PreviewMesh | None:
    """A clustered copy of a big binary STL, read straight from the file; None if not needed."""
    if not source.binary or not source.big or source.file_triangles is None:
        return None
    import pyvista as pv

    started = time.perf_counter()
    records = np.fromfile(source.path, dtype=BINARY_RECORD, offset=BINARY_HEADER)
    corners = np.ascontiguousarray(records["corners"]).reshape(-1, 3)
    # a triangle soup (corners not merged) clusters to the same result as the merged mesh
    soup = pv.PolyData.from_regular_faces(
        corners,  # type: ignore[arg-type]  # float32 is accepted; pyvista's hint names float64
        np.arange(len(corners)).reshape(-1, 3),  # type: ignore[arg-type]  # its int hint
    )
    return PreviewMesh(source.name, cluster(soup), source.file_triangles, _since(started))


def cluster(polydata: Any) -> Any:
    """A coarse stand-in (vertex clustering on a grid, O(n)) for a big mesh."""
    import pyvista as pv
    from vtkmodules.vtkFiltersCore import vtkQuadricClustering

    clustering = vtkQuadricClustering()
    clustering.SetInputData(polydata)
    clustering.SetNumberOfDivisions(PREVIEW_DIVISIONS, PREVIEW_DIVISIONS, PREVIEW_DIVISIONS)
    clustering.Update()
    return pv.wrap(clustering.GetOutput())


def read_full(source: StlSource) -> Any:
    """The whole mesh, points merged, as a `pyvista.PolyData` (what `pyvista.read` gives)."""
    import pyvista as pv
    from vtkmodules.vtkCommonCore import vtkCommand
    from vtkmodules.vtkIOGeometry import vtkSTLReader

    errors: list[str] = []
    reader = vtkSTLReader()
    reader.SetFileName(str(source.path))
    reader.SetMerging(True)
    for watched in (reader, reader.GetExecutive()):  # report VTK's errors, not print them
        watched.AddObserver(vtkCommand.ErrorEvent, lambda _obj, _event: errors.append("error"))
    reader.Update()
    polydata = pv.wrap(reader.GetOutput())
    if polydata.n_cells == 0:
        why = "VTK's STL reader could not parse it" if errors else "it holds no triangles"
        raise MeshLoadError(f"{source.name} cannot be shown: {why}.")
    return polydata


def check_mesh(source: StlSource, polydata: Any, read_s: float, coarse: Any = None) -> LoadedMesh:
    """Watertightness, winding, volume, area and bounds of the merged mesh (vectorised numpy)."""
    started = time.perf_counter()
    points = np.asarray(polydata.points, dtype=np.float64)
    faces = np.asarray(polydata.regular_faces, dtype=np.int64)
    watertight, winding_consistent = edge_checks(faces, len(points))
    corners = points[faces]  # (n, 3, 3)
    first, second, third = corners[:, 0], corners[:, 1], corners[:, 2]
    volume = float(np.einsum("ij,ij->", first, np.cross(second, third))) / 6.0
    area = 0.5 * float(np.linalg.norm(np.cross(second - first, third - first), axis=1).sum())
    if coarse is None and len(faces) > PREVIEW_ABOVE:  # ASCII files get no early preview
        coarse = cluster(polydata)
    return LoadedMesh(
        name=source.name,
        polydata=polydata,
        triangles=source.file_triangles or len(faces),
        watertight=watertight,
        winding_consistent=winding_consistent,
        volume=volume if watertight else None,
        area=area,
        bounds=[points.min(axis=0).tolist(), points.max(axis=0).tolist()],
        read_s=read_s + _since(started),
        coarse=coarse,
    )


def edge_checks(faces: np.ndarray, point_count: int) -> tuple[bool, bool]:
    """(watertight, winding consistent): every edge in exactly two triangles; no directed edge
    used twice (two neighbours walk a shared edge in opposite directions)."""
    starts = faces.reshape(-1)
    ends = np.roll(faces, -1, axis=1).reshape(-1)  # edges 0-1, 1-2, 2-0 of each triangle
    directed = np.sort(starts * point_count + ends)
    winding_consistent = not bool(np.any(directed[1:] == directed[:-1]))
    undirected = np.sort(np.minimum(starts, ends) * point_count + np.maximum(starts, ends))
    if len(undirected) % 2:
        return False, winding_consistent
    paired = np.array_equal(undirected[0::2], undirected[1::2])
    no_third_use = not bool(np.any(undirected[2::2] == undirected[1:-1:2]))
    return bool(paired and no_third_use), winding_consistent


def load_mesh(path: Path, name: str = "") -> LoadedMesh:
    """Read an STL (also a content-addressed artifact without suffix) and check it; no Qt, no GL."""
    started = time.perf_counter()
    source = open_stl(path, name)
    preview = read_preview(source)
    polydata = read_full(source)
    coarse = preview.polydata if preview is not None else None
    return check_mesh(source, polydata, _since(started), coarse)


def _since(started: float) -> float:
    return time.perf_counter() - started
