"""STL export: always a closed, consistently oriented solid of the right volume.

"Material area" is the area of the union of pixels with density >= threshold (after mirroring),
plus the corner bridges that join pixels touching only diagonally (2 * 0.02^2 px^2 each, see
workbench_plugins.topopt.stl). The exact check uses that area; the 1 % check uses the bare pixel
count, as the acceptance criterion states it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import trimesh
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from workbench_plugins.topopt.stl import (
    StlExportError,
    StlSettings,
    count_components,
    export_stl,
    material_mask,
)


def check_solid(design: np.ndarray, path: Path, options: StlSettings) -> None:
    report = export_stl(design, path, options)
    mesh = trimesh.load(path, file_type="stl", force="mesh")
    assert mesh.is_watertight
    assert mesh.is_winding_consistent
    assert mesh.volume > 0
    pixels = int(material_mask(design, options).sum())
    pixel_volume = pixels * options.scale_xy**2 * options.scale_z
    assert mesh.volume == pytest.approx(pixel_volume, rel=0.01)
    assert mesh.volume == pytest.approx(report.material_area_mm2 * options.scale_z, rel=1e-5)
    assert report.is_watertight and report.is_winding_consistent
    # the solid has exactly as many parts as the 8-connected material has components
    assert (
        mesh.body_count == report.num_components == count_components(material_mask(design, options))
    )
    width = design.shape[1] * (2 if options.mirror_y else 1)
    assert mesh.bounds[1][0] == pytest.approx(width * options.scale_xy, rel=1e-6) or (
        not material_mask(design, options)[:, -1].any()
    )


fields = arrays(
    np.float64,
    st.tuples(st.integers(1, 12), st.integers(1, 12)),
    elements=st.sampled_from([0.0, 0.2, 0.45, 0.5, 0.55, 0.8, 1.0]),
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    design=fields,
    threshold=st.floats(0.05, 1.0),
    scale_xy=st.floats(0.1, 5.0),
    scale_z=st.floats(0.5, 20.0),
    mirror=st.booleans(),
)
def test_every_export_is_a_watertight_solid_of_the_material_volume(
    tmp_path: Path,
    design: np.ndarray,
    threshold: float,
    scale_xy: float,
    scale_z: float,
    mirror: bool,
) -> None:
    options = StlSettings(threshold, scale_xy, scale_z, mirror)
    if not (design >= threshold).any():
        with pytest.raises(StlExportError, match="threshold"):
            export_stl(design, tmp_path / "none.stl", options)
        return
    check_solid(design, tmp_path / "part.stl", options)


@pytest.mark.parametrize("mirror", [False, True])
@pytest.mark.parametrize(
    "design",
    [
        (np.indices((9, 9)).sum(axis=0) % 2).astype(float),  # checkerboard
        (np.indices((8, 8)).sum(axis=0) % 2 == 0).astype(float),  # the other parity
        np.eye(6),  # a diagonal chain of corner contacts
        np.fliplr(np.eye(6)),
        np.array([[1.0, 0.0], [0.0, 1.0]]),
        np.array([[1.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]]),  # hole touching outside
        np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]),  # ring of corner contacts
    ],
    ids=["checker-odd", "checker-even", "diagonal", "antidiagonal", "saddle", "hole", "diamond"],
)
def test_corner_touching_pixels_stay_watertight(
    tmp_path: Path, design: np.ndarray, mirror: bool
) -> None:
    check_solid(design, tmp_path / "corners.stl", StlSettings(0.5, 2.0, 3.0, mirror))


def test_checkerboard_is_one_part() -> None:
    board = (np.indices((9, 9)).sum(axis=0) % 2).astype(float)
    assert count_components(board >= 0.5) == 1


def test_no_material_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StlExportError, match=r"threshold 0\.9.*maximum is 0\.8"):
        export_stl(np.full((4, 4), 0.8), tmp_path / "x.stl", StlSettings(threshold=0.9))
    assert not (tmp_path / "x.stl").exists()
