"""Acceptance 1: the real PrusaSlicer CLI slices test meshes with two Prusa presets."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.printing.conftest import needs_slicer
from workbench_plugins.printing.slicing.gcode_meta import parse_duration
from workbench_plugins.printing.slicing.profiles import resolve_presets


def beam_stl(folder: Path) -> Path:
    """A small watertight beam with holes, like a topopt export (a union of boxes)."""
    import trimesh

    bar = trimesh.creation.box((60.0, 8.0, 5.0))
    web = [trimesh.creation.box((4.0, 8.0, 14.0)) for _ in range(3)]
    for i, part in enumerate(web):
        part.apply_translation((-24 + 24 * i, 0, 4.5))
    top = trimesh.creation.box((60.0, 8.0, 3.0))
    top.apply_translation((0, 0, 10))
    mesh = trimesh.boolean.union([bar, top, *web], engine="manifold")
    mesh.apply_translation((0, 0, -mesh.bounds[0][2]))
    assert mesh.is_watertight
    path = folder / "beam.stl"
    mesh.export(path)
    return path


def test_presets_resolve_inheritance_into_one_config() -> None:
    mk3s = resolve_presets("MK3S")
    assert mk3s.printer_model == "MK3S"
    assert mk3s.print == "0.15mm QUALITY @MK3" and mk3s.filament == "Prusament PLA"
    # from *common* far up the printer chain, and the print chain's own layer height
    assert "M862.3" in mk3s.config["start_gcode"]
    assert mk3s.config["layer_height"] == "0.15"
    assert "inherits" not in mk3s.config
    mini = resolve_presets("MINI", "0.20mm QUALITY @MINI")
    assert mini.printer_model == "MINI" and mini.config["layer_height"] == "0.2"
    assert max(x for x, _ in mini.bed_shape) == 180


def test_unknown_preset_is_named() -> None:
    from workbench_plugins.printing.slicing.profiles import ProfileError

    with pytest.raises(ProfileError, match=r"no print preset '0\.99mm NOPE'"):
        resolve_presets("MK3S", "0.99mm NOPE")


def test_durations() -> None:
    assert parse_duration("37m 46s") == 37 * 60 + 46
    assert parse_duration("1d 2h 3m 4s") == 93784
    assert parse_duration("") is None


@needs_slicer
@pytest.mark.slow
@pytest.mark.parametrize(
    ("printer", "print_preset", "model"),
    [("MK3S", "0.20mm QUALITY @MK3", "MK3S"), ("MINI", "0.20mm QUALITY @MINI", "MINI")],
)
def test_slice_cube_and_beam_with_two_presets(
    app: object, cube_stl: Path, tmp_path: Path, printer: str, print_preset: str, model: str
) -> None:
    registry = app.registry  # type: ignore[attr-defined]
    for stl in (cube_stl, beam_stl(tmp_path)):
        outcome = registry.call(
            "slice_model",
            {"stl_path": str(stl), "printer": printer, "print_preset": print_preset},
            caller="test",
            confirmed=True,  # the STL lies outside the workspace
        )
        assert outcome.ok, outcome.error
        result = outcome.result
        assert result["printer_model"] == model
        assert result["printer_check"] == f'M862.3 P "{model}"'
        assert result["layer_height"] == pytest.approx(0.2)
        assert result["estimated_time_s"] > 60
        assert result["filament_g"] > 0.5 and result["filament_mm"] > 100
        assert result["layers"] > 20
        gcode = Path(result["gcode_path"])
        commands = [
            line.split(";")[0].strip()
            for line in gcode.read_text().splitlines()
            if line.split(";")[0].strip()
        ]
        first_action = next(
            i for i, c in enumerate(commands) if c.split()[0] in {"G1", "G28", "M104", "M140"}
        )
        checks = [i for i, c in enumerate(commands) if c.startswith("M862.3")]
        assert checks and checks[0] < first_action
        assert commands[checks[0]] == f'M862.3 P "{model}"'


@needs_slicer
@pytest.mark.parametrize(
    ("mesh", "message"),
    [("empty", "no triangles"), ("open", "not a closed"), ("huge", "build volume")],
)
def test_bad_meshes_give_clear_errors(app: object, tmp_path: Path, mesh: str, message: str) -> None:
    import trimesh

    path = tmp_path / f"{mesh}.stl"
    if mesh == "empty":
        path.write_text("solid empty\nendsolid empty\n")
    else:
        box = trimesh.creation.box((400.0, 20, 20) if mesh == "huge" else (20.0, 20, 20))
        if mesh == "open":
            box.update_faces([True] * 10 + [False] * 2)
        box.export(path)
    outcome = app.registry.call(  # type: ignore[attr-defined]
        "slice_model", {"stl_path": str(path), "printer": "MK3S"}, caller="test", confirmed=True
    )
    assert not outcome.ok
    assert outcome.error.kind == "failed"
    assert message in outcome.error.message
    assert not list((tmp_path).glob("*.gcode"))


@needs_slicer
def test_slicing_can_be_cancelled(app: object, cube_stl: Path) -> None:
    from workbench.core.jobs import JobCancelled
    from workbench_plugins.printing.slicing.profiles import write_ini
    from workbench_plugins.printing.slicing.slicer import slice_job

    presets = resolve_presets("MK3S")
    ini = write_ini(presets, cube_stl.with_suffix(".ini"))
    out = cube_stl.with_suffix(".gcode")
    jobs = app.jobs  # type: ignore[attr-defined]
    job = jobs.submit(
        slice_job, str(cube_stl), str(ini), str(out), "prusa-slicer", presets.bed_shape, 210.0
    )
    job.cancel()
    with pytest.raises(JobCancelled):
        job.result(10)
    assert not out.exists()


@needs_slicer
@pytest.mark.slow
def test_slice_a_beam_exported_by_the_topopt_tools(app: object) -> None:
    """The design-to-print path through the registry: optimise, export STL, slice on a MINI."""
    registry = app.registry  # type: ignore[attr-defined]
    config = {"volfrac": 0.4, "forcedist": 0.65, "rmin": 4.0, "nelx": 60, "nely": 20}
    optimised = registry.call(
        "optimize_design", {"problem_type": "beams2d", "problem_config": config}, caller="test"
    )
    assert optimised.ok, optimised.error
    exported = registry.call(
        "convert_design_to_stl",
        {"npy_file_path": optimised.result["save_path"], "scale_xy": 1.0, "scale_z": 5.0},
        caller="test",
    )
    assert exported.ok and exported.result["is_watertight"], exported.error
    sliced = registry.call(
        "slice_model",
        {
            "stl_path": exported.result["stl_path"],
            "printer": "MINI",
            "print_preset": "0.20mm QUALITY @MINI",
        },
        caller="test",
    )
    assert sliced.ok, sliced.error
    assert sliced.result["printer_check"] == 'M862.3 P "MINI"' and sliced.result["layers"] >= 20
