"""Printing tests: a context with the printing tools registered, test meshes, and the real
PrusaLink rig once for the session."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.rigs.real_prusalink import RealPrusaLink, require_real_prusalink
from tests.rigs.require import needs_rig, require_rig

SLICER_MISSING = "prusa-slicer is not installed (Debian package prusa-slicer)"
needs_slicer = needs_rig("prusa-slicer", shutil.which("prusa-slicer") is not None, SLICER_MISSING)


@pytest.fixture
def app(context: object) -> object:
    """The app context; registers the printing tools when the entry point is not installed yet."""
    from workbench_plugins.printing.tools import tools

    registry = context.registry  # type: ignore[attr-defined]
    for tool in tools():
        if registry.get(tool.name) is None:
            registry.register(tool, owner="printing")
    return context  # closing the context closes its printers (AppContext.on_close)


@pytest.fixture(scope="session")
def real_prusalink(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealPrusaLink]:
    """The real PrusaLink 0.8.1 (tests/rigs/real_prusalink.py), started once: it takes ~10 s to
    come up. Under xdist its tests run in one worker (tests/rigs/sharing.py)."""
    require_real_prusalink()
    with RealPrusaLink(tmp_path_factory.mktemp("prusalink")) as running:
        yield running


@pytest.fixture
def cube_stl(tmp_path: Path) -> Path:
    import trimesh

    mesh = trimesh.creation.box((20.0, 20.0, 20.0))
    mesh.apply_translation((0, 0, 10))
    path = tmp_path / "cube20.stl"
    mesh.export(path)
    return path


@pytest.fixture(scope="session")
def sliced_cube(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 20 mm cube sliced once per session with the real PrusaSlicer (MK3S preset)."""
    import subprocess

    import trimesh

    from workbench_plugins.printing.slicing.profiles import resolve_presets, write_ini

    require_rig("prusa-slicer", shutil.which("prusa-slicer") is not None, SLICER_MISSING)
    folder = tmp_path_factory.mktemp("sliced")
    mesh = trimesh.creation.box((20.0, 20.0, 20.0))
    mesh.apply_translation((0, 0, 10))
    mesh.export(folder / "cube.stl")
    ini = write_ini(resolve_presets("MK3S", "0.20mm QUALITY @MK3"), folder / "mk3s.ini")
    out = folder / "cube.gcode"
    subprocess.run(
        [
            "prusa-slicer",
            "--load",
            str(ini),
            "--export-gcode",
            str(folder / "cube.stl"),
            "--output",
            str(out),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return out


@pytest.fixture
def short_gcode(sliced_cube: Path, tmp_path: Path) -> Path:
    """The first 1500 commands of the sliced cube (with its M73 progress lines)."""
    from workbench_plugins.printing.slicing.gcode_meta import gcode_commands

    path = tmp_path / "short.gcode"
    path.write_text("\n".join(gcode_commands(sliced_cube)[:1500]) + "\n")
    return path
