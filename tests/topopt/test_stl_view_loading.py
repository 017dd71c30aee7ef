"""The STL view's loading steps (mesh_loading.py), without Qt or GL.

A big file is split into an early clustered preview and the full mesh (read like pyvista.read);
the checks (watertight, winding, volume) are vectorised numpy and agree with trimesh.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import trimesh

from workbench_plugins.topopt.views.mesh_loading import (
    PREVIEW_ABOVE,
    MeshLoadError,
    check_mesh,
    load_mesh,
    open_stl,
    read_full,
    read_preview,
)
from workbench_plugins.topopt.views.stl_open_bench import make_test_mesh

BIG_SUBDIVISIONS = 7  # 327,680 triangles: above PREVIEW_ABOVE, quick to make


@pytest.fixture(scope="module")
def big_stl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("big") / "rippled"  # no suffix, like a stored artifact
    make_test_mesh(path, BIG_SUBDIVISIONS)
    return path


def test_a_big_binary_stl_gets_a_small_preview_and_the_whole_mesh(big_stl: Path) -> None:
    source = open_stl(big_stl, "rippled.stl")
    assert source.binary and source.file_triangles == 20 * 4**BIG_SUBDIVISIONS > PREVIEW_ABOVE
    preview = read_preview(source)
    assert preview is not None and preview.file_triangles == source.file_triangles
    assert 5_000 < preview.polydata.n_cells < 60_000  # cheap to draw, still the shape
    full = read_full(source)
    assert full.n_cells == source.file_triangles  # the full mesh is the file's, every triangle
    assert np.allclose(preview.polydata.bounds, full.bounds, atol=1.0)
    loaded = check_mesh(source, full, read_s=0.0, coarse=preview.polydata)
    reference = trimesh.load_mesh(big_stl, file_type="stl")
    assert loaded.watertight and loaded.winding_consistent and reference.is_watertight
    assert loaded.volume == pytest.approx(reference.volume, rel=1e-5)
    assert loaded.area == pytest.approx(reference.area, rel=1e-5)
    assert loaded.coarse is preview.polydata  # kept for frames while the camera moves


def test_a_small_mesh_has_no_preview(tmp_path: Path) -> None:
    trimesh.creation.box(extents=(1, 2, 3)).export(tmp_path / "box.stl")
    source = open_stl(tmp_path / "box.stl")
    assert read_preview(source) is None
    loaded = load_mesh(tmp_path / "box.stl")
    assert loaded.coarse is None and loaded.triangles == 12
    assert loaded.volume == pytest.approx(6.0) and loaded.watertight


def test_open_and_inconsistently_wound_meshes_are_told_apart(tmp_path: Path) -> None:
    box = trimesh.creation.box()
    trimesh.Trimesh(box.vertices, box.faces[1:], process=False).export(tmp_path / "open.stl")
    flipped = box.faces.copy()
    flipped[0] = flipped[0][::-1]
    trimesh.Trimesh(box.vertices, flipped, process=False).export(tmp_path / "flipped.stl")
    opened = load_mesh(tmp_path / "open.stl")
    assert not opened.watertight and opened.winding_consistent and opened.volume is None
    wound = load_mesh(tmp_path / "flipped.stl")
    assert wound.watertight and not wound.winding_consistent


def test_an_ascii_stl_is_read(tmp_path: Path) -> None:
    trimesh.creation.box().export(tmp_path / "box.stl", file_type="stl_ascii")
    source = open_stl(tmp_path / "box.stl")
    assert not source.binary and source.file_triangles is None
    loaded = load_mesh(tmp_path / "box.stl")
    assert loaded.triangles == 12 and loaded.watertight and loaded.volume == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("content", "complaint"),
    [
        (b"\x00" * 80 + b"\x00\x00\x00\x00", "holds no triangles"),
        (b"x" * 200, "is not an STL file"),
        (b"\x00" * 80 + b"\x05\x00\x00\x00" + b"\x00" * 60, "is not an STL file"),  # cut short
    ],
)
def test_files_that_are_not_stls_are_named_and_explained(
    tmp_path: Path, content: bytes, complaint: str
) -> None:
    path = tmp_path / "part.stl"
    path.write_bytes(content)
    with pytest.raises(MeshLoadError, match=rf"part\.stl .*{complaint}"):
        load_mesh(path)


def test_a_missing_file_is_explained(tmp_path: Path) -> None:
    with pytest.raises(MeshLoadError, match=r"Cannot read gone\.stl"):
        open_stl(tmp_path / "gone.stl")
